"""Both passes over a large run in worker processes, each reading a byte range of the files (a :class:`Chunk`).

Pass 1 (:meth:`VotePool.read`): the workers parse and summarise their ranges (:mod:`.summary`); the main process
replays the lines in order, so the run's statistics, the ledger and the heap of candidates grow exactly as in one
pass in order. Pass 2 (:meth:`VotePool.vote`): the workers let their ranges' lines vote on the candidates' clusters;
the votes are merged into the main process's :class:`~.vote._Votes` exactly.

Exact because a vote only ever adds: a cluster's agreement is the number of independent hosts that published it,
capped at :data:`~.vote.MAX_HOSTS_PER_CLUSTER` (the union of the workers' host sets, capped, is what one pass in
order counts), and an authoritative variant is known when any line showed one. A worker retires a decided cluster
from its own copy of the index only (:meth:`~.vote._Votes._retire_if_decided`), which changes no outcome.

Used when the run is at least :data:`MIN_PARALLEL_BYTES` and more than one CPU is usable
(``SKILL3_BUNDLE_WORKERS``: the number of worker processes, default one per usable CPU up to
:data:`MAX_WORKERS`; ``0`` or ``1`` reads in the main process). A pool that cannot start (no semaphores in a
sandbox, a spawn that fails) or breaks is reported on the log and the pass runs in order in the main process
(pass 1 from the start: nothing a broken pool read is kept).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import pickle
import uuid
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

from synth.pipeline.bundle.read import MAX_LINE_BYTES, _lines, _vote_marks
from synth.pipeline.bundle.summary import ChunkRead, Reading
from synth.pipeline.bundle.vote import _Votes

log = logging.getLogger(__name__)

MIN_PARALLEL_BYTES = 64 * 1024 * 1024  # below this, starting processes costs more than it saves
CHUNK_BYTES = 16 * 1024 * 1024  # one task: a worker's share of the run in pieces (uneven lines even out)
MAX_WORKERS = 4  # by default
MAX_EXPLICIT_WORKERS = 64  # SKILL3_BUNDLE_WORKERS is capped here
ENV = "SKILL3_BUNDLE_WORKERS"


@dataclass(frozen=True)
class Chunk:
    """A byte range of one file starting at a line: its first line's number (for the lines pass 1 skipped)."""

    path: str
    start: int
    end: int
    first_line: int


def workers(env: dict[str, str] | None = None) -> int:
    """Worker processes for pass 2: ``SKILL3_BUNDLE_WORKERS``, else one per usable CPU up to :data:`MAX_WORKERS`."""
    raw = (os.environ if env is None else env).get(ENV, "").strip()
    if raw:
        try:
            return min(max(0, int(raw)), MAX_EXPLICIT_WORKERS)
        except ValueError:
            log.warning("%s=%r is not a number of processes: pass 2 reads in the main process", ENV, raw)
            return 0
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count() or 1
    return min(usable, MAX_WORKERS)


class Splitter:
    """Cuts the files into :class:`Chunk` s at line ends while pass 1 reads them (no second scan)."""

    def __init__(self, chunk_bytes: int | None = None) -> None:
        self.chunk_bytes = chunk_bytes or CHUNK_BYTES
        self.chunks: list[Chunk] = []
        self._path = ""
        self._start = self._end = 0
        self._first = 1

    def start_file(self, path: str) -> None:
        self._close()
        self._path, self._start, self._end, self._first = path, 0, 0, 1

    def line(self, n: int, end: int) -> None:
        """Line ``n`` ends at byte ``end`` of the file; a chunk ends after it once it holds ``chunk_bytes``."""
        self._end = end
        if end - self._start >= self.chunk_bytes:
            self.chunks.append(Chunk(self._path, self._start, end, self._first))
            self._start, self._first = end, n + 1

    def finish(self) -> list[Chunk]:
        self._close()
        return self.chunks

    def _close(self) -> None:
        if self._path and self._end > self._start:
            self.chunks.append(Chunk(self._path, self._start, self._end, self._first))
        self._path = ""


def cut(paths: list[str], chunk_bytes: int | None = None) -> list[tuple[str, int, int]]:
    """The files as byte ranges ``(path, start, end)`` of about ``chunk_bytes``, each starting at a line start."""
    size = chunk_bytes or CHUNK_BYTES
    ranges = []
    for path in paths:
        total = os.path.getsize(path)
        with Path(path).open("rb") as fh:
            start = 0
            while start < total:
                end = min(start + size, total)
                if end < total:
                    fh.seek(end - 1)  # to the end of the line holding the byte before ``end`` (a long line in pieces)
                    while (piece := fh.readline(1 << 20)) and not piece.endswith(b"\n"):
                        pass
                    end = fh.tell()
                ranges.append((path, start, end))
                start = end
    return ranges


def vote_chunk(votes: _Votes, chunk: Chunk, skipped: frozenset[str] | set[str],
               loose: frozenset[str] | set[str] = frozenset()) -> _Votes:
    """Every line of ``chunk`` (those pass 1 skipped as malformed excepted) votes on ``votes`` (those in ``loose``
    without their snippet tokens); returns it."""
    with Path(chunk.path).open("rb") as fh:
        fh.seek(chunk.start)
        votes.vote_lines(_vote_marks(chunk.path, _chunk_lines(fh, chunk), skipped, loose))
    return votes


