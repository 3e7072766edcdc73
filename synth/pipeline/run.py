"""``run_synth``: run.jsonl files → bundle → synthesizer (a model, or the extractive one) → post-processor → skill folder, run.json, index.html.

Exit codes: 0 done; 1 failure with a one-line reason; 2 bad usage or bad input; 3 skill written but
high-severity findings remain (the vet gate, ``--no-fail-on-findings`` turns it off).

The run is eight steps, each a function below: :func:`resolve_inputs` (options checked, crawl.json and
the first items read once) → :func:`rank` → :func:`vet_input_step` → :func:`select` →
:func:`synthesize` → :func:`check_output` (post-process, --verify, lint, vet) → :func:`write_outputs`
→ :func:`report`. It prints progress and warnings to stderr while it runs and returns a
:class:`~synth.pipeline.options.SynthResult`; the caller prints the outcome.

Where vetting and lint run (the logic is in :mod:`synth.pipeline.checks`):
- :func:`vet_input_step`, after ranking and before selection and any model call: every candidate is
  redacted, the corpus is scanned, sources with HIGH/CRITICAL findings are quarantined (the next-best
  candidates take their place); every source quarantined → exit 1;
- :func:`check_output`, after ``postprocess`` (and --verify), before ``write_skill``: lint → fixer / one
  re-prompt (remaining lint errors: exit 1, nothing written), then the SkillSpector correction loop (≤3
  rounds, each revision post-processed and linted), the final lint recorded in run.json ``lint``, the
  vetting record in ``vet``, the gate in ``gate``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from synth.agents import AgentsError
from synth.agents import refresh as agents_refresh
from synth.core.errors import ExitCode, SynthFailure
from synth.evidence.conflicts import resolve_candidates, stale_constructs
from synth.llm.model import ContextLengthError, LLMError, Message
from synth.llm.registry import Choice, capabilities, choose, fallback_warning, make_model, model_problem
from synth.output import manifest as manifest_mod
from synth.output.ownership import OwnershipError, check_outputs, free_skill_name, owned_skill_dirs
from synth.output.writing import OutputTransaction, atomic_write_text, write_skill  # noqa: F401  (re-exported)
from synth.pipeline.budget import MIN_BUDGET, bundle_budget, output_reserve
from synth.pipeline.bundle import (
    BundleError,
    Candidate,
    Ranked,
    Selection,
    rank_sources,
    ranking_rows,
    select_evidence,
    to_bundle,
)
from synth.pipeline.dryrun import DryRunReport
from synth.pipeline.inputs import Inputs, resolve_inputs
from synth.pipeline.interrupt import critical_section, exit_code_of, interruptible, signal_name
from synth.pipeline.options import SynthOptions, SynthResult
from synth.pipeline.state import RunState
from synth.pipeline.synthesize import repair_messages, verify_messages
from synth.pipeline.synthesizer import Synthesizer, synthesizer_for
from synth.skill.names import display_topic, sanitize_name
from synth.skill.postprocess import PostProcessError, Skill, SkillContext, postprocess
from synth.skill.size import estimate_tokens

__all__ = ["SynthFailure", "SynthOptions", "SynthResult", "run_synth", "write_skill", "atomic_write_text"]


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


@dataclass
class Draft:
    """The synthesised text with the selection, bundle and messages it came from."""

    text: str
    messages: list[Message]
    selection: Selection
    bundle: dict[str, Any]
    context: SkillContext
    shrunk: dict[str, Any] | None = None
    map_reduce: dict[str, Any] = field(default_factory=dict)
    parts: Any = None  # synth.evidence.delta.render.SkillParts: the references and the entries SKILL.md names


@dataclass
class Checked:
    """The post-processed, verified, linted and vetted skill with the records for run.json."""

    skill: Skill
    reprompted: bool
    verify: dict[str, Any]
    lint: dict[str, Any]
    vet: dict[str, Any]


@dataclass
class Synthesised:
    """What the steps before writing produced: the ranking, the vetted candidates, the model, the draft and the
    checked skill (what :func:`write_outputs` writes and run.json records)."""

    ranked: Ranked
    candidates: list[Candidate]
    choice: ModelChoice
    draft: Draft
    checked: Checked


def run_synth(options: SynthOptions, *, console: Console | None = None) -> SynthResult:
    """Synthesise a skill from run.jsonl files. Progress and warnings go to ``console`` (default stderr)
    while it runs; the outcome is returned (print it with :meth:`SynthResult.print_outcome`)."""
    import logging

    err = console or Console(stderr=True, highlight=False, soft_wrap=True)
    for noisy in ("httpx2", "httpx", "openai", "anthropic"):  # per-request INFO lines (under Scrapy's logging)
        logging.getLogger(noisy).setLevel(logging.WARNING)
    state = RunState(err, progress=options.progress)
    try:
        with interruptible():  # Ctrl-C / SIGTERM: stop, nothing half-written, exit 130 / 143
            return _run(options, state)
    except SynthFailure as exc:
        return state.result(exc.code, error=str(exc))
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (synth.pipeline.interrupt): 130 / 143
        done = state.committed
        return state.result(exit_code_of(exc), error=f"interrupted ({signal_name(exc)}); " + (
            "the skill, run.json and index.html were written" if done else "nothing was written (the previous outputs are kept)"))
    except OSError as exc:  # unwritable output folder, disk full, unreadable input
        return state.result(1, error=f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": "))
    except Exception as exc:  # a bug: one line, the traceback with SKILL3_DEBUG=1
        if os.environ.get("SKILL3_DEBUG"):
            raise
        return state.result(1, error=f"internal error ({type(exc).__name__}: {exc}); rerun with SKILL3_DEBUG=1 for the traceback")


def _run(options: SynthOptions, state: RunState) -> SynthResult:
    """The run's steps in order; each raises :class:`SynthFailure` to stop it."""
    inputs = resolve_inputs(options, state.started)
    with nullcontext() if options.dry_run else _locked(inputs.out_dir):  # one run at a time in a folder
        return _steps(options, state, inputs)


