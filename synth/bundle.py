"""The evidence bundle: stream run.jsonl files, recompute consensus, rank, select into a token budget.

Deterministic, no model. Two streaming passes over the files:

1. read every line, re-score freshness against the run's cutoff, drop what the
   rules drop (future-dated; pre-cutoff/undated under ``strict``), and keep only
   the best ``candidates`` items in a bounded heap (de-duplicated by URL);
2. cluster the candidates' snippets (``ConsensusIndex``: MinHash LSH + exact
   check), then stream every item again and let each snippet *vote* on the
   candidates' clusters through an exact shingle inverted index (no new
   clusters, so memory stays bounded by the candidates, not the crawl).

A candidate snippet is dropped when it is a low-authority variant of a snippet
an authoritative source (≥0.8) published anywhere in the run.

Tokens are counted with a documented heuristic, no tokenizer download:
``ceil(chars / 3.5)`` — about 4 characters per token for English prose with
BPE vocabularies (OpenAI, Gemma, Llama), fewer for code and non-Latin text, so
3.5 over-estimates on purpose: a bundle that fits by this count fits the model.

The bundle itself follows the seed SPEC §4.1.1 shape (``skill_name``,
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
from typing import Iterator

from synth.consensus import (
    AUTHORITATIVE,
    SAME,
    VARIANT,
    ConsensusIndex,
    claim_sentences,
    independent_host,
    item_snippets,
    shingles,
)
from synth.item import SourceItem
from synth.scoring import combined_score, freshness, normalize_host

_WORD = re.compile(r"\w+", re.UNICODE)
CHARS_PER_TOKEN = 3.5
DEFAULT_CONTEXT_TOKENS = 8192
DEFAULT_MAX_SOURCES = 12
CANDIDATES_PER_SOURCE = 4  # heap keeps max_sources × this many items
STRUCTURE_ONLY_BELOW = 0.5  # DESIGN §5: below this, structure only
MAX_LINE_BYTES = 16 * 1024 * 1024  # one run.jsonl line; a crawl writes a few MiB at most
MAX_HOSTS_PER_CLUSTER = 64  # agreement saturates; bounds memory
MAX_REPORTED_MALFORMED = 20
MIN_SOURCE_TOKENS = 120  # a trimmed source keeps at least this much


class BundleError(ValueError):
    """Bad input for synthesis (exit 2); the message is one line."""


def estimate_tokens(text: str) -> int:
    """Conservative token count without a tokenizer: ``ceil(chars / 3.5)``."""
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


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


def _lines(fh, limit: int) -> Iterator[tuple[int, bytes | None]]:
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


def iter_items(paths: list[str], report: ReadReport | None = None) -> Iterator[tuple[str, SourceItem]]:
    """Stream (``file:line``, item) from JSONL files; malformed lines (not JSON, nested too deep, a
    field of the wrong type, longer than :data:`MAX_LINE_BYTES`) are counted in ``report`` and skipped.
    Lines that are not UTF-8 are read with replacement characters and counted (``not_utf8``)."""
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
                    if report is not None:
                        report.lines += 1
                        report.note_malformed(where, f"line longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB")
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
                    item = SourceItem.from_dict(json.loads(line))
                except RecursionError:
                    if report is not None:
                        report.note_malformed(where, "JSON nested too deeply")
                    continue
                except (ValueError, TypeError) as exc:
                    if report is not None:
                        report.note_malformed(where, str(exc).splitlines()[0][:120])
                    continue
                yield where, item


def _parse_day(value: str | None) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


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
        # Highest combined score first; then authority, freshness, date; URL breaks ties deterministically.
        return (-self.combined_score, -self.authority, not self.post_cutoff, _neg_date(self.item.published), self.url)


def _neg_date(published: str | None) -> int:
    d = _parse_day(published)
    return -d.toordinal() if d else 0


def score_item(item: SourceItem, cutoff_start: date, today: date, strict: bool) -> tuple[Candidate | None, str | None]:
    """Re-score an item's freshness against the run's cutoff; (None, reason) when a rule drops it."""
    published = _parse_day(item.published)
    f = freshness(published, cutoff_start, today, strict=strict)
    if f.drop_reason:
        return None, f.drop_reason
    auth = max(0.0, min(1.0, float(item.authority)))
    return (
        Candidate(
            item=item,
            where="",
            authority=auth,
            recency_weight=f.recency_weight,
            post_cutoff=f.post_cutoff,
            combined_score=combined_score(auth, f.recency_weight),
        ),
        None,
    )


class _Heap:
    """Bounded top-K of candidates, de-duplicated by URL (keeps the better-ranked copy)."""

    def __init__(self, k: int):
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


class _Reverse:
    """Reverses ordering so heapq's root is the worst-ranked candidate."""

    __slots__ = ("v",)

    def __init__(self, v: tuple):
        self.v = v

    def __lt__(self, other: "_Reverse") -> bool:
        return self.v > other.v

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Reverse) and self.v == other.v


# --------------------------------------------------------------------------- consensus


class _Votes:
    """The candidates' snippet clusters plus an exact shingle index the whole run votes through."""

    def __init__(self) -> None:
        self.index = ConsensusIndex()
        self.rep: dict[int, frozenset[tuple]] = {}
        self.hosts: dict[int, set[str]] = defaultdict(set)
        self.authoritative_variant: set[int] = set()  # clusters an authoritative source published a variant of
        self._inverted: dict[tuple, list[int]] = defaultdict(list)
        self._all: set[tuple] = set()

    def add_candidate_snippet(self, text: str, host: str, authority: float) -> int:
        verdict = self.index.add(text, host, authority)
        cid = verdict.cluster
        if cid not in self.rep:
            sh = fast_shingles(text)
            self.rep[cid] = sh
            self._all |= sh
            for s in sh:
                self._inverted[s].append(cid)
        return cid

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
            elif j >= VARIANT and authority >= AUTHORITATIVE:
                self.authoritative_variant.add(cid)

    def agreement(self, cid: int) -> int:
        return max(1, len(self.hosts.get(cid, ())))


