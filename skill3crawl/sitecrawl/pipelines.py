"""Docs-mode pipeline stage: snippet fingerprints without the crawl-time consensus index.

A docs-mode crawl of a single publisher (every start URL under one registrable
domain) cannot observe agreement between independent hosts, so the crawl-time
:class:`~synth.evidence.consensus.ConsensusIndex` would only hold one cluster per snippet in
memory for nothing (≈4 KB each: 20,000 pages ≈ 140,000 snippets ≈ 600 MB) — synthesis
recomputes consensus over the whole run anyway. This stage writes the same
``snippet_fingerprints`` (and ``snippet_tokens``) and ``consensus_count = 1`` in constant memory.
:func:`skill3crawl.sitecrawl.crawl.apply_docs_settings` puts it in place of
``ConsensusPipeline`` only for single-publisher crawls; crawls spanning several
independent hosts keep the index.
"""

from __future__ import annotations

from typing import Any

from synth.evidence.consensus import fingerprint, item_snippets
from synth.evidence.shingles import snippet_tokens


class SnippetFingerprintPipeline:
    def process_item(self, item: Any) -> Any:
        snippets = item_snippets(item.excerpts, item.code_blocks)
        item.snippet_fingerprints = [fingerprint(text) for _kind, text in snippets]
        item.snippet_tokens = snippet_tokens(snippets)
        item.consensus_count = 1
        return item
