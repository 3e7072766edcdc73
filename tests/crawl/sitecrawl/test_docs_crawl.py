"""Docs mode over loopback: real `scrapy crawl docs` runs, asserting what the server saw and what was written."""

from __future__ import annotations

import signal
import subprocess
import time

import pytest

from synth.evidence.consensus import item_snippets
from synth.evidence.shingles import snippet_tokens
from tests.crawl.docs_mode import ROOT, CrawlResult, crawl_cmd, crawl_env
from tests.harness import run_cmd
from tests.mockserver import MockServer, bind, generated_site, html

HTML = "text/html; charset=utf-8"
PROSE = "<p>This paragraph explains the configuration of the example service in enough words to be real content.</p>" * 3
GUIDE_MD = (
    "# Guide\n\nInstall the tool and configure it. This guide walks through installing, configuring and running the tool "
    "on a fresh machine, with the options that matter most for a first deployment and what each one changes.\n\n"
    "```python title=\"x.py\"\ndef f(x):\n\treturn  x  # tab and two spaces\n```\n\n"
    "## Next\n\nMore words about the next step.\n"
)


def page(title: str, body: str, head: str = "") -> tuple[int, str, bytes]:
    return 200, HTML, html(title, f"<div role='main'><h1>{title}</h1>{PROSE}{body}</div>", head)


def docs_site() -> dict:
    return {
        "/robots.txt": (200, "text/plain", b"User-agent: *\nAllow: /\nSitemap: SITE/sitemap_index.xml\n"),
        "/sitemap_index.xml": (200, "application/xml", b"<?xml version='1.0'?><sitemapindex xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>"
                               b"<sitemap><loc>SITE/sitemap-docs.xml</loc></sitemap><sitemap><loc>SITE/sitemap-blog.xml</loc></sitemap></sitemapindex>"),
        "/sitemap-docs.xml": (200, "application/xml", b"<?xml version='1.0'?><urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>"
                              b"<url><loc>SITE/docs/a.html</loc><lastmod>2026-03-04T10:00:00+00:00</lastmod></url>"
                              b"<url><loc>SITE/docs/b.html</loc></url>"
                              b"<url><loc>SITE/docs/ja/a.html</loc></url>"
                              b"<url><loc>SITE/blog/x.html</loc></url></urlset>"),
        "/sitemap-blog.xml": (200, "application/xml", b"<?xml version='1.0'?><urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>"
                              b"<url><loc>SITE/blog/y.html</loc></url></urlset>"),
        "/docs/llms.txt": (200, "text/plain", b"# Example\n\n> Docs.\n\n## Docs\n\n- [Guide](SITE/docs/guide.html): how to\n- [No twin](/docs/nomd.html)\n"),
        "/docs/guide.html.md": (200, "text/markdown; charset=utf-8", GUIDE_MD.encode()),
        "/docs/guide.html": page("Guide html", ""),
        "/docs/nomd.html": page("No twin", ""),
        "/docs/": page("Home", "<a href='/docs/c.html'>c</a> <a href='/blog/z.html'>blog</a> <a href='/docs/zh-cn/a.html'>中文</a>"),
        "/docs/a.html": page("A", ""),
        "/docs/b.html": page("B", "", "<link rel='canonical' href='SITE/docs/b.html'>"),
        "/docs/c.html": page("C", "<a href='/docs/d.html'>d</a> <a href='/docs/b-alias.html'>alias</a>"),
        "/docs/d.html": page("D", "<a href='/docs/e.html'>e</a>"),
        "/docs/e.html": page("E", ""),
        "/docs/b-alias.html": page("B", "", "<link rel='canonical' href='/docs/b.html'>"),
    }


# `scrapy crawl learn -a start_urls=…` is docs mode too (only its defaults differ).
SPIDERS = [("docs", {}), ("learn", {"topic": "example"})]


