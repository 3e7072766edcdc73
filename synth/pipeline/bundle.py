"""The evidence bundle: stream run.jsonl files, recompute consensus, rank, select into a token budget.

Deterministic, no model. Two streaming passes over the files:

1. read every line, re-score freshness against the run's cutoff, drop what the
   rules drop (future-dated; pre-cutoff/undated under ``strict``), and keep only
   the best ``candidates`` items in a bounded heap (de-duplicated by URL);
2. cluster the candidates' snippets (``ConsensusIndex``: MinHash LSH + exact
   check), then stream every item again and let each snippet *vote* on the
   candidates' clusters through an exact shingle inverted index (no new
   clusters, so memory stays bounded by the candidates, not the crawl). A line
   whose words share no 3-shingle with any candidate snippet cannot vote: it is
   tested on its raw text and skipped unparsed (``_Votes.may_vote``).

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
"""

from __future__ import annotations

import heapq
import json
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Iterator

import orjson

from synth.core.errors import UsageError
from synth.evidence.consensus import (
    AUTHORITATIVE,
    SAME,
    VARIANT,
    ConsensusIndex,
    independent_host,
    item_snippets,
    shingles,
)
from synth.evidence.delta.changes import (
    SUBJECT_CHARS,
    Change,
    HostDates,
    classify,
    dated_releases,
    entry_score,
    identifiers,
    page_freshness,
    read_changes,
)
from synth.evidence.delta.ledger import Delta, Ledger
from synth.evidence.delta.relevance import BM25, BOILERPLATE_PRIOR, is_boilerplate, query_terms
from synth.evidence.delta.timeline import Timeline, parse_day
from synth.evidence.item import SourceItem, check_fields, fields_from_json
from synth.evidence.scoring import combined_score
from synth.evidence.urls import host_of, normalize_host, site_host
from synth.skill.markdown import fence_for
from synth.skill.size import CHARS_PER_TOKEN, estimate_tokens

_WORD = re.compile(r"\w+", re.UNICODE)
DEFAULT_MAX_SOURCES = 12
CANDIDATES_PER_SOURCE = 4  # heap keeps max_sources × this many items
STRUCTURE_ONLY_BELOW = 0.5  # authority below this: structure only
MAX_LINE_BYTES = 16 * 1024 * 1024  # one run.jsonl line; a crawl writes a few MiB at most
MAX_HOSTS_PER_CLUSTER = 64  # agreement saturates; bounds memory
MAX_REPORTED_MALFORMED = 20
MIN_SOURCE_TOKENS = 120  # a trimmed source keeps at least this much
HEAP_SLACK = 2  # pass 1 keeps this many times the candidates: its scores are provisional (timeline, hosts, IDF still growing)
MAX_ENTRIES_PER_SOURCE = 60
MAX_RELEASE_PAGES = 5000  # post-cutoff change entries carried per source
RELEVANCE_FLOOR = 0.4  # rank factor of a page that matches no query term


class BundleError(UsageError, ValueError):
    """Bad input for synthesis (exit 2); the message is one line."""


# --------------------------------------------------------------------------- reading


@dataclass
class ReadReport:
    files: list[str] = field(default_factory=list)
    lines: int = 0
    items: int = 0
    malformed: int = 0
    malformed_at: list[str] = field(default_factory=list)  # "file:line: reason", first few
    dropped: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    duplicates: int = 0
    not_utf8: int = 0  # lines that were not UTF-8 (read with replacement characters)
    not_utf8_at: str = ""  # the first of them

    def note_not_utf8(self, where: str) -> None:
        self.not_utf8 += 1
        self.not_utf8_at = self.not_utf8_at or where

    def note_malformed(self, where: str, reason: str) -> None:
        self.malformed += 1
        if len(self.malformed_at) < MAX_REPORTED_MALFORMED:
            self.malformed_at.append(f"{where}: {reason}")

    def to_dict(self) -> dict:
        return {
            "files": self.files,
            "lines": self.lines,
            "items": self.items,
            "malformed": self.malformed,
            "malformed_at": self.malformed_at,
            "dropped": dict(self.dropped),
            "duplicates": self.duplicates,
            "not_utf8": self.not_utf8,
        }


def _lines(fh: IO[bytes], limit: int) -> Iterator[tuple[int, bytes | None]]:
    """(line number, bytes) of a binary file, one line at a time; a line longer than ``limit`` bytes is
    read past in pieces and comes as ``None`` (never held whole)."""
    n = 0
    while True:
        chunk = fh.readline(limit + 1)
        if not chunk:
            return
        n += 1
        if len(chunk) > limit and not chunk.endswith(b"\n"):
            while chunk and not chunk.endswith(b"\n"):
                chunk = fh.readline(1 << 20)
            yield n, None
        else:
            yield n, chunk


