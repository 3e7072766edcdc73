"""The check step (:func:`check_output`): post-process the draft (one re-prompt when it cannot be fixed),
``--verify``, then lint (fixer, one re-prompt) and the SkillSpector correction loop; what asks the model
again runs only when the synthesizer's capabilities say it calls one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from synth.core.errors import SynthFailure
from synth.evidence.conflicts import stale_constructs
from synth.llm.model import ContextLengthError, LLMError
from synth.pipeline.budget import MIN_BUDGET
from synth.pipeline.bundle import select_evidence
from synth.pipeline.draft import Draft
from synth.pipeline.inputs import Inputs
from synth.pipeline.model_calls import repair_messages, verify_messages
from synth.pipeline.options import SynthOptions
from synth.pipeline.provider import ModelChoice
from synth.pipeline.runlog import RunState
from synth.pipeline.synthesizer import Synthesizer
from synth.skill.postprocess import PostProcessError, Skill, postprocess
from synth.skill.size import estimate_tokens


@dataclass
class Checked:
    """The post-processed, verified, linted and vetted skill with the records for run.json."""

    skill: Skill
    reprompted: bool
    verify: dict[str, Any]
    lint: dict[str, Any]
    vet: dict[str, Any]


def check_output(draft: Draft, choice: ModelChoice, input_vet: Any, options: SynthOptions, inputs: Inputs,
                 state: RunState) -> Checked:
    """Post-process (one re-prompt when the draft is not fixable), --verify, then lint and vet the skill. What asks
    the model again (a repair, --verify, a lint re-prompt, a revision) runs when its capabilities say it calls one."""
    synthesizer = choice.synthesizer
    calls_model = synthesizer.capabilities.calls_model
    with state.phase("postprocess"):
        skill = _postprocess_or_repair(draft, synthesizer, inputs.context_tokens, state)
        reprompted = any(c["phase"] == "repair" for c in state.log.calls)
    if calls_model and not skill.cited:  # a skill quoted without a model cites every statement
        state.warn("the model cited no source: the skill's statements are not traceable "
                   "(consider --llm-provider extractive or a stronger model)")
    verify_info: dict[str, Any] = {"status": "not requested"}
    if options.verify:
        if not calls_model:
            verify_info = {"status": "skipped", "reason": f"provider {choice.used} has no model to verify with"}
            state.warn(f"--verify skipped: the {choice.used} provider has no model", record=False)
        else:
            with state.phase("verify"):
                skill, verify_info = _verify(synthesizer, draft, skill, inputs, state)
    with state.phase("lint_and_vet"):
        skill, lint_info, vet_info = _lint_and_vet_output(skill, draft, synthesizer, input_vet, inputs.context_tokens,
                                                          options.fail_on_findings, state)
    return Checked(skill, reprompted, verify_info, lint_info, vet_info)


def _lint_and_vet_output(skill: Skill, draft: Draft, synthesizer: Synthesizer, input_vet: Any, ctx_tokens: int,
                         fail_on_findings: bool, state: RunState) -> tuple[Skill, dict[str, Any], dict[str, Any]]:
    """Lint (fixer, one re-prompt) and the SkillSpector correction loop (its revisions by the model, when the synthesizer
    calls one); returns (skill, lint record, vet record)."""
    from synth.lint import Facts
    from synth.lint.facts import StaleConstruct
    from synth.pipeline.checks import (
        LINT_ADVISORY,
        LintFailure,
        blocking_lint,
        lint_and_fix,
        lint_skill_obj,
        report_output,
        vet_output,
    )
    from synth.pipeline.model_calls import revise_messages

    err = state.err
    sources = draft.sources
    stale = stale_constructs(sources)  # D1 runs whenever a source is fresh
    facts = Facts(used_sources=frozenset(src["url"] for src in sources),
                  stale=tuple(StaleConstruct(**c) for c in stale) if stale is not None else None)
    reprompt: Callable[[list[str]], str] | None = None
    revise: Callable[[str, str], str] | None = None
    if synthesizer.capabilities.calls_model:
        def reprompt(problems: list[str]) -> str:
            return synthesizer.ask(state, "lint-repair", repair_messages(draft.messages, skill.skill_md(), problems),
                                   context_tokens=ctx_tokens, label="re-prompting to fix lint errors")

        rounds = iter(range(1, 100))

        def revise(text: str, findings: str) -> str:
            return synthesizer.ask(state, f"revise[{next(rounds)}]", revise_messages(text, findings),
                                   context_tokens=ctx_tokens, label="revising the skill for its findings")
    try:
        skill, _first, lint_log = lint_and_fix(skill, draft.context, facts, reprompt=reprompt, err=err, warnings=state.warnings)
        skill, correction = vet_output(skill, draft.context, facts, revise_model=revise, err=err, warnings=state.warnings)
        final_lint = lint_skill_obj(skill, facts)
        if blocking_lint(final_lint):  # a correction round must never leave a malformed skill
            raise LintFailure("the vetted skill fails lint: " + "; ".join(f"{f.rule} {f.message}" for f in blocking_lint(final_lint)))
    except LintFailure as exc:
        raise SynthFailure(1, f"{exc}; nothing was written") from None
    lint_info = {"status": "done", **final_lint.to_dict(), "advisory_rules": sorted(LINT_ADVISORY),
                 "draft": lint_log.initial, "fixes": lint_log.fixes, "reprompted": lint_log.reprompted,
                 # the facts the rules ran with, so a later lint of the written skill (skill3 mcp) runs the same rules
                 "facts": {"stale": stale}}
    if lint_log.note:
        lint_info["note"] = lint_log.note
    vet_info = report_output(correction, input_vet, err=err, warnings=state.warnings, fail_on_findings=fail_on_findings)
    return skill, lint_info, vet_info


def _postprocess_or_repair(draft: Draft, synthesizer: Synthesizer, ctx_tokens: int, state: RunState) -> Skill:
    """The post-processed draft; a draft it cannot fix gets one re-prompt (a synthesizer calling no model: exit 1)."""
    try:
        return postprocess(draft.text, draft.context)
    except PostProcessError as exc:
        if not synthesizer.capabilities.calls_model:
            raise SynthFailure(1, f"the {synthesizer.provider} draft could not be made valid: {exc}") from None
        state.warn(f"the draft is not fixable ({exc}); re-prompting the model once", record=False)
        first = exc
    try:
        again = synthesizer.ask(state, "repair", repair_messages(draft.messages, draft.text, first.problems),
                                context_tokens=ctx_tokens, label="re-prompting for a valid SKILL.md")
    except LLMError as exc:
        raise SynthFailure(1, f"the draft was not a valid skill ({first}) and the re-prompt failed: {exc}") from None
    try:
        return postprocess(again, draft.context)
    except PostProcessError as exc:
        raise SynthFailure(1, f"the model did not produce a valid skill after one re-prompt: {exc}") from None


def _verify(synthesizer: Synthesizer, draft: Draft, skill: Skill, inputs: Inputs, state: RunState) -> tuple[Skill, dict[str, Any]]:
    """One call re-grounds the draft against its sources; the sources are trimmed so sources + draft fit the context."""
    sel, bundle, ctx_tokens = draft.selection, draft.bundle_record(), inputs.context_tokens
    text = skill.skill_md()
    room = sel.budget - estimate_tokens(text)
    if room < MIN_BUDGET:
        msg = f"--verify skipped: the draft (~{estimate_tokens(text)} tokens) leaves no room for its sources in --context-tokens {ctx_tokens}"
        state.warn(msg)
        return skill, {"status": "skipped", "reason": msg}
    verify_bundle = bundle
    if sel.tokens > room:  # keep the same source numbers: trim each source, never renumber
        keep = {c.url: c for c in select_evidence(sel.sources, room, can_condense=False).sources}
        verify_bundle = {**bundle, "sources": [
            {**src, "excerpts": keep[src["url"]].excerpts, "code_blocks": [cb["text"] for cb in keep[src["url"]].code_blocks],
             "code_languages": [cb.get("language", "") for cb in keep[src["url"]].code_blocks]}
            for src in bundle["sources"] if src["url"] in keep]}
    messages = verify_messages(verify_bundle, text, today=inputs.today)
    try:
        answer = synthesizer.ask(state, "verify", messages, context_tokens=ctx_tokens, label="verifying against the sources")
    except ContextLengthError as exc:
        msg = f"--verify skipped: {exc}"
        state.warn(msg)
        return skill, {"status": "skipped", "reason": msg}
    except LLMError as exc:
        raise SynthFailure(1, f"--verify failed: {exc}") from None
    try:
        verified = postprocess(answer, draft.context)
    except PostProcessError as exc:
        msg = f"the verified draft was not a valid skill ({exc}); kept the unverified skill"
        state.warn(msg)
        return skill, {"status": "rejected", "reason": str(exc)}
    own = list(verified.fixes)
    verified.fixes = list(skill.fixes) + [f for f in own if f not in skill.fixes]  # the draft's fixes stay on record
    return verified, {"status": "done", "fixes": own, "changed": verified.body != skill.body,
                      "sources_trimmed": verify_bundle is not bundle}