def fast_shingles(text: str, k: int = 3) -> frozenset[tuple]:
    """The same word 3-shingles as ``consensus.shingles``, as tuples (no string joins): the hot path of pass 2."""
    words = _WORD.findall(text.lower())
    if len(words) < k:
        return frozenset([tuple(words)]) if words else frozenset()
    return frozenset(zip(words, words[1:], words[2:]))


# --------------------------------------------------------------------------- building


@dataclass
class Ranked:
    """Pass results: ranked candidates with consensus applied, and the read report."""

    candidates: list[Candidate]
    report: ReadReport


def rank_sources(
    paths: list[str],
    *,
    cutoff_start: date,
    today: date,
    strict: bool = False,
    max_candidates: int = DEFAULT_MAX_SOURCES * CANDIDATES_PER_SOURCE,
) -> Ranked:
    report = ReadReport()
    heap = _Heap(max_candidates)
    seen_any = False
    # Pass 1: score and keep the best candidates.
    for where, item in iter_items(paths, report):
        seen_any = True
        report.items += 1
        c, reason = score_item(item, cutoff_start, today, strict)
        if c is None:
            report.dropped[reason or "dropped"] += 1
            continue
        c.where = where
        heap.push(c)
    if not seen_any:
        detail = f" ({report.malformed} malformed line(s), first at {report.malformed_at[0]})" if report.malformed_at else ""
        raise BundleError(f"no valid source item in {', '.join(paths)}{detail}")
    candidates = heap.ranked()
    report.duplicates = 0
    # Pass 2: cluster the candidates' snippets, then let every item in the run vote.
    votes = _Votes()
    per_candidate: list[list[tuple[str, str, int]]] = []
    for c in candidates:
        host = normalize_host(c.item.host or _host_of(c.url))
        snippets = []
        for kind, text in item_snippets(c.item.excerpts, c.item.code_blocks):
            snippets.append((kind, text, votes.add_candidate_snippet(text, host, c.authority)))
        per_candidate.append(snippets)
    for _where, item in iter_items(paths):
        host = normalize_host(item.host or _host_of(item.final_url or item.url))
        auth = float(item.authority)
        for _kind, text in item_snippets(item.excerpts, item.code_blocks):
            votes.observe(text, host, auth)
    for c, snippets in zip(candidates, per_candidate):
        _apply_consensus(c, snippets, votes)
    return Ranked(candidates, report)


def _host_of(url: str) -> str:
    m = re.match(r"^[a-z][a-z0-9+.-]*://([^/?#]+)", url or "", re.I)
    return m.group(1).split("@")[-1] if m else ""


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
    for cb in code_blocks:
        parts.append(f"```{cb.get('language', '')}\n{cb['text']}\n```")
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
    first = [c for c in pool if c.authority >= AUTHORITATIVE and c.post_cutoff]
    rest = [c for c in pool if not (c.authority >= AUTHORITATIVE and c.post_cutoff)]
    chosen: list[Candidate] = []
    trimmed: list[str] = []
    excluded: list[str] = []
    remaining = budget
    if first and sum(source_tokens(c) for c in first) > budget:
        share = max(MIN_SOURCE_TOKENS, budget // len(first))
        for c in first:
            t = _trim(c, share) if source_tokens(c) > share else c
            if t is not c:
                trimmed.append(c.url)
            chosen.append(t)
            remaining -= source_tokens(t)
        excluded = [c.url for c in rest]
    else:
        for c in first + rest:
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
    order = {id(c): i for i, c in enumerate(pool)}
    by_url = {c.url: i for i, c in enumerate(pool)}
    chosen.sort(key=lambda c: order.get(id(c), by_url.get(c.url, 0)))
    used = sum(source_tokens(c) for c in chosen)
    return Selection(
        "trimmed", budget, chosen, trimmed, excluded, used,
        note=f"evidence ({total} tokens) exceeds the budget ({budget}) and no model condenses it: {len(trimmed)} source(s) trimmed, {len(excluded)} left out",
    )


def to_bundle(selection: Selection, *, skill_name: str, target_model: str, cutoff: str) -> dict:
    """The seed SPEC §4.1.1 context bundle."""
    return {
        "skill_name": skill_name,
        "target_model": target_model,
        "cutoff": cutoff,
        "sources": [
            {
                "n": i,
                "url": c.url,
                "title": c.item.title,
                "host": c.item.host or _host_of(c.url),
                "authority": c.authority,
                "published": c.item.published,
                "date_source": c.item.date_source,
                "post_cutoff": c.post_cutoff,
                "recency_weight": c.recency_weight,
                "combined_score": c.combined_score,
                "consensus_count": c.consensus_count,
                "excerpts": c.excerpts,
                "code_blocks": [cb["text"] for cb in c.code_blocks],
                "code_languages": [cb.get("language", "") for cb in c.code_blocks],
            }
            for i, c in enumerate(selection.sources, 1)
        ],
    }


def ranking_rows(candidates: list[Candidate], selection: Selection | None = None) -> list[dict]:
    chosen = {c.url for c in selection.sources} if selection else set()
    return [
        {
            "rank": i,
            "url": c.url,
            "title": c.item.title,
            "combined_score": c.combined_score,
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
        }
        for i, c in enumerate(candidates, 1)
    ]


def claims_of(excerpts: list[str]) -> list[str]:
    """Claim sentences of a source's excerpts (re-exported for the extractive synthesizer)."""
    return claim_sentences(excerpts, limit=1000)