def iter_items(paths: list[str], report: ReadReport | None = None, *, skipped: set[str] | None = None) -> Iterator[tuple[str, SourceItem]]:
    """Stream (``file:line``, item) from JSONL files; malformed lines (not JSON, nested too deep, a
    field of the wrong type, longer than :data:`MAX_LINE_BYTES`) are counted in ``report`` and skipped.
    Lines that are not UTF-8 are read with replacement characters and counted (``not_utf8``).
    ``skipped`` collects the ``file:line`` of every line skipped as malformed."""
    for path in paths:
        p = Path(path)
        if not p.is_file():
            raise BundleError(f"{path}: no such file (pass a run.jsonl written by the crawl)")
        if report is not None and path not in report.files:
            report.files.append(path)
        with p.open("rb") as fh:
            for n, raw in _lines(fh, MAX_LINE_BYTES):
                where = f"{path}:{n}"
                if raw is None:
                    if skipped is not None:
                        skipped.add(where)
                    if report is not None:
                        report.lines += 1
                        report.note_malformed(where, f"line longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB")
                    continue
                fields = fields_from_json(raw)  # parsed and checked in one call; None: read it the long way
                if fields is not None:
                    if report is not None:
                        report.lines += 1
                    yield where, SourceItem(**fields)
                    continue
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError:
                    line = raw.decode("utf-8", "replace")
                    if report is not None:
                        report.note_not_utf8(where)
                if not line.strip():
                    continue
                if report is not None:
                    report.lines += 1
                try:
                    item = SourceItem.from_dict(_loads(line))
                except RecursionError:
                    if skipped is not None:
                        skipped.add(where)
                    if report is not None:
                        report.note_malformed(where, "JSON nested too deeply")
                    continue
                except (ValueError, TypeError) as exc:
                    if skipped is not None:
                        skipped.add(where)
                    if report is not None:
                        report.note_malformed(where, str(exc).splitlines()[0][:120])
                    continue
                yield where, item


_VOTE_FIELDS = ("url", "final_url", "host", "authority", "excerpts", "code_blocks")


def _vote_items(paths: list[str], skipped: set[str], may_vote: Callable[[str], bool] | None = None) -> Iterator[dict]:
    """Second pass: the fields the consensus vote reads (checked and capped as :func:`iter_items` does), of every
    line the first pass accepted; the other fields are not checked again. ``may_vote(line)``: a cheap test on the
    raw line; a line it rejects is not parsed."""
    for path in paths:
        with Path(path).open("rb") as fh:
            for n, raw in _lines(fh, MAX_LINE_BYTES):
                if raw is None or (skipped and f"{path}:{n}" in skipped):
                    continue
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError:
                    line = raw.decode("utf-8", "replace")
                if not line.strip() or (may_vote is not None and not may_vote(line)):
                    continue
                fields = fields_from_json(raw)
                if fields is not None:
                    yield fields
                    continue
                try:
                    data = _loads(line)
                    yield check_fields({k: data[k] for k in _VOTE_FIELDS if k in data})
                except (ValueError, TypeError, RecursionError, KeyError, AttributeError):
                    continue  # the file changed since the first pass


