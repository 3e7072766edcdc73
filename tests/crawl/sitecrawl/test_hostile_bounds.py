"""Round four, item 6: every loop of the docs crawl is bounded, over real Scrapy crawls on loopback sites.

- a sitemap index that lists itself and an endless tree of nested indexes (50 per level): the crawl stops
  quickly, fetching at most ``MAX_SITEMAPS`` sitemaps, none past ``MAX_SITEMAP_DEPTH``;
- a robots.txt that drips one byte a second: the crawl reaches its pages within seconds, and robots.txt is
  downloaded by the robots middleware only (the docs crawl's own robots.txt request is answered from it)."""

from __future__ import annotations

import time

from skill3crawl.middlewares import ROBOTS_RETRIES, ROBOTS_TIMEOUT
from skill3crawl.sitecrawl.sitemap import MAX_SITEMAP_DEPTH, MAX_SITEMAPS
from tests.mockserver import MockServer, html

HTML = "text/html; charset=utf-8"
PROSE = "<p>This paragraph explains the configuration of the example service in enough words to be real content.</p>" * 3
INDEX = "<?xml version='1.0'?><sitemapindex xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>{}</sitemapindex>"


def _page(n: str) -> bytes:
    return html(f"Page {n}", f"<div role='main'><h1>Page {n}</h1>{PROSE}</div>")


def endless_sitemaps(srv, host, path, query, body):
    base = srv.url
    if path == "/robots.txt":
        return 200, {"Content-Type": "text/plain"}, f"User-agent: *\nAllow: /\nSitemap: {base}/sitemap.xml\n"
    if path == "/sitemap.xml" or path.startswith("/sm"):
        me = path.removesuffix(".xml")
        children = [f"{base}/sitemap.xml"] + [f"{base}{'/sm' if me == '/sitemap' else me}-{k}.xml" for k in range(50)]
        return 200, {"Content-Type": "application/xml"}, INDEX.format("".join(f"<sitemap><loc>{u}</loc></sitemap>" for u in children))
    if path.startswith("/docs/"):
        return 200, {"Content-Type": HTML}, _page(path)
    return 404, {"Content-Type": "text/plain"}, "not found"


def test_an_endless_sitemap_tree_stops_quickly(run_crawl):
    with MockServer(routes=endless_sitemaps) as site:
        t0 = time.monotonic()
        res = run_crawl({"start_urls": f"{site.url}/docs/", "max_pages": 30}, timeout=120)
        took = time.monotonic() - t0
        fetched = [s.path for s in site.seen if s.path.endswith(".xml")]
    assert res.returncode == 0, res.log[-3000:]
    assert len(fetched) <= MAX_SITEMAPS and len(set(fetched)) == len(fetched), len(fetched)
    assert max(p.count("-") for p in fetched) <= MAX_SITEMAP_DEPTH  # /sm-1-2-3.xml is three indexes deep
    assert res.stats.get("skill3/dropped/sitemap_limit", 0) + res.stats.get("skill3/dropped/sitemap_depth", 0) > 0
    assert took < 60, took


def dripping_robots(srv, host, path, query, body):
    if path == "/robots.txt":
        def drip():
            for ch in b"User-agent: *\nAllow: /\n" + b"#" * 400:
                time.sleep(1.0)
                yield bytes([ch])
        return 200, {"Content-Type": "text/plain", "Content-Length": "423"}, drip()
    if path.startswith("/docs/"):
        return 200, {"Content-Type": HTML}, _page(path)
    return 404, {"Content-Type": "text/plain"}, "not found"


def test_a_dripping_robots_txt_holds_the_crawl_seconds_not_minutes(run_crawl):
    with MockServer(routes=dripping_robots) as site:
        t0 = time.monotonic()
        res = run_crawl({"start_urls": f"{site.url}/docs/", "max_pages": 3}, settings={"DOWNLOAD_TIMEOUT": "30"}, timeout=240)
        first_page = min((s.t for s in site.seen if s.path.startswith("/docs/")), default=None)
        robots = site.hits["/robots.txt"]
        started = min(s.t for s in site.seen)
    assert res.returncode == 0, res.log[-3000:]
    assert first_page is not None and first_page - started < (1 + ROBOTS_RETRIES) * ROBOTS_TIMEOUT + 10
    assert robots <= 1 + ROBOTS_RETRIES, robots  # the middleware's tries only: never downloaded a second time
    assert time.monotonic() - t0 < 90
