"""`skill3 learn` on a terminal: one live progress line while it crawls (rich), erased at the end, where the
one-line summary stands; nothing of it when stderr is not a terminal. Run under a real pseudo-terminal."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

from scrapy.settings import Settings

from skill3crawl.progress import live_line, live_wanted
from tests.harness import crawl_env, skill3
from tests.mockserver import MockServer, html

REPO = Path(__file__).resolve().parents[2]
TEXT = "<p>" + "Documentation text of the alpha toolkit that a reader can use on its own, with details. " * 6 + "</p>"


def run_in_pty(argv: list[str], env: dict, timeout: float = 180) -> tuple[int, str]:
    """Run ``argv`` with stdout and stderr on a pseudo-terminal; (exit code, everything it wrote)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env, cwd=REPO, close_fds=True)
    os.close(slave)
    out = bytearray()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    os.close(master)
    return proc.wait(timeout=30), out.decode("utf-8", errors="replace")


def site() -> MockServer:
    pages = {f"/docs/p{i}.html": (200, "text/html; charset=utf-8", html(f"Page {i}", f"<main><h1>Page {i}</h1>{TEXT}"
             + "".join(f"<a href='/docs/p{j}.html'>p{j}</a>" for j in range(8)) + "</main>")) for i in range(8)}
    pages["/robots.txt"] = (200, "text/plain", b"User-agent: *\nAllow: /\n")
    return MockServer(pages, delay=0.4)  # slow pages: the crawl lasts a few seconds, the line is redrawn


def learn_argv(url: str, out: Path) -> list[str]:
    return [sys.executable, "-m", "skill3", "learn", "alpha", "--start-urls", url, "--cutoff-time", "2026-01",
            "--llm-provider", "extractive", "--output-dir", str(out), "--max-pages", "6",
            "-s", "SKILL3_REGISTRIES=", "-s", "DOWNLOAD_DELAY=0", "-s", "AUTOTHROTTLE_ENABLED=0", "-s", "SKILL3_JS=never",
            "-s", "SKILL3_EXTRACT_WORKERS=0", "-s", "HTTPCACHE_ENABLED=0"]


def test_a_live_line_on_a_terminal_and_one_summary_line(tmp_path):
    with site() as s:
        code, out = run_in_pty(learn_argv(f"{s.url}/docs/p0.html", tmp_path / "out"),
                               crawl_env({"SKILL3_ALLOW_PRIVATE_NETWORKS": "1", "COLUMNS": "160"}))
    assert code == 0, out[-3000:]
    frames = re.findall(r"crawling: (\d+)% of 6 pages(?: · ETA \d+:\d\d)? · (\d+) fetched · (\d+) written · (\d+) dropped · "
                        r"[\d.]+ pages/s · budget left (\d+)", out)
    assert len(frames) >= 2, out[-3000:]  # redrawn while it crawled
    assert any(int(f[1]) > 0 for f in frames) and all(int(f[2]) + int(f[4]) == 6 for f in frames)
    assert all(int(f[0]) == 100 * int(f[2]) // 6 for f in frames)  # the share of the page budget written
    assert re.search(r"· ETA \d+:\d\d", out), out[-3000:]  # once a page is written: the time left at that rate
    assert out.count("skill3 crawl summary:") == 1  # the one line at the end
    # then the synthesis, step by step, each with its duration
    steps = re.findall(r"skill3 synth: ✓ ([a-z -]+?) \d+\.\d\d s", out)
    assert steps[:2] == ["ranking", "input vetting"] and "lint and vet" in steps and steps[-1] == "writing", steps
    assert "Traceback" not in out


def test_no_live_line_when_stderr_is_not_a_terminal(tmp_path):
    with site() as s:
        r = skill3(*learn_argv(f"{s.url}/docs/p0.html", tmp_path / "out")[3:], env={"SKILL3_ALLOW_PRIVATE_NETWORKS": "1"})
    assert r.returncode == 0, r.stderr[-3000:]
    assert "crawling:" not in r.stderr and r.stderr.count("skill3 crawl summary:") == 1
    assert "✓" not in r.stderr  # the synthesis steps too: plain


class Tty:
    def isatty(self) -> bool:
        return True


def test_when_the_line_is_drawn():
    assert live_wanted(Settings({"LOG_LEVEL": "WARNING"}), Tty())
    assert not live_wanted(Settings({"LOG_LEVEL": "INFO"}), Tty())  # the log shows the progress lines itself
    assert not live_wanted(Settings({"LOG_LEVEL": "WARNING", "SKILL3_LIVE_PROGRESS": "0"}), Tty())
    assert not live_wanted(Settings({"LOG_LEVEL": "WARNING"}), object())  # not a terminal
    assert live_line(120, 80, 7, 12.34, 120, 75.2) == (
        "crawling: 120 fetched · 80 written · 7 dropped · 12.3 pages/s · budget left 120 · 1:15")


def test_the_live_line_shows_the_share_of_the_budget_and_the_time_left():
    # 50 of 200 pages written in 100 s: 25 %, 150 pages left at 2 s a page
    assert live_line(60, 50, 3, 0.6, 150, 100.0, 200) == (
        "crawling: 25% of 200 pages · ETA 5:00 · 60 fetched · 50 written · 3 dropped · 0.6 pages/s · budget left 150 · 1:40")
    assert live_line(0, 0, 0, 0.0, 200, 2.0, 200).startswith("crawling: 0% of 200 pages · 0 fetched")  # no rate yet: no ETA
    # a corpus is written as it is read: what is written counts as fetched (never "0 fetched" beside items written)
    assert " 6 fetched · 6 written" in live_line(0, 6, 0, 3.0, 194, 2.0, 200)
    assert "ETA 1:15:00" in live_line(10, 10, 0, 0.02, 90, 500.0, 100)  # 50 s a page, 90 pages left