def _loads(line: str) -> Any:
    """``json.loads`` semantics at orjson's speed: a line orjson rejects (NaN, lone surrogates, huge integers,
    malformed JSON) is parsed again by the standard library, which accepts it or names the problem as before."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line)



# --------------------------------------------------------------------------- ranking


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
            versions = sorted({ch.status.label() for ch in post})
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


OWN_DATE_SIGNALS = frozenset({"corpus", "json-ld", "opengraph", "meta", "time"})  # a page states these itself


def own_page_date(item: SourceItem, build_date: str | None) -> bool:
    """On a build-dated host, whether the item's date is still its own: it differs from the build date and the page
    states it in its markup (structured data, ``<time>``) or the corpus header does. A date read from the text by
    heuristics is not enough (a docs page mentions many dates); a release page's date in its title is a release
    date the crawl records as such."""
    if not build_date or not item.published:
        return False
    if str(item.published)[:10] == str(build_date)[:10]:
        return False
    return item.date_source in OWN_DATE_SIGNALS


def score_item(item: SourceItem, cutoff_start: date, today: date, strict: bool, *, timeline: Timeline | None = None,
               build_date: str | None = None, changes: list[Change] | None = None) -> tuple[Candidate | None, str | None]:
    """Re-score an item's freshness against the run's cutoff; (None, reason) when a rule drops it.

    ``build_date``: the item's host is build-dated, so its freshness comes from its change entries only — unless
    the page's own date differs from the build date (:func:`own_page_date`).
    """
    if own_page_date(item, build_date):
        build_date = None
    published = parse_day(item.published)
    changes = read_changes(item.changes) if changes is None else changes
    if changes:
        classify(changes, timeline or Timeline(today), cutoff_start, item.page_kind or "")
    if published is not None and published > today:
        return None, "future_dated"
    f = page_freshness(published, changes, build_dated=bool(build_date), cutoff_start=cutoff_start, today=today, strict=strict)
    if f.drop_reason:
        return None, f.drop_reason
    auth = max(0.0, min(1.0, float(item.authority)))
    c = Candidate(
        item=item,
        where="",
        authority=auth,
        recency_weight=f.recency_weight,
        post_cutoff=f.post_cutoff,
        combined_score=combined_score(auth, f.recency_weight),
        boilerplate=is_boilerplate(item.final_url or item.url, item.title),
        build_date=build_date,
        basis=f.basis,
        delta_factor=f.delta_factor,
        changes=changes,
    )
    return c, None


def _page_text(item: SourceItem) -> str:
    """Title and excerpts (change texts when the page has no excerpts: extraction usually puts them in both)."""
    if item.excerpts:
        return " ".join([item.title or "", *item.excerpts])
    return " ".join([item.title or "", *(ch.get("text", "") for ch in item.changes if isinstance(ch, dict) and isinstance(ch.get("text"), str))])


class _Heap:
    """Bounded top-K of candidates, de-duplicated by URL (keeps the better-ranked copy)."""

    def __init__(self, k: int) -> None:
        self.k = k
        self._heap: list[tuple[_Reverse, int, Candidate]] = []
        self._by_url: dict[str, tuple] = {}
        self._seq = 0

    def push(self, c: Candidate) -> bool:
        key = c.rank_key()
        url = c.url
        if url in self._by_url:
            if key >= self._by_url[url]:
                return False
            self._heap = [e for e in self._heap if e[2].url != url]
            heapq.heapify(self._heap)
            del self._by_url[url]
        self._seq += 1
        entry = (_Reverse(key), self._seq, c)  # min-heap root = worst kept
        if len(self._heap) < self.k:
            heapq.heappush(self._heap, entry)
        elif entry[0] > self._heap[0][0]:
            evicted = heapq.heapreplace(self._heap, entry)
            del self._by_url[evicted[2].url]
        else:
            return False
        self._by_url[url] = key
        return True

    def ranked(self) -> list[Candidate]:
        return sorted((e[2] for e in self._heap), key=Candidate.rank_key)

    def full(self) -> bool:
        return len(self._heap) >= self.k

    def __contains__(self, url: str) -> bool:
        return url in self._by_url

    def below_worst(self, best_rank_score: float) -> bool:
        """True when a page without change entries whose rank score is at most ``best_rank_score`` cannot enter
        the full heap (its key ranks strictly after the worst kept: ``push`` would refuse it)."""
        worst = self._heap[0][0].v
        return not worst[0] or best_rank_score < -worst[1]


class _Reverse:
    """Reverses ordering so heapq's root is the worst-ranked candidate."""

    __slots__ = ("v",)

    def __init__(self, v: tuple) -> None:
        self.v = v

    def __lt__(self, other: "_Reverse") -> bool:
        return self.v > other.v

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Reverse) and self.v == other.v


# --------------------------------------------------------------------------- consensus


class _Votes:
    """The candidates' snippet clusters plus an exact shingle index the whole run votes through."""

    def __init__(self) -> None:
        # every candidate snippet is asked about again (conflicts_with_authority): keep their MinHashes
        self.index = ConsensusIndex(minhash_cache=DEFAULT_MAX_SOURCES * CANDIDATES_PER_SOURCE * 64)
        self.rep: dict[int, frozenset[tuple]] = {}
        self.hosts: dict[int, set[str]] = defaultdict(set)
        self.authoritative_variant: set[int] = set()  # clusters an authoritative source published a variant of
        self._inverted: dict[tuple, list[int]] = defaultdict(list)
        self._all: set[tuple] = set()
        self._short: set[tuple] = set()  # shingles of candidate snippets under 3 words (1- or 2-word tuples)
        self._low_authority: set[int] = set()  # clusters holding a snippet of a candidate below AUTHORITATIVE

    def add_candidate_snippet(self, text: str, host: str, authority: float) -> int:
        verdict = self.index.add(text, host, authority)
        cid = verdict.cluster
        if authority < AUTHORITATIVE:
            self._low_authority.add(cid)
        if cid not in self.rep:
            sh = fast_shingles(text)
            self.rep[cid] = sh
            self._all |= sh
            self._short.update(s for s in sh if len(s) < 3)
            for s in sh:
                self._inverted[s].append(cid)
        return cid

    def observe_item(self, excerpts: list[str], code_blocks: list[dict], host: str, authority: float) -> None:
        """Let every snippet of one item vote, skipping the item when none of its snippets can match a candidate.

        A vote needs a Jaccard of at least ``VARIANT`` > 0 with a candidate's snippet, so at least one shared
        shingle; the shingles of each snippet (a claim sentence is a run of words of one paragraph, a code block is
        one text) are among the item's word 3-shingles taken over all its texts at once — one C-speed pass instead
        of a sentence split and a shingle set per snippet. A snippet under 3 words is one 1- or 2-word shingle, so
        those are looked up only when a candidate has such a snippet. Lowercasing the joined texts is lowercasing
        each one: the only context-dependent case mapping (final sigma) stops at whitespace.
        """
        if not self._may_match(lower_words("\n".join([*excerpts, *(cb.get("text", "") for cb in code_blocks)]))):
            return
        for _kind, text in item_snippets(excerpts, code_blocks):
            self.observe(text, host, authority)

    def may_vote(self, line: str) -> bool:
        """False when no text of this raw run.jsonl line can share a shingle with a candidate snippet (no parsing).

        Every string of the line is its text with JSON escapes; ``\\n``, ``\\"``, ``\\\\``… stand for non-word
        characters, so turned into spaces the line's words contain every word run of every text (more words only
        add shingles: the test stays one-sided). A ``\\uXXXX`` escape may stand for a letter: such a line is parsed.
        Lowercasing the whole line is lowercasing each string: JSON quotes and the escaped characters stop the
        final-sigma context as whitespace does.
        """
        text = line
        if "\\" in text:
            text = text.replace("\\\\", " ")
            for esc in _JSON_ESCAPES:
                text = text.replace(esc, " ")
            if "\\" in text:
                return True
        return self._may_match(lower_words(text))

    def _may_match(self, words: list[str]) -> bool:
        if not self._all.isdisjoint(zip(words, words[1:], words[2:])):
            return True
        return bool(self._short) and not (self._short.isdisjoint(zip(words)) and self._short.isdisjoint(zip(words, words[1:])))

    def observe(self, text: str, host: str, authority: float) -> None:
        sh = fast_shingles(text)
        common = sh & self._all  # C-speed pre-filter: most snippets share nothing with the candidates
        if not common:
            return
        overlap: dict[int, int] = defaultdict(int)
        for s in common:
            for cid in self._inverted[s]:
                overlap[cid] += 1
        for cid, inter in overlap.items():
            rep = self.rep[cid]
            j = inter / (len(sh) + len(rep) - inter)
            if j >= SAME:
                hosts = self.hosts[cid]
                if len(hosts) < MAX_HOSTS_PER_CLUSTER:
                    hosts.add(independent_host(host))
                    self._retire_if_decided(cid)
            elif j >= VARIANT and authority >= AUTHORITATIVE and cid not in self.authoritative_variant:
                self.authoritative_variant.add(cid)
                self._retire_if_decided(cid)

    def _retire_if_decided(self, cid: int) -> None:
        """Stop looking for votes on a cluster no further line can change: its host count is at the cap, and an
        authoritative variant is already known or no low-authority candidate would be dropped for one. Its shingles
        leave the index (those no other cluster shares), so lines that only it could match are skipped unparsed."""
        if len(self.hosts[cid]) < MAX_HOSTS_PER_CLUSTER or (cid in self._low_authority and cid not in self.authoritative_variant):
            return
        for s in self.rep[cid]:
            owners = self._inverted[s]
            if cid in owners:
                owners.remove(cid)
                if not owners:
                    self._all.discard(s)
                    self._short.discard(s)

    def agreement(self, cid: int) -> int:
        return max(1, len(self.hosts.get(cid, ())))