def _locked(out_dir: Path) -> AbstractContextManager:
    from synth.output.outdir import OutputDirLocked, lock_output_dir

    try:
        return lock_output_dir(out_dir)
    except OutputDirLocked as exc:
        raise SynthFailure(2, str(exc)) from None


def _steps(options: SynthOptions, state: RunState, inputs: Inputs) -> SynthResult:
    ranked = rank(inputs, options.strict_cutoff, state)
    name = sanitize_name(inputs.topic, inputs.topic)
    if options.dry_run:  # the bundle the run would build: the provider resolved as the run resolves it
        caps = capabilities(resolve_provider(options, state).provider)
        budget = bundle_budget(inputs, name, len(ranked.candidates), caps)
        sel = select_evidence(ranked.candidates, budget, can_condense=caps.condenses)
        return state.result(0, dry_run=DryRunReport(ranked, sel, budget, inputs.context_tokens, inputs.cutoff.month))
    # --- refresh (synth.agents.refresh): a previous run here with the same inputs → its skill is left as it was
    refresh = agents_refresh.prepare(options, inputs, ranked)
    if refresh.unchanged:
        _check_outputs(inputs.out_dir)
        return refresh.unchanged_result(state, "same sources and options as the previous run")
    choice = choose_model(options, resolve_provider(options, state), inputs, state)
    budget = bundle_budget(inputs, name, len(ranked.candidates), choice.synthesizer.capabilities)
    with state.phase("vet_input"):
        candidates, input_vet = vet_input_step(ranked.candidates, state)
    state.conflicts = resolve_candidates(candidates).to_dict()  # opposite advice: the loser never reaches the model
    draft = synthesize(choice.synthesizer, candidates, budget, inputs, ranked, name, state)
    draft.context.version = refresh.version  # refresh: synthesised at the previous run's version
    checked = check_output(draft, choice, input_vet, options, inputs, state)
    if refresh.same_files(checked.skill):  # refresh: the same skill again → nothing is rewritten
        return refresh.unchanged_result(state, "the skill came out byte-identical to the previous one")
    refresh.apply_version(checked.skill)  # refresh: a changed skill gets the next version
    skill_dir, man = write_outputs(Synthesised(ranked, candidates, choice, draft, checked), inputs, options, state,
                                   refresh=refresh)
    return report(skill_dir, man, draft, choice, inputs, options, state)


