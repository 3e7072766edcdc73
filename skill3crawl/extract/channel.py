"""The worker side of the extraction pool (:mod:`skill3crawl.extract.workers`): its frames and its loop.

Each frame is an 8-byte big-endian length and a pickle. A worker is ``python -c`` :data:`BOOT`: its first frame
is the crawler's ``sys.path``; then each call is ``(fn, args, kwargs)`` and each reply ``("ok", result)`` or
``("err", exception)``. Nothing here imports more than the standard library: a worker loads only what the calls
it is sent need.
"""

from __future__ import annotations

import os
import pickle
import struct
import sys
from typing import IO, Any, Callable

_LENGTH = struct.Struct(">Q")
BOOT = ("import pickle, struct, sys; stdin = sys.stdin.buffer; "
        "n = struct.unpack('>Q', stdin.read(8))[0]; sys.path[:] = pickle.loads(stdin.read(n)); "
        "from skill3crawl.extract.executor import worker_setup; from skill3crawl.extract.channel import serve; "
        "serve(worker_setup)")


def read_frame(stream: IO[bytes]) -> bytes | None:
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        return None
    (size,) = _LENGTH.unpack(head)
    data = stream.read(size)
    return data if len(data) == size else None


def write_frame(stream: IO[bytes], data: bytes) -> None:
    stream.write(_LENGTH.pack(len(data)))
    stream.write(data)
    stream.flush()


def serve(setup: Callable[[], Callable[[], Any]]) -> None:
    """A worker's loop (run by :data:`BOOT`): read a call, run it, write the reply, until the input ends.

    ``setup``: run once before the first call; it returns what runs after each call (the extraction's
    :func:`~skill3crawl.extract.executor.worker_setup`)."""
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what a call prints goes to stderr, never into the channel
    sys.stdout = sys.stderr
    after = setup()
    stdin = sys.stdin.buffer
    while (frame := read_frame(stdin)) is not None:
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
        write_frame(channel, data)
