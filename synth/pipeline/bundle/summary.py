"""Pass 1's per-line work that needs no state of the run, done in a worker process for a byte range of the files.

A line is parsed and checked there, and a page without change entries is summarised by what pass 1's ordered logic
reads of it (:class:`Summary`): its host and dates (the build-date detection), its query-term counts (the BM25
statistics), its build date and the part of its rank-score bound that depends on the page alone
(:func:`page_bound`). Every other line — a change page, a page with change entries, a line the fast parse does not
accept (malformed, not UTF-8, over its caps), a line too long — is sent as its bytes and read in the main process
exactly as one pass in order reads it. The main process then replays the lines in order (``_FirstPass.replay_chunk``),
and parses a summarised page again only when it may enter the heap of candidates.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import NamedTuple

from synth.delta.changes import page_freshness
from synth.delta.timeline import parse_day
from synth.evidence.item import SourceItem, fields_from_json
from synth.evidence.relevance import BM25
from synth.evidence.scoring import combined_score
from synth.evidence.shingles import line_tokens
from synth.evidence.urls import host_of, normalize_host
from synth.pipeline.bundle.read import MAX_LINE_BYTES, READ_BUFFER, _lines
from synth.pipeline.bundle.spill import SpillWriter


class Summary(NamedTuple):
    """A page without change entries as pass 1's ordered logic reads it; ``offset``/``size``: where its line is.
    Sent as a plain tuple of these fields (a named tuple unpickles ~7× slower: a Python call per record)."""

    n: int  # its line number within the chunk (1 = the chunk's first line)
    host: str
    published: str | None
    modified: str | None
    url: str  # final_url or url: the heap's key
    tf: dict[str, int]
    length: int
    build_date: str | None
    drop: str | None  # the rule that drops it whatever the run holds ("future_dated", "pre_cutoff"…), or None
    bound: float  # its rank score without relevance and boilerplate: combined score × delta factor
    offset: int
    size: int


class ChunkRead(NamedTuple):
    lines: int  # physical lines in the chunk
    # in line order, each a Summary's fields, or (line number, bytes) for a line the main process reads as one pass
    # reads it (bytes None: longer than the line limit)
    records: list[tuple]
    spilled: bool = False  # whether the chunk's spill (:mod:`.spill`) was written


def page_bound(item: SourceItem, build_date: str | None, *, cutoff_start: date, today: date,
               strict: bool) -> tuple[str | None, float]:
    """(the rule that drops a page without change entries, else None; its combined score × delta factor): what its
    rank score is bounded by before relevance, from the page alone."""
    published = parse_day(item.published)
    if published is not None and published > today:
        return "future_dated", 0.0
    f = page_freshness(published, [], build_dated=bool(build_date), cutoff_start=cutoff_start, today=today, strict=strict)
    if f.drop_reason:
        return f.drop_reason, 0.0
    auth = max(0.0, min(1.0, float(item.authority)))
    return None, combined_score(auth, f.recency_weight) * f.delta_factor


def page_text(item: SourceItem) -> str:
    """Title and excerpts (change texts when the page has no excerpts: extraction usually puts them in both)."""
    if item.excerpts:
        return " ".join([item.title or "", *item.excerpts])
    return " ".join([item.title or "", *(ch.get("text", "") for ch in item.changes if isinstance(ch, dict) and isinstance(ch.get("text"), str))])


@dataclass(frozen=True)
class Reading:
    """What a worker needs to summarise lines: the run's cutoff rules, the build dates the crawl declared, the query."""

    cutoff_start: date
    today: date
    strict: bool
    declared: dict[str, str]
    terms: tuple[str, ...]

    def chunk(self, path: str, start: int, end: int, spill: str = "") -> ChunkRead:
        """Every line of the byte range ``start``–``end`` of ``path`` (which starts at a line), summarised or raw;
        with ``spill``, what pass 2 needs of them is written there (:mod:`.spill`): the snippet tokens of each
        summarised line that carries them, else where the line is (a raw line's fate is the main process's)."""
        bm = BM25(self.terms)
        seen = _Seen({}, {})
        records: list[tuple] = []
        kept = SpillWriter() if spill else None
        lines = 0
        with Path(path).open("rb", buffering=READ_BUFFER) as fh:
            fh.seek(start)
            offset = start
            for n, raw in _lines(fh, MAX_LINE_BYTES):
                lines, end_of_line = n, fh.tell()
                size = end_of_line - offset
                record = self._line(n, raw, offset, size, bm, seen)
                if record is not None:
                    records.append(record)
                    if kept is not None and raw is not None:  # a line too long is skipped by both passes
                        found = line_tokens(raw) if len(record) > 2 else None  # a summarised line is read as it is
                        if found is None:
                            kept.other(n, offset, size)
                        else:
                            kept.tokened(offset, size, found)
                offset = end_of_line
                if end_of_line >= end:
                    break
        return ChunkRead(lines, records, kept is not None and kept.write(spill))

    def _line(self, n: int, raw: bytes | None, offset: int, size: int, bm: BM25, seen: _Seen) -> tuple | None:
        fields = fields_from_json(raw) if raw is not None else None
        if fields is None:
            return None if raw is not None and not raw.strip() else (n, raw)  # a blank line is not read at all
        item = SourceItem(**fields)
        if item.changes or item.page_kind == "change":
            return (n, raw)
        given = item.host or host_of(item.final_url or item.url)
        host = seen.hosts.get(given)
        if host is None:
            host = seen.hosts[given] = normalize_host(given)
        build_date = self.declared.get(host) or (item.build_date if isinstance(item.build_date, str) else None)
        key = (item.published, bool(build_date), item.authority)
        drop_bound = seen.bounds.get(key)
        if drop_bound is None:
            drop_bound = seen.bounds[key] = page_bound(item, build_date, cutoff_start=self.cutoff_start, today=self.today,
                                                       strict=self.strict)
        tf, length = bm.counts(page_text(item))
        # a Summary's fields, in its order
        return (n, host, item.published, item.modified, item.final_url or item.url, tf, length, build_date, *drop_bound,
                offset, size)


class _Seen(NamedTuple):
    """One chunk's memo: hosts as given → normalised; (published, build-dated, authority) → :func:`page_bound`, which
    reads nothing else of a page."""

    hosts: dict[str, str]
    bounds: dict[tuple, tuple[str | None, float]]