# --------------------------------------------------------------------------- the steps


def rank(inputs: Inputs, strict_cutoff: bool, state: RunState) -> Ranked:
    """Read, score and rank every item; warn about malformed and non-UTF-8 lines; no usable source: exit 2."""
    with state.phase("read_and_rank"):
        try:
            ranked = rank_sources(list(inputs.paths), cutoff_start=inputs.cutoff.start, today=inputs.today_date,
                                  strict=strict_cutoff, topic=inputs.topic, queries=inputs.crawl.queries,
                                  crawl_meta=inputs.crawl.meta, since_version=inputs.since_version)
        except BundleError as exc:
            raise SynthFailure(2, str(exc)) from None
    rep = ranked.report
    if rep.malformed:
        state.warn(f"{rep.malformed} malformed line(s) skipped: " + "; ".join(rep.malformed_at[:5]), record=False)
    if rep.not_utf8:
        state.warn(f"{rep.not_utf8} line(s) are not UTF-8, read with replacement characters "
                   f"(first at {rep.not_utf8_at}); save the file as UTF-8", record=False)
    _warn_timeline(ranked.delta, state)
    if not ranked.candidates:
        why = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in sorted(rep.dropped.items())) or "none left"
        raise SynthFailure(2, f"no usable sources among {rep.items} item(s) ({why})")
    return ranked


def resolve_provider(options: SynthOptions, state: RunState) -> Choice:
    """The provider and model the run uses: "auto" resolved with one probe (no answer → extractive, with a
    warning), or the caller's choice when it resolved "auto" already (no second probe, no second warning)."""
    if options.llm_provider != "auto":
        return Choice(options.llm_provider, options.llm_model)
    choice = options.auto_choice or choose("auto", options.llm_endpoint, options.llm_model)
    if choice.reason:
        state.warn(fallback_warning(choice.reason), loud=True, show=options.auto_choice is None)
    return choice


def _warn_timeline(delta: Any, state: RunState) -> None:
    """One warning for version strings the timeline rejected as absurd, one when it was full (both are in
    run.json's ``delta.rejected_dates``)."""
    from synth.evidence.delta.timeline import ABSURD_VERSION, TIMELINE_FULL

    rejected = delta.get("rejected_dates") if isinstance(delta, dict) else None
    reasons = [r.get("reason") for r in rejected or [] if isinstance(r, dict)]
    if ABSURD_VERSION in reasons:
        state.warn("version string(s) rejected as implausible (longer than 64 characters or with a number of more than "
                   "12 digits): not in the timeline (run.json delta.rejected_dates)")
    if TIMELINE_FULL in reasons:
        state.warn(TIMELINE_FULL)


def choose_model(options: SynthOptions, provider: Choice, inputs: Inputs, state: RunState) -> ModelChoice:
    """Refuse outputs skill3 did not write, check that an explicitly chosen openai endpoint answers (else exit 2,
    one line), then make the synthesizer of ``provider`` (its model with its time budget) — all before any model call."""
    from synth.llm.bounds import CallBudget

    _check_outputs(inputs.out_dir)  # a run.json/index.html that skill3 did not write: refuse before any model call
    if options.llm_provider == "openai":
        problem = model_problem("openai", options.llm_endpoint)
        if problem:
            raise SynthFailure(2, problem)
    try:
        synthesizer = synthesizer_for(provider.provider, lambda: make_model(
            provider.provider, endpoint=options.llm_endpoint, model=provider.model,
            budget=CallBudget(inputs.llm_timeout, inputs.llm_total_timeout)))
    except LLMError as exc:  # a missing key, an unknown provider
        raise SynthFailure(2, str(exc)) from None
    return ModelChoice(synthesizer, options.llm_provider, provider.provider, provider.reason)


