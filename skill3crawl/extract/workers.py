"""The extraction pool's worker processes: plain subprocesses that read pickled calls on a pipe.

Why not :class:`concurrent.futures.ProcessPoolExecutor`: with the ``spawn`` start method it runs a fourth
process, multiprocessing's resource tracker (~13 MB, for the named semaphores of its queues), and each worker
first re-runs the parent's main script as ``__mp_main__`` — for ``scrapy crawl …`` or ``skill3 learn …`` that
is the console script, which imports Scrapy or skill3's CLI into every worker. A worker here is
``python -c`` :data:`~skill3crawl.extract.channel.BOOT`: it takes the crawler's ``sys.path``, then imports only
what the calls it is sent need (the page functions' modules, when a call is unpickled). It runs its calls one at
a time, in order, on its stdin and stdout (:mod:`skill3crawl.extract.channel`); the call's own prints go to stderr.

Each worker has :data:`AHEAD` calls sent to it at most, so it starts the next as soon as it has replied (as
``ProcessPoolExecutor``'s call queue does): a writer thread sends them, taking a call from the pool's queue only
when the worker has room, and a reader thread reads the replies in order, so neither side of a pipe waits on the
other. End of input ends the worker, after the calls it has.
"""

from __future__ import annotations

import atexit
import logging
import pickle
import queue
import subprocess
import sys
import threading
from collections import deque
from concurrent.futures import Future
from typing import Any, Callable

from skill3crawl.extract.channel import BOOT, read_frame, write_frame
from synth.core.errors import WorkerDied

__all__ = ["WorkerDied", "WorkerPool", "reply"]
logger = logging.getLogger(__name__)
AHEAD = 2  # calls sent to a worker and not yet answered, at most
REAP_SECONDS = 10.0  # a closed worker ends after the calls it has; then it is killed
_Job = tuple[bytes, Future]


class _Worker:
    def __init__(self, jobs: queue.SimpleQueue[_Job | None], on_death: Callable[[_Worker], None]) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", BOOT], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.alive = True
        self._jobs, self._on_death = jobs, on_death
        self._room = threading.Semaphore(AHEAD)
        self._sent: deque[Future] = deque()
        self._lock = threading.Lock()
        write_frame(self.proc.stdin, pickle.dumps(list(sys.path)))  # type: ignore[arg-type]
        threading.Thread(target=self._write, name=f"skill3-extract-w{self.proc.pid}", daemon=True).start()
        threading.Thread(target=self._read, name=f"skill3-extract-r{self.proc.pid}", daemon=True).start()

    def _write(self) -> None:
        """Send the pool's calls while the worker has room; the pool's ``None`` ends the worker's input."""
        while True:
            self._room.acquire()
            job = self._jobs.get()
            if job is None:
                if not self.alive:
                    self._jobs.put(job)  # another writer's stop
                break
            payload, future = job
            with self._lock:  # the reader ends the worker under this lock: a call is sent, or handed back, not lost
                if not self.alive:
                    self._jobs.put(job)  # for a worker that lives
                    break
                if not future.set_running_or_notify_cancel():
                    self._room.release()
                    continue
                self._sent.append(future)
            try:
                write_frame(self.proc.stdin, payload)  # type: ignore[arg-type]
            except (BrokenPipeError, OSError, ValueError):
                break  # the reader finds the end and fails what was sent
        try:
            self.proc.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass

    def _read(self) -> None:
        """Each reply to the call sent first; at the end of the output, every call still unanswered fails."""
        while True:
            try:
                frame = read_frame(self.proc.stdout)  # type: ignore[arg-type]
            except (OSError, ValueError):
                frame = None
            if frame is None:
                break
            with self._lock:
                future = self._sent.popleft()
            self._room.release()
            future.set_result(frame)
        with self._lock:
            self.alive = False
            unanswered, self._sent = list(self._sent), deque()
        self._room.release()  # a writer waiting for room wakes, sees the end and hands its call back
        _reap([self.proc])
        for future in unanswered:
            future.set_exception(WorkerDied(f"extraction worker {self.proc.pid} ended during a call "
                                            f"(exit status {self.proc.returncode})"))
        self._on_death(self)


class WorkerPool:
    """``workers`` processes; :meth:`submit` pickles a call and returns a future of its reply's pickle (:func:`reply`).

    A worker that ends while it has calls (killed, out of memory) fails them with :class:`WorkerDied` and is
    replaced. :meth:`close` ends every worker's input once the calls before it are sent; each worker ends after
    the calls it has, and the reader threads reap them, so their CPU time is the crawl's."""

    def __init__(self, workers: int) -> None:
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._closed = False
        self._workers = [_Worker(self._jobs, self._replace) for _ in range(workers)]
        atexit.register(self._at_exit)  # the threads are daemons: the workers are ended and reaped before exit

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Future:
        """The call pickled here, in the caller's thread; sent by a worker's writer thread."""
        future: Future = Future()
        self._jobs.put((pickle.dumps((fn, args, kwargs), pickle.HIGHEST_PROTOCOL), future))
        return future

    def _replace(self, dead: _Worker) -> None:
        with self._lock:
            if self._closed or dead not in self._workers:
                return
            try:
                new = _Worker(self._jobs, self._replace)
            except OSError as exc:  # no process to be had now: the pool goes on with one worker fewer
                logger.warning("skill3: could not start an extraction worker: %s", exc)
                self._workers.remove(dead)
                return
            self._workers[self._workers.index(dead)] = new

    def close(self) -> None:
        """End every worker's input after the calls already submitted are sent; does not wait."""
        with self._lock:
            self._closed = True
            n = len(self._workers)
        for _ in range(n):
            self._jobs.put(None)


    def _at_exit(self) -> None:
        self.close()
        with self._lock:
            procs = [w.proc for w in self._workers]
        _reap(procs)


def _reap(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        try:
            proc.wait(timeout=REAP_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass


def reply(frame: bytes) -> Any:
    """A worker's pickled reply: its result, or its exception raised."""
    status, value = pickle.loads(frame)
    if status == "err":
        raise value
    return value
