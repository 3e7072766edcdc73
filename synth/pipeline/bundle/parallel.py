"""Both passes over a large run in worker processes, each reading a byte range of the files (a :class:`Chunk`).

Pass 1 (:meth:`VotePool.read`): the workers parse and summarise their ranges (:mod:`.summary`); the main process
replays the lines in order, so the run's statistics, the ledger and the heap of candidates grow exactly as in one
pass in order; each worker keeps what pass 2 needs of its range in a spill file (:mod:`.spill`). Pass 2
(:meth:`VotePool.vote`): the workers let their ranges' lines vote on the candidates' clusters, from the spills
(or the lines, where a spill is missing); the votes are merged into the main process's :class:`~.vote.Votes`
exactly.

Exact because a vote only ever adds: a cluster's agreement is the number of independent hosts that published it,
capped at :data:`~.vote.MAX_HOSTS_PER_CLUSTER` (the union of the workers' host sets, capped, is what one pass in
order counts), and an authoritative variant is known when any line showed one. A worker retires a decided cluster
from its own copy of the index only (:meth:`~.vote.Votes._retire_if_decided`), which changes no outcome.

Used when the run is at least :data:`MIN_PARALLEL_BYTES` and more than one CPU is usable
(``SKILL3_BUNDLE_WORKERS``: the number of worker processes, default one per usable CPU up to
:data:`MAX_WORKERS`; ``0`` or ``1`` reads in the main process). A pool that cannot start (no semaphores in a
sandbox, a spawn that fails) or breaks is reported on the log and the pass runs in order in the main process
(pass 1 from the start: nothing a broken pool read is kept).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import multiprocessing
import os
import pickle
import shutil
import sys
import tempfile
import threading
import uuid
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

from synth.pipeline.bundle.read import MAX_LINE_BYTES, READ_BUFFER, read_lines, vote_marks
from synth.pipeline.bundle.spill import read_spill
from synth.pipeline.bundle.summary import ChunkRead, Reading
from synth.pipeline.bundle.vote import Votes

log = logging.getLogger(__name__)

MIN_PARALLEL_BYTES = 64 * 1024 * 1024  # below this, starting processes costs more than it saves
CHUNK_BYTES = 16 * 1024 * 1024  # one task: a worker's share of the run in pieces (uneven lines even out)
MAX_WORKERS = 4  # by default
MAX_SPILL_BYTES = 512 * 1024 * 1024  # pass 1's spills of one run (in the temporary directory, maybe in memory)
MAX_EXPLICIT_WORKERS = 64  # SKILL3_BUNDLE_WORKERS is capped here
ENV = "SKILL3_BUNDLE_WORKERS"


@dataclass(frozen=True)
class Chunk:
    """A byte range of one file starting at a line: its first line's number (for the lines pass 1 skipped)."""

    path: str
    start: int
    end: int
    first_line: int
    spill: str = ""  # where pass 1's worker kept what pass 2 needs of it (:mod:`.spill`), if it did


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


def vote_chunk(votes: Votes, chunk: Chunk, skipped: frozenset[str] | set[str],
               loose: frozenset[str] | set[str] = frozenset()) -> Votes:
    """Every line of ``chunk`` (those pass 1 skipped as malformed excepted) votes on ``votes`` (those in ``loose``
    without their snippet tokens); returns it."""
    spilled = read_spill(chunk.spill) if chunk.spill else None
    with Path(chunk.path).open("rb", buffering=READ_BUFFER) as fh:
        if spilled is None:
            fh.seek(chunk.start)
            votes.vote_lines(vote_marks(chunk.path, _chunk_lines(fh, chunk), skipped, loose))
            return votes
        fd = fh.fileno()
        offsets, sizes = spilled.offsets, spilled.sizes
        votes.vote_met(votes.meeting_joined(spilled.tokens, spilled.ends), spilled.packed,
                       lambda i: os.pread(fd, sizes[i], offsets[i]))
        others, before = spilled.others, chunk.first_line - 1  # a spill numbers the lines from the range's first
        numbered = ((before + others[k], os.pread(fd, others[k + 2], others[k + 1])) for k in range(0, len(others), 3))
        votes.vote_lines(vote_marks(chunk.path, numbered, skipped, loose))
    return votes


def _chunk_lines(fh: BinaryIO, chunk: Chunk) -> Iterator[tuple[int, bytes | None]]:
    """The numbered lines of ``chunk`` (``fh`` at its start)."""
    for n, raw in read_lines(fh, MAX_LINE_BYTES, first=chunk.first_line):
        yield n, raw
        if fh.tell() >= chunk.end:
            break


_WORKER_VOTES: dict[str, Votes] = {}  # in a worker process: the copy of the vote its last chunks used, by key