_JSON_ESCAPES = tuple("\\" + c for c in 'nt"/rbf')  # after "\\\\": every escape but \\uXXXX
_ASCII_NON_WORD = {i: 32 for i in range(128) if not (chr(i).isalnum() or chr(i) == "_")}


_ASCII_LOWER_WORDS = {**_ASCII_NON_WORD, **{i: i + 32 for i in range(ord("A"), ord("Z") + 1)}}


def lower_words(text: str) -> list[str]:
    """``re.findall(r"\\w+", text.lower())``; an ASCII text is lowercased and split at C speed in one translation
    (non-word characters to spaces, then split)."""
    return text.translate(_ASCII_LOWER_WORDS).split() if text.isascii() else _WORD.findall(text.lower())


def fast_shingles(text: str, k: int = 3) -> frozenset[tuple]:
    """The same word 3-shingles as ``consensus.shingles``, as tuples (no string joins): the hot path of pass 2."""
    words = lower_words(text)
    if len(words) < k:
        return frozenset([tuple(words)]) if words else frozenset()
    return frozenset(zip(words, words[1:], words[2:]))


# --------------------------------------------------------------------------- building


@dataclass
class Ranked:
    """Pass results: ranked candidates with consensus applied, the read report, and the delta record."""

    candidates: list[Candidate]
    report: ReadReport
    delta: dict = field(default_factory=dict)  # timeline, boundary, build-dated hosts, relevance query
    changes: Delta | None = None  # every post-cutoff (and undated) change entry of the run: the references


