"""``run_synth``: run.jsonl files → bundle → synthesizer (a model, or the extractive one) → post-processor → skill
folder, run.json, index.html.

Exit codes: 0 done; 1 failure with a one-line reason; 2 bad usage or bad input; 3 skill written but
high-severity findings remain (the vet gate, ``--no-fail-on-findings`` turns it off).

The run is eight steps, each a function: :func:`~synth.pipeline.inputs.resolve_inputs` (options checked, crawl.json
and the first items read once) → :func:`rank` → :func:`vet_input_step` (both here) → the provider resolved and built
(:mod:`synth.pipeline.provider`) → :func:`~synth.pipeline.draft.select` and :func:`~synth.pipeline.draft.synthesize`
(:mod:`synth.pipeline.draft`) → :func:`~synth.pipeline.review.check_output` (post-process, --verify, lint, vet;
:mod:`synth.pipeline.review`) → :func:`~synth.pipeline.write.write_outputs` → :func:`~synth.pipeline.write.report`
(:mod:`synth.pipeline.write`). It prints progress and warnings to stderr while it runs and returns a
:class:`~synth.pipeline.options.SynthResult`; the caller prints the outcome. The steps' names stay importable from
here.

Where vetting and lint run (the logic is in :mod:`synth.pipeline.checks`):
- :func:`vet_input_step`, after ranking and before selection and any model call: every candidate is
  redacted, the corpus is scanned, sources with HIGH/CRITICAL findings are quarantined (the next-best
  candidates take their place); every source quarantined → exit 1;
- :func:`~synth.pipeline.review.check_output`, after ``postprocess`` (and --verify), before ``write_skill``: lint → fixer / one
  re-prompt (remaining lint errors: exit 1, nothing written), then the SkillSpector correction loop (≤3
  rounds, each revision post-processed and linted), the final lint recorded in run.json ``lint``, the
  vetting record in ``vet``, the gate in ``gate``.
"""

from __future__ import annotations

import os
import sys
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from rich.console import Console

from synth.agents import refresh as agents_refresh
from synth.core.errors import SynthFailure
from synth.evidence.conflicts import resolve_candidates
from synth.llm.registry import capabilities
from synth.output.ownership import check_owned_outputs
from synth.output.writing import atomic_write_text, write_skill
from synth.pipeline.budget import MIN_BUDGET, bundle_budget, output_reserve
from synth.pipeline.bundle import BundleError, Candidate, Ranked, Subject, rank_sources, select_evidence
from synth.pipeline.draft import Draft, crawl_coverage, delta_parts, select, synthesize
from synth.pipeline.dryrun import DryRunReport
from synth.pipeline.inputs import Inputs, resolve_inputs
from synth.pipeline.interrupt import exit_code_of, interruptible, signal_name
from synth.pipeline.options import SynthOptions, SynthResult
from synth.pipeline.provider import ModelChoice, choose_model, resolve_provider
from synth.pipeline.review import Checked, check_output
from synth.pipeline.runlog import RunState
from synth.pipeline.write import Synthesised, report, write_outputs
from synth.skill.names import sanitize_name

__all__ = ["SynthFailure", "SynthOptions", "SynthResult", "run_synth", "write_skill", "atomic_write_text",
           # the steps and their records, in their modules (importable from here as before)
           "RunState", "ModelChoice", "Draft", "Checked", "Synthesised", "resolve_inputs", "rank", "vet_input_step",
           "resolve_provider", "choose_model", "select", "crawl_coverage", "delta_parts", "synthesize", "check_output",
           "write_outputs", "report", "bundle_budget", "output_reserve", "MIN_BUDGET"]


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
    except OSError as exc:  # the folder cannot be created (e.g. under /proc): bad usage, one line
        from synth.core.errors import os_reason

        raise SynthFailure(2, f"output folder {str(out_dir)!r} cannot be used ({os_reason(exc)}); pass another "
                              "--output-dir") from None


def _steps(options: SynthOptions, state: RunState, inputs: Inputs) -> SynthResult:
    ranked = rank(inputs, options.strict_cutoff, state)
    name = sanitize_name(inputs.topic, inputs.topic)
    if options.dry_run:  # the bundle the run would build: the provider resolved, the sources vetted as the run does
        caps = capabilities(resolve_provider(options, state).provider)
        budget = bundle_budget(inputs, name, len(ranked.candidates), caps)
        with state.phase("vet_input"):
            kept, input_vet = vet_input_step(list(ranked.candidates), state)
        resolve_candidates(kept)  # opposite advice settled as the run settles it
        sel = select_evidence(kept, budget, can_condense=caps.condenses)
        quarantined = {v.url: "quarantined by input vetting: " + "; ".join(
            f"{f.rule_id} {f.severity}: “{(f.matched or f.message or '')[:120]}”" for f in v.findings if f.blocking)
            for v in input_vet.quarantined}
        return state.result(0, dry_run=DryRunReport(ranked, sel, budget, inputs.context_tokens, inputs.cutoff.month,
                                                    quarantined=quarantined))
    # --- refresh (synth.agents.refresh): a previous run here with the same inputs → its skill is left as it was
    refresh = agents_refresh.prepare(options, inputs, ranked)
    if refresh.unchanged:
        check_owned_outputs(inputs.out_dir)
        return refresh.unchanged_result(state, "same sources and options as the previous run")
    state.log.reuse = refresh.previous_answers()  # the same call as the previous run's: its answer, not a new one
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


def rank(inputs: Inputs, strict_cutoff: bool, state: RunState) -> Ranked:
    """Read, score and rank every item; warn about malformed and non-UTF-8 lines; no usable source: exit 2."""
    with state.phase("read_and_rank"):
        try:
            subject = Subject(inputs.topic, inputs.crawl.queries, inputs.crawl.meta, inputs.since_version)
            ranked = rank_sources(list(inputs.paths), cutoff_start=inputs.cutoff.start, today=inputs.today_date,
                                  strict=strict_cutoff, subject=subject)
        except BundleError as exc:
            raise SynthFailure(2, str(exc)) from None
    rep = ranked.report
    if rep.malformed:
        state.warn(f"{rep.malformed} malformed line(s) skipped: " + "; ".join(rep.malformed_at[:5]), record=False)
    if rep.not_utf8:
        state.warn(f"{rep.not_utf8} line(s) are not UTF-8, read with replacement characters "
                   f"(first at {rep.not_utf8_at}); save the file as UTF-8", record=False)
    _warn_timeline(ranked.delta.rejected_dates, state)
    if not ranked.candidates:
        why = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in sorted(rep.dropped.items())) or "none left"
        raise SynthFailure(2, f"no usable sources among {rep.items} item(s) ({why})")
    return ranked


def _warn_timeline(rejected: list[dict[str, Any]], state: RunState) -> None:
    """One warning for version strings the timeline rejected as absurd, one when it was full (both are in
    run.json's ``delta.rejected_dates``)."""
    from synth.delta.timeline import ABSURD_VERSION, TIMELINE_FULL

    reasons = [r.get("reason") for r in rejected or [] if isinstance(r, dict)]
    if ABSURD_VERSION in reasons:
        state.warn("version string(s) rejected as implausible (longer than 64 characters or with a number of more than "
                   "12 digits): not in the timeline (run.json delta.rejected_dates)")
    if TIMELINE_FULL in reasons:
        state.warn(TIMELINE_FULL)


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


def main(argv: list[str]) -> int:
    """``python -m synth.pipeline.run RUN.jsonl…``: synthesise with the default options, print the outcome."""
    result = run_synth(SynthOptions(paths=tuple(argv)))
    result.print_outcome()
    return result.exit_code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
