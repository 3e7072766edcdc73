"""skill3's exit codes and every one of its exceptions: every command ends with an :class:`ExitCode`.

An error that stops a command derives from :class:`Skill3Error`: ``str()`` is one line naming the
problem and the fix, ``exit_code`` how the command ends (a class default, or given per error). Every
exception class of skill3 is defined here (the module that raises it imports it from here, and keeps the
name importable); the tree (``tests/core/test_errors.py`` checks it against the classes)::

    Skill3Error (Exception) — exit 1
      + UsageError — exit 2
        + CutoffError (ValueError) — exit 2
        + LintError — exit 2
        + OutputDirLocked — exit 2
        + OwnershipError — exit 2
        + BundleError (ValueError) — exit 2
        + AgentsError — exit 2
        + ArgsError (ValueError) — exit 2
        + CorpusError (ValueError) — exit 2
        + SpecError (ValueError) — exit 2
        + SettingError (ValueError) — exit 2
      + SynthFailure — exit 1
      + LLMError (RuntimeError) — exit 1
        + ContextLengthError — exit 1
        + MissingKeyError — exit 2
        + UnknownProviderError — exit 2
        + LLMTimeout — exit 1
        + ReplyTooLarge — exit 1
      + LintFailure — exit 1
      + FrontmatterRefused (YAMLError) — exit 2
      + PostProcessError (ValueError) — exit 1
      + ReportError (ValueError) — exit 1
      + AllSourcesQuarantined (RuntimeError) — exit 1
      + SetupError (RuntimeError) — exit 1
      + RecordError (ValueError) — exit 1
      + ScannerUnavailable (RuntimeError) — exit 1
      + ArchiveError (ValueError) — exit 1
      + ApiDeltaError (RuntimeError) — exit 1
      + WorkerDied (RuntimeError) — exit 1

Each class below says which module raises it.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import yaml


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


# raised by synth.llm.model
class LLMError(Skill3Error, RuntimeError):
    """A model call failed; the message is one line naming the problem and the fix."""


# raised by synth.llm.model
class ContextLengthError(LLMError):
    """The prompt does not fit the model's context window: shrink the bundle and retry."""


# raised by synth.llm.model
class MissingKeyError(LLMError):
    """A hosted provider was chosen without a key (raised before any crawl or call; exit 2)."""

    exit_code = ExitCode.USAGE


# raised by synth.llm.model
class UnknownProviderError(LLMError):
    """An ``llm_provider`` that is not one of the providers (exit 2)."""

    exit_code = ExitCode.USAGE


# raised by synth.llm.bounds
class LLMTimeout(LLMError):
    """The call (or the run's model calls together) ran out of time."""


# raised by synth.llm.bounds
class ReplyTooLarge(LLMError):
    """The reply went past its cap; nothing of it is used."""


# raised by synth.pipeline.checks
class LintFailure(Skill3Error):
    """Lint errors remain after the fixer and the re-prompt: the skill must not be written."""


# raised by synth.skill.frontmatter
class FrontmatterRefused(Skill3Error, yaml.YAMLError):
    """Frontmatter YAML that is refused before it is built: an anchor or alias, too many entries, too deep,
    too large (a YAML error to PyYAML's callers, a bad input to skill3's). ``problem`` is one line,
    ``problem_mark`` where (when known)."""

    exit_code = ExitCode.USAGE

    def __init__(self, problem: str, mark: yaml.Mark | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = mark


# raised by synth.skill.postprocess
class PostProcessError(Skill3Error, ValueError):
    """The draft has problems no deterministic fix can repair."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


# raised by synth.vet.findings
class ReportError(Skill3Error, ValueError):
    """The scanner's output is not a report we understand."""


# raised by synth.vet.input_vet
class AllSourcesQuarantined(Skill3Error, RuntimeError):
    """Every source carried a HIGH/CRITICAL finding. ``result`` still holds
    the full record for run.json."""

    def __init__(self, message: str, result: Any) -> None:
        super().__init__(message)
        self.result = result


# raised by synth.vet.install
class SetupError(Skill3Error, RuntimeError):
    """One line: what failed and how to fix it. ``exit_code`` 1 (failure) or 2 (bad input)."""

    def __init__(self, message: str, exit_code: int = ExitCode.FAILURE) -> None:
        super().__init__(message, exit_code)


# raised by synth.vet.record
class RecordError(Skill3Error, ValueError):
    """The setup record is unreadable (exit 1)."""


# raised by synth.vet.runner
class ScannerUnavailable(Skill3Error, RuntimeError):
    """No usable SkillSpector binary; the message is the one-line reason."""


# raised by synth.evidence.cutoff
class CutoffError(UsageError, ValueError):
    """A cutoff could not be determined; the message names the fix."""


# raised by synth.lint.model
class LintError(UsageError):
    """The check itself could not run (bad path, unreadable facts). Never "the skill is bad"."""


# raised by synth.output.outdir
class OutputDirLocked(UsageError):
    """Another run holds the output folder (exit 2); ``str()`` is one line naming it and the fix."""


# raised by synth.output.ownership
class OwnershipError(UsageError):
    """An output file exists that skill3 did not write; the message names it and the fix."""


# raised by synth.pipeline.bundle.read
class BundleError(UsageError, ValueError):
    """Bad input for synthesis (exit 2); the message is one line."""


# raised by synth.agents
class AgentsError(UsageError):
    """A user-facing problem (bad path, file skill3 did not write ...): one line naming it and the fix (exit 2)."""


# raised by skill3crawl.args
class ArgsError(UsageError, ValueError):
    """A bad spider argument; ``str()`` is one line naming it."""


# raised by skill3crawl.corpus
class CorpusError(UsageError, ValueError):
    """The input file is unreadable or malformed; the message is one line naming the fix."""


# raised by skill3crawl.discovery.registries
class SpecError(UsageError, ValueError):
    """A bad ``package`` argument; ``str()`` is one line."""


# raised by skill3crawl.runner
class SettingError(UsageError, ValueError):
    """A malformed ``-s NAME=VALUE``; ``str()`` is one line naming it and the fix."""


# raised by skill3crawl.packages.archive
class ArchiveError(Skill3Error, ValueError):
    """An archive refused; ``str()`` is one line saying why."""


# raised by skill3crawl.packages.spider
class ApiDeltaError(Skill3Error, RuntimeError):
    """The API delta of a package's releases could not be computed (a timeout, a failed or unreadable run)."""


# raised by skill3crawl.extract.workers
class WorkerDied(Skill3Error, RuntimeError):
    """An extraction worker ended while it had a call (killed, out of memory, a crash in a C library); the
    pool replaces it for the next call."""
