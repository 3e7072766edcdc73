"""What a docs crawl's processes import: the crawler of a single-publisher crawl never loads datasketch (numpy,
scipy: ~50 MB of its memory) nor trafilatura (its workers extract), and an extraction worker — its initializer
in the executor module, the one-call page function — never loads Scrapy or Twisted (~46 MB a worker)."""

from __future__ import annotations

import subprocess
import sys

import pytest

CASES = [
    # the crawler: the spider, every pipeline of a docs crawl, the fingerprint stage that replaces consensus
    ("skill3crawl.spiders.docs, skill3crawl.pipelines, skill3crawl.sitecrawl.pipelines",
     ("datasketch", "numpy", "scipy", "trafilatura", "justext")),
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
