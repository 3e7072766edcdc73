"""Ctrl-C and SIGTERM during synthesis: the run stops where it is, nothing half-written, exit 130 / 143.

:func:`interruptible` turns SIGINT and SIGTERM into a KeyboardInterrupt that knows its signal
(:func:`interrupted`, :func:`exit_code_of`) for the time of a run
(``skill3 synth``; ``skill3 learn`` and ``scrapy crawl learn`` after their crawl, where Scrapy's
own handlers would otherwise swallow the signal and let synthesis finish). Inside
:func:`critical_section` (the commit of the outputs, renames only) a signal waits until the
section ends. The previous handlers are restored afterwards.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

SIGNALS = (signal.SIGINT, signal.SIGTERM)


def interrupted(signum: int) -> KeyboardInterrupt:
    """The exception a signal raises: a KeyboardInterrupt (no ``except Exception`` swallows it) that knows its signal."""
    exc = KeyboardInterrupt(signal.Signals(signum).name)
    exc.signum = signum  # type: ignore[attr-defined]
    return exc


def exit_code_of(exc: KeyboardInterrupt) -> int:
    """128 + the signal number, as a shell reports a process a signal ended: 130 for Ctrl-C (a plain
    KeyboardInterrupt too), 143 for SIGTERM."""
    return 128 + int(getattr(exc, "signum", signal.SIGINT))


def signal_name(exc: KeyboardInterrupt) -> str:
    return signal.Signals(int(getattr(exc, "signum", signal.SIGINT))).name


_state = threading.local()


def _handler(signum: int, frame: FrameType | None) -> None:
    if getattr(_state, "critical", 0):
        _state.pending = signum
        return
    raise interrupted(signum)


@contextmanager
def interruptible() -> Iterator[None]:
    """SIGINT/SIGTERM raise :func:`interrupted` inside the block (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in SIGNALS}
    for s in SIGNALS:
        signal.signal(s, _handler)
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h if h is not None else signal.SIG_DFL)


@contextmanager
def critical_section() -> Iterator[None]:
    """A signal received inside the block is raised when it ends (after the block finished its work)."""
    _state.critical = getattr(_state, "critical", 0) + 1
    try:
        yield
    finally:
        _state.critical -= 1
        pending = getattr(_state, "pending", None)
        if not _state.critical and pending is not None:
            _state.pending = None
            raise interrupted(pending)