@pytest.mark.parametrize("spider,extra", SPIDERS, ids=[s for s, _ in SPIDERS])
def test_docs_mode_discovery_order_scope_and_dedupe(run_crawl, spider, extra):
    server = MockServer()
    server.routes = bind(docs_site(), server.url)
    with server as site:
        res = run_crawl({**extra, "start_urls": f"{site.url}/docs/", "depth_limit": 2}, spider=spider)
    assert res.returncode == 0, res.log[-3000:]
    items = res.items()
    by_url = {i["url"].replace(site.url, ""): i for i in items}
    assert len(by_url) == len(items)
    b_like = {"/docs/b.html", "/docs/b-alias.html"} & set(by_url)
    assert len(b_like) == 1  # one canonical page, one item
    assert set(by_url) - b_like == {"/docs/", "/docs/a.html", "/docs/c.html", "/docs/d.html", "/docs/guide.html", "/docs/nomd.html"}
    # sitemap index followed, lastmod kept as the date signal
    assert by_url["/docs/a.html"]["published"] == "2026-03-04" and by_url["/docs/a.html"]["date_source"] == "sitemap-lastmod"
    assert by_url["/docs/a.html"]["discovery"] == "sitemap"
    # llms.txt: the .md twin preferred (HTML never fetched), fallback to HTML when there is none
    guide = by_url["/docs/guide.html"]
    assert guide["final_url"].endswith("/docs/guide.html.md") and guide["discovery"] == "llms.txt"
    assert site.hits["/docs/guide.html"] == 0
    assert guide["code_blocks"] == [{"text": "def f(x):\n\treturn  x  # tab and two spaces\n", "language": "python"}]
    assert site.hits["/docs/nomd.html.md"] == 1 and site.hits["/docs/nomd.html"] == 1
    # scope: other prefixes and locales never fetched; depth limit stops at e.html (hop 3)
    for path in ("/blog/x.html", "/blog/y.html", "/blog/z.html", "/docs/ja/a.html", "/docs/zh-cn/a.html", "/docs/e.html"):
        assert site.hits[path] == 0, path
    assert max(site.page_hits().values()) == 1
    st = res.stats
    assert st["skill3/dropped/canonical_duplicate"] == 1
    assert st["skill3/dropped/locale"] >= 2 and st["skill3/dropped/outside_prefix"] >= 2 and st["skill3/dropped/depth_limit"] >= 1
    assert "progress: " in res.log and "pages done" in res.log
    # one publisher: fingerprints without the crawl-time consensus index
    assert "SnippetFingerprintPipeline" in res.log and "ConsensusPipeline" not in res.log
    assert all(i["snippet_fingerprints"] and i["consensus_count"] == 1 for i in items)
    assert all(i["snippet_tokens"] == snippet_tokens(item_snippets(i["excerpts"], i["code_blocks"])) for i in items)


def test_max_pages_bounds_fetches(run_crawl):
    server = MockServer()
    server.routes = bind(generated_site(60, sitemap=True), server.url)
    with server as site:
        res = run_crawl({"start_urls": f"{site.url}/docs/", "max_pages": 10})
    assert res.returncode == 0, res.log[-3000:]
    assert sum(site.page_hits().values()) == 10
    assert len(res.items()) == 10
    assert res.stats["skill3/dropped/max_pages"] > 0


@pytest.mark.parametrize("spider,extra,window", [(*SPIDERS[0], 1000), (*SPIDERS[1], 1000), (*SPIDERS[0], 2)],
                         ids=["docs", "learn", "docs-window-2"])
def test_max_pages_counts_pages_written_not_attempts(run_crawl, spider, extra, window):
    """Pages that end without an item (404, not HTML, a canonical duplicate) pass their budget slot on."""
    routes = generated_site(30, sitemap=True)
    for i in (1, 3, 5):
        del routes[f"/docs/p{i}.html"]  # listed in the sitemap, 404
    routes["/docs/p7.html"] = (200, "application/pdf", b"%PDF-1.4")  # not a page
    routes["/docs/p9.html"] = (200, HTML, html("Dup", PROSE, "<link rel='canonical' href='/docs/p0.html'>"))
    server = MockServer()
    server.routes = bind(routes, server.url)
    with server as site:
        res = run_crawl({**extra, "start_urls": f"{site.url}/docs/", "max_pages": 12}, {"SKILL3_PAGE_WINDOW": window}, spider=spider)
    assert res.returncode == 0, res.log[-3000:]
    items = res.items()
    assert len(items) == 12 and len({i["url"] for i in items}) == 12
    hits = site.page_hits()
    assert max(hits.values()) == 1  # no page fetched twice
    assert 12 < sum(hits.values()) <= 12 + 5  # the failed pages were replaced, nothing more was fetched
    assert res.stats["skill3/dropped/max_pages"] > 0