def _chunk_lines(fh: BinaryIO, chunk: Chunk) -> Iterator[tuple[int, bytes | None]]:
    """The numbered lines of ``chunk`` (``fh`` at its start)."""
    for n, raw in _lines(fh, MAX_LINE_BYTES, first=chunk.first_line):
        yield n, raw
        if fh.tell() >= chunk.end:
            break


_WORKER_VOTES: dict[str, _Votes] = {}  # in a worker process: the copy of the vote its last chunks used, by key


def _worker_vote(key: str, state: bytes, chunk: Chunk, skipped: frozenset[str],
                 loose: frozenset[str]) -> tuple[dict[int, set[str]], set[int]]:
    """One chunk's votes. The pickled ``state`` is unpickled once per worker and pass (``key``): its copy of the vote
    serves the worker's next chunks, with what it retired (which changes no outcome) and no votes carried over."""
    votes = _WORKER_VOTES.get(key)
    if votes is None:
        _WORKER_VOTES.clear()
        votes = _WORKER_VOTES[key] = _Votes.from_state(pickle.loads(state))
    votes.fresh_votes()
    votes = vote_chunk(votes, chunk, skipped, loose)
    return dict(votes.hosts), votes.authoritative_variant


def _worker_read(reading: Reading, path: str, start: int, end: int) -> ChunkRead:
    return reading.chunk(path, start, end)


def _ready() -> bool:
    return True  # a worker that ran this has imported this module (and the vote's) and waits for its chunks


class VotePool:
    """The worker processes of both passes, started when the run is large and more than one worker is allowed
    (else it has none, and :meth:`read` and :meth:`vote` say so)."""

    def __init__(self, paths: list[str], env: dict[str, str] | None = None) -> None:
        self.n = workers(env)
        self._pool: ProcessPoolExecutor | None = None
        size = sum(os.path.getsize(p) for p in paths if os.path.isfile(p))
        if self.n > 1 and size >= MIN_PARALLEL_BYTES:
            try:
                self._pool = ProcessPoolExecutor(max_workers=self.n, mp_context=multiprocessing.get_context("spawn"))
                for _ in range(self.n):
                    self._pool.submit(_ready)
            except (OSError, RuntimeError, ImportError) as exc:
                self._failed(exc)

    def read(self, reading: Reading, paths: list[str], replay: Callable[[str, int, ChunkRead], None]) -> list[Chunk] | None:
        """Pass 1 over ``paths`` in the workers: each range's lines, summarised, handed to ``replay(path, first line
        number, lines)`` in file order; returns the ranges as pass 2's chunks. None when there is no pool or it broke
        (then ``replay`` may have been called: the caller reads again in order, from the start)."""
        if self._pool is None or not all(os.path.isfile(p) for p in paths):
            return None  # a missing file is named by the pass in order, where it comes
        chunks: list[Chunk] = []
        try:
            ranges = cut(paths)
            first = 1
            for (path, start, end), read in zip(ranges, self._in_order(reading, ranges)):
                first = 1 if start == 0 else first
                replay(path, first, read)
                chunks.append(Chunk(path, start, end, first))
                first += read.lines
        except Exception as exc:  # noqa: BLE001 — any failure of a worker: the exact pass in order follows
            self._failed(exc)
            return None
        return chunks

    def _in_order(self, reading: Reading, ranges: list[tuple[str, int, int]]) -> Iterator[ChunkRead]:
        """The workers' reads of ``ranges``, in order; at most two per worker are ahead of the main process's replay."""
        assert self._pool is not None
        todo = iter(ranges)
        pending: deque[Future[ChunkRead]] = deque(self._pool.submit(_worker_read, reading, *r) for r in islice(todo, 2 * self.n))
        while pending:
            read = pending.popleft().result()
            more = next(todo, None)
            if more is not None:
                pending.append(self._pool.submit(_worker_read, reading, *more))
            yield read

    def vote(self, votes: _Votes, chunks: list[Chunk], skipped: set[str], loose: set[str] | frozenset[str] = frozenset()) -> bool:
        """Pass 2 over ``chunks`` in the workers, merged into ``votes``; False when there is no pool or it broke (then
        nothing was merged and the caller reads in order)."""
        if self._pool is None or not chunks:
            return False
        n = len(chunks)
        state, key = pickle.dumps(votes.state(), protocol=pickle.HIGHEST_PROTOCOL), uuid.uuid4().hex
        frozen, cut_lines = frozenset(skipped), frozenset(loose)
        try:
            results = list(self._pool.map(_worker_vote, [key] * n, [state] * n, chunks, [frozen] * n, [cut_lines] * n))
        except (OSError, RuntimeError, ImportError) as exc:  # BrokenProcessPool is a RuntimeError
            self._failed(exc)
            return False
        for hosts, variants in results:
            votes.merge(hosts, variants)
        return True

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> "VotePool":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _failed(self, exc: BaseException) -> None:
        reason = " ".join(str(exc).split())[:200] or type(exc).__name__
        log.warning("the bundle could not use %d worker processes (%s): reading in the main process", self.n, reason)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = None
