"""``run_synth``: run.jsonl files → bundle → model (or extractive) → post-processor → skill folder, run.json, index.html.

Exit codes (DESIGN §3): 0 done; 1 failure with a one-line reason; 2 bad usage or
bad input; 3 skill written but high-severity findings remain (the vet gate,
``--no-fail-on-findings`` turns it off).

Where vetting and lint run (the logic is in :mod:`synth.checks`):
- ``_vet_input``, after ranking and before selection and any model call: every
  candidate is redacted, the corpus is scanned, sources with HIGH/CRITICAL
  findings are quarantined (the next-best candidates take their place); every
  source quarantined → exit 1;
- ``_lint_and_vet_output``, after ``postprocess`` (and --verify), before
  ``write_skill``: lint → fixer / one re-prompt (remaining lint errors: exit 1,
  nothing written), then the SkillSpector correction loop (≤3 rounds, each revision
  post-processed and linted), the final lint recorded in run.json ``lint``, the
  vetting record in ``vet``, the gate in ``gate``.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

from rich.console import Console

from synth import manifest as manifest_mod
from synth.bundle import (
    DEFAULT_CONTEXT_TOKENS,
    BundleError,
    Selection,
    rank_sources,
    ranking_rows,
    select_evidence,
    to_bundle,
)
from synth.cutoff import CutoffError, default_model, parse_month, resolve_cutoff
from synth.extractive import extractive_skill
from synth.llm.model import ContextLengthError, LLMError, MissingKeyError
from synth.llm.registry import DEFAULT_ENDPOINT, check_provider, choose, make_chat_model
from synth.llm.progress import generation_progress
from synth.ownership import OwnershipError, check_outputs, free_skill_name, owned_skill_dirs
from synth.postprocess import PostProcessError, Skill, SkillContext, postprocess
from synth.skill.names import sanitize_name
from synth.skill.size import estimate_tokens
from synth.synthesize import (
    CallLog,
    condense_messages,
    messages_tokens,
    repair_messages,
    synth_messages,
    verify_messages,
    bundle_nonce,
)

MIN_BUDGET = 256
# Without a model there is no context window to fit: the extractive synthesizer chooses its quotes (its own output
# stays within the skill's body budget) from a bundle of at least this many tokens.
EXTRACTIVE_BUDGET = 16_000


class SynthFailure(Exception):
    def __init__(self, code: int, message: str):
        self.code = code
        super().__init__(message)


@dataclass
class RunState:
    timings: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    log: CallLog = field(default_factory=CallLog)

    def phase(self, name: str):
        state = self

        class _T:
            def __enter__(self):
                self.t0 = time.monotonic()

            def __exit__(self, *exc):
                state.timings[name] = round(state.timings.get(name, 0.0) + time.monotonic() - self.t0, 3)
                return False

        return _T()


def output_reserve(context_tokens: int) -> int:
    """Tokens kept free for the model's answer."""
    return min(2048, max(256, context_tokens // 4))


def evidence_budget(context_tokens: int, topic: str, name: str, cutoff: str, target_model: str, n_sources: int) -> int:
    """Context minus the answer's reserve, the prompt's own text and per-source fence overhead."""
    empty = {"skill_name": name, "target_model": target_model, "cutoff": cutoff, "sources": []}
    overhead = messages_tokens(synth_messages(empty, topic=topic, name=name, today="2026-01-01")) + 40 * n_sources
    return max(MIN_BUDGET, context_tokens - output_reserve(context_tokens) - overhead)


def _read_crawl_json(paths: list[str]) -> tuple[dict, str | None]:
    p = Path(paths[0]).parent / "crawl.json"
    if not p.is_file():
        return {}, None
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}, str(p)
    return (data if isinstance(data, dict) else {}), str(p)


def _first_item_field(paths: list[str], name: str) -> str | None:
    from synth.bundle import iter_items

    try:
        for _where, item in iter_items(paths):
            value = getattr(item, name, None)
            if value:
                return str(value)
    except BundleError:
        return None
    return None


def _recorded_cutoff(crawl_meta: dict, crawl_json: str | None, paths: list[str]) -> tuple[str | None, str]:
    """The cutoff the crawl recorded and where it was read (for run.json's ``cutoff.source``)."""
    value = _crawl_arg(crawl_meta, "cutoff") or _crawl_arg(crawl_meta, "cutoff_time")
    if value:
        how = crawl_meta.get("cutoff_source")
        return value, f"crawl.json {crawl_json}" + (f" (the crawl's {how})" if isinstance(how, str) and how else "")
    return _first_item_field(paths, "cutoff"), "the cutoff recorded in the run.jsonl items"


def _crawl_arg(meta: dict, key: str):
    args = meta.get("args") if isinstance(meta.get("args"), dict) else {}
    return args.get(key) if args.get(key) not in (None, "") else meta.get(key)


def run_synth(
    paths: list[str],
    *,
    output_dir: str | None = None,
    topic: str | None = None,
    target_model: str | None = None,
    cutoff: str | None = None,
    llm_provider: str = "openai",
    llm_endpoint: str | None = None,
    llm_model: str | None = None,
    verify: bool = False,
    strict_cutoff: bool = False,
    context_tokens: int | None = None,
    dry_run: bool = False,
    fail_on_findings: bool = True,
    today: str | None = None,
    progress: bool = True,
    console: Console | None = None,
) -> int:
    """Synthesise a skill from run.jsonl files; returns the exit code (0/1/2/3)."""
    err = console or Console(stderr=True, highlight=False, soft_wrap=True)
    import logging

    for noisy in ("httpx2", "httpx", "openai", "anthropic"):  # per-request INFO lines (under Scrapy's logging)
        logging.getLogger(noisy).setLevel(logging.WARNING)
    try:
        return _run(
            paths, output_dir=output_dir, topic=topic, target_model=target_model, cutoff=cutoff,
            llm_provider=llm_provider, llm_endpoint=llm_endpoint, llm_model=llm_model, verify=verify,
            strict_cutoff=strict_cutoff, context_tokens=context_tokens, dry_run=dry_run,
            fail_on_findings=fail_on_findings, today=today, progress=progress, err=err,
        )
    except SynthFailure as exc:
        err.print(f"skill3 synth: error: {exc}", markup=False)
        return exc.code
    except KeyboardInterrupt:
        err.print("skill3 synth: error: interrupted; nothing was written", markup=False)
        return 1
    except OSError as exc:  # unwritable output folder, disk full, unreadable input
        err.print(f"skill3 synth: error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), markup=False)
        return 1
    except Exception as exc:  # a bug: one line, the traceback with SKILL3_DEBUG=1
        if os.environ.get("SKILL3_DEBUG"):
            raise
        err.print(f"skill3 synth: error: internal error ({type(exc).__name__}: {exc}); rerun with SKILL3_DEBUG=1 for the traceback", markup=False)
        return 1


def _run(paths, *, output_dir, topic, target_model, cutoff, llm_provider, llm_endpoint, llm_model, verify,
         strict_cutoff, context_tokens, dry_run, fail_on_findings, today, progress, err) -> int:
    state = RunState()
    started = datetime.now(timezone.utc)
    if not paths:
        raise SynthFailure(2, "no input: pass one or more run.jsonl files")
    try:
        check_provider(llm_provider, llm_endpoint or (DEFAULT_ENDPOINT if llm_provider == "openai" else None))
    except LLMError as exc:
        raise SynthFailure(2, str(exc)) from None
    if context_tokens is not None and context_tokens < 1024:
        raise SynthFailure(2, f"--context-tokens must be at least 1024, got {context_tokens}")
    ctx_tokens = context_tokens or DEFAULT_CONTEXT_TOKENS
    for p in paths:
        if not Path(p).is_file():
            raise SynthFailure(2, f"{p}: no such file (pass a run.jsonl written by the crawl)")

    crawl_meta, crawl_json = _read_crawl_json(paths)
    if _first_item_field(paths, "url") is None:  # no valid item at all: report it with the malformed lines
        try:
            rank_sources(paths, cutoff_start=datetime(2000, 1, 1).date(), today=started.date())
        except BundleError as exc:
            raise SynthFailure(2, str(exc)) from None
    topic = topic or _crawl_arg(crawl_meta, "topic") or _first_item_field(paths, "topic")
    if not topic:
        raise SynthFailure(2, "no topic in the items or crawl.json: pass --topic")
    explicit_model = target_model
    model_for_cutoff = target_model or _crawl_arg(crawl_meta, "target_model")
    target_model = model_for_cutoff or default_model()
    try:
        # --cutoff-time wins; then an explicit --target-model; then what the crawl recorded; then the default model.
        recorded, recorded_from = _recorded_cutoff(crawl_meta, crawl_json, paths)
        if cutoff or explicit_model or not recorded:
            cut = resolve_cutoff(model_for_cutoff, cutoff)
        else:
            cut = replace(resolve_cutoff(target_model, parse_month(str(recorded))), source=recorded_from)
    except CutoffError as exc:
        raise SynthFailure(2, str(exc)) from None
    today_s = today or started.date().isoformat()
    today_d = datetime.fromisoformat(today_s).date()
    out_dir = Path(output_dir) if output_dir else Path(paths[0]).parent
    if not dry_run:
        from synth.outdir import output_dir_problem

        problem = output_dir_problem(out_dir)  # before any model call
        if problem:
            raise SynthFailure(2, problem)

    with state.phase("read_and_rank"):
        try:
            queries = crawl_meta.get("queries") or crawl_meta.get("planned_queries") or []
            ranked = rank_sources(paths, cutoff_start=cut.start, today=today_d, strict=strict_cutoff, topic=topic,
                                  queries=queries if isinstance(queries, list) else [], crawl_meta=crawl_meta)
        except BundleError as exc:
            raise SynthFailure(2, str(exc)) from None
    rep = ranked.report
    if rep.malformed:
        err.print(f"skill3 synth: warning: {rep.malformed} malformed line(s) skipped: " + "; ".join(rep.malformed_at[:5]), markup=False)
    if rep.not_utf8:
        err.print(f"skill3 synth: warning: {rep.not_utf8} line(s) are not UTF-8, read with replacement characters "
                  f"(first at {rep.not_utf8_at}); save the file as UTF-8", markup=False)
    if not ranked.candidates:
        why = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in sorted(rep.dropped.items())) or "none left"
        raise SynthFailure(2, f"no usable sources among {rep.items} item(s) ({why})")

    name_hint = sanitize_name(topic, topic)
    requested = llm_provider
    provider = llm_provider
    fallback_reason = None
    can_condense = provider != "extractive"
    budget = evidence_budget(ctx_tokens, topic, name_hint, cut.month, target_model, len(ranked.candidates))
    if provider == "extractive":
        budget = max(budget, EXTRACTIVE_BUDGET)

    if dry_run:
        sel = select_evidence(ranked.candidates, budget, can_condense=can_condense)
        _print_dry_run(ranked, sel, budget, ctx_tokens, Console(highlight=False, soft_wrap=True, width=200), cut.month)
        return 0

    if provider == "auto":
        choice = choose(provider, llm_endpoint, llm_model)
        provider, llm_model, fallback_reason = choice.provider, choice.model, choice.reason
        if fallback_reason:
            msg = f"no LLM answers ({fallback_reason}): falling back to the extractive synthesizer (quotes only, no model)"
            err.print(f"[bold yellow]skill3 synth: WARNING: {msg}[/]")
            state.warnings.append(msg)
    _check_outputs(out_dir)  # a run.json/index.html that skill3 did not write: refuse before any model call
    try:
        model = make_chat_model(provider, endpoint=llm_endpoint, model=llm_model)
    except MissingKeyError as exc:
        raise SynthFailure(2, str(exc)) from None
    except LLMError as exc:
        raise SynthFailure(2, str(exc)) from None
    if model is None:
        budget = max(budget, EXTRACTIVE_BUDGET)

    # ---------------------------------------------------------------- synthesis
    shrunk = None
    reprompted = False
    map_reduce_info: dict = {}
    with state.phase("vet_input"):
        candidates, input_vet = _vet_input(ranked.candidates, state, err)
    while True:
        with state.phase("select"):
            # after a context-length error the bundle is shrunk (trimmed), not condensed with more calls
            sel = select_evidence(candidates, budget, can_condense=model is not None and shrunk is None)
            bundle = to_bundle(sel, skill_name=name_hint, target_model=target_model, cutoff=cut.month, delta=ranked.delta)
        skill_ctx = SkillContext(topic=topic, target_model=target_model, cutoff=cut.month, learned_date=today_s, sources=bundle["sources"])
        try:
            with state.phase("synthesize"):
                if model is None:
                    draft = extractive_skill(bundle, topic=topic, name=name_hint)
                    messages = []
                else:
                    notes = None
                    if sel.mode == "map-reduce":
                        notes, map_reduce_info = _condense(model, bundle, sel, topic, cut.month, ctx_tokens, state, progress, err)
                    messages = synth_messages(bundle, topic=topic, name=name_hint, today=today_s, notes=notes)
                    with _progress(progress, "synthesising SKILL.md", err) as on_text:
                        draft = state.log.call(model, "synthesize", messages, max_tokens=output_reserve(ctx_tokens), on_text=on_text)
            break
        except ContextLengthError as exc:
            if shrunk is not None:
                raise SynthFailure(1, f"{exc} (already retried with a {budget}-token bundle; lower --context-tokens)") from None
            shrunk = {"from": budget, "to": max(MIN_BUDGET, min(budget, sel.tokens) // 2), "reason": str(exc)}
            err.print(f"skill3 synth: warning: {exc}; retrying once with the bundle halved to {shrunk['to']} tokens", markup=False)
            budget = shrunk["to"]
        except LLMError as exc:
            raise SynthFailure(1, str(exc)) from None

    with state.phase("postprocess"):
        skill = _postprocess_or_repair(draft, skill_ctx, model, messages, state, ctx_tokens, progress, err)
        reprompted = any(c["phase"] == "repair" for c in state.log.calls)

    if model is not None and not skill.cited:
        msg = "the model cited no source: the skill's statements are not traceable (consider --llm-provider extractive or a stronger model)"
        err.print(f"skill3 synth: warning: {msg}", markup=False)
        state.warnings.append(msg)
    verify_info: dict = {"status": "not requested"}
    if verify:
        if model is None:
            verify_info = {"status": "skipped", "reason": f"provider {provider} has no model to verify with"}
            err.print("skill3 synth: warning: --verify skipped: the extractive provider has no model", markup=False)
        else:
            with state.phase("verify"):
                skill, verify_info = _verify(model, candidates, sel, bundle, skill, skill_ctx, today_s, ctx_tokens,
                                             state, progress, err)

    with state.phase("lint_and_vet"):
        skill, lint_info, vet_info = _lint_and_vet_output(
            skill, state, err=err, model=model, messages=messages, skill_ctx=skill_ctx, bundle=bundle,
            ctx_tokens=ctx_tokens, progress=progress, input_vet=input_vet, fail_on_findings=fail_on_findings)

    # ---------------------------------------------------------------- write
    _check_outputs(out_dir)
    previous = _previous_skill_dir(out_dir)
    owned = owned_skill_dirs(out_dir)
    try:
        name = free_skill_name(out_dir, skill.name, owned)
    except OwnershipError as exc:
        raise SynthFailure(1, str(exc)) from None
    if name != skill.name:
        from rich.text import Text

        msg = (f"{out_dir / skill.name} exists and was not written by skill3: the skill is written beside it "
               f"as {name} (its name changed to match)")
        err.print(Text(f"skill3 synth: WARNING: {msg}", style="bold yellow"))
        state.warnings.append(msg)
        skill.name = name
        skill.frontmatter["name"] = name
    with state.phase("write"):
        skill_dir, validation = write_skill(out_dir, skill, owned=owned)
    quarantined = {id(c) for c in ranked.candidates} - {id(c) for c in candidates}
    ranking = ranking_rows(ranked.candidates, sel)
    for row, c in zip(ranking, ranked.candidates):
        row["quarantined"] = id(c) in quarantined
    man = manifest_mod.build(
        topic=topic, target_model=target_model, cutoff=cut, today=today_s, started=started, paths=paths,
        crawl_meta=crawl_meta, crawl_json=crawl_json, report=rep.to_dict(),
        ranking=ranking, selection=sel, bundle=bundle, context_tokens=ctx_tokens,
        output_reserve=output_reserve(ctx_tokens), shrunk=shrunk, map_reduce=map_reduce_info,
        provider={"requested": requested, "used": provider, "endpoint": getattr(model, "endpoint", None) if model else None,
                  "model": getattr(model, "model", None) if model else None, "auto_fallback_reason": fallback_reason},
        calls=state.log.calls, skill=skill, skill_dir=skill_dir, out_dir=out_dir, validation=validation,
        postprocess={"fixes": skill.fixes, "reprompted": reprompted}, verify=verify_info, lint=lint_info, vet=vet_info,
        timings=state.timings, warnings=state.warnings, strict_cutoff=strict_cutoff, fail_on_findings=fail_on_findings,
    )
    man["delta"] = ranked.delta  # the version timeline, the cutoff's version boundary, build-dated hosts
    from synth.preview import render_preview

    atomic_write_text(out_dir / "run.json", json.dumps(man, indent=2, ensure_ascii=False) + "\n")
    atomic_write_text(out_dir / "index.html", render_preview(skill, man))
    if previous is not None and previous.resolve() != skill_dir.resolve():
        shutil.rmtree(previous, ignore_errors=True)  # the last run's skill under its old name
    print(f"skill3: wrote {skill_dir / 'SKILL.md'} ({len(bundle['sources'])} sources, provider {provider}); "
          f"manifest {out_dir / 'run.json'}, preview {out_dir / 'index.html'}")
    blocking = man["gate"]["blocking"]
    if blocking:
        rules = ", ".join(man["gate"].get("rules") or [])
        state_s = "exit 3" if fail_on_findings else "gate disabled (--no-fail-on-findings)"
        err.print(f"skill3 synth: {blocking} HIGH/CRITICAL finding(s) remain ({rules}; see run.json vet): {state_s}", markup=False)
        if fail_on_findings:
            return 3
    return 0


def _check_outputs(out_dir: Path) -> None:
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


def _progress(enabled: bool, label: str, err: Console):
    return generation_progress(label, console=err) if enabled else nullcontext(None)


def _vet_input(candidates: list, state: RunState, err: Console):
    """Input vetting, before any model sees a source: redact every candidate in place, scan the corpus,
    quarantine sources with HIGH/CRITICAL findings. Returns (kept candidates in rank order, the result),
    so the next-best candidates take a quarantined source's place in the selection."""
    from synth.checks import vet_input
    from synth.vet import AllSourcesQuarantined

    try:
        return vet_input(candidates, err=err, warnings=state.warnings)
    except AllSourcesQuarantined as exc:
        raise SynthFailure(1, str(exc)) from None


def _lint_and_vet_output(skill: Skill, state: RunState, *, err, model, messages, skill_ctx, bundle, ctx_tokens, progress,
                         input_vet, fail_on_findings) -> tuple[Skill, dict, dict]:
    """Lint (fixer, one re-prompt) and the SkillSpector correction loop; returns (skill, lint record, vet record)."""
    from synth.checks import (
        LINT_ADVISORY, LintFailure, blocking_lint, lint_and_fix, lint_skill_obj, report_output, vet_output,
    )
    from synth.lint import Facts
    from synth.synthesize import revise_messages

    facts = Facts(used_sources=frozenset(src["url"] for src in bundle["sources"]))
    reprompt = revise = None
    if model is not None:
        def reprompt(problems: list[str]) -> str:
            with _progress(progress, "re-prompting to fix lint errors", err) as on_text:
                return state.log.call(model, "lint-repair", repair_messages(messages, skill.skill_md(), problems),
                                      max_tokens=output_reserve(ctx_tokens), on_text=on_text)

        rounds = iter(range(1, 100))

        def revise(text: str, findings: str) -> str:
            with _progress(progress, "revising the skill for its findings", err) as on_text:
                return state.log.call(model, f"revise[{next(rounds)}]", revise_messages(text, findings),
                                      max_tokens=output_reserve(ctx_tokens), on_text=on_text)
    try:
        skill, _first, lint_log = lint_and_fix(skill, skill_ctx, facts, reprompt=reprompt, err=err, warnings=state.warnings)
        skill, correction = vet_output(skill, skill_ctx, facts, revise_model=revise, err=err, warnings=state.warnings)
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


def _condense(model, bundle, sel: Selection, topic, cutoff, ctx_tokens, state: RunState, progress, err):
    n = len(bundle["sources"])
    note_tokens = max(96, min(600, sel.budget // max(1, n)))
    nonce = bundle_nonce(bundle)
    max_src = max(MIN_BUDGET, ctx_tokens - note_tokens - 400)
    notes: dict[int, str] = {}
    cut_sources = []
    for src in bundle["sources"]:
        messages, cut = condense_messages(src, topic=topic, cutoff=cutoff, nonce=nonce, words=int(note_tokens * 0.7), max_source_tokens=max_src)
        if cut:
            cut_sources.append(src["url"])
        with _progress(progress, f"condensing source {src['n']}/{n}", err) as on_text:
            notes[src["n"]] = state.log.call(model, f"condense[{src['n']}]", messages, max_tokens=note_tokens, on_text=on_text).strip()
    return notes, {"sources": n, "note_tokens": note_tokens, "cut_before_condensing": cut_sources}


def _postprocess_or_repair(draft, skill_ctx, model, messages, state: RunState, ctx_tokens, progress, err) -> Skill:
    try:
        return postprocess(draft, skill_ctx)
    except PostProcessError as exc:
        if model is None:
            raise SynthFailure(1, f"the extractive draft could not be made valid: {exc}") from None
        err.print(f"skill3 synth: warning: the draft is not fixable ({exc}); re-prompting the model once", markup=False)
        first = exc
    try:
        with _progress(progress, "re-prompting for a valid SKILL.md", err) as on_text:
            again = state.log.call(model, "repair", repair_messages(messages, draft, first.problems),
                                   max_tokens=output_reserve(ctx_tokens), on_text=on_text)
    except LLMError as exc:
        raise SynthFailure(1, f"the draft was not a valid skill ({first}) and the re-prompt failed: {exc}") from None
    try:
        return postprocess(again, skill_ctx)
    except PostProcessError as exc:
        raise SynthFailure(1, f"the model did not produce a valid skill after one re-prompt: {exc}") from None


def _verify(model, candidates, sel: Selection, bundle, skill: Skill, skill_ctx, today_s, ctx_tokens, state: RunState, progress, err):
    """One call re-grounds the draft against its sources; the sources are trimmed so sources + draft fit the context."""
    draft = skill.skill_md()
    room = sel.budget - estimate_tokens(draft)
    if room < MIN_BUDGET:
        msg = f"--verify skipped: the draft (~{estimate_tokens(draft)} tokens) leaves no room for its sources in --context-tokens {ctx_tokens}"
        err.print(f"skill3 synth: warning: {msg}", markup=False)
        state.warnings.append(msg)
        return skill, {"status": "skipped", "reason": msg}
    verify_bundle = bundle
    if sel.tokens > room:  # keep the same source numbers: trim each source, never renumber
        keep = {c.url: c for c in select_evidence(sel.sources, room, can_condense=False).sources}
        verify_bundle = {**bundle, "sources": [
            {**src, "excerpts": keep[src["url"]].excerpts, "code_blocks": [cb["text"] for cb in keep[src["url"]].code_blocks],
             "code_languages": [cb.get("language", "") for cb in keep[src["url"]].code_blocks]}
            for src in bundle["sources"] if src["url"] in keep]}
    messages = verify_messages(verify_bundle, draft, today=today_s)
    try:
        with _progress(progress, "verifying against the sources", err) as on_text:
            text = state.log.call(model, "verify", messages, max_tokens=output_reserve(ctx_tokens), on_text=on_text)
    except ContextLengthError as exc:
        msg = f"--verify skipped: {exc}"
        err.print(f"skill3 synth: warning: {msg}", markup=False)
        state.warnings.append(msg)
        return skill, {"status": "skipped", "reason": msg}
    except LLMError as exc:
        raise SynthFailure(1, f"--verify failed: {exc}") from None
    try:
        verified = postprocess(text, skill_ctx)
    except PostProcessError as exc:
        msg = f"the verified draft was not a valid skill ({exc}); kept the unverified skill"
        err.print(f"skill3 synth: warning: {msg}", markup=False)
        state.warnings.append(msg)
        return skill, {"status": "rejected", "reason": str(exc)}
    own = list(verified.fixes)
    verified.fixes = list(skill.fixes) + [f for f in own if f not in skill.fixes]  # the draft's fixes stay on record
    return verified, {"status": "done", "fixes": own, "changed": verified.body != skill.body,
                      "sources_trimmed": verify_bundle is not bundle}


# --------------------------------------------------------------------------- writing


def atomic_write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_skill(out_dir: Path, skill: Skill, owned: set[str] | frozenset[str] = frozenset()) -> tuple[Path, dict]:
    """Write the skill folder atomically; validate it with the reference validator before it replaces anything.

    An existing folder of the same name is replaced only when skill3 wrote it (``owned``, from its run.json);
    anything else there is never moved or deleted (``SynthFailure``; the caller picks a free name first)."""
    from importlib.metadata import version

    from skills_ref.validator import validate

    out_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".skill3-", dir=out_dir))
    try:
        tmp_skill = staging / skill.name
        for rel, text in skill.files().items():
            p = tmp_skill / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")
        errors = validate(tmp_skill)
        if errors:
            raise SynthFailure(1, f"the skill failed the Agent Skills validator: {'; '.join(errors)}")
        dest = out_dir / skill.name
        backup = None
        if (dest.exists() or dest.is_symlink()) and (skill.name not in owned or dest.is_symlink() or not dest.is_dir()):
            raise SynthFailure(1, f"{dest} exists and was not written by skill3; it was left alone "
                                  "(move it away or pass another --output-dir)")
        if dest.exists():
            backup = staging / ".previous"
            os.rename(dest, backup)
        try:
            os.rename(tmp_skill, dest)
        except OSError:
            if backup is not None:
                os.rename(backup, dest)
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return dest, {"validator": f"skills-ref {version('skills-ref')}", "errors": []}


def _print_dry_run(ranked, sel: Selection, budget: int, ctx_tokens: int, out: Console, cutoff: str = "") -> None:
    from rich.table import Table

    delta = ranked.delta or {}
    timeline = delta.get("timeline") or []
    if timeline:
        tl = Table(title=f"Version timeline ({len(timeline)} dated versions)")
        for col in ("version", "released", "source", "url"):
            tl.add_column(col, overflow="fold")
        for row in timeline:
            src = row["source"] + (" (conflicting dates: earliest kept)" if row.get("conflict") else "")
            tl.add_row(row["version"], row["date"], src, row.get("url") or "-")
        out.print(tl)
    else:
        out.print("version timeline: no dated version (markers of undated versions are never fresh)", markup=False)
    b = delta.get("boundary") or {}
    last, first = b.get("last_pre_cutoff"), b.get("first_post_cutoff")
    out.print(
        f"cutoff {cutoff} → version boundary: last pre-cutoff {last['version'] + ' (' + last['date'] + ')' if last else 'unknown'}, "
        f"first post-cutoff {first['version'] + ' (' + first['date'] + ')' if first else 'none known'}; {b.get('rule', '')}",
        markup=False,
    )
    for host, info in (delta.get("build_dated_hosts") or {}).items():
        out.print(f"build-dated host {host}: {info['date']} ({info['how']}): its pages' freshness comes from their change entries", markup=False)
    table = Table(title=f"Ranked sources ({len(ranked.candidates)} candidates of {ranked.report.items} items)")
    for col in ("#", "score", "authority", "date", "signal", "consensus", "tokens", "in bundle", "URL", "why"):
        table.add_column(col, overflow="fold")
    chosen = {c.url for c in sel.sources}
    for i, c in enumerate(ranked.candidates, 1):
        table.add_row(
            str(i), f"{c.rank_score:.3f}", f"{c.authority:.2f}", c.item.published or "undated",
            c.item.date_source or "-", str(c.consensus_count), str(estimate_tokens_of(c)),
            "yes" if c.url in chosen else "no", c.url, "; ".join(c.reasons()),
        )
    out.print(table)
    out.print(
        f"bundle: {len(sel.sources)} source(s), ~{sel.tokens} tokens, budget {budget} of --context-tokens {ctx_tokens}, "
        f"mode {sel.mode}" + (f" ({sel.note})" if sel.note else ""),
        markup=False,
    )
    if ranked.report.malformed:
        out.print(f"malformed lines: {ranked.report.malformed}", markup=False)
    out.print("dry run: no model called, nothing written", markup=False)


def estimate_tokens_of(c) -> int:
    from synth.bundle import source_tokens

    return source_tokens(c)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run_synth(sys.argv[1:]))