def vet_input_step(candidates: list[Candidate], state: RunState) -> tuple[list[Candidate], Any]:
    """Input vetting, before any model sees a source: redact every candidate in place, scan the corpus,
    quarantine sources with HIGH/CRITICAL findings. Returns (kept candidates in rank order, the result),
    so the next-best candidates take a quarantined source's place in the selection."""
    from synth.pipeline.checks import vet_input
    from synth.vet import AllSourcesQuarantined

    try:
        return vet_input(candidates, err=state.err, warnings=state.warnings)
    except AllSourcesQuarantined as exc:
        raise SynthFailure(1, str(exc)) from None


def select(candidates: list[Candidate], budget: int, *, can_condense: bool, inputs: Inputs, name: str,
           ranked: Ranked, state: RunState) -> tuple[Selection, dict[str, Any]]:
    """The evidence that fits ``budget`` and its bundle (what the model reads)."""
    with state.phase("select"):
        sel = select_evidence(candidates, budget, can_condense=can_condense)
        bundle = to_bundle(sel, skill_name=name, target_model=inputs.target_model, cutoff=inputs.cutoff.month,
                           delta=ranked.delta)
    return sel, bundle


def crawl_coverage(inputs: Inputs) -> dict[str, int]:
    """How much of the site the crawl read: the pages kept, and the pages in scope it left unread at max_pages."""
    raw = inputs.crawl.meta.get("summary")
    summary: dict[str, Any] = raw if isinstance(raw, dict) else {}
    raw = summary.get("dropped")
    dropped: dict[str, Any] = raw if isinstance(raw, dict) else {}
    left, kept = dropped.get("max_pages"), summary.get("items_written")
    return {"pages": kept if isinstance(kept, int) and kept > 0 else 0,
            "left_at_max_pages": left if isinstance(left, int) and left > 0 else 0}


def delta_parts(ranked: Ranked, bundle: dict[str, Any], inputs: Inputs) -> Any:
    """The delta's reference files and SKILL.md entries (:mod:`synth.evidence.delta.render`), or None without change entries;
    every scraped text the built-in screen flags is left out."""
    if ranked.changes is None or not (ranked.changes.post or ranked.changes.undated):
        return None
    from synth.evidence.delta.render import skill_parts
    from synth.vet.screen import screen_markdown

    parts = skill_parts(ranked.changes, bundle["sources"], topic=display_topic(inputs.topic), cutoff=inputs.cutoff.month,
                        flagged=lambda text: bool(screen_markdown(text, "delta.md")))
    bundle.setdefault("delta", {})
    bundle["delta"]["versions"] = parts.versions
    bundle["delta"]["reference_index"] = parts.index_lines()
    return parts


