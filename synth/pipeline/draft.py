"""The draft step: the evidence that fits the budget as the bundle (:func:`select`), the delta's parts, then the
synthesizer's draft (:func:`synthesize`; the bundle halved once after a context-length error).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from synth.core.errors import SynthFailure
from synth.evidence.conflicts import superseded_claims
from synth.llm.model import ContextLengthError, LLMError, Message
from synth.pipeline.budget import MIN_BUDGET
from synth.pipeline.bundle import Bundle, BundleDelta, Candidate, Ranked, Selection, post_versions, select_evidence, source_rows
from synth.pipeline.inputs import Inputs
from synth.pipeline.runlog import RunState
from synth.pipeline.synthesizer import Synthesizer
from synth.skill.names import display_topic
from synth.skill.postprocess import SkillContext


@dataclass
class Draft:
    """The synthesised text with the selection, bundle and messages it came from."""

    text: str
    messages: list[Message]
    selection: Selection
    bundle: Bundle
    context: SkillContext
    shrunk: dict[str, Any] | None = None
    map_reduce: dict[str, Any] = field(default_factory=dict)
    delta_sources: list[dict] = field(default_factory=list)  # pages only the delta's lines cite (numbered after the bundle's)

    @property
    def parts(self) -> Any:
        """synth.delta.render.SkillParts: the references and the entries SKILL.md names (None without a delta)."""
        return self.bundle.parts

    @property
    def sources(self) -> list[dict]:
        """Every source the skill cites: the bundle's, then the pages only the delta's lines cite."""
        return self.bundle.sources + self.delta_sources

    def bundle_record(self) -> dict[str, Any]:
        """The bundle as run.json records it (with the delta's own sources)."""
        return self.bundle.to_dict(self.delta_sources)


def select(candidates: list[Candidate], budget: int, *, can_condense: bool, state: RunState) -> Selection:
    """The evidence that fits ``budget`` (what the model reads)."""
    with state.phase("select"):
        return select_evidence(candidates, budget, can_condense=can_condense)


def make_bundle(sel: Selection, *, inputs: Inputs, name: str, ranked: Ranked, state: RunState) -> Bundle:
    """The bundle of a selection, built once: its sources, the ranking's delta record and the delta's rendering."""
    sources = source_rows(sel)
    with state.phase("delta"):
        parts = delta_parts(ranked, sources, inputs)
    delta = BundleDelta(
        boundary=ranked.delta.boundary, post_cutoff_versions=post_versions(sel),
        versions=parts.versions if parts is not None else None,
        reference_index=parts.index_lines() if parts is not None else None,
        since_version=inputs.since_version, coverage=crawl_coverage(inputs))
    return Bundle(skill_name=name, target_model=inputs.target_model, cutoff=inputs.cutoff.month, sources=sources,
                  delta=delta, selection=sel, topic=inputs.topic, today=inputs.today,
                  context_tokens=inputs.context_tokens, parts=parts)


MAX_UNREACHED_NAMED = 10  # change records a skill names as not reached (run.json names up to 100)


def crawl_coverage(inputs: Inputs) -> dict[str, Any]:
    """How much of the site the crawl read: the pages kept, the pages in scope it left unread at max_pages, and the
    change-record candidates among them (``unreached``: at most :data:`MAX_UNREACHED_NAMED` URLs; ``unreached_count``)."""
    raw = inputs.crawl.meta.get("summary")
    summary: dict[str, Any] = raw if isinstance(raw, dict) else {}
    raw = summary.get("dropped")
    dropped: dict[str, Any] = raw if isinstance(raw, dict) else {}
    left, kept = dropped.get("max_pages"), summary.get("items_written")
    raw = summary.get("unreached_change_records")
    urls = [u for u in raw if isinstance(u, str) and u.startswith(("http://", "https://"))] if isinstance(raw, list) else []
    count = summary.get("unreached_change_records_count")
    return {"pages": kept if isinstance(kept, int) and kept > 0 else 0,
            "left_at_max_pages": left if isinstance(left, int) and left > 0 else 0,
            "unreached": urls[:MAX_UNREACHED_NAMED],
            "unreached_count": count if isinstance(count, int) and count >= len(urls) else len(urls)}


def delta_parts(ranked: Ranked, sources: list[dict], inputs: Inputs) -> Any:
    """The delta's reference files and SKILL.md entries (:mod:`synth.delta.render`), or None without change entries;
    every scraped text the built-in screen flags is left out."""
    if ranked.changes is None or not (ranked.changes.post or ranked.changes.undated):
        return None
    from synth.delta.render import skill_parts
    from synth.vet.publish import publishable

    return skill_parts(ranked.changes, sources, topic=display_topic(inputs.topic), cutoff=inputs.cutoff.month,
                       flagged=lambda text: publishable(text) is None)


def synthesize(synthesizer: Synthesizer, candidates: list[Candidate], budget: int, inputs: Inputs, ranked: Ranked,
               name: str, state: RunState) -> Draft:
    """Select and draft the skill (condensed when the synthesizer condenses and the evidence does not fit); after a
    context-length error the bundle is halved once (trimmed, not condensed with more calls) and the draft retried."""
    shrunk: dict[str, Any] | None = None
    while True:
        can_condense = synthesizer.capabilities.condenses and shrunk is None
        sel = select(candidates, budget, can_condense=can_condense, state=state)
        bundle = make_bundle(sel, inputs=inputs, name=name, ranked=ranked, state=state)
        parts = bundle.parts
        try:
            with state.phase("synthesize"):
                text, messages, map_reduce = synthesizer.draft(bundle, state)
            delta_sources = list(parts.extra_sources) if parts is not None and parts.extra_sources else []
            ctx = SkillContext(topic=inputs.topic, target_model=inputs.target_model, cutoff=inputs.cutoff.month,
                               learned_date=inputs.today, sources=bundle.sources + delta_sources,
                               references=dict(parts.rendered.files) if parts else {},
                               reference_index=parts.index_lines() if parts else [],
                               superseded=superseded_claims(bundle.sources + delta_sources))
            return Draft(text, messages, sel, bundle, ctx, shrunk, map_reduce, delta_sources)
        except ContextLengthError as exc:
            if shrunk is not None:
                raise SynthFailure(1, f"{exc} (already retried with a {budget}-token bundle; lower --context-tokens)") from None
            shrunk = {"from": budget, "to": max(MIN_BUDGET, min(budget, sel.tokens) // 2), "reason": str(exc)}
            state.warn(f"{exc}; retrying once with the bundle halved to {shrunk['to']} tokens", record=False)
            budget = shrunk["to"]
        except LLMError as exc:
            raise SynthFailure(1, str(exc)) from None
