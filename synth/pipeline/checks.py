"""Vetting and lint inside synthesis: the two hooks of ``synth.pipeline.run``.

Input side (``vet_input``), after ranking and before selection or any model call:
every candidate source is redacted in place (title, excerpts, code blocks, also the
raw item the manifest reads), the corpus is scanned with SkillSpector, sources
with HIGH/CRITICAL findings are quarantined (dropped, a warning naming source and
rule); their findings are reported, never gated. Every source quarantined →
``AllSourcesQuarantined``. A scanner that is absent: "input scan NOT RUN", recorded,
nothing quarantined, nothing gated.

Output side (``lint_and_vet``), after post-processing (and --verify), before writing:

1. lint the draft (with the run's used sources as facts). Error findings go to the
   deterministic fixer (dangling relative links are unlinked, then the
   post-processor runs again), then one re-prompt with the findings (not for the
   extractive provider). Lint errors that remain mean a malformed skill: never
   written (``LintFailure`` → exit 1), except the rules in ``LINT_ADVISORY``.
2. ``correct()`` on a staging copy: redact, scan, deterministic pre-pass, a model
   revision (same model; none for extractive), rescan; ≤3 rounds. Every revision
   goes through the post-processor and lint before it may replace SKILL.md.
   After the loop the post-processor and validator run once more; if that changes
   the text, the result is rescanned so the record matches what is written.
3. Residual findings are printed as a table; the record is ``vetting_record(...)``.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from rich.console import Console

from synth.core.console import print_warning
from synth.core.errors import (
    LintFailure,  # noqa: F401 - defined with every error (synth.core.errors)
    )
from synth.lint import Facts, LintResult, lint_text
from synth.skill.markdown import LINK
from synth.skill.postprocess import PostProcessError, Skill, SkillContext, postprocess
from synth.vet import (
    AllSourcesQuarantined,
    CorrectionResult,
    InputVetResult,
    correct,
    describe_findings,
    redact_item,
    vet_sources,
    vetting_record,
)
from synth.vet.findings import Finding
from synth.vet.report import findings_table

if TYPE_CHECKING:
    from synth.vet.runner import Scan

# Lint errors that are judgments about content or need facts synthesis does not
# supply (stale constructs, tools, MCP servers, a catalogue): recorded and shown,
# never a reason to refuse writing the skill. Every other error is a malformed skill.
LINT_ADVISORY = frozenset({"D1", "A1", "A2", "C1"})
MAX_ROUNDS = 3


def _say(err: Console, warnings: list[str], msg: str, loud: bool = False) -> None:
    """Print the warning and keep it for run.json's ``warnings``."""
    warnings.append(msg)
    print_warning(err, msg, loud=loud)


# --------------------------------------------------------------------------- input side


def vet_input(candidates: list, *, err: Console, warnings: list[str], scan: Scan | None = None) -> tuple[list, InputVetResult]:
    """Redact and scan the ranked candidates; return (kept candidates in rank order, result).

    Raises ``AllSourcesQuarantined`` (its ``result`` holds the record) when nothing is left.
    """
    before = sum(c.item.redactions for c in candidates)  # redacted at crawl time (run.jsonl's counts)
    items = [c.to_item() for c in candidates]  # the consensus-filtered text a model would see
    try:
        result = vet_sources(items, scan=scan)
    except AllSourcesQuarantined as exc:
        _sync(candidates, items)
        for w in exc.result.warnings:
            _say(err, warnings, w, loud=True)
        raise
    _sync(candidates, items)
    result.redacted_before = before  # type: ignore[attr-defined]
    for w in result.warnings:
        _say(err, warnings, w, loud=True)
    kept = {id(i) for i in result.kept}
    return [c for c, i in zip(candidates, items) if id(i) in kept], result


def _sync(candidates: list, items: list) -> None:
    """Take the redacted text back into the candidates, and redact their raw items too
    (the manifest reads titles from them), without counting those twice."""
    for c, item in zip(candidates, items):
        counted = c.item.redactions
        redact_item(c.item)
        c.update_from_item(item)
        c.item.title = item.title
        c.item.redactions = max(counted, item.redactions)


# --------------------------------------------------------------------------- lint


def lint_skill_obj(skill: Skill, facts: Facts | None) -> LintResult:
    return lint_text(skill.skill_md(), skill.name, facts, files=dict(skill.references))


def blocking_lint(result: LintResult) -> list:
    return [f for f in result.errors if f.rule not in LINT_ADVISORY]


def _summary(findings: list, shown: int = 3) -> str:
    """At most ``shown`` findings on one line, then how many more (run.json has them all)."""
    lines = _lint_lines(findings)
    return "; ".join(lines[:shown]) + (f"; and {len(lines) - shown} more (run.json lint)" if len(lines) > shown else "")


def _lint_lines(findings: list) -> list[str]:
    return [f"{f.rule} {f.file}:{f.line}: {f.message}" if f.line else f"{f.rule} {f.file}: {f.message}" for f in findings]


