"""`kill -9` mid-crawl, then the same command with the same JOBDIR: the crawl resumes from the state saved
as it went (not from scratch), and the extraction pool's workers died with the crawl."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from tests.crawl.docs_mode import ROOT, CrawlResult, crawl_cmd, crawl_env
from tests.harness import run_cmd
from tests.mockserver import MockServer, bind, generated_site


def children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def alive(pid: int) -> bool:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"


def test_kill_9_then_resume_fetches_no_page_twice_beyond_the_window_and_leaves_no_orphans(tmp_path):
    n, window = 80, 4
    server = MockServer(delay=0.03)
    server.routes = bind(generated_site(n, sitemap=True), server.url)
    out = tmp_path / "out"
    settings = {"JOBDIR": str(tmp_path / "job"), "HTTPCACHE_ENABLED": "0", "HTTPCACHE_DIR": str(tmp_path / "c"),
                "SKILL3_PAGE_WINDOW": str(window), "SKILL3_EXTRACT_WORKERS": "2", "SKILL3_STATE_SAVE_INTERVAL": "0.05"}
    with server as site:
        cmd = crawl_cmd({"start_urls": f"{site.url}/docs/", "output_dir": out, "max_pages": 1000}, settings)
        first = subprocess.Popen(cmd, cwd=ROOT, env=crawl_env(tmp_path, "1"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 90
            while sum(site.page_hits().values()) < 25:
                assert first.poll() is None and time.monotonic() < deadline
                time.sleep(0.02)
            workers = children(first.pid)
            assert len(workers) >= 2  # the spawned extraction workers (and the resource tracker)
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=10)
        finally:
            if first.poll() is None:
                first.kill()
        deadline = time.monotonic() + 10
        while any(alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        orphans = [w for w in workers if alive(w)]
        for w in orphans:  # leave nothing behind, then fail
            os.kill(w, signal.SIGKILL)
        assert not orphans, "extraction workers outlived the killed crawl"
        before = dict(site.page_hits())
        assert sum(before.values()) < n + 1  # really killed mid-crawl
        second = run_cmd(cmd, env=crawl_env(tmp_path, "2"), timeout=180)  # the resume runs to completion
        assert second.returncode == 0, second.stderr[-3000:]
    assert "was killed; resuming from its saved state" in second.stderr
    hits = site.page_hits()
    assert set(hits) == set(before) | set(hits) and len(hits) == n + 1  # every page fetched
    twice = [p for p, c in hits.items() if c > 1]
    assert max(hits.values()) <= 2
    # refetched: only pages in flight at the last save (≤ window) or requested after it (a 0.05 s interval)
    assert len(twice) <= window + 2, twice
    items = CrawlResult(second, tmp_path / "stats2.json", out).items()
    urls = [i["url"] for i in items]
    assert len(urls) == len(set(urls)) == n + 1  # the resumed feed holds the whole crawl, each page once
