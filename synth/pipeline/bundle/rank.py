"""Ranking: the two streaming passes over the run (:func:`rank_sources`), each item scored against the cutoff
(:func:`score_item`), the best kept in a bounded heap, re-scored on the final statistics, then the consensus vote and
the delta applied."""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from datetime import date

from synth.delta.changes import (
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
from synth.delta.ledger import Delta, Ledger
from synth.delta.model import DeltaRecord, ReleaseDate
from synth.delta.timeline import Timeline, parse_day
from synth.evidence.consensus import AUTHORITATIVE, item_snippets
from synth.evidence.item import SourceItem
from synth.evidence.relevance import BM25, is_boilerplate, query_terms
from synth.evidence.scoring import combined_score
from synth.evidence.urls import host_of, normalize_host, site_host
from synth.pipeline.bundle import parallel
from synth.pipeline.bundle.candidate import CANDIDATES_PER_SOURCE, DEFAULT_MAX_SOURCES, RELEVANCE_FLOOR, Candidate
from synth.pipeline.bundle.read import BundleError, ReadReport, _read_line, _vote_lines, iter_items
from synth.pipeline.bundle.summary import ChunkRead, Reading, page_bound, page_text
from synth.pipeline.bundle.vote import _apply_consensus, _Votes

HEAP_SLACK = 2  # pass 1 keeps this many times the candidates: its scores are provisional (timeline, hosts, IDF still growing)
MAX_ENTRIES_PER_SOURCE = 60
MAX_RELEASE_PAGES = 5000  # post-cutoff change entries carried per source


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


@dataclass
class Ranked:
    """Pass results: ranked candidates with consensus applied, the read report, and the delta record."""

    candidates: list[Candidate]
    report: ReadReport
    delta: DeltaRecord = field(default_factory=DeltaRecord)  # timeline, boundary, build-dated hosts, the ledger

    @property
    def changes(self) -> Delta | None:
        """Every post-cutoff (and undated) change entry of the run: the references (the delta record's ledger)."""
        return self.delta.ledger


@dataclass(frozen=True)
class Subject:
    """What the run is about, for ranking: the topic and planned queries (relevance), the crawl's record
    (``crawl.json``'s ``meta``: the version timeline, build-dated hosts) and ``--since-version``."""

    topic: str = ""
    queries: list[str] | tuple[str, ...] = ()
    crawl_meta: dict | None = None
    since_version: str | None = None

    def terms(self) -> tuple[str, ...]:
        return query_terms(self.topic, *[q for q in self.queries if isinstance(q, str)])


def rank_sources(
    paths: list[str],
    *,
    cutoff_start: date,
    today: date,
    strict: bool = False,
    max_candidates: int = DEFAULT_MAX_SOURCES * CANDIDATES_PER_SOURCE,
    subject: Subject = Subject(),
) -> Ranked:
    """Read, score and rank the run; consensus, relevance and the delta (timeline, change entries) applied.

    Pass 1 keeps ``HEAP_SLACK`` × ``max_candidates`` on provisional scores (the timeline, the
    build-dated hosts and the BM25 statistics grow while the run is read); the kept candidates
    are then re-scored with the final statistics and cut to ``max_candidates``.
    """
    def start() -> _FirstPass:
        return _FirstPass(subject, cutoff_start=cutoff_start, today=today, strict=strict, max_candidates=max_candidates)

    first = start()
    with parallel.VotePool(paths) as pool:  # worker processes, when the run is large
        # Pass 1: score and keep the best candidates (the lines parsed in the workers, replayed here in order).
        chunks = pool.read(first.reading(), paths, first.replay_chunk)
        if chunks is None:
            first = start()  # no pool, or one that broke: nothing it read is kept
            splitter = parallel.Splitter()
            first.read(paths, splitter)
            chunks = splitter.finish()
        first.check_read(paths)
        # Final statistics: re-score what pass 1 kept.
        build_dated, changes_delta = first.settle()
        candidates = first.rescored(build_dated)[:max_candidates]
        first.report.duplicates = 0
        # Pass 2: cluster the candidates' snippets, then let every item in the run vote.
        _vote(candidates, paths, first.skipped, chunks, pool, first.loose)
    _apply_delta(candidates, subject.terms())
    for c in candidates:
        c.rescore(consensus=True)
    candidates.sort(key=Candidate.rank_key)
    return Ranked(candidates, first.report, first.delta_record(candidates, build_dated, changes_delta))


class _FirstPass:
    """Pass 1 over the run: what every item teaches (host dates, the version timeline, the ledger of change entries,
    the release pages, the BM25 statistics) and the bounded heap of the best candidates on provisional scores."""

    def __init__(self, subject: Subject, *, cutoff_start: date, today: date, strict: bool, max_candidates: int) -> None:
        self.cutoff_start, self.today, self.strict = cutoff_start, today, strict
        self.report = ReadReport()
        meta = subject.crawl_meta if isinstance(subject.crawl_meta, dict) else {}
        self.timeline = Timeline(today, since=subject.since_version, settled=False)  # settled before the re-score: pass 1 still learns versions
        for row in meta.get("timeline") or []:
            if (r := ReleaseDate.from_json(row)) is not None:
                self.timeline.add(r.version, r.date, r.source, r.url)
        self.declared = {normalize_host(h): str(d) for h, d in (meta.get("build_dated_hosts") or {}).items()} \
            if isinstance(meta.get("build_dated_hosts"), dict) else {}
        self.hosts = HostDates()
        self.ledger = Ledger()
        self.release_pages: list[tuple[str, str, str, str, str | None]] = []  # a change page about one version, with its date
        self.bm = BM25(subject.terms())
        self.heap = _Heap(max_candidates * HEAP_SLACK)
        self.skipped: set[str] = set()  # the ``file:line`` of lines skipped as malformed (pass 2 skips them too)
        self.loose: set[str] = set()  # lines whose snippet_tokens pass 2 does not use (read_line's ``loose``)

    def read(self, paths: list[str], splitter: parallel.Splitter | None = None) -> None:
        """Every item of ``paths`` learnt from and scored, in order; ``self.skipped`` collects the lines skipped as
        malformed, ``splitter`` the chunks of pass 2."""
        for where, item in iter_items(paths, self.report, skipped=self.skipped, loose=self.loose, splitter=splitter):
            self.report.items += 1
            self._consider(where, item)

    def reading(self) -> Reading:
        """What the workers of :meth:`replay_chunk` need to summarise lines."""
        return Reading(self.cutoff_start, self.today, self.strict, self.declared, self.bm.terms)

    def replay_chunk(self, path: str, first: int, read: ChunkRead) -> None:
        """A worker's read of the lines of ``path`` from line ``first`` on, learnt from as :meth:`read` learns."""
        if path not in self.report.files:
            self.report.files.append(path)
        before = first - 1
        summaries = 0
        for record in read.records:
            if len(record) == 2:  # a raw line
                where = f"{path}:{before + record[0]}"
                item = _read_line(record[1], where, self.report, self.skipped, self.loose)
                if item is not None:
                    self.report.items += 1
                    self._consider(where, item)
                continue
            summaries += 1
            self.replay(path, before + record[0], record)
        self.report.lines += summaries
        self.report.items += summaries

    def check_read(self, paths: list[str]) -> None:
        if not self.report.items:
            report = self.report
            detail = f" ({report.malformed} malformed line(s), first at {report.malformed_at[0]})" if report.malformed_at else ""
            raise BundleError(f"no valid source item in {', '.join(paths)}{detail}")

    def _consider(self, where: str, item: SourceItem) -> None:
        host = normalize_host(item.host or host_of(item.final_url or item.url))
        changes = self._learn(item, host)
        tf, length = self.bm.observe(page_text(item))
        build_date = self.declared.get(host) or (item.build_date if isinstance(item.build_date, str) else None)
        if not changes and self.heap.full() and (item.final_url or item.url) not in self.heap \
                and self._cannot_enter(*page_bound(item, build_date, cutoff_start=self.cutoff_start, today=self.today,
                                                   strict=self.strict), tf, length):
            return
        self._score(where, item, build_date, changes, tf, length)

    def replay(self, path: str, n: int, summary: tuple) -> None:
        """A worker's summary of a page without change entries (a :class:`~.summary.Summary`'s fields) on line ``n``
        of ``path``, learnt from as :meth:`_consider` learns from the page; the page itself is read from ``path`` only
        when it may enter the heap."""
        _n, host, published, modified, url, tf, length, build_date, drop, bound, offset, size = summary
        self.hosts.observe(host, published, modified)
        self.bm.add(tf, length)
        if self.heap.full() and url not in self.heap and self._cannot_enter(drop, bound, tf, length):
            return
        where = f"{path}:{n}"
        item = _line_at(path, offset, size, where)
        if item is not None:  # None: the file changed since the worker read it
            self._score(where, item, build_date, [], tf, length)

    def _score(self, where: str, item: SourceItem, build_date: str | None, changes: list[Change], tf: dict,
               length: int) -> None:
        c, reason = score_item(item, self.cutoff_start, self.today, self.strict, timeline=self.timeline,
                               build_date=build_date, changes=changes)
        if c is None:
            self.report.dropped[reason or "dropped"] += 1
            return
        c.where = where
        c.term_counts, c.length = tf, length
        c.relevance = self.bm.relevance(tf, length)
        c.rescore()
        self.heap.push(c)

    def _learn(self, item: SourceItem, host: str) -> list[Change]:
        """What one item teaches the run, whether or not it is kept: its host's dates, the versions it dates or
        declares, its change entries (the ledger), a release page's date; returns its change entries."""
        self.hosts.observe(host, item.published, item.modified)
        changes = read_changes(item.changes) if item.changes else []
        for version, day in dated_releases(changes):
            self.timeline.add(version, day, "page", item.final_url or item.url)
        if changes:
            self.ledger.observe(item.final_url or item.url, item.title, item.page_kind, item.page_version, item.authority,
                                changes, item.code_blocks)
        if (item.page_kind == "change" and item.page_version and item.published and item.date_source in OWN_DATE_SIGNALS
                and len(self.release_pages) < MAX_RELEASE_PAGES):
            self.release_pages.append((host, item.page_version, item.published, item.final_url or item.url, item.date_source))
        if item.page_kind == "change" and float(item.authority) >= AUTHORITATIVE:
            # the site's own What's New / release notes name these versions (the page's, its version sections')
            for v in {item.page_version, *(c.version for c in changes if c.kind == "release")} - {None}:
                self.timeline.declare(v)
        return changes

    def _cannot_enter(self, drop: str | None, bound: float, tf: dict, length: int) -> bool:
        """Whether a page without change entries cannot enter the full heap (a rule drops it, counted, or its rank
        score is below the worst kept), so it is not scored. Most pages cannot: bound the rank score as if the page
        were not boilerplate (what ``score_item`` + ``Candidate.rescore`` compute is this times a factor ≤ 1).
        ``drop``, ``bound``: :func:`~.summary.page_bound` of the page."""
        if drop:
            self.report.dropped[drop] += 1
            return True
        rel = RELEVANCE_FLOOR + (1 - RELEVANCE_FLOOR) * self.bm.relevance(tf, length)
        return self.heap.below_worst(round(bound * 1.0 * rel, 6))

    def settle(self) -> tuple[dict[str, str], Delta]:
        """The final statistics: the build-dated hosts (detected and declared), the release pages' dates, the settled
        timeline; returns the build-dated hosts and the run's post-cutoff change entries (the ledger's delta)."""
        detected = self.hosts.build_dated()
        build_dated = {**detected, **self.declared}
        item_build_dates = {normalize_host(c.item.host or host_of(c.url)): c.build_date for c in self.heap.ranked() if c.build_date}
        for host, version, day, url, _signal in self.release_pages:
            # a page about one release dated otherwise than its host's build: the date it prints is the release's
            bd = build_dated.get(host) or item_build_dates.get(host)
            if not bd or str(day)[:10] != str(bd)[:10]:
                self.timeline.add(version, day, "release page date", url)
        self.timeline.reject_build_dates({**item_build_dates, **build_dated}, site_host)
        self.timeline.settle()
        return build_dated, self.ledger.finish(self.timeline, self.cutoff_start)

    def rescored(self, build_dated: dict[str, str]) -> list[Candidate]:
        """What the heap kept, scored again on the final statistics, in rank order (a rule may drop some now)."""
        rescored: list[Candidate] = []
        for c in self.heap.ranked():
            host = normalize_host(c.item.host or host_of(c.url))
            bd = build_dated.get(host) or c.build_date
            again, reason = score_item(c.item, self.cutoff_start, self.today, self.strict, timeline=self.timeline, build_date=bd)
            if again is None:
                self.report.dropped[reason or "dropped"] += 1
                continue
            again.where, again.term_counts, again.length = c.where, c.term_counts, c.length
            again.relevance = self.bm.relevance(c.term_counts, c.length)
            again.rescore()
            rescored.append(again)
        return sorted(rescored, key=Candidate.rank_key)

    def delta_record(self, candidates: list[Candidate], build_dated: dict[str, str], ledger: Delta | None) -> DeltaRecord:
        """The delta's record for run.json and --dry-run: timeline, boundary, build-dated hosts, relevance query, the
        finished ledger."""
        declared = self.declared
        return DeltaRecord(
            timeline=self.timeline.entries(),
            boundary=self.timeline.boundary(self.cutoff_start),
            rejected_dates=self.timeline.rejected,
            build_dated_hosts={h: {"date": d, "how": "declared by the crawl" if h in declared else "detected: most pages share this date"}
                               for h, d in sorted(build_dated.items())},
            relevance_query=list(self.bm.terms),
            post_cutoff_entries=sum(len(c.delta) for c in candidates),
            ledger=ledger,
        )


def _line_at(path: str, offset: int, size: int, where: str) -> SourceItem | None:
    """The item of the line at ``offset`` (a page a worker summarised, which may enter the heap)."""
    with open(path, "rb") as fh:
        fh.seek(offset)
        return _read_line(fh.read(size), where, None, None)


def _vote(candidates: list[Candidate], paths: list[str], skipped: set[str], chunks: list[parallel.Chunk] | None = None,
          pool: parallel.VotePool | None = None, loose: set[str] | frozenset[str] = frozenset()) -> None:
    """Pass 2: cluster the candidates' snippets, let every item of the run vote on them (the lines pass 1 skipped as
    malformed excepted), and apply the outcome to each candidate. ``chunks``: the run cut at line ends, read by the
    ``pool``'s worker processes when it has them (:mod:`.parallel`)."""
    votes = _Votes()
    per_candidate: list[list[tuple[str, str, int]]] = []
    for c in candidates:
        host = normalize_host(c.item.host or host_of(c.url))
        snippets = []
        for kind, text in item_snippets(c.item.excerpts, c.item.code_blocks):
            snippets.append((kind, text, votes.add_candidate_snippet(text, host, c.authority)))
        per_candidate.append(snippets)
    if pool is None or not pool.vote(votes, chunks or [], skipped, loose):
        votes.vote_lines(_vote_lines(paths, skipped, loose))
    for c, snippets in zip(candidates, per_candidate):
        _apply_consensus(c, snippets, votes)


def _apply_delta(candidates: list[Candidate], base: tuple[str, ...]) -> None:
    """Score every candidate's change entries (relevance against the run's query terms ``base`` and the page's title)
    and put the post-cutoff ones, best first and tagged with version and date, in place of the page's excerpts."""
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
