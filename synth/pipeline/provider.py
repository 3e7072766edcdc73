"""The provider a run uses: "auto" resolved once (:func:`resolve_provider`), then checked and built into
its synthesizer before any model call (:func:`choose_model`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from synth.core.errors import SynthFailure
from synth.llm.model import LLMError
from synth.llm.registry import Choice, choose, fallback_warning, make_model, model_problem
from synth.output.ownership import check_owned_outputs
from synth.pipeline.inputs import Inputs
from synth.pipeline.options import SynthOptions
from synth.pipeline.runlog import RunState
from synth.pipeline.synthesizer import Synthesizer, synthesizer_for


@dataclass(frozen=True)
class ModelChoice:
    """The provider asked for, the one used ("auto" resolved) as its synthesizer."""

    synthesizer: Synthesizer
    requested: str
    used: str
    fallback_reason: str | None = None

    def record(self) -> dict[str, Any]:
        """run.json's ``model`` entry."""
        return {"requested": self.requested, "used": self.used, **self.synthesizer.record(),
                "auto_fallback_reason": self.fallback_reason}


def resolve_provider(options: SynthOptions, state: RunState) -> Choice:
    """The provider and model the run uses: "auto" resolved with one probe (no answer → extractive, with a
    warning), or the caller's choice when it resolved "auto" already (no second probe, no second warning)."""
    if options.llm_provider != "auto":
        return Choice(options.llm_provider, options.llm_model)
    choice = options.auto_choice or choose("auto", options.llm_endpoint, options.llm_model)
    if choice.reason:
        state.warn(fallback_warning(choice.reason), loud=True, show=options.auto_choice is None)
    return choice


def choose_model(options: SynthOptions, provider: Choice, inputs: Inputs, state: RunState) -> ModelChoice:
    """Refuse outputs skill3 did not write, check that an explicitly chosen model answers (openai, anthropic; else
    exit 2, one line) unless the caller checked it, then make the synthesizer of ``provider`` (its model with its
    time budget) — all before any model call."""
    from synth.llm.bounds import CallBudget

    check_owned_outputs(inputs.out_dir)  # a run.json/index.html that skill3 did not write: refuse before any model call
    problem = None if options.model_checked else model_problem(options.llm_provider, options.llm_endpoint)
    if problem:  # None for auto (resolved above) and for a provider calling no model
        raise SynthFailure(2, problem)
    try:
        synthesizer = synthesizer_for(provider.provider, lambda: make_model(
            provider.provider, endpoint=options.llm_endpoint, model=provider.model,
            budget=CallBudget(inputs.llm_timeout, inputs.llm_total_timeout)))
    except LLMError as exc:  # a missing key, an unknown provider
        raise SynthFailure(2, str(exc)) from None
    return ModelChoice(synthesizer, options.llm_provider, provider.provider, provider.reason)