def rank_sources(
    paths: list[str],
    *,
    cutoff_start: date,
    today: date,
    strict: bool = False,
    max_candidates: int = DEFAULT_MAX_SOURCES * CANDIDATES_PER_SOURCE,
    topic: str = "",
    queries: list[str] | tuple[str, ...] = (),
    crawl_meta: dict | None = None,
    since_version: str | None = None,
) -> Ranked:
    """Read, score and rank the run; consensus, relevance and the delta (timeline, change entries) applied.

    Pass 1 keeps ``HEAP_SLACK`` × ``max_candidates`` on provisional scores (the timeline, the
    build-dated hosts and the BM25 statistics grow while the run is read); the kept candidates
    are then re-scored with the final statistics and cut to ``max_candidates``.
    """
    report = ReadReport()
    meta = crawl_meta if isinstance(crawl_meta, dict) else {}
    timeline = Timeline(today, since=since_version, settled=False)  # settled before the re-score: pass 1 still learns versions
    for row in meta.get("timeline") or []:
        if isinstance(row, dict):
            timeline.add(row.get("version"), row.get("date"), str(row.get("source") or "crawl.json"), row.get("url"))
    declared = {normalize_host(h): str(d) for h, d in (meta.get("build_dated_hosts") or {}).items()} \
        if isinstance(meta.get("build_dated_hosts"), dict) else {}
    hosts = HostDates()
    ledger = Ledger()
    release_pages: list[tuple[str, str, str, str, str | None]] = []  # a change page about one version, with its date
    bm = BM25(query_terms(topic, *[q for q in queries if isinstance(q, str)]))
    heap = _Heap(max_candidates * HEAP_SLACK)
    seen_any = False
    # Pass 1: score and keep the best candidates.
    skipped: set[str] = set()
    for where, item in iter_items(paths, report, skipped=skipped):
        seen_any = True
        report.items += 1
        host = normalize_host(item.host or host_of(item.final_url or item.url))
        hosts.observe(host, item.published, item.modified)
        changes = read_changes(item.changes) if item.changes else []
        for version, day in dated_releases(changes):
            timeline.add(version, day, "page", item.final_url or item.url)
        if changes:
            ledger.observe(item.final_url or item.url, item.title, item.page_kind, item.page_version, item.authority, changes,
                           item.code_blocks)
        if (item.page_kind == "change" and item.page_version and item.published and item.date_source in OWN_DATE_SIGNALS
                and len(release_pages) < MAX_RELEASE_PAGES):
            release_pages.append((host, item.page_version, item.published, item.final_url or item.url, item.date_source))
        if item.page_kind == "change" and float(item.authority) >= AUTHORITATIVE:
            # the site's own What's New / release notes name these versions (the page's, its version sections')
            for v in {item.page_version, *(c.version for c in changes if c.kind == "release")} - {None}:
                timeline.declare(v)
        tf, length = bm.observe(_page_text(item))
        build_date = declared.get(host) or (item.build_date if isinstance(item.build_date, str) else None)
        if not changes and heap.full() and (item.final_url or item.url) not in heap:
            # Most pages cannot enter the full heap: bound the rank score as if the page were not boilerplate (what
            # ``score_item`` + ``Candidate.rescore`` compute is this times a factor ≤ 1), and only score the rest.
            published = parse_day(item.published)
            if published is not None and published > today:
                report.dropped["future_dated"] += 1
                continue
            f = page_freshness(published, changes, build_dated=bool(build_date), cutoff_start=cutoff_start, today=today,
                               strict=strict)
            if f.drop_reason:
                report.dropped[f.drop_reason] += 1
                continue
            auth = max(0.0, min(1.0, float(item.authority)))
            rel = RELEVANCE_FLOOR + (1 - RELEVANCE_FLOOR) * bm.relevance(tf, length)
            if heap.below_worst(round(combined_score(auth, f.recency_weight) * f.delta_factor * 1.0 * rel, 6)):
                continue
        c, reason = score_item(item, cutoff_start, today, strict, timeline=timeline, build_date=build_date, changes=changes)
        if c is None:
            report.dropped[reason or "dropped"] += 1
            continue
        c.where = where
        c.term_counts, c.length = tf, length
        c.relevance = bm.relevance(tf, length)
        c.rescore()
        heap.push(c)
    if not seen_any:
        detail = f" ({report.malformed} malformed line(s), first at {report.malformed_at[0]})" if report.malformed_at else ""
        raise BundleError(f"no valid source item in {', '.join(paths)}{detail}")
    # Final statistics: re-score what pass 1 kept.
    detected = hosts.build_dated()
    build_dated = {**detected, **declared}
    item_build_dates = {normalize_host(c.item.host or host_of(c.url)): c.build_date for c in heap.ranked() if c.build_date}
    for host, version, day, url, _signal in release_pages:
        # a page about one release dated otherwise than its host's build: the date it prints is the release's
        bd = build_dated.get(host) or item_build_dates.get(host)
        if not bd or str(day)[:10] != str(bd)[:10]:
            timeline.add(version, day, "release page date", url)
    timeline.reject_build_dates({**item_build_dates, **build_dated}, site_host)
    timeline.settle()
    changes_delta = ledger.finish(timeline, cutoff_start)
    rescored: list[Candidate] = []
    for c in heap.ranked():
        host = normalize_host(c.item.host or host_of(c.url))
        bd = build_dated.get(host) or c.build_date
        again, reason = score_item(c.item, cutoff_start, today, strict, timeline=timeline, build_date=bd)
        if again is None:
            report.dropped[reason or "dropped"] += 1
            continue
        again.where, again.term_counts, again.length = c.where, c.term_counts, c.length
        again.relevance = bm.relevance(c.term_counts, c.length)
        again.rescore()
        rescored.append(again)
    candidates = sorted(rescored, key=Candidate.rank_key)[:max_candidates]
    report.duplicates = 0
    # Pass 2: cluster the candidates' snippets, then let every item in the run vote.
    votes = _Votes()
    per_candidate: list[list[tuple[str, str, int]]] = []
    for c in candidates:
        host = normalize_host(c.item.host or host_of(c.url))
        snippets = []
        for kind, text in item_snippets(c.item.excerpts, c.item.code_blocks):
            snippets.append((kind, text, votes.add_candidate_snippet(text, host, c.authority)))
        per_candidate.append(snippets)
    for data in _vote_items(paths, skipped, votes.may_vote):
        host = normalize_host(data.get("host") or host_of(data.get("final_url") or data["url"]))
        votes.observe_item(data.get("excerpts", []), data.get("code_blocks", []), host, float(data.get("authority", 0.5)))
    for c, snippets in zip(candidates, per_candidate):
        _apply_consensus(c, snippets, votes)
    _apply_delta(candidates, topic=topic, queries=queries)
    for c in candidates:
        c.rescore(consensus=True)
    candidates.sort(key=Candidate.rank_key)
    delta = {
        "timeline": timeline.entries(),
        "boundary": timeline.boundary(cutoff_start),
        "rejected_dates": timeline.rejected,
        "build_dated_hosts": {h: {"date": d, "how": "declared by the crawl" if h in declared else "detected: most pages share this date"}
                              for h, d in sorted(build_dated.items())},
        "relevance_query": list(bm.terms),
        "post_cutoff_entries": sum(len(c.delta) for c in candidates),
    }
    return Ranked(candidates, report, delta, changes_delta)


