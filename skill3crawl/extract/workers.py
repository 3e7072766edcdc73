"""The extraction pool's worker processes: plain subprocesses that read pickled calls on a pipe.

Why not :class:`concurrent.futures.ProcessPoolExecutor`: with the ``spawn`` start method it runs a fourth
process, multiprocessing's resource tracker (~13 MB, for the named semaphores of its queues), and each worker
first re-runs the parent's main script as ``__mp_main__`` — for ``scrapy crawl …`` or ``skill3 learn …`` that
is the console script, which imports Scrapy or skill3's CLI into every worker. A worker here is
``python -c`` :data:`~skill3crawl.extract.channel.BOOT`: it takes the crawler's ``sys.path``, then imports only
what the calls it is sent need (the page functions' modules, when a call is unpickled). One call at a time per
worker, on its stdin and stdout (:mod:`skill3crawl.extract.channel`); the call's own prints go to stderr. End of
input ends the worker, after the call in hand.
"""

from __future__ import annotations

import logging
import pickle
import queue
import subprocess
import sys
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable

from skill3crawl.extract.channel import BOOT, read_frame, write_frame
from synth.core.errors import WorkerDied

__all__ = ["WorkerDied", "WorkerPool"]
logger = logging.getLogger(__name__)
REAP_SECONDS = 10.0  # a closed worker ends after the call in hand; then it is killed


class _Worker:
    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", BOOT], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.alive = True
        write_frame(self.proc.stdin, pickle.dumps(list(sys.path)))  # type: ignore[arg-type]

    def call(self, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        try:
            write_frame(self.proc.stdin, pickle.dumps((fn, args, kwargs), pickle.HIGHEST_PROTOCOL))  # type: ignore[arg-type]
            frame = read_frame(self.proc.stdout)  # type: ignore[arg-type]
        except (BrokenPipeError, OSError, ValueError):
            frame = None
        if frame is None:
            self.alive = False
            raise WorkerDied(f"extraction worker {self.proc.pid} ended during a call (exit status {self.proc.poll()})")
        status, value = pickle.loads(frame)
        if status == "err":
            raise value
        return value


class WorkerPool:
    """``workers`` processes, each running one call at a time; :meth:`submit` returns a future.

    A call waits for an idle worker in one of the pool's threads (one per worker), so the caller's event loop
    never blocks; a worker that died is replaced for the next call. :meth:`close` ends the input of every
    worker and reaps them in a thread the interpreter waits for at exit, so their CPU time is the crawl's."""

    def __init__(self, workers: int) -> None:
        self._idle: queue.SimpleQueue[_Worker] = queue.SimpleQueue()
        self._workers = [_Worker() for _ in range(workers)]
        for w in self._workers:
            self._idle.put(w)
        self._threads = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="skill3-extract")
        self._closed = False
        self._lock = threading.Lock()

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Future:
        return self._threads.submit(self._call, fn, args, kwargs)

    def _call(self, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        worker = self._idle.get()
        try:
            return worker.call(fn, args, kwargs)
        finally:
            self._idle.put(worker if worker.alive else self._replace(worker))

    def _replace(self, dead: _Worker) -> _Worker:
        _reap([dead.proc])  # it ended its output: it has ended, or is killed now
        with self._lock:
            new = dead
            if not self._closed:
                try:
                    new = _Worker()
                except OSError as exc:  # no process to be had now: the next call on this slot tries again
                    logger.warning("skill3: could not start an extraction worker: %s", exc)
            self._workers = [new if w is dead else w for w in self._workers]
        return new

    def close(self) -> None:
        """End every worker's input (each ends after the call in hand) and reap them; does not wait."""
        with self._lock:
            self._closed = True
            workers = list(self._workers)
        self._threads.shutdown(wait=False, cancel_futures=True)
        for w in workers:
            try:
                w.proc.stdin.close()  # type: ignore[union-attr]
            except OSError:
                pass
        reaper = threading.Thread(target=_reap, args=([w.proc for w in workers],), name="skill3-extract-reaper")
        reaper.start()  # not a daemon: the interpreter waits for it at exit


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
