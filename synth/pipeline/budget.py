"""The evidence budget of a run: what of the model's context window the sources may fill, decided once for the
run and its dry run alike (:func:`bundle_budget`), from the capabilities of the provider used."""

from __future__ import annotations

from typing import TYPE_CHECKING

from synth.pipeline.model_calls import messages_tokens, synth_messages

if TYPE_CHECKING:  # pragma: no cover
    from synth.llm.registry import Capabilities
    from synth.pipeline.inputs import Inputs

MIN_BUDGET = 256
DELTA_INDEX_TOKENS = 500


def output_reserve(context_tokens: int) -> int:
    """Tokens kept free for the model's answer."""
    return min(2048, max(256, context_tokens // 4))


def evidence_budget(context_tokens: int, topic: str, name: str, cutoff: str, target_model: str, n_sources: int) -> int:
    """Context minus the answer's reserve, the prompt's own text and per-source fence overhead."""
    empty = {"skill_name": name, "target_model": target_model, "cutoff": cutoff, "sources": []}
    overhead = messages_tokens(synth_messages(empty, topic=topic, name=name, today="2026-01-01")) + 40 * n_sources
    overhead += DELTA_INDEX_TOKENS  # the delta index the prompt may carry (synth.pipeline.model_calls.MAX_INDEX_CHARS)
    return max(MIN_BUDGET, context_tokens - output_reserve(context_tokens) - overhead)


def bundle_budget(inputs: Inputs, name: str, n_sources: int, capabilities: Capabilities) -> int:
    """The evidence budget of the run: :func:`evidence_budget`, and at least the provider's ``min_budget`` (the
    extractive synthesizer has no context window to fit: ``synth.llm.providers.extractive.EXTRACTIVE_BUDGET``)."""
    budget = evidence_budget(inputs.context_tokens, inputs.topic, name, inputs.cutoff.month, inputs.target_model, n_sources)
    return max(budget, capabilities.min_budget)