def _apply_delta(candidates: list[Candidate], *, topic: str, queries: Iterable[object]) -> None:
    """Score every candidate's change entries (relevance against topic, queries and the page's title) and put the
    post-cutoff ones, best first and tagged with version and date, in place of the page's excerpts."""
    base = query_terms(topic, *[q for q in queries if isinstance(q, str)])
    titles = {id(c): query_terms(c.item.title or "") for c in candidates}
    terms = tuple(dict.fromkeys([*base, *(t for ts in titles.values() for t in ts)]))
    bm = BM25(terms)
    stats = {id(ch): bm.observe(ch.text) for c in candidates for ch in c.changes}
    # names the new versions' release notes mention: a marker on one of them is a change the project itself highlighted
    noted = {name for c in candidates for ch in c.changes if ch.post and ch.kind == "release" for name in identifiers(ch.text)}
    for c in candidates:
        own = frozenset(base) | frozenset(titles[id(c)])
        for ch in c.changes:
            tf, n = stats[id(ch)]
            ch.relevance = bm.relevance({t: k for t, k in tf.items() if t in own}, n, terms=tuple(own))
            ch.in_release_notes = ch.kind != "release" and bool(noted & identifiers(ch.text[:SUBJECT_CHARS]))
            ch.score = entry_score(ch, c.authority)
        post = sorted((ch for ch in c.changes if ch.post), key=lambda ch: (-ch.score, ch.index))
        c.delta = post[:MAX_ENTRIES_PER_SOURCE]
        if c.delta:
            c.excerpts = [ch.render() for ch in c.delta]
            shown = " ".join(" ".join(ch.text.split()) for ch in c.delta)
            c.code_blocks = [cb for cb in c.code_blocks if " ".join(cb["text"].split())[:200] in shown]


def _apply_consensus(c: Candidate, snippets: list[tuple[str, str, int]], votes: _Votes) -> None:
    conflicting_claims: list[str] = []
    best = 1
    code_consensus: dict[str, int] = {}
    conflicting_code: set[str] = set()
    for kind, text, cid in snippets:
        agree = votes.agreement(cid)
        conflict = c.authority < AUTHORITATIVE and (
            cid in votes.authoritative_variant or votes.index.conflicts_with_authority(cid, c.authority, shingles(text))
        )
        if conflict:
            c.dropped_snippets.append({"kind": kind, "reason": "conflicts with the authoritative version", "text": text[:200]})
            if kind == "claim":
                conflicting_claims.append(text)
            else:
                conflicting_code.add(text)
            continue
        best = max(best, agree)
        if kind == "code":
            code_consensus[text] = agree
    c.consensus_count = best
    excerpts = []
    for para in c.item.excerpts:
        for claim in conflicting_claims:
            para = para.replace(claim, "").strip()
        if para:
            excerpts.append(para)
    c.excerpts = excerpts
    blocks = []
    for cb in c.item.code_blocks:
        text = cb.get("text", "")
        if not text.strip() or text in conflicting_code:
            continue
        agree = code_consensus.get(text, 1)
        if c.authority < STRUCTURE_ONLY_BELOW and agree < 2:
            c.dropped_snippets.append({"kind": "code", "reason": "low-authority code without consensus", "text": text[:200]})
            continue
        blocks.append({"text": text, "language": cb.get("language", "") or "", "consensus": agree})
    c.code_blocks = blocks


# --------------------------------------------------------------------------- selection


def render_source(n: int, c: Candidate, excerpts: list[str] | None = None, code_blocks: list[dict] | None = None) -> str:
    """The text the model sees for one source (without the untrusted-data fence)."""
    excerpts = c.excerpts if excerpts is None else excerpts
    code_blocks = c.code_blocks if code_blocks is None else code_blocks
    parts = [f"[{n}] {c.item.title or c.url}", f"url: {c.url}", f"published: {c.item.published or 'undated'}"]
    parts += excerpts
    for cb in code_blocks:  # a fence the code cannot close, as everywhere skill3 fences code
        fence = fence_for(cb["text"])
        parts.append(f"{fence}{cb.get('language', '')}\n{cb['text']}\n{fence}")
    return "\n\n".join(parts)


