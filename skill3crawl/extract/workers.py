"""The extraction pool's worker processes: plain subprocesses that read pickled calls on a pipe.

Why not :class:`concurrent.futures.ProcessPoolExecutor`: with the ``spawn`` start method it runs a fourth
process, multiprocessing's resource tracker (~13 MB, for the named semaphores of its queues), and each worker
first re-runs the parent's main script as ``__mp_main__`` — for ``scrapy crawl …`` or ``skill3 learn …`` that
is the console script, which imports Scrapy or skill3's CLI into every worker. A worker here is
``python -c`` :data:`BOOT`: it takes the crawler's ``sys.path``, then imports only what the calls it is sent
need (the page functions' modules, when a call is unpickled).

The protocol, one call at a time per worker: each frame is an 8-byte big-endian length and a pickle. The first
frame the worker reads is the crawler's ``sys.path``; then each call is ``(fn, args, kwargs)`` and each reply
``("ok", result)`` or ``("err", exception)``. The call's own prints go to stderr: the worker's stdout file
descriptor is the channel alone. End of input ends the worker, after the call in hand.
"""

from __future__ import annotations

import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import IO, Any, Callable

_LENGTH = struct.Struct(">Q")
BOOT = ("import pickle, struct, sys; stdin = sys.stdin.buffer; "
        "n = struct.unpack('>Q', stdin.read(8))[0]; sys.path[:] = pickle.loads(stdin.read(n)); "
        "from skill3crawl.extract.workers import serve; serve()")
REAP_SECONDS = 10.0  # a closed worker ends after the call in hand; then it is killed


class WorkerDied(RuntimeError):
    """An extraction worker ended while it had a call (killed, out of memory, a crash in a C library)."""


def _read(stream: IO[bytes]) -> bytes | None:
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        return None
    (size,) = _LENGTH.unpack(head)
    data = stream.read(size)
    return data if len(data) == size else None


def _write(stream: IO[bytes], data: bytes) -> None:
    stream.write(_LENGTH.pack(len(data)))
    stream.write(data)
    stream.flush()


def serve(setup: Callable[[], Callable[[], Any]] | None = None) -> None:
    """A worker's loop (run by :data:`BOOT`): read a call, run it, write the reply, until the input ends.

    ``setup``: run once before the first call; it returns what runs after each call (the extraction's
    :func:`~skill3crawl.extract.executor.worker_setup`, by default)."""
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what a call prints goes to stderr, never into the channel
    sys.stdout = sys.stderr
    if setup is None:
        from skill3crawl.extract.executor import worker_setup as setup
    after = setup()
    stdin = sys.stdin.buffer
    while (frame := _read(stdin)) is not None:
        try:
            fn, args, kwargs = pickle.loads(frame)
            reply: tuple[str, Any] = ("ok", fn(*args, **kwargs))
        except Exception as exc:  # the call's own error goes back to the caller
            reply = ("err", exc)
        finally:
            after()
        try:
            data = pickle.dumps(reply, pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # an unpicklable result or exception
            data = pickle.dumps(("err", RuntimeError(f"the extraction worker could not send its reply: {exc!r}")))
        _write(channel, data)


class _Worker:
    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", BOOT], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.alive = True
        _write(self.proc.stdin, pickle.dumps(list(sys.path)))  # type: ignore[arg-type]

    def call(self, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        try:
            _write(self.proc.stdin, pickle.dumps((fn, args, kwargs), pickle.HIGHEST_PROTOCOL))  # type: ignore[arg-type]
            frame = _read(self.proc.stdout)  # type: ignore[arg-type]
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
            new = dead if self._closed else _Worker()
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
