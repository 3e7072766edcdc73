"""Change entries (version markers and change-page sections) as ranking units, and page freshness from them.

An item's ``changes`` (see :class:`synth.evidence.item.SourceItem`) are scored one by one: a post-cutoff
version is strong evidence; an undated or pre-cutoff one is not primary (a change page's
sections for older versions are context, not news). A page's freshness on a build-dated host
comes from its change entries only; elsewhere the page date still counts, and post-cutoff
entries can only make a page fresher.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date

from synth.delta.model import (  # noqa: F401 - the record's bounds, re-exported
    CHANGE_KINDS,
    MAX_CODE,
    MAX_CODE_CHARS,
    MAX_ENTRY_CHARS,
    MAX_HEADING_CHARS,
    MAX_PATH,
    MAX_VERSION_CHARS,
    POST,
    PRE,
    ChangeRecord,
    VersionStatus,
)
from synth.delta.timeline import Timeline, parse_day
from synth.delta.versions import parse_version
from synth.evidence.scoring import RECENCY_PRE_CUTOFF, RECENCY_UNDATED, freshness

KINDS = CHANGE_KINDS
KIND_WEIGHT = {"added": 1.0, "release": 0.9, "deprecated": 0.9, "removed": 0.9, "changed": 0.8}
STATE_WEIGHT = {POST: 1.0, "undated": 0.12, PRE: 0.04}
HIGHLIGHT_BONUS = 2.5  # a highlights/summary entry leads its page whatever its wording
NO_DELTA_FACTOR = 0.4  # a page without post-cutoff change entries, relative to one with them
HIGHLIGHT = re.compile(r"\b(?:highlights?|summary|overview|at a glance|tl;?dr|key (?:features|changes)|major (?:features|changes)|headline)\b", re.I)
NOTED_BONUS = 1.5  # a marker on a name the new version's release notes mention
SUBJECT_CHARS = 160  # a marker's subject (its signature or first sentence) is at the start of its text
_IDENT = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+\b|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b|\b[a-z][a-z0-9]*_[a-z0-9_]+\b")
BUILD_MIN_PAGES = 10
BUILD_SHARE = 0.8


@dataclass
class Change(ChangeRecord):
    """One change entry of a page (:class:`~synth.delta.model.ChangeRecord`), with its version's status against the
    cutoff and its score."""

    index: int = 0  # position on the page
    status: VersionStatus | None = None
    highlight: bool = False
    in_release_notes: bool = False  # its subject is named in a post-cutoff change page
    relevance: float = 0.0
    score: float = 0.0

    @property
    def post(self) -> bool:
        return self.status is not None and self.status.post

    def label(self) -> str:
        """``Added in 3.11`` / ``Deprecated in 3.12, removed in 3.14`` / ``New in 3.11``."""
        v = self.version
        if self.kind == "added":
            s = f"Added in {v}"
        elif self.kind == "changed":
            s = f"Changed in {v}"
        elif self.kind == "deprecated":
            s = f"Deprecated in {v}" + (f", removed in {self.removed_in}" if self.removed_in else "")
        elif self.kind == "removed":
            s = f"Removed in {v}"
        else:
            s = f"New in {v}"
        return s

    def when(self) -> str:
        """``3.11, released 2022-10-24``: the version and what its status says of its date (:meth:`VersionStatus.label`;
        ``3.11, undated`` before the status is set)."""
        return self.status.label() if self.status else f"{self.version}, undated"

    def tag(self) -> str:
        """``[3.11, released 2022-10-24] Added`` — the version, its date and the kind, for the model's sources."""
        when = self.when()
        kind = {"release": "Release notes" + (f" › {self.heading}" if self.heading else "")}.get(self.kind, self.kind.capitalize())
        return f"[{when}] {kind}"

    def render(self, max_chars: int = 700) -> str:
        text = " ".join(self.text.split())
        if len(text) > max_chars:
            text = text[: max_chars - 1].rsplit(" ", 1)[0] + "…"
        return f"{self.tag()}: {text}"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "version": self.version, "removed_in": self.removed_in,
                "released": self.status.date.isoformat() if self.status and self.status.date else None,
                "status": self.status.state if self.status else "undated", "how": self.status.how if self.status else "",
                "heading": self.heading, "anchor": self.anchor, "highlight": self.highlight,
                "in_release_notes": self.in_release_notes,
                "relevance": self.relevance, "score": round(self.score, 4), "text": self.text}


def read_changes(raw: object) -> list[Change]:
    """The item's ``changes`` as Change objects; malformed entries are skipped, text is capped."""
    if not isinstance(raw, list):
        return []
    return [ch for i, c in enumerate(raw) if (ch := Change.from_json(c, index=i)) is not None]


