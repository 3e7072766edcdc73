"""skill3's exit codes and the base of its exceptions: every command ends with an :class:`ExitCode`.

An error that stops a command derives from :class:`Skill3Error`: ``str()`` is one line naming the
problem and the fix, ``exit_code`` how the command ends (a class default, or given per error).
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """How a command ends (the same for ``skill3``, ``scrapy crawl`` and ``python -m synth.pipeline.run``)."""

    OK = 0
    FAILURE = 1  # failure, with a one-line reason
    USAGE = 2  # bad usage or bad input, found before anything is fetched or any model is called
    FINDINGS = 3  # the skill was written but HIGH/CRITICAL vet findings remain (the gate)
    INTERRUPTED = 130  # the shell's code for a run stopped by Ctrl-C: what was gathered is kept
    TERMINATED = 143  # the shell's code for a run stopped by SIGTERM (synthesis: nothing half-written)


class Skill3Error(Exception):
    """Base of skill3's errors; ``exit_code``: how a command that stops on this error ends."""

    exit_code: ExitCode = ExitCode.FAILURE

    def __init__(self, message: str = "", exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = ExitCode(exit_code)


class UsageError(Skill3Error):
    """Bad usage or bad input (exit 2)."""

    exit_code = ExitCode.USAGE


class SynthFailure(Skill3Error):
    """A synthesis run stops: ``code`` is its exit code (1 failure, 2 bad usage or input), ``str()`` one line
    (raised by the run's steps and by what they call, e.g. the skill folder's writer)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message, code)

    @property
    def code(self) -> ExitCode:
        return self.exit_code


def os_reason(exc: OSError) -> str:
    """An OS error on one line: its reason and the path it names (``No such file or directory: /proc/x``)."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    names = [str(n) for n in (exc.filename, exc.filename2) if n is not None]
    return f"{reason}: {' → '.join(names)}" if names else reason