def _worker_vote(key: str, state: bytes, chunk: Chunk, skipped: frozenset[str],
                 loose: frozenset[str]) -> tuple[dict[int, set[str]], set[int]]:
    """One chunk's votes. The pickled ``state`` is unpickled once per worker and pass (``key``): its copy of the vote
    serves the worker's next chunks, with what it retired (which changes no outcome) and no votes carried over."""
    votes = _WORKER_VOTES.get(key)
    if votes is None:
        _WORKER_VOTES.clear()
        votes = _WORKER_VOTES[key] = Votes.from_state(pickle.loads(state))
    votes.fresh_votes()
    votes = vote_chunk(votes, chunk, skipped, loose)
    return dict(votes.hosts), votes.authoritative_variant


def _worker_read(reading: Reading, path: str, start: int, end: int, spill: str = "") -> ChunkRead:
    return reading.chunk(path, start, end, spill)


def start_method() -> str:
    """How the workers start: forked on Linux when this process runs one thread only (a fork copies the imported
    modules: no worker imports them again, ~0.3 s of CPU each), else spawned (a fork beside other threads may copy
    a lock one of them holds; macOS's system libraries do not support it at all)."""
    return "fork" if sys.platform.startswith("linux") and threading.active_count() == 1 else "spawn"


def _worker_start() -> None:
    """In a new worker process: its exit, once the pool shuts down, skips the interpreter's teardown (freeing every
    module and object one by one took ~0.2 s of the pool's shutdown after a large run). A worker holds nothing that
    needs it: its results went back through the pool's pipe, its spill files are closed."""
    atexit.register(_exit_now)


def _exit_now() -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _ready() -> bool:
    return True  # a worker that ran this has imported this module (and the vote's) and waits for its chunks


class VotePool:
    """The worker processes of both passes, started when the run is large and more than one worker is allowed
    (else it has none, and :meth:`read` and :meth:`vote` say so)."""

    def __init__(self, paths: list[str], env: dict[str, str] | None = None) -> None:
        self.n = workers(env)
        self._pool: ProcessPoolExecutor | None = None
        self._spill_dir: str | None = None
        self._spilled = 0  # bytes of the spills written
        size = sum(os.path.getsize(p) for p in paths if os.path.isfile(p))
        if self.n > 1 and size >= MIN_PARALLEL_BYTES:
            try:
                self._pool = ProcessPoolExecutor(max_workers=self.n, mp_context=multiprocessing.get_context(start_method()),
                                                 initializer=_worker_start)
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
            for (path, start, end), (spill, read) in zip(ranges, self._in_order(reading, ranges)):
                first = 1 if start == 0 else first
                replay(path, first, read)
                chunks.append(Chunk(path, start, end, first, spill if read.spilled else ""))
                first += read.lines
        except Exception as exc:  # noqa: BLE001 — any failure of a worker: the exact pass in order follows
            self._failed(exc)
            return None
        return chunks

    def _spill(self, i: int) -> str:
        """Where the worker reading range ``i`` keeps what pass 2 needs of it: a file in a private directory of this
        pool's, removed when it closes; "" (pass 2 reads the range again) once the spills written hold
        :data:`MAX_SPILL_BYTES` (the temporary directory may be in memory), or when there is no such directory."""
        if self._spilled >= MAX_SPILL_BYTES:
            return ""
        if self._spill_dir is None:
            try:
                self._spill_dir = tempfile.mkdtemp(prefix="skill3-bundle-")
            except OSError as exc:
                log.info("no spill directory for the bundle's second pass (%s): it reads the run again", exc)
                self._spilled = MAX_SPILL_BYTES
                return ""
        return os.path.join(self._spill_dir, f"{i}.spill")

    def _in_order(self, reading: Reading, ranges: list[tuple[str, int, int]]) -> Iterator[tuple[str, ChunkRead]]:
        """The workers' reads of ``ranges`` (with where each kept its spill), in order; at most two per worker are
        ahead of the main process's replay."""
        pool = self._pool
        assert pool is not None
        pending: deque[tuple[str, Future[ChunkRead]]] = deque()

        def submit(i: int) -> None:
            spill = self._spill(i)
            pending.append((spill, pool.submit(_worker_read, reading, *ranges[i], spill)))

        for i in range(min(len(ranges), 2 * self.n)):
            submit(i)
        done = 0
        while pending:
            spill, future = pending.popleft()
            read = future.result()
            if read.spilled:
                with contextlib.suppress(OSError):  # a spill gone already is not used (vote_chunk)
                    self._spilled += os.path.getsize(spill)
            done += 1
            if done + len(pending) < len(ranges):
                submit(done + len(pending))
            yield spill, read

    def vote(self, votes: Votes, chunks: list[Chunk], skipped: set[str], loose: set[str] | frozenset[str] = frozenset()) -> bool:
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
        if self._spill_dir is not None:
            shutil.rmtree(self._spill_dir, ignore_errors=True)  # the pool's own directory, made by mkdtemp
            self._spill_dir = None

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