def test_http_cache_on_by_default_rerun_fetches_nothing(run_crawl, tmp_path):
    server = MockServer()
    server.routes = bind(generated_site(15), server.url)
    with server as site:
        first = run_crawl({"start_urls": f"{site.url}/docs/", "output_dir": str(tmp_path / "o1")}, tag="1")
        hits = sum(site.page_hits().values())
        second = run_crawl({"start_urls": f"{site.url}/docs/", "output_dir": str(tmp_path / "o2")}, tag="2")
    assert first.returncode == 0 and second.returncode == 0
    assert hits == 16
    assert sum(site.page_hits().values()) == hits  # nothing re-fetched
    assert second.stats.get("httpcache/hit", 0) >= 16
    assert sorted(i["url"] for i in first.items()) == sorted(i["url"] for i in second.items())


@pytest.mark.parametrize("window,sitemap", [("1000", False), ("4", True)], ids=["links", "sitemap-window-4"])
def test_pause_with_sigint_and_resume_with_jobdir(tmp_path, window, sitemap):
    """SIGINT after some pages, the same command again: every page fetched exactly once, all in run.jsonl
    (window 4 over a sitemap: most pages are still waiting in spider.state when the crawl pauses)."""
    n = 80
    server = MockServer(delay=0.03)
    server.routes = bind(generated_site(n, sitemap=sitemap), server.url)
    out = tmp_path / "out"
    settings = {"JOBDIR": str(tmp_path / "job"), "HTTPCACHE_ENABLED": "0", "HTTPCACHE_DIR": str(tmp_path / "c"),
                "SKILL3_PAGE_WINDOW": window}
    with server as site:
        cmd = crawl_cmd({"start_urls": f"{site.url}/docs/", "output_dir": out, "max_pages": 1000}, settings)
        first = subprocess.Popen(cmd, cwd=ROOT, env=crawl_env(tmp_path, "1"), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while sum(site.page_hits().values()) < 20:
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        first.send_signal(signal.SIGINT)
        _, log1 = first.communicate(timeout=60)
        assert first.returncode == 0, log1[-3000:]
        assert "shutdown" in log1
        after_first = sum(site.page_hits().values())
        paused = CrawlResult(subprocess.CompletedProcess(cmd, 0, "", log1), tmp_path / "stats1.json", out).items()
        assert 20 <= len(paused) < n  # really paused mid-crawl
        second = run_cmd(cmd, env=crawl_env(tmp_path, "2"), timeout=120)  # the resume runs to completion
        assert second.returncode == 0, second.stderr[-3000:]
    hits = site.page_hits()
    assert sum(hits.values()) == n + 1 and max(hits.values()) == 1, [p for p, c in hits.items() if c > 1]
    assert after_first < n + 1
    items = CrawlResult(second, tmp_path / "stats2.json", out).items()
    urls = [i["url"] for i in items]
    assert len(urls) == len(set(urls)) == n + 1  # the feed was appended to on resume: the whole crawl, once
    assert [i["url"] for i in items[: len(paused)]] == [i["url"] for i in paused]


def test_docs_args_authoritative_fallback_and_defaults():
    from skill3crawl.args import parse_args

    def parse_docs_args(raw):
        return parse_args(raw, docs=True)

    a = parse_docs_args({"authoritative": "docs.example.org", "synth": "0"})
    assert a.start_urls == ["https://docs.example.org/"] and a.topic == "docs.example.org"
    b = parse_docs_args({"start_urls": "https://d.example.org/guide/", "synth": "0", "_job": "1"})
    assert b.authoritative == ["d.example.org"] and b.depth_limit == 20 and b.locales == "skip"