def unlink_dangling(skill: Skill, findings: list, ctx: SkillContext) -> tuple[Skill, list[str]]:
    """The deterministic fix for L1 on SKILL.md: a markdown link to a file the skill does not
    contain keeps its text and loses the link. Then the post-processor runs again."""
    missing = set()
    for f in findings:
        if f.rule == "L1" and f.file == "SKILL.md":
            m = re.match(r"(\S+) (?:does not exist|points outside)", f.message)
            if m:
                missing.add(m.group(1))
    if not missing:
        return skill, []
    fixes: list[str] = []

    def repl(m: re.Match) -> str:
        target = m.group("target").strip("<>").split("#", 1)[0].split("?", 1)[0]
        norm = re.sub(r"^\./", "", target)
        if norm not in missing:
            return m.group(0)
        fixes.append(f"unlinked {norm} (not in the skill)")
        return "" if m.group("bang") else m.group("text")  # an image of a missing file goes; a link keeps its text

    text = skill.skill_md()
    new = LINK.sub(repl, text)
    if new == text:
        return skill, []
    try:
        fixed = postprocess(new, ctx)
    except PostProcessError:
        return skill, []
    fixed.references = {**skill.references, **fixed.references}
    fixed.fixes = skill.fixes + fixes + [f for f in fixed.fixes if f not in skill.fixes]
    return fixed, fixes


@dataclass
class LintLog:
    initial: dict | None = None
    fixes: list[str] = field(default_factory=list)
    reprompted: bool = False
    note: str = ""


def lint_and_fix(skill: Skill, ctx: SkillContext, facts: Facts, *, reprompt: Callable[[list[str]], str] | None,
                 err: Console, warnings: list[str]) -> tuple[Skill, LintResult, LintLog]:
    """Lint; errors → deterministic fixer → one re-prompt → else LintFailure."""
    log = LintLog()
    result = lint_skill_obj(skill, facts)
    log.initial = result.to_dict() if result.errors else None
    bad = blocking_lint(result)
    if not bad:
        return skill, result, log
    # what the deterministic fixer repairs is recorded (run.json lint.draft, lint.fixes), not printed: only
    # findings that remain after it are news to the user
    skill, fixes = unlink_dangling(skill, bad, ctx)
    log.fixes += fixes
    result = lint_skill_obj(skill, facts)
    bad = blocking_lint(result)
    if bad:
        _say(err, warnings, f"{len(bad)} lint error(s) remain after the fixer"
             + (" - re-prompting the model once" if reprompt is not None else "") + ": " + _summary(bad))
    if bad and reprompt is not None:
        log.reprompted = True
        try:
            again = postprocess(reprompt(_lint_lines(bad)), ctx)
        except PostProcessError as exc:
            log.note = f"the re-prompted draft was not a valid skill: {exc}"
        except Exception as exc:  # a failed model call: report the lint errors below
            log.note = f"the re-prompt failed: {exc}"
        else:
            again, fixes = unlink_dangling(again, blocking_lint(lint_skill_obj(again, facts)), ctx)
            log.fixes += fixes
            again_result = lint_skill_obj(again, facts)
            if len(blocking_lint(again_result)) < len(bad):
                skill, result, bad = again, again_result, blocking_lint(again_result)
    if bad:
        raise LintFailure("the skill fails lint after the fixer" + (" and a re-prompt" if log.reprompted else "")
                          + ": " + "; ".join(_lint_lines(bad)) + (f" ({log.note})" if log.note else ""))
    return skill, result, log


# --------------------------------------------------------------------------- output side: the built-in screen


def screen_skill_files(skill: Skill) -> list[Finding]:
    """skill3's built-in screen (injection, pipe-to-shell, exfiltration, hidden text) over the skill's markdown."""
    from synth.vet.screen import screen_markdown

    return [f for rel, text in skill.files().items() if rel.endswith(".md") for f in screen_markdown(text, rel)]


def _code_block_lines(text: str, flagged: set[int]) -> set[int]:
    """1-based lines of every fenced code block holding a flagged line (its fences included)."""
    from synth.skill.frontmatter import split_frontmatter
    from synth.skill.markdown import find_fences

    split = split_frontmatter(text)
    fences = find_fences(split.body, split.body_start)
    return {n for f in fences if any(f.start <= k <= f.last for k in flagged) for n in range(f.start, f.last + 1)}


def screen_output(skill: Skill, ctx: SkillContext) -> tuple[Skill, dict[str, Any]]:
    """Before the scanner: drop what the built-in screen flags HIGH in the skill (the prose/list/comment
    block holding it, as the scanner's pre-pass does, or the whole code block), then post-process again.
    Injected text quoted from a source must not reach SKILL.md. Returns (skill, log)."""
    from synth.vet.correct import drop_lines, droppable_lines

    findings = screen_skill_files(skill)
    log: dict[str, Any] = {"status": "ran", "initial": [f.to_dict() for f in findings], "dropped": {}}
    blocking = [f for f in findings if f.blocking]
    if not blocking:
        return skill, log
    files = skill.files()
    for rel in sorted({f.file for f in blocking if f.file}):
        flagged = {f.line for f in blocking if f.file == rel and f.line}
        drop = droppable_lines(files[rel], flagged) | _code_block_lines(files[rel], flagged)
        if drop:
            files[rel] = drop_lines(files[rel], drop)
            log["dropped"][rel] = sorted(drop)
    if not log["dropped"]:
        return skill, log
    try:
        fixed = postprocess(files["SKILL.md"], ctx)
    except PostProcessError as exc:
        log["note"] = f"the skill without the flagged blocks is not valid ({exc}); kept as it was"
        return skill, log
    fixed.name = skill.name
    fixed.frontmatter["name"] = skill.name
    fixed.references = {k: v for k, v in files.items() if k != "SKILL.md"}
    fixed.fixes = list(skill.fixes) + [f"dropped {len(v)} line(s) of {k} flagged by the built-in screen"
                                       for k, v in sorted(log["dropped"].items())]
    return fixed, log