def dated_releases(changes: list[Change]) -> list[tuple[str, str]]:
    """(version, date) pairs a page prints: its dated change entries."""
    out = []
    for c in changes:
        if c.date and parse_day(c.date):
            out.append((c.version, c.date))
    return list(dict.fromkeys(out))


def classify(changes: list[Change], timeline: Timeline, cutoff_start: date, page_kind: str = "") -> None:
    """Set each entry's version status and highlight flag in place.

    Highlights: entries under a highlights/summary/overview heading; on a change page without such
    a heading, the release entries of its first section for each version.
    """
    for c in changes:
        c.status = timeline.status(c.version, cutoff_start)
        c.highlight = bool(c.heading and HIGHLIGHT.search(c.heading))
    if page_kind == "change":
        first: dict[str, str] = {}
        marked = {c.version for c in changes if c.highlight}
        for c in changes:
            if c.kind == "release" and c.version not in marked:
                first.setdefault(c.version, c.heading)
                c.highlight = c.heading == first[c.version]


def identifiers(text: str) -> set[str]:
    """API-like names in a text (dotted, CamelCase, snake_case), plus the last part of each dotted name."""
    out = set()
    for m in _IDENT.findall(text):
        out.add(m)
        if "." in m:
            out.add(m.rsplit(".", 1)[1])
    return {n for n in out if len(n) > 3}


def entry_score(c: Change, authority: float) -> float:
    """Version status × kind × (highlight | noted in the release notes) × relevance × authority. A highlight is the
    project's own summary of a release: its wording ("PEP 673: Self type") need not repeat the topic's words, so its
    relevance factor is 1."""
    bonus = HIGHLIGHT_BONUS if c.highlight else NOTED_BONUS if c.in_release_notes else 1.0
    relevance = 1.0 if c.highlight else 0.6 + 0.4 * c.relevance
    return STATE_WEIGHT.get(c.status.state if c.status else "undated", 0.1) * KIND_WEIGHT.get(c.kind, 0.8) * bonus * (
        relevance) * max(0.05, authority)


@dataclass(frozen=True)
class PageFreshness:
    recency_weight: float
    post_cutoff: bool
    drop_reason: str | None
    basis: str  # "page date", "post-cutoff changes 3.11", "build-dated host: no change entries", …
    delta_factor: float


def page_freshness(published: date | None, changes: list[Change], *, build_dated: bool, cutoff_start: date,
                   today: date, strict: bool = False) -> PageFreshness:
    """Freshness of a page from its date and its change entries.

    Post-cutoff entries make a page post-cutoff with the recency of its newest such version's
    date. On a build-dated host the page date says nothing: without post-cutoff entries the page
    is pre-cutoff when it documents only known versions, else undated.
    """
    post = [(c.version, c.status.date) for c in changes
            if c.status is not None and c.status.post and c.status.date is not None]  # c.post, dated
    if post:
        newest = max(d for _, d in post)
        f = freshness(min(newest, today), cutoff_start, today)
        rec = f.recency_weight
        if not build_dated and published is not None and published <= today:
            rec = max(rec, freshness(published, cutoff_start, today).recency_weight)
        versions = ", ".join(sorted({v for v, _ in post}, key=lambda v: parse_version(v) or v, reverse=True)[:4])
        return PageFreshness(rec, True, None, f"post-cutoff changes ({versions})", 1.0)
    if build_dated:
        if any(c.status is not None and c.status.state == PRE for c in changes):
            return PageFreshness(RECENCY_PRE_CUTOFF, False, "pre_cutoff_strict" if strict else None,
                                 "build-dated host: only pre-cutoff versions", NO_DELTA_FACTOR)
        return PageFreshness(RECENCY_UNDATED, False, "undated_strict" if strict else None,
                             "build-dated host: page date says nothing, no dated change", NO_DELTA_FACTOR)
    f = freshness(published, cutoff_start, today, strict=strict)
    return PageFreshness(f.recency_weight, f.post_cutoff, f.drop_reason,
                         "page date" if published else "undated", NO_DELTA_FACTOR)


@dataclass
class HostDates:
    """Detects build-dated hosts: most of a host's pages share one date."""

    counts: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    pages: Counter = field(default_factory=Counter)

    def observe(self, host: str, published: str | None, modified: str | None = None) -> None:
        self.pages[host] += 1
        day = (published or modified or "")[:10]
        if day:
            self.counts[host][day] += 1

    def build_dated(self) -> dict[str, str]:
        out = {}
        for host, c in self.counts.items():
            if self.pages[host] < BUILD_MIN_PAGES or not c:
                continue
            day, n = c.most_common(1)[0]
            if n >= BUILD_SHARE * self.pages[host]:
                out[host] = day
        return out
