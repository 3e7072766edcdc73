"""What a model provider is, as one object: its name, what it does (:class:`Capabilities`) and how its model is
checked, probed and built (:class:`LLMProvider`).

Each provider is one module of :mod:`synth.llm.providers` that defines ``PROVIDER``, an instance of a subclass of
:class:`LLMProvider`; :mod:`synth.llm.registry` puts every one in its one table (in the manner of simonw/llm's
plugins, where a plugin registers its models): adding a provider is adding one file. Nothing else names a provider:
the spider arguments, the options, the CLI and the MCP server list the table's names, and every decision asks a
provider's capabilities, never its name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from synth.llm.bounds import CallBudget
from synth.llm.model import ChatModel, LLMError


@dataclass(frozen=True)
class Capabilities:
    """What a provider does: synthesis, the query planner and the argument checks ask these, never the provider's
    name or whether a model was built.

    ``calls_model``: a language model answers — a model is built (:func:`synth.llm.registry.make_chat_model`), it
    plans the crawl's queries, it drafts the skill from the prompt, it can be asked again (a draft the
    post-processor cannot fix, lint errors, vet findings, ``--verify``) and a draft of it that cites nothing is
    warned about; without one the skill is compiled from quotes, each cited (``synth.pipeline.extractive``).
    ``condenses``: it can condense each source into a note when the evidence does not fit its budget (map-reduce).
    ``min_budget``: the evidence budget is at least this many tokens (it has no context window to fit); 0: the
    model's window decides."""

    calls_model: bool
    condenses: bool
    min_budget: int = 0


class LLMProvider:
    """A provider: ``name`` (``llm_provider NAME``), ``order`` (where it is listed), ``capabilities``; a provider that
    calls a model overrides :meth:`build`, and :meth:`check` and :meth:`problem` when it has a key or an endpoint."""

    name: ClassVar[str]
    order: ClassVar[int] = 100
    capabilities: ClassVar[Capabilities]

    def check(self, endpoint: str | None, api_key: str | None) -> None:
        """Fail fast, before any crawl or call: a hosted provider without its key (:class:`MissingKeyError`)."""

    def build(self, endpoint: str | None, model: str | None, api_key: str | None, max_retries: int,
              budget: CallBudget) -> ChatModel:
        """The provider's chat model (keys from the arguments or the environment only, never logged)."""
        raise LLMError(f"llm_provider {self.name!r} calls no model")

    def problem(self, endpoint: str | None, api_key: str | None, timeout: float) -> str | None:
        """``None`` when the provider's endpoint answers, else one line naming the problem and the fix (a probe, made
        before anything is crawled or read when the provider is chosen explicitly)."""
        return None
