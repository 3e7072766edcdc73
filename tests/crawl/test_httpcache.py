"""The HTTP cache: docs-mode crawls only, never search results, private on disk."""

from __future__ import annotations

import stat

from tests.crawl.conftest import scrapy_crawl
from tests.mockserver import MockServer, bind, brave_routes, generated_site

FAST = {"DOWNLOAD_DELAY": "0", "AUTOTHROTTLE_ENABLED": "0", "SKILL3_JS": "never"}
ENV = {"SKILL3_ALLOW_PRIVATE_NETWORKS": "1"}


def test_search_mode_rerun_refetches_search_results(tmp_path):
    site = MockServer()
    site.routes = bind(generated_site(4), site.url)
    with site:
        brave = MockServer(name="brave", routes=brave_routes(lambda q: [{"url": f"{site.url}/docs/p{i}.html", "title": f"P{i}", "description": "d"}
                                                          for i in range(3)])).start()
        try:
            for run in (1, 2):
                proc = scrapy_crawl("topic=widgets", f"start_urls={site.url}/docs/", "brave_key=k-1", "synth=0",
                                    f"output_dir={tmp_path / f'o{run}'}", "llm_endpoint=http://127.0.0.1:9/v1", "cutoff_time=2025-12",
                                    settings={**FAST, "HTTPCACHE_DIR": str(tmp_path / "cache")},
                                    env={**ENV, "BRAVE_SEARCH_URL": f"http://127.0.0.1:{brave.port}/res/v1/web/search"}, timeout=120)
                assert proc.returncode == 0, proc.stderr[-3000:]
                assert "httpcache/hit" not in proc.stderr
        finally:
            brave.stop()
    for i in range(3):
        assert site.hits[f"/docs/p{i}.html"] == 2  # each run fetched the search results itself


def test_docs_mode_cache_is_private(tmp_path):
    cache = tmp_path / "cache"
    site = MockServer()
    site.routes = bind(generated_site(5), site.url)
    with site:
        proc = scrapy_crawl("topic=widgets", f"start_urls={site.url}/docs/", "synth=0", f"output_dir={tmp_path / 'o'}",
                            settings={**FAST, "HTTPCACHE_DIR": str(cache)}, env=ENV, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    spider_dir = cache / "learn"
    assert stat.S_IMODE(spider_dir.stat().st_mode) == 0o700
    files = [p for p in spider_dir.rglob("*") if p.is_file()]
    dirs = [p for p in spider_dir.rglob("*") if p.is_dir()]
    assert any(p.name == "response_body" for p in files)
    assert {stat.S_IMODE(p.stat().st_mode) for p in files} == {0o600}
    assert {stat.S_IMODE(p.stat().st_mode) for p in dirs} == {0o700}
