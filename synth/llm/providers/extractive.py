"""Provider ``extractive``: no model — the skill is compiled from quotes of the selected evidence, every statement
cited (the extractive synthesizer, ``synth.pipeline.extractive``; the run drafts through it because this provider's
capabilities say it calls no model)."""

from __future__ import annotations

from synth.llm.provider import Capabilities, LLMProvider

# Without a model there is no context window to fit: the extractive synthesizer chooses its quotes (its own output
# stays within the skill's body budget) from a bundle of at least this many tokens.
EXTRACTIVE_BUDGET = 16_000


class ExtractiveProvider(LLMProvider):
    name = "extractive"
    order = 90
    capabilities = Capabilities(calls_model=False, condenses=False, min_budget=EXTRACTIVE_BUDGET)


PROVIDER = ExtractiveProvider()
