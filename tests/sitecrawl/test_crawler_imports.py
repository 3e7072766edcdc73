"""What a docs crawl's processes import: the crawler of a single-publisher crawl never loads datasketch (numpy,
scipy: ~50 MB of its memory), and the extraction worker's one-call page function never loads Scrapy."""

from __future__ import annotations

import subprocess
import sys

import pytest

CASES = [
    # the crawler: the spider, every pipeline of a docs crawl, the fingerprint stage that replaces consensus
    ("skill3crawl.spiders.docs, skill3crawl.pipelines, skill3crawl.sitecrawl.pipelines", ("datasketch", "numpy", "scipy")),
    # the extraction worker: process_page and what it calls
    ("skill3crawl.extract.page, skill3crawl.extract.content, skill3crawl.extract.dates", ("scrapy", "twisted", "datasketch")),
]


@pytest.mark.parametrize("modules, absent", CASES)
def test_process_imports(modules: str, absent: tuple[str, ...]) -> None:
    code = f"import sys, {modules}; print(','.join(m for m in {absent!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "", f"{modules} imported {out.stdout.strip()}"


def test_consensus_index_still_builds() -> None:
    """The index imports datasketch when it is built."""
    from synth.evidence.consensus import ConsensusIndex

    index = ConsensusIndex()
    a = index.add("the quick brown fox jumps over the lazy dog", "a.example", 0.5)
    b = index.add("the quick brown fox jumps over the lazy dog", "b.example", 0.5)
    assert a.cluster == b.cluster and index.agreement(a.cluster) == 2
