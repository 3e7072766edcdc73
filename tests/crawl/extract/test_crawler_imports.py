"""What a docs crawl's processes import: the crawler of a single-publisher crawl never loads datasketch (numpy,
scipy: ~50 MB of its memory) nor trafilatura (its workers extract), and an extraction worker — its initializer
in the executor module, the one-call page function — never loads Scrapy or Twisted (~46 MB a worker)."""

from __future__ import annotations

import subprocess
import sys

import pytest

CASES = [
    # the crawler: the spider, every pipeline of a docs crawl, the fingerprint stage that replaces consensus, the
    # add-ons every crawl loads (a crawl without SKILL3_REDIS_URL never loads scrapy-redis nor redis: ~7 MB)
    ("skill3crawl.spiders.docs, skill3crawl.pipelines, skill3crawl.sitecrawl.pipelines, skill3crawl.settings, "
     "skill3crawl.distributed.addon, skill3crawl.jsrender",
     ("datasketch", "numpy", "scipy", "trafilatura", "justext", "scrapy_redis", "redis")),
    # the extraction worker: process_page and what it calls
    ("skill3crawl.extract.executor, skill3crawl.extract.page, skill3crawl.extract.content, skill3crawl.extract.dates",
     ("scrapy", "twisted", "datasketch")),
]


@pytest.mark.parametrize("modules, absent", CASES)
def test_process_imports(modules: str, absent: tuple[str, ...]) -> None:
    code = f"import sys, {modules}; print(','.join(m for m in {absent!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "", f"{modules} imported {out.stdout.strip()}"


def _loaded(prefixes: tuple[str, ...]) -> list[str]:
    return sorted(p for p in prefixes if p in sys.modules)


def test_a_real_extraction_worker_runs_without_scrapy() -> None:
    """The pool's worker as the crawl starts it (spawned, its initializer run), after one page through process_page."""
    import asyncio
    from datetime import date

    from skill3crawl.extract.executor import Extractor
    from skill3crawl.extract.page import PageContext, process_page

    html = "<html><head><title>t</title></head><body><main><h1>T</h1><p>Added in version 2.0.</p></main></body></html>"
    ext = Extractor(1)
    try:
        loop = asyncio.new_event_loop()
        try:
            page = loop.run_until_complete(ext.run(process_page, html, "http://docs.example/a.html",
                                                   PageContext(today=date(2026, 1, 1))))
            loaded = loop.run_until_complete(ext.run(_loaded, ("scrapy", "twisted", "datasketch")))
        finally:
            loop.close()
    finally:
        ext.close()
    assert page["content"] is not None
    assert loaded == []


def test_consensus_index_still_builds() -> None:
    """The index imports datasketch when it is built."""
    from synth.evidence.consensus import ConsensusIndex

    index = ConsensusIndex()
    a = index.add("the quick brown fox jumps over the lazy dog", "a.example", 0.5)
    b = index.add("the quick brown fox jumps over the lazy dog", "b.example", 0.5)
    assert a.cluster == b.cluster and index.agreement(a.cluster) == 2


LAZY_CASES = [
    # (code run after lazy_package("extruct"), what it prints)
    ("from extruct.jsonld import JsonLdExtractor; from extruct.opengraph import OpenGraphExtractor; "
     "print(sorted(m for m in ('rdflib', 'mf2py', 'bs4', 'pyRdfa') if m in sys.modules))", "[]"),
    ("import extruct; print(callable(extruct.extract), 'rdflib' in sys.modules)", "True True"),
    ("from extruct import MicrodataExtractor, extract; print(MicrodataExtractor.__name__, extract.__module__)",
     "LxmlMicrodataExtractor extruct._extruct"),  # extruct's own alias, as a normal import gives
    ("import extruct.jsonld, extruct; print(hasattr(extruct, 'no_such_name'), 'rdflib' in sys.modules)", "False True"),
]


@pytest.mark.parametrize("code, printed", LAZY_CASES)
def test_lazy_package_loads_submodules_alone_and_the_rest_on_demand(code: str, printed: str) -> None:
    prog = f"import sys; from skill3crawl.extract.executor import lazy_package; lazy_package('extruct'); {code}"
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == printed


DATED = """<html><head><title>Release</title>
<meta property="article:published_time" content="2024-03-05T10:00:00Z">
<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Article",
 "datePublished": "2024-03-04", "dateModified": "2024-06-01"}</script></head>
<body><main><h1>Release 3.2</h1><p>Released on 4 March 2024. Added in version 3.2.</p></main></body></html>"""


def test_a_pages_dates_are_the_same_with_the_lazy_package() -> None:
    """JSON-LD and Open Graph dates read through the lazily imported package equal a normal import's."""
    prog = ("import json, sys, datetime; from skill3crawl.extract.executor import lazy_package\n"
            "if sys.argv[1] == 'lazy': lazy_package('extruct')\n"
            "from skill3crawl.extract.dates import page_dates\n"
            "r = page_dates(sys.stdin.read(), 'http://docs.example/r.html', {}, today=datetime.date(2026, 1, 1))\n"
            "print(json.dumps(r, sort_keys=True, default=str))")
    outs = [subprocess.run([sys.executable, "-c", prog, mode], input=DATED, capture_output=True, text=True, timeout=120,
                           check=True).stdout for mode in ("lazy", "normal")]
    assert outs[0] == outs[1] and '"modified": "2024-06-01"' in outs[0] and '"published": "2024-03-05"' in outs[0]


@pytest.mark.parametrize("pages, trims", [(1, 0), (63, 0), (64, 1), (130, 2)])
def test_the_crawler_hands_freed_memory_back_every_64_pages(pages: int, trims: int) -> None:
    import asyncio

    from skill3crawl.extract import executor

    ext = executor.Extractor(1)
    calls: list[int] = []

    def trim(pad: int) -> int:  # counts the crawler's own trims (the pool's run in the worker)
        calls.append(pad)
        return 1

    async def crawl() -> list[int]:
        return list(await asyncio.gather(*(ext.run(abs, -i) for i in range(pages))))

    ext._trim = trim
    try:
        got = asyncio.run(crawl())
    finally:
        ext.close()
    assert got == list(range(pages)) and len(calls) == trims and executor.CRAWLER_TRIM_EVERY == 64


def test_the_crawlers_extensions_load_without_aiohttp() -> None:
    """Every extension a docs crawl's settings enable (the docs-mode defaults applied: they add the progress
    extension, comparing it with each entry), loaded as Scrapy's ExtensionManager loads them: Scrapy's
    remote control (off) is not even imported (its module imports aiohttp, ~7.5 MB)."""
    code = ("import sys; from scrapy.settings import Settings; from scrapy.utils.conf import build_component_list; "
            "from scrapy.utils.misc import load_object; from skill3crawl.sitecrawl.crawl import apply_docs_settings; "
            "s = Settings(); s.setmodule('skill3crawl.settings'); apply_docs_settings(s); "
            "names = [load_object(c).__name__ for c in build_component_list(s.getwithbase('EXTENSIONS'))]; "
            "print('CrawlOutput' in names, 'aiohttp' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "True False"