def source_tokens(c: Candidate) -> int:
    return estimate_tokens(render_source(0, c))


@dataclass
class Selection:
    mode: str  # "direct" | "map-reduce" | "trimmed"
    budget: int
    sources: list[Candidate]
    trimmed: list[str] = field(default_factory=list)  # URLs cut to fit (trimmed mode)
    excluded: list[str] = field(default_factory=list)  # URLs left out to fit
    tokens: int = 0
    note: str = ""


def _trim(c: Candidate, max_tokens: int) -> Candidate:
    """A copy of ``c`` cut to ``max_tokens`` by dropping trailing code blocks, then trailing paragraphs."""
    excerpts = list(c.excerpts)
    blocks = list(c.code_blocks)
    while estimate_tokens(render_source(0, c, excerpts, blocks)) > max_tokens and (excerpts or blocks):
        if blocks and (len(blocks) > 1 or not excerpts):
            blocks.pop()
        elif len(excerpts) > 1:
            excerpts.pop()
        else:
            room = max(0, int(max_tokens * CHARS_PER_TOKEN) - len(render_source(0, c, [], blocks)) - 4)
            excerpts = [excerpts[0][:room].rsplit(" ", 1)[0] + " …"] if room > 40 else []
            if not excerpts:
                blocks = []
            break
    return Candidate(**{**c.__dict__, "excerpts": excerpts, "code_blocks": blocks})


def _select_entries(sources: list[Candidate], budget: int) -> tuple[list[Candidate], int]:
    """Fill ``budget`` with the best-scored change entries across ``sources`` (a source's header is paid once, when
    its first entry is taken); returns copies of the sources holding only their chosen entries, and the tokens used."""
    header = [estimate_tokens(render_source(0, c, [], [])) for c in sources]
    units = sorted(
        (-ch.score, si, ei, estimate_tokens(text) + 1)
        for si, c in enumerate(sources) for ei, (text, ch) in enumerate(zip(c.excerpts, c.delta))
    )
    picked: dict[int, list[int]] = {}
    used = 0
    for _neg, si, ei, tokens in units:
        extra = tokens + (0 if si in picked else header[si])
        if used + extra > budget:
            continue
        picked.setdefault(si, []).append(ei)
        used += extra
    out = []
    for si, c in enumerate(sources):
        if si in picked:
            idx = sorted(picked[si])
            out.append(Candidate(**{**c.__dict__, "excerpts": [c.excerpts[i] for i in idx], "delta": [c.delta[i] for i in idx],
                                    "code_blocks": []}))
    return out, sum(source_tokens(c) for c in out)


def _fill_in_order(sources: list[Candidate], remaining: int, chosen: list, trimmed: list, excluded: list) -> int:
    """Take ``sources`` in order while they fit, trimming the first that does not (when enough room is left),
    leaving out the rest; appends to the three lists and returns the tokens still free."""
    for c in sources:
        need = source_tokens(c)
        if need <= remaining:
            chosen.append(c)
            remaining -= need
        elif remaining >= MIN_SOURCE_TOKENS:
            chosen.append(_trim(c, remaining))
            trimmed.append(c.url)
            remaining -= source_tokens(chosen[-1])
        else:
            excluded.append(c.url)
    return remaining


def _fair_shares(demands: list[int], budget: int) -> list[int]:
    """Water-filling: each demand gets at most an equal share of what the smaller demands left."""
    shares = [0] * len(demands)
    left = budget
    order = sorted(range(len(demands)), key=lambda i: demands[i])
    for k, i in enumerate(order):
        fair = left // (len(order) - k)
        shares[i] = min(demands[i], fair)
        left -= shares[i]
    return shares


