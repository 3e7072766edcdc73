"""The write step (:func:`write_outputs`): the skill folder, run.json and index.html staged and committed
together, never over what skill3 did not write; then the run's result (:func:`report`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from synth.agents import AgentsError
from synth.agents import refresh as agents_refresh
from synth.core.errors import ExitCode, SynthFailure
from synth.output import manifest as manifest_mod
from synth.output.ownership import OwnershipError, check_owned_outputs, free_skill_name, owned_skill_dirs
from synth.output.writing import OutputTransaction
from synth.pipeline.budget import output_reserve
from synth.pipeline.bundle import Candidate, Ranked, ranking_rows
from synth.pipeline.inputs import Inputs
from synth.pipeline.interrupt import critical_section
from synth.pipeline.options import SynthOptions, SynthResult
from synth.pipeline.runlog import RunState

if TYPE_CHECKING:  # pragma: no cover
    from synth.pipeline.draft import Draft
    from synth.pipeline.provider import ModelChoice
    from synth.pipeline.review import Checked


@dataclass
class Synthesised:
    """What the steps before writing produced: the ranking, the vetted candidates, the model, the draft and the
    checked skill (what :func:`write_outputs` writes and run.json records)."""

    ranked: Ranked
    candidates: list[Candidate]
    choice: ModelChoice
    draft: Draft
    checked: Checked


def write_outputs(done: Synthesised, inputs: Inputs, options: SynthOptions, state: RunState,
                  refresh: agents_refresh.Refresh | None = None) -> tuple[Path, dict[str, Any]]:
    """Write the skill folder (under a free name when another folder has its name), run.json and index.html;
    remove the previous run's skill folder when the skill's name changed. Returns (skill folder, manifest)."""
    out_dir, skill = inputs.out_dir, done.checked.skill
    check_owned_outputs(out_dir)
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
        ranking=ranking, selection=draft.selection, bundle=draft.bundle_record(), context_tokens=ctx_tokens,
        output_reserve=output_reserve(ctx_tokens), shrunk=draft.shrunk, map_reduce=draft.map_reduce,
        provider=choice.record(), calls=state.log.calls, skill=skill, skill_dir=skill_dir, out_dir=out_dir,
        validation=validation, postprocess={"fixes": skill.fixes, "reprompted": checked.reprompted,
                                  "superseded": skill.superseded[:50]},
        verify=checked.verify, lint=checked.lint, vet=checked.vet, timings=state.timings, warnings=state.warnings,
        strict_cutoff=options.strict_cutoff, fail_on_findings=options.fail_on_findings,
    ))
    man["prompts"]["answers"] = state.log.answers_record()  # a refresh asking the same reuses them (synth.agents.refresh)
    man["delta"] = ranked.delta.to_json()  # the version timeline, the cutoff's version boundary, build-dated hosts
    if draft.parts is not None and ranked.changes is not None:
        from synth.delta.render import delta_record

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
        written=(skill_dir, manifest, preview), sources=len(draft.bundle.sources), provider=choice.used,
        blocking_findings=blocking, finding_rules=tuple(gate.get("rules") or ()), fail_on_findings=options.fail_on_findings,
        summary=tuple((man.get("refresh") or {}).get("summary") or ()),  # refresh: the "since last learn" lines
    )


def _previous_skill_dir(out_dir: Path) -> Path | None:
    """The skill folder skill3's previous run.json names, when it is a direct child of ``out_dir`` holding a SKILL.md."""
    owned = sorted(owned_skill_dirs(out_dir))
    if len(owned) != 1:
        return None
    path = out_dir / owned[0]
    return path if path.is_dir() and not path.is_symlink() and (path / "SKILL.md").is_file() else None
