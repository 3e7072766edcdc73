"""The ranked unit: a candidate source, its rank key and rank score, and the size of the candidate pool."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from synth.delta.changes import Change
from synth.delta.timeline import parse_day
from synth.evidence.item import SourceItem
from synth.evidence.relevance import BOILERPLATE_PRIOR

DEFAULT_MAX_SOURCES = 12
CANDIDATES_PER_SOURCE = 4  # heap keeps max_sources × this many items
RELEVANCE_FLOOR = 0.4  # rank factor of a page that matches no query term


@dataclass
class Candidate:
    item: SourceItem
    where: str
    authority: float
    recency_weight: float
    post_cutoff: bool
    combined_score: float
    consensus_count: int = 1
    excerpts: list[str] = field(default_factory=list)
    code_blocks: list[dict] = field(default_factory=list)  # {"text","language","consensus"}
    dropped_snippets: list[dict] = field(default_factory=list)
    rank_score: float = 0.0  # combined score × delta × relevance × boilerplate prior × consensus: the ranking order
    relevance: float = 0.0  # BM25 relevance of the page to the topic and queries, 0..1
    boilerplate: bool = False
    build_date: str | None = None  # the host is build-dated (declared by the crawl or detected here)
    basis: str = ""  # what the freshness rests on
    delta_factor: float = 1.0
    changes: list[Change] = field(default_factory=list)
    delta: list[Change] = field(default_factory=list)  # post-cutoff change entries, best first
    term_counts: dict = field(default_factory=dict)
    length: int = 0

    @property
    def has_delta(self) -> bool:
        return bool(self.delta) or any(ch.post for ch in self.changes)

    def reasons(self) -> list[str]:
        """Why this source ranks where it does, in words (for --dry-run and run.json)."""
        out = []
        post = [ch for ch in self.changes if ch.post]
        if post:
            versions = sorted({ch.when() for ch in post})
            out.append(f"{len(post)} post-cutoff change entr{'y' if len(post) == 1 else 'ies'} ({'; '.join(versions[:3])})")
            hl = sum(1 for ch in post if ch.highlight)
            if hl:
                out.append(f"{hl} in a highlights/summary section")
        elif self.changes:
            out.append(f"{len(self.changes)} change entries, none post-cutoff (not primary evidence)")
        if self.build_date:
            out.append(f"build-dated host ({self.build_date}): the page date is ignored")
        out.append(f"freshness: {self.basis} (recency {self.recency_weight})")
        out.append(f"authority {self.authority:.2f} ({self.item.authority_reason or 'recorded'})")
        out.append(f"relevance {self.relevance:.2f}")
        if self.boilerplate:
            out.append("boilerplate page (about/copyright/index…): damped")
        if self.consensus_count > 1:
            out.append(f"consensus: {self.consensus_count} independent hosts")
        return out

    @property
    def url(self) -> str:
        return self.item.final_url or self.item.url

    def to_item(self) -> SourceItem:
        """A SourceItem carrying the consensus-filtered text (what a model would see), e.g. for input vetting."""
        return SourceItem(**{**self.item.to_dict(), "excerpts": list(self.excerpts),
                             "code_blocks": [{"text": cb["text"], "language": cb.get("language", "")} for cb in self.code_blocks]})

    def update_from_item(self, item: SourceItem) -> None:
        """Take back text changed in place by a vetting step (redactions); consensus counts are kept."""
        self.excerpts = list(item.excerpts)
        self.code_blocks = [{**old, "text": new.get("text", "")} for old, new in zip(self.code_blocks, item.code_blocks)]
        self.item.redactions = item.redactions

    def rank_key(self) -> tuple:
        # Pages with post-cutoff change entries first; then the rank score, authority, freshness, date; URL breaks ties.
        return (not self.has_delta, -self.rank_score, -self.authority, not self.post_cutoff, _neg_date(self.item.published), self.url)

    def rescore(self, consensus: bool = False) -> None:
        rel = RELEVANCE_FLOOR + (1 - RELEVANCE_FLOOR) * self.relevance
        n_post = sum(1 for ch in self.changes if ch.post)
        breadth = 1 + 0.1 * math.log2(1 + n_post)
        agree = 1 + 0.1 * math.log2(self.consensus_count) if consensus and self.consensus_count > 1 else 1.0
        self.rank_score = round(self.combined_score * self.delta_factor * breadth * rel
                                * (BOILERPLATE_PRIOR if self.boilerplate else 1.0) * agree, 6)


def _neg_date(published: str | None) -> int:
    d = parse_day(published)
    return -d.toordinal() if d else 0