def select_evidence(candidates: list[Candidate], budget: int, *, max_sources: int = DEFAULT_MAX_SOURCES, can_condense: bool = True) -> Selection:
    """Choose the sources the synthesizer sees within ``budget`` tokens.

    Ranked order, authoritative post-cutoff sources first so they always make it in.
    Everything fits → ``direct``. Otherwise, with a model → ``map-reduce`` (each source is
    condensed by the model, then synthesised: nothing is silently cut); without one
    (extractive, dry run) → ``trimmed``: sources cut or left out, and the selection says which.
    """
    pool = candidates[:max_sources]
    total = sum(source_tokens(c) for c in pool)
    if total <= budget:
        return Selection("direct", budget, pool, tokens=total)
    if can_condense:
        return Selection(
            "map-reduce", budget, pool, tokens=total,
            note=f"evidence ({total} tokens) exceeds the budget ({budget}): each source is condensed by the model, then synthesised",
        )
    def primary(c: Candidate) -> bool:  # post-cutoff change entries, or an authoritative post-cutoff page
        return bool(c.delta) or (c.authority >= AUTHORITATIVE and c.post_cutoff)

    first = [c for c in pool if primary(c)]
    rest = [c for c in pool if not primary(c)]
    chosen: list[Candidate] = []
    trimmed: list[str] = []
    excluded: list[str] = []
    remaining = budget
    # change entries compete across every candidate, not only the first max_sources pages
    delta_sources = [c for c in candidates if c.delta]
    if delta_sources and sum(source_tokens(c) for c in delta_sources) > budget:
        # ranking on snippets: the best change entries of all sources, whatever page they are on
        chosen, used = _select_entries(delta_sources, budget)
        kept = {c.url: c for c in chosen}
        trimmed = [c.url for c in delta_sources if c.url in kept and source_tokens(kept[c.url]) < source_tokens(c)]
        excluded = [c.url for c in delta_sources if c.url not in kept]
        remaining -= used
        remaining = _fill_in_order([c for c in pool if not c.delta], remaining, chosen, trimmed, excluded)
    elif first and sum(source_tokens(c) for c in first) > budget:
        # max-min fair shares: small sources fit whole, the large ones split what is left
        shares = _fair_shares([source_tokens(c) for c in first], budget)
        for c, share in zip(first, shares):
            share = max(MIN_SOURCE_TOKENS, share)
            t = _trim(c, share) if source_tokens(c) > share else c
            if t is not c:
                trimmed.append(c.url)
            chosen.append(t)
            remaining -= source_tokens(t)
        excluded = [c.url for c in rest]
    else:
        remaining = _fill_in_order(first + rest, remaining, chosen, trimmed, excluded)
    order = {id(c): i for i, c in enumerate(pool)}
    by_url = {c.url: i for i, c in enumerate(pool)}
    chosen.sort(key=lambda c: order.get(id(c), by_url.get(c.url, 0)))
    used = sum(source_tokens(c) for c in chosen)
    return Selection(
        "trimmed", budget, chosen, trimmed, excluded, used,
        note=f"evidence ({total} tokens) exceeds the budget ({budget}) and no model condenses it: {len(trimmed)} source(s) trimmed, {len(excluded)} left out",
    )


def to_bundle(selection: Selection, *, skill_name: str, target_model: str, cutoff: str, delta: dict | None = None) -> dict:
    """The context bundle (skill name, target model, cutoff, sources), plus each source's post-cutoff change entries.

    Sources with post-cutoff change entries come first (their excerpts *are* those entries, tagged
    ``[3.11, released 2022-10-24] Added: …``), so no pre-cutoff-version snippet is ever ahead of them.
    ``changes[i]`` describes ``excerpts[i]`` (its text is the excerpt: vetted and redacted like the rest).
    """
    ordered = sorted(selection.sources, key=lambda c: not c.delta)  # stable: rank order within each group
    bundle = {
        "skill_name": skill_name,
        "target_model": target_model,
        "cutoff": cutoff,
        "sources": [
            {
                "n": i,
                "url": c.url,
                "title": c.item.title,
                "host": c.item.host or host_of(c.url),
                "authority": c.authority,
                "published": c.item.published,
                "date_source": c.item.date_source,
                "build_date": c.build_date,
                "post_cutoff": c.post_cutoff,
                "recency_weight": c.recency_weight,
                "combined_score": c.combined_score,
                "rank_score": c.rank_score,
                "consensus_count": c.consensus_count,
                "page_kind": c.item.page_kind or "",
                "excerpts": c.excerpts,
                "changes": [{**ch.to_dict(), "text": None, "tag": ch.tag()} for ch in c.delta[: len(c.excerpts)]],
                "code_blocks": [cb["text"] for cb in c.code_blocks],
                "code_languages": [cb.get("language", "") for cb in c.code_blocks],
            }
            for i, c in enumerate(ordered, 1)
        ],
    }
    if delta is not None:
        bundle["delta"] = {"boundary": delta.get("boundary"),
                           "post_cutoff_versions": _post_versions(ordered)}
    return bundle


def _post_versions(candidates: list[Candidate]) -> list[str]:
    from synth.evidence.delta.versions import parse_version

    labels = {ch.version: ch.status.label() for c in candidates for ch in c.delta}
    return [labels[v] for v in sorted(labels, key=lambda v: (parse_version(v) is None, parse_version(v) or v), reverse=True)]


def ranking_rows(candidates: list[Candidate], selection: Selection | None = None) -> list[dict]:
    chosen = {c.url for c in selection.sources} if selection else set()
    return [
        {
            "rank": i,
            "url": c.url,
            "title": c.item.title,
            "combined_score": c.combined_score,
            "rank_score": c.rank_score,
            "relevance": c.relevance,
            "authority": c.authority,
            "authority_reason": c.item.authority_reason,
            "recency_weight": c.recency_weight,
            "post_cutoff": c.post_cutoff,
            "published": c.item.published,
            "date_source": c.item.date_source,
            "consensus_count": c.consensus_count,
            "tokens": source_tokens(c),
            "selected": c.url in chosen,
            "dropped_snippets": len(c.dropped_snippets),
            "query": c.item.query,
            "discovery": c.item.discovery,
            "build_date": c.build_date,
            "freshness_basis": c.basis,
            "post_cutoff_changes": sum(1 for ch in c.changes if ch.post),
            "reasons": c.reasons(),
        }
        for i, c in enumerate(candidates, 1)
    ]
