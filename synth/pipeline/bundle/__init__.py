"""The evidence bundle: stream run.jsonl files, recompute consensus, rank, select into a token budget.

Deterministic, no model. Two streaming passes over the files:

1. read every line, re-score freshness against the run's cutoff, drop what the
   rules drop (future-dated; pre-cutoff/undated under ``strict``), and keep only
   the best ``candidates`` items in a bounded heap (de-duplicated by URL);
2. cluster the candidates' snippets (``ExactIndex``: every Jaccard computed
   exactly), then stream every item again and let each snippet *vote* on the
   candidates' clusters through an exact shingle inverted index (no new
   clusters, so memory stays bounded by the candidates, not the crawl). A line
   that cannot vote is skipped unparsed (``_Votes.may_vote``): its snippet tokens,
   written by the crawl at the end of the line, meet no candidate's
   (:mod:`synth.evidence.shingles`), or, without them, its words share no
   3-shingle with any candidate snippet.

A candidate snippet is dropped when it is a low-authority variant of a snippet
an authoritative source (≥0.8) published anywhere in the run.

Tokens are counted with a documented heuristic, no tokenizer download:
``ceil(chars / 3.5)`` — about 4 characters per token for English prose with
BPE vocabularies (OpenAI, Gemma, Llama), fewer for code and non-Latin text, so
3.5 over-estimates on purpose: a bundle that fits by this count fits the model.

The bundle itself has this shape (``skill_name``,
``target_model``, ``cutoff``, ``sources[]`` with url, authority, published,
post_cutoff, recency_weight, combined_score, consensus_count, excerpts,
code_blocks).

By stage: :mod:`.read` (the run.jsonl lines, each checked), :mod:`.candidate` (the ranked unit, its key and score),
:mod:`.vote` (the consensus vote), :mod:`.rank` (the two passes), :mod:`.select` (the budget, the bundle dict).
"""

from synth.evidence.consensus import item_snippets
from synth.evidence.item import SourceItem
from synth.evidence.shingles import fast_shingles, lower_words
from synth.pipeline.bundle.candidate import CANDIDATES_PER_SOURCE, DEFAULT_MAX_SOURCES, RELEVANCE_FLOOR, Candidate
from synth.pipeline.bundle.rank import (
    HEAP_SLACK,
    MAX_ENTRIES_PER_SOURCE,
    MAX_RELEASE_PAGES,
    OWN_DATE_SIGNALS,
    Ranked,
    Subject,
    _Heap,
    own_page_date,
    rank_sources,
    score_item,
)
from synth.pipeline.bundle.read import MAX_LINE_BYTES, MAX_REPORTED_MALFORMED, BundleError, ReadReport, iter_items
from synth.pipeline.bundle.select import (
    MIN_SOURCE_TOKENS,
    Bundle,
    BundleDelta,
    Selection,
    _fair_shares,
    post_versions,
    ranking_rows,
    render_source,
    select_evidence,
    source_rows,
    source_tokens,
    to_bundle,
)
from synth.pipeline.bundle.vote import MAX_HOSTS_PER_CLUSTER, STRUCTURE_ONLY_BELOW, _Votes
from synth.skill.size import CHARS_PER_TOKEN, estimate_tokens

# The names other modules, tests and bench/ import from ``synth.pipeline.bundle`` (the private ones by tests).
__all__ = [
    "CANDIDATES_PER_SOURCE", "CHARS_PER_TOKEN", "DEFAULT_MAX_SOURCES", "HEAP_SLACK", "MAX_ENTRIES_PER_SOURCE",
    "MAX_HOSTS_PER_CLUSTER", "MAX_LINE_BYTES", "MAX_RELEASE_PAGES", "MAX_REPORTED_MALFORMED", "MIN_SOURCE_TOKENS",
    "OWN_DATE_SIGNALS", "RELEVANCE_FLOOR", "STRUCTURE_ONLY_BELOW",
    "Bundle", "BundleDelta", "BundleError", "Candidate", "Ranked", "ReadReport", "Selection", "SourceItem", "Subject",
    "_Heap", "_Votes", "_fair_shares",
    "estimate_tokens", "fast_shingles", "item_snippets", "iter_items", "lower_words", "own_page_date", "rank_sources",
    "post_versions", "ranking_rows", "render_source", "score_item", "select_evidence", "source_rows", "source_tokens",
    "to_bundle",
]
