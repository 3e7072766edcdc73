"""The provider as a run uses it: a :class:`Synthesizer` drafts the skill and, when its provider calls a model,
asks that model again (a repair, a revision, ``--verify``).

The run asks a synthesizer's :attr:`~Synthesizer.capabilities` (declared once, by each provider object of the one
table, :data:`synth.llm.registry.REGISTRY`), never the provider's name or whether a model was built:
:class:`ModelSynthesizer` prompts a chat model (condensing the sources first when they do not fit),
:class:`ExtractiveSynthesizer` compiles the skill from quotes (:mod:`synth.pipeline.extractive`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Callable

from synth.llm.model import ChatModel, LLMError, Message
from synth.llm.registry import Capabilities, capabilities
from synth.pipeline.budget import MIN_BUDGET, output_reserve
from synth.pipeline.extractive import extractive_skill
from synth.pipeline.model_calls import bundle_nonce, condense_messages, synth_messages

if TYPE_CHECKING:  # pragma: no cover
    from synth.pipeline.bundle import Bundle
    from synth.pipeline.runlog import RunState

# (SKILL.md draft, the messages it came from, the map-reduce record)
Drafted = tuple[str, list[Message], dict[str, Any]]


class Synthesizer(ABC):
    """A provider as the run uses it: ``provider`` its name (``auto`` resolved), ``capabilities`` what it does."""

    def __init__(self, provider: str, caps: Capabilities) -> None:
        self.provider = provider
        self.capabilities = caps

    @abstractmethod
    def draft(self, bundle: Bundle, state: RunState) -> Drafted:
        """The SKILL.md draft of ``bundle`` (built once, read only)."""

    def ask(self, state: RunState, phase: str, messages: list[Message], *, context_tokens: int, label: str) -> str:
        """One more call of the provider's model, logged as ``phase`` under a progress display ``label``: only for
        a provider whose capabilities say it calls a model."""
        raise LLMError(f"llm_provider {self.provider} calls no model")

    def record(self) -> dict[str, Any]:
        """run.json's ``model.endpoint`` and ``model.model``."""
        return {"endpoint": None, "model": None}


class ModelSynthesizer(Synthesizer):
    """A provider that calls a chat model: the prompt drafts the skill (map-reduce first when the selection says so)."""

    def __init__(self, provider: str, caps: Capabilities, model: ChatModel) -> None:
        super().__init__(provider, caps)
        self.model = model

    def draft(self, bundle: Bundle, state: RunState) -> Drafted:
        notes: dict[int, str] | None = None
        map_reduce: dict[str, Any] = {}
        if bundle.selection.mode == "map-reduce":
            notes, map_reduce = self._condense(bundle, state)
        messages = synth_messages(bundle.to_dict(), topic=bundle.topic, name=bundle.skill_name, today=bundle.today, notes=notes)
        text = self.ask(state, "synthesize", messages, context_tokens=bundle.context_tokens, label="synthesising SKILL.md")
        return text, messages, map_reduce

    def ask(self, state: RunState, phase: str, messages: list[Message], *, context_tokens: int, label: str) -> str:
        return state.call(self.model, phase, messages, max_tokens=output_reserve(context_tokens), label=label)

    def record(self) -> dict[str, Any]:
        return {"endpoint": getattr(self.model, "endpoint", None), "model": getattr(self.model, "model", None)}

    def _condense(self, bundle: Bundle, state: RunState) -> tuple[dict[int, str], dict[str, Any]]:
        """Map-reduce: one call per source condenses it into a note; returns (notes by source number, the record)."""
        n = len(bundle.sources)
        note_tokens = max(96, min(600, bundle.selection.budget // max(1, n)))
        nonce = bundle_nonce(bundle.to_dict())
        max_src = max(MIN_BUDGET, bundle.context_tokens - note_tokens - 400)
        notes: dict[int, str] = {}
        cut_sources = []
        for src in bundle.sources:
            messages, cut = condense_messages(src, topic=bundle.topic, cutoff=bundle.cutoff, nonce=nonce,
                                              words=int(note_tokens * 0.7), max_source_tokens=max_src)
            if cut:
                cut_sources.append(src["url"])
            notes[src["n"]] = state.call(self.model, f"condense[{src['n']}]", messages, max_tokens=note_tokens,
                                         label=f"condensing source {src['n']}/{n}").strip()
        return notes, {"sources": n, "note_tokens": note_tokens, "cut_before_condensing": cut_sources}


class ExtractiveSynthesizer(Synthesizer):
    """The provider that calls no model: the skill is quoted from the bundle, every statement cited."""

    def draft(self, bundle: Bundle, state: RunState) -> Drafted:
        return extractive_skill(bundle), [], {}


def synthesizer_for(provider: str, model: Callable[[], ChatModel]) -> Synthesizer:
    """The synthesizer of ``provider`` (resolved): ``model`` builds its chat model when its capabilities say it
    calls one; the provider that calls none is the extractive synthesizer."""
    caps = capabilities(provider)
    if caps.calls_model:
        return ModelSynthesizer(provider, caps, model())
    return ExtractiveSynthesizer(provider, caps)
