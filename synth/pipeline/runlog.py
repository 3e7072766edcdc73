"""The run's log: what a synthesis run gathers as it goes (:class:`RunState`): timings, warnings, the model calls,
where it prints."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import datetime, timezone
from typing import Any

from rich.console import Console

from synth.core.console import print_warning
from synth.llm.model import ChatModel, Message
from synth.llm.progress import generation_progress
from synth.pipeline.model_calls import CallLog
from synth.pipeline.options import SynthResult

# The run's steps as the user reads them (a phase not named here is shown by its own name).
STEP_LABELS = {
    "read_and_rank": "ranking", "vet_input": "input vetting", "select": "bundle", "delta": "delta references",
    "synthesize": "model call", "postprocess": "post-processing", "verify": "verify", "lint_and_vet": "lint and vet",
    "write": "writing",
}


def step_line(phase: str, seconds: float) -> str:
    """The line a finished synthesis step prints on a terminal: ``skill3 synth: ✓ ranking 0.42 s``."""
    return f"skill3 synth: ✓ {STEP_LABELS.get(phase, phase.replace('_', ' '))} {seconds:.2f} s"


class RunState:
    """What a run gathers as it goes: the timings per phase, the warnings (for run.json), the model calls;
    and where it prints (``err``, progress displays when ``progress``)."""

    def __init__(self, err: Console, progress: bool = True) -> None:
        self.err = err
        self.progress = progress
        self.timings: dict[str, float] = {}
        self.warnings: list[str] = []
        self.log = CallLog()
        self.committed = False  # the outputs are in place
        self.started = datetime.now(timezone.utc)
        self.conflicts: dict[str, Any] = {}  # synth.evidence.conflicts: opposite advice settled before the bundle

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Add the time spent in the block to ``timings[name]`` (seconds); on a terminal (not ``--quiet``) the step
        is then one line with its duration (``✓ ranking 0.42 s``), so a long run never sits silent."""
        t0 = time.monotonic()
        ok = False
        try:
            yield
            ok = True
        finally:
            spent = time.monotonic() - t0
            self.timings[name] = round(self.timings.get(name, 0.0) + spent, 3)
            if ok and self.progress and self.err.is_terminal:
                self.err.print(step_line(name, spent), markup=False, highlight=False)

    def warn(self, message: str, *, loud: bool = False, record: bool = True, show: bool = True) -> None:
        """Print one warning line to stderr (``loud``: bold yellow ``WARNING``; not when ``show`` is false: the
        caller said it already) and, when ``record``, keep it for run.json's ``warnings``."""
        if show:
            print_warning(self.err, message, loud=loud)
        if record:
            self.warnings.append(message)

    def display(self, label: str) -> AbstractContextManager[Callable[[str], None] | None]:
        """The progress display of one model call (nothing with ``--quiet``)."""
        return generation_progress(label, console=self.err) if self.progress else nullcontext(None)

    def call(self, model: ChatModel, phase: str, messages: list[Message], *, max_tokens: int, label: str) -> str:
        """One logged model call under a progress display labelled ``label``."""
        with self.display(label) as on_text:
            return self.log.call(model, phase, messages, max_tokens=max_tokens, on_text=on_text)

    def result(self, exit_code: int, **fields: Any) -> SynthResult:
        """The run's result with the warnings and timings gathered so far."""
        return SynthResult(exit_code=exit_code, warnings=tuple(self.warnings), timings=dict(self.timings), **fields)