def synthesize(synthesizer: Synthesizer, candidates: list[Candidate], budget: int, inputs: Inputs, ranked: Ranked,
               name: str, state: RunState) -> Draft:
    """Select and draft the skill (condensed when the synthesizer condenses and the evidence does not fit); after a
    context-length error the bundle is halved once (trimmed, not condensed with more calls) and the draft retried."""
    shrunk: dict[str, Any] | None = None
    while True:
        can_condense = synthesizer.capabilities.condenses and shrunk is None
        sel, bundle = select(candidates, budget, can_condense=can_condense, inputs=inputs, name=name, ranked=ranked,
                             state=state)
        with state.phase("delta"):
            parts = delta_parts(ranked, bundle, inputs)
            bundle.setdefault("delta", {}).update(since_version=inputs.since_version, coverage=crawl_coverage(inputs))
        try:
            with state.phase("synthesize"):
                text, messages, map_reduce = synthesizer.draft(bundle, sel, inputs, name, parts, state)
            if parts is not None and parts.extra_sources:
                bundle["delta_sources"] = list(parts.extra_sources)  # pages only the delta's lines cite
            ctx = SkillContext(topic=inputs.topic, target_model=inputs.target_model, cutoff=inputs.cutoff.month,
                               learned_date=inputs.today, sources=bundle["sources"] + bundle.get("delta_sources", []),
                               references=dict(parts.rendered.files) if parts else {},
                               reference_index=parts.index_lines() if parts else [])
            return Draft(text, messages, sel, bundle, ctx, shrunk, map_reduce, parts)
        except ContextLengthError as exc:
            if shrunk is not None:
                raise SynthFailure(1, f"{exc} (already retried with a {budget}-token bundle; lower --context-tokens)") from None
            shrunk = {"from": budget, "to": max(MIN_BUDGET, min(budget, sel.tokens) // 2), "reason": str(exc)}
            state.warn(f"{exc}; retrying once with the bundle halved to {shrunk['to']} tokens", record=False)
            budget = shrunk["to"]
        except LLMError as exc:
            raise SynthFailure(1, str(exc)) from None


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


def write_outputs(done: Synthesised, inputs: Inputs, options: SynthOptions, state: RunState,
                  refresh: agents_refresh.Refresh | None = None) -> tuple[Path, dict[str, Any]]:
    """Write the skill folder (under a free name when another folder has its name), run.json and index.html;
    remove the previous run's skill folder when the skill's name changed. Returns (skill folder, manifest)."""
    out_dir, skill = inputs.out_dir, done.checked.skill
    _check_outputs(out_dir)
    previous = _previous_skill_dir(out_dir)
    owned = owned_skill_dirs(out_dir)
    try:
        name = free_skill_name(out_dir, skill.name, owned)
    except OwnershipError as exc:
        raise SynthFailure(1, str(exc)) from None
    if name != skill.name:
        state.warn(f"{out_dir / skill.name} exists and was not written by skill3: the skill is written beside it "
                   f"as {name} (its name changed to match)", loud=True)
        skill.name = name
        skill.frontmatter["name"] = name
    from synth.output.preview import render_preview

    # all three are staged in full first (a full disk stops the run there), then committed together
    with OutputTransaction(out_dir) as tx:
        if refresh is not None:  # refresh: where the previous run will be kept (.history/<version>/)
            try:
                refresh.plan_history()
            except AgentsError as exc:
                raise SynthFailure(1, f"the previous skill could not be kept in {out_dir / agents_refresh.HISTORY}: {exc}; "
                                      "nothing was replaced") from None
        with state.phase("write"):
            skill_dir, validation = tx.stage_skill(skill, owned=owned)
        man = _manifest(done, inputs, options, state, skill_dir, validation, refresh, staged=tx.staging / skill.name)
        tx.stage_file("run.json", json.dumps(man, indent=2, ensure_ascii=False) + "\n")
        tx.stage_file("index.html", render_preview(skill, man))
        if previous is not None and previous.resolve() != skill_dir.resolve():
            tx.replace(previous.name)  # the last run's skill under its old name
        if refresh is not None:  # everything is staged: the previous run is copied to .history/ before it is replaced
            try:
                refresh.archive()
            except (AgentsError, OSError) as exc:
                raise SynthFailure(1, f"the previous skill could not be kept in {out_dir / agents_refresh.HISTORY}: {exc}; "
                                      "nothing was replaced") from None
        with critical_section():  # a signal now waits until the outputs are all in place (or all back)
            tx.commit()
            state.committed = True
    return skill_dir, man


def _manifest(done: Synthesised, inputs: Inputs, options: SynthOptions, state: RunState, skill_dir: Path,
              validation: dict[str, Any], refresh: agents_refresh.Refresh | None, staged: Path | None = None) -> dict[str, Any]:
    """run.json's content (``staged``: where the new skill's files are until the outputs are committed)."""
    checked, draft, ranked, candidates, choice = done.checked, done.draft, done.ranked, done.candidates, done.choice
    out_dir, skill = inputs.out_dir, checked.skill
    quarantined = {id(c) for c in ranked.candidates} - {id(c) for c in candidates}
    ranking = ranking_rows(ranked.candidates, draft.selection)
    for row, c in zip(ranking, ranked.candidates):
        row["quarantined"] = id(c) in quarantined
    ctx_tokens = inputs.context_tokens
    man = manifest_mod.build(manifest_mod.RunRecord(
        topic=inputs.topic, target_model=inputs.target_model, cutoff=inputs.cutoff, today=inputs.today, started=state.started,
        paths=list(inputs.paths), crawl_meta=inputs.crawl.meta, crawl_json=inputs.crawl.path, report=ranked.report.to_dict(),
        ranking=ranking, selection=draft.selection, bundle=draft.bundle, context_tokens=ctx_tokens,
        output_reserve=output_reserve(ctx_tokens), shrunk=draft.shrunk, map_reduce=draft.map_reduce,
        provider=choice.record(), calls=state.log.calls, skill=skill, skill_dir=skill_dir, out_dir=out_dir,
        validation=validation, postprocess={"fixes": skill.fixes, "reprompted": checked.reprompted},
        verify=checked.verify, lint=checked.lint, vet=checked.vet, timings=state.timings, warnings=state.warnings,
        strict_cutoff=options.strict_cutoff, fail_on_findings=options.fail_on_findings,
    ))
    man["delta"] = ranked.delta  # the version timeline, the cutoff's version boundary, build-dated hosts
    if ranked.changes is not None:
        man["delta"] = {**ranked.delta, "since_version": ranked.changes.since_version,
                        "versions": ranked.changes.version_rows()}
    if draft.parts is not None and ranked.changes is not None:
        from synth.evidence.delta.render import delta_record

        man["delta"].update(delta_record(ranked.changes, draft.parts, skill))
    if refresh is not None:  # refresh: what changed since the previous run (synth.agents.refresh)
        man["refresh"] = refresh.record(skill_dir, man, staged)
    man["conflicts"] = state.conflicts
    return man


def report(skill_dir: Path, man: dict[str, Any], draft: Draft, choice: ModelChoice, inputs: Inputs,
           options: SynthOptions, state: RunState) -> SynthResult:
    """The result: what was written, and the gate's exit code (3 when HIGH/CRITICAL findings remain and the
    gate is on, decided by :func:`synth.vet.gate.gate_exit_code`)."""
    gate = man["gate"]
    blocking = int(gate["blocking"] or 0)
    manifest, preview = inputs.out_dir / "run.json", inputs.out_dir / "index.html"
    return state.result(
        ExitCode(gate["exit_code"]), skill_dir=skill_dir, manifest=manifest, preview=preview,
        written=(skill_dir, manifest, preview), sources=len(draft.bundle["sources"]), provider=choice.used,
        blocking_findings=blocking, finding_rules=tuple(gate.get("rules") or ()), fail_on_findings=options.fail_on_findings,
        summary=tuple((man.get("refresh") or {}).get("summary") or ()),  # refresh: the "since last learn" lines
    )


# --------------------------------------------------------------------------- helpers of the steps


def _check_outputs(out_dir: Path) -> None:
    """Refuse (exit 2) a run.json/index.html in ``out_dir`` that skill3 did not write."""
    try:
        check_outputs(out_dir)
    except OwnershipError as exc:
        raise SynthFailure(2, str(exc)) from None


def _previous_skill_dir(out_dir: Path) -> Path | None:
    """The skill folder skill3's previous run.json names, when it is a direct child of ``out_dir`` holding a SKILL.md."""
    owned = sorted(owned_skill_dirs(out_dir))
    if len(owned) != 1:
        return None
    path = out_dir / owned[0]
    return path if path.is_dir() and not path.is_symlink() and (path / "SKILL.md").is_file() else None


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
    from synth.pipeline.synthesize import revise_messages

    err = state.err
    sources = draft.bundle["sources"] + draft.bundle.get("delta_sources", [])
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
                 "draft": lint_log.initial, "fixes": lint_log.fixes, "reprompted": lint_log.reprompted}
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
    sel, bundle, ctx_tokens = draft.selection, draft.bundle, inputs.context_tokens
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


def main(argv: list[str]) -> int:
    """``python -m synth.pipeline.run RUN.jsonl…``: synthesise with the default options, print the outcome."""
    result = run_synth(SynthOptions(paths=tuple(argv)))
    result.print_outcome()
    return result.exit_code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
