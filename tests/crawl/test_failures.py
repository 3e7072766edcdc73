"""Failures are counted and told in one line: decompression bombs, unresolvable hosts, robots.txt answering 5xx."""

from __future__ import annotations

import gzip
import json

import pytest

from tests.crawl.conftest import read_jsonl, scrapy_crawl
from tests.mockserver import MockServer, sphinx_page

FAST = {"DOWNLOAD_DELAY": "0", "AUTOTHROTTLE_ENABLED": "0", "SKILL3_JS": "never", "RETRY_TIMES": "1", "LOG_LEVEL": "INFO",
        "SKILL3_EXTRACT_WORKERS": "2"}  # docs mode's extraction pool, as users run it
ENV = {"SKILL3_ALLOW_PRIVATE_NETWORKS": "1"}
BOMB = gzip.compress(b"<html><body>" + b"A" * (6 * 1024 * 1024) + b"</body></html>")  # ~6 KB → 6 MiB


def site(robots_status: int = 200, robots: str = "User-agent: *\nAllow: /\n"):
    def routes(srv, host, path, query, body):
        html = {"Content-Type": "text/html; charset=utf-8"}
        if path == "/robots.txt":
            return robots_status, {"Content-Type": "text/plain"}, robots if robots_status == 200 else "oops"
        if path == "/docs/":
            return 200, html, sphinx_page(0, 1).replace(b"</section>", b"<a href='bomb.html'>b</a><a href='ok.html'>o</a></section>")
        if path == "/docs/ok.html":
            return 200, html, sphinx_page(5, 9)
        if path == "/docs/bomb.html":
            return 200, {**html, "Content-Encoding": "gzip"}, BOMB
        return 404, {"Content-Type": "text/plain"}, "not found"

    return MockServer(name="site", routes=routes).start()


def test_bomb_counted_and_an_unresolvable_host_is_one_line_not_retried(tmp_path):
    srv = site()
    out = tmp_path / "out"
    try:
        proc = scrapy_crawl("topic=widgets", f"start_urls=http://127.0.0.1:{srv.port}/docs/,http://no-such-host.invalid/docs/",
                            "synth=0", f"output_dir={out}", "cutoff_time=2025-12", settings=FAST, env=ENV, timeout=120)
    finally:
        srv.stop()
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert sorted(i["url"].rsplit("/", 1)[1] for i in read_jsonl(out / "run.jsonl")) == ["", "ok.html"]
    summary = json.loads((out / "crawl.json").read_text())["summary"]
    assert summary["dropped"].get("oversized") == 1  # refused at DOWNLOAD_MAXSIZE while decompressing, and counted
    assert summary["failed"].get("dns") == 1
    assert "Traceback" not in proc.stderr and "AlreadyCalledError" not in proc.stderr  # docs mode: a process pool
    told = [line for line in proc.stderr.splitlines() if "no-such-host.invalid" in line and (" WARNING: " in line or " ERROR: " in line)]
    assert len(told) == 1 and "DNS lookup failed" in told[0], told
    assert "Retrying" not in proc.stderr  # a name that does not resolve is not asked again


@pytest.mark.parametrize("status, robots", [(503, ""), (500, ""), (200, "User-agent: *\nDisallow: /\n")],
                         ids=["503", "500", "disallow-all"])
def test_robots_txt_answering_5xx_disallows_the_host(tmp_path, status, robots):
    """RFC 9309: robots.txt unreachable (5xx) → complete disallow, like a robots.txt disallowing all. Also
    the host's first requests, which wait for robots.txt together, are all checked against it."""
    srv = site(robots_status=status, robots=robots)
    out = tmp_path / "out"
    try:
        proc = scrapy_crawl("topic=widgets", f"start_urls=http://127.0.0.1:{srv.port}/docs/", "synth=0", f"output_dir={out}",
                            "cutoff_time=2025-12", settings=FAST, env=ENV, timeout=120)
    finally:
        srv.stop()
    assert [p for p in srv.paths() if p != "/robots.txt"] == []  # no page, no llms.txt was fetched
    assert proc.returncode == 1, proc.stderr[-3000:]  # nothing usable: every page was disallowed
    summary = json.loads((out / "crawl.json").read_text())["summary"]
    assert summary["robots_denied"] >= 2  # the start page and llms.txt
    if status >= 500:
        assert summary["robots_unavailable"] == 1
        assert f"answered HTTP {status}: nothing on that host is fetched" in proc.stderr
