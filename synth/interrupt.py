"""Ctrl-C and SIGTERM during synthesis: the run stops where it is, nothing half-written, exit 130 / 143.

:func:`interruptible` turns SIGINT and SIGTERM into :class:`Interrupted` for the time of a run
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


class Interrupted(BaseException):
    """A signal stopped the run (a BaseException, like KeyboardInterrupt: no ``except Exception`` swallows it)."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(signal.Signals(signum).name)

    @property
    def exit_code(self) -> int:
        """128 + the signal number, as a shell reports a process a signal ended: 130 for SIGINT, 143 for SIGTERM."""
        return 128 + self.signum


_state = threading.local()


def _handler(signum: int, frame: FrameType | None) -> None:
    if getattr(_state, "critical", 0):
        _state.pending = signum
        return
    raise Interrupted(signum)


@contextmanager
def interruptible() -> Iterator[None]:
    """SIGINT/SIGTERM raise :class:`Interrupted` inside the block (main thread only; elsewhere a no-op)."""
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
            raise Interrupted(pending)