# --------------------------------------------------------------------------- output side


def vet_output(skill: Skill, ctx: SkillContext, facts: Facts, *, revise_model: Callable[[str, str], str] | None,
               err: Console, warnings: list[str], scan: Scan | None = None, max_rounds: int = MAX_ROUNDS) -> tuple[Skill, CorrectionResult]:
    """``correct()`` on a staging copy of the skill; returns the (post-processed) final skill and the result."""
    from synth.vet.runner import run_scan

    scan = scan or run_scan
    skill, screen_log = screen_output(skill, ctx)
    with tempfile.TemporaryDirectory(prefix="skill3-vet-") as tmp:
        folder = Path(tmp) / skill.name
        _write(folder, skill.files())
        current = {"skill": skill}

        revise = None
        if revise_model is not None:
            def revise(text: str, findings: list[Finding]) -> str:
                reply = revise_model(text, describe_findings(findings))
                new = postprocess(reply, ctx)  # PostProcessError: correct() keeps the pre-pass version
                if new.name != skill.name:
                    new.frontmatter["name"] = skill.name
                    new.name = skill.name
                new.references = {**current["skill"].references, **new.references}
                new, _ = unlink_dangling(new, blocking_lint(lint_skill_obj(new, facts)), ctx)
                bad = blocking_lint(lint_skill_obj(new, facts))
                if bad:
                    raise ValueError("the revision fails lint: " + "; ".join(_lint_lines(bad)))
                _write(folder, {k: v for k, v in new.references.items()})
                current["skill"] = new
                return new.skill_md()

        result = correct(folder, revise, max_rounds=max_rounds, scan=scan)
        files = {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
                 for p in sorted(folder.rglob("*")) if p.is_file()}
        text = files.get("SKILL.md", "")
        final = skill
        if text != skill.skill_md():
            try:
                final = postprocess(text, ctx)
            except PostProcessError as exc:
                raise LintFailure(f"after removing the flagged content the skill is no longer valid: {exc}") from None
            final.name = skill.name
            final.frontmatter["name"] = skill.name
            final.references = {k: v for k, v in files.items() if k != "SKILL.md"}
            final.fixes = list(skill.fixes) + [f for f in final.fixes if f not in skill.fixes]
            if final.skill_md() != text and result.final.status == "ran":
                # the post-processor changed the text: rescan so the record matches what is written
                _write(folder, {"SKILL.md": final.skill_md()})
                rescan = scan(folder)
                result.final = rescan
                if rescan.status == "ran":
                    result.residual = list(rescan.findings)
    result.screen = screen_log
    result.screen_residual = screen_skill_files(final)  # the skill as written; HIGH ones gate
    return final, result


def _write(folder: Path, files: dict[str, str]) -> None:
    for rel, content in files.items():
        p = folder / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(content, encoding="utf-8")


def report_output(result: CorrectionResult, input_result: InputVetResult | None, *, err: Console,
                  warnings: list[str], fail_on_findings: bool) -> dict[str, Any]:
    """Print the output scan's state and residual findings; return the run.json ``vet`` record."""
    scan = result.final
    if scan.status != "ran":
        label = "NOT RUN" if scan.status == "not_run" else "FAILED"
        _say(err, warnings, f"output scan {label}: {scan.reason} - the skill was NOT scanned (not clean)", loud=True)
    if result.redactions:
        _say(err, warnings, f"redacted {result.redactions} secret(s) from the generated skill")
    if result.residual:
        err.print(findings_table(result.residual, title="Residual SkillSpector findings in the generated skill"))
    if result.screen.get("dropped"):
        _say(err, warnings, "removed text the built-in screen flagged HIGH from the generated skill: "
             + ", ".join(f"{k} lines {v}" for k, v in sorted(result.screen["dropped"].items())))
    if result.screen_residual:
        err.print(findings_table(result.screen_residual, title="Built-in screen findings in the generated skill"))
    record = vetting_record(input_result, result, fail_on_findings=fail_on_findings)
    if record["input"] is not None:
        record["input"]["redacted_before"] = getattr(input_result, "redacted_before", 0)
    ran = [s.status == "ran" for s in (input_result.scan if input_result else None, scan) if s is not None]
    record["status"] = "done" if all(ran) else "not run" if not any(ran) else "partial"
    return record
