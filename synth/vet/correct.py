"""Output-side vetting: scan the draft skill, fix, rescan.

Each round: a deterministic pre-pass (redact secrets in every text file,
strip invisible Unicode, drop the prose/list/comment block a HIGH/CRITICAL
finding points at in a markdown file - never frontmatter, headings or code),
then the model revision callback with the findings still open, then a rescan.
At most ``max_rounds`` rounds; the residual findings are returned, never hidden.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from synth.skill.frontmatter import split_frontmatter
from synth.skill.markdown import fenced_line_numbers, headings
from synth.vet.findings import Finding, ScanResult, stable_hash
from synth.vet.hidden import strip_invisible
from synth.vet.redact import redact_text, secret_spans
from synth.vet.runner import Scan, run_scan

Revise = Callable[[str, list[Finding]], str]

_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_TEXT_SUFFIXES = {".md", ".txt", ".py", ".sh", ".bash", ".js", ".ts", ".json", ".yaml", ".yml", ".toml",
                  ".ini", ".cfg", ".conf", ".env", ".rb", ".go", ".java", ".ps1", ".html", ".xml", ""}
_MAX_TEXT_BYTES = 2_000_000


def _structure(lines: list[str]) -> list[str]:
    """Label each line: frontmatter, code, comment, heading, blank, item, text.

    Frontmatter, fences and headings come from the SKILL.md reader (``synth.skill``),
    so a ``~~~`` or a second opening line inside a backtick block is code, as in any
    CommonMark renderer.
    """
    labels = ["text"] * len(lines)
    split = split_frontmatter("\n".join(lines))
    start = 0
    if split.has_frontmatter:
        start = min(split.body_start - 1, len(lines))
        labels[:start] = ["frontmatter"] * start
    body = "\n".join(lines[start:])
    code = fenced_line_numbers(body, start + 1)
    heads = {h.line for h in headings(body, start + 1)}
    in_comment = False
    for j in range(start, len(lines)):
        line = lines[j]
        if j + 1 in code:
            labels[j] = "code"
            continue
        if in_comment:
            labels[j] = "comment"
            if "-->" in line:
                in_comment = False
            continue
        if line.lstrip().startswith("<!--"):
            labels[j] = "comment"
            in_comment = "-->" not in line
        elif not line.strip():
            labels[j] = "blank"
        elif j + 1 in heads:
            labels[j] = "heading"
        elif _LIST_ITEM.match(line):
            labels[j] = "item"
    return labels


def droppable_lines(text: str, flagged: Iterable[int]) -> set[int]:
    """1-based lines to delete so that each flagged line's block goes: the
    HTML comment, list item (with its continuation lines) or prose paragraph
    holding it. Flagged lines in frontmatter, headings, code or blanks are
    ambiguous and left for the model. Pure."""
    lines = text.splitlines()
    labels = _structure(lines)
    drop: set[int] = set()
    for number in flagged:
        k = number - 1
        if not 0 <= k < len(lines) or labels[k] in ("frontmatter", "code", "heading", "blank"):
            continue
        if labels[k] == "comment":
            start = k
            while start > 0 and labels[start - 1] == "comment" and "-->" not in lines[start - 1]:
                start -= 1
            end = k
            while end + 1 < len(lines) and labels[end + 1] == "comment" and "-->" not in lines[end]:
                end += 1
        else:
            start = k
            while labels[start] == "text" and start > 0 and labels[start - 1] in ("text", "item"):
                start -= 1
                if labels[start] == "item":
                    break
            end = k
            while end + 1 < len(lines) and labels[end + 1] == "text":
                end += 1
        drop.update(range(start + 1, end + 2))
    return drop


def drop_lines(text: str, drop: set[int]) -> str:
    """Delete 1-based lines; where that leaves two blank lines in a row, keep one.
    Blank-line runs elsewhere (e.g. inside code) are left as they were."""
    kept: list[str] = []
    after_drop = False
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if number in drop:
            after_drop = True
            continue
        if after_drop and not line.strip() and kept and not kept[-1].strip():
            continue
        after_drop = False
        kept.append(line)
    return "".join(kept)


@dataclass
class PrepassReport:
    redactions: int = 0
    invisible_chars: int = 0
    dropped: dict[str, list[int]] = field(default_factory=dict)  # file -> 1-based lines (pre-edit numbering)

    @property
    def changed(self) -> bool:
        return bool(self.redactions or self.invisible_chars or self.dropped)


def _text_files(skill_dir: Path) -> list[Path]:
    files = []
    for path in sorted(skill_dir.rglob("*")):
        if any(part.startswith(".") for part in path.relative_to(skill_dir).parts[:-1]):
            continue  # .git and friends
        if path.is_file() and not path.is_symlink() and path.suffix.lower() in _TEXT_SUFFIXES:
            if path.stat().st_size <= _MAX_TEXT_BYTES:
                files.append(path)
    return files


def prepass(skill_dir: Path, findings: list[Finding]) -> PrepassReport:
    """The deterministic fixes, applied in place to the skill folder."""
    report = PrepassReport()
    flagged: dict[str, set[int]] = {}
    for f in findings:
        if not f.blocking:
            continue
        for file, line in f.occurrences or [(f.file, f.line)]:
            if file and line and file.lower().endswith(".md"):
                flagged.setdefault(Path(file).as_posix(), set()).add(line)
    root = skill_dir.resolve()
    for path in _text_files(skill_dir):
        try:
            original = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        rel = path.resolve().relative_to(root).as_posix()
        text = original
        if rel in flagged:
            drop = droppable_lines(text, flagged[rel])
            if drop:
                text = drop_lines(text, drop)
                report.dropped[rel] = sorted(drop)
        if path.suffix.lower() in (".md", ".txt", ""):
            text, n = strip_invisible(text)  # the screen's definition: what it flags, this removes
            report.invisible_chars += n
        text, n = redact_text(text, filename=path.name)
        report.redactions += n
        if text != original:
            path.write_text(text, encoding="utf-8")
    return report


SECRET_RULE = "SKILL3-SECRET"


def secret_findings(skill_dir: Path) -> list[Finding]:
    """Secret literals in a skill folder as HIGH findings (SkillSpector has no
    such rule). Read-only; neither the secret nor a hash of it is recorded."""
    skill_dir = Path(skill_dir)
    findings = []
    for path in _text_files(skill_dir):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        rel = path.relative_to(skill_dir).as_posix()
        for line, column, kind in secret_spans(text, filename=path.name):
            findings.append(Finding(
                rule_id=SECRET_RULE, category="Secret Exposure", severity="HIGH", confidence=None,
                message=f"{kind} literal in the skill; remove it (skill3 redacts it in generated skills)",
                file=rel, line=line, fingerprint=stable_hash(SECRET_RULE, rel, line, column, kind),
                title=f"Secret literal ({kind})", occurrences=[(rel, line)], tool="skill3",
            ))
    return findings


def describe_findings(findings: list[Finding]) -> str:
    """The findings as plain lines for a revision prompt."""
    lines = []
    for f in findings:
        where = ", ".join(f"{file}:{line}" if line else str(file) for file, line in f.occurrences if file) or "the skill"
        what = f.title or f.category
        fix = f" Fix: {f.remediation}" if f.remediation else ""
        lines.append(f"- [{f.severity}] {f.rule_id} {what} at {where}: {f.message}{fix}")
    return "\n".join(lines)


def redact_skill(skill_dir: Path) -> int:
    """Redact secrets in every text file of a skill folder, in place."""
    total = 0
    for path in _text_files(Path(skill_dir)):
        try:
            original = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        text, n = redact_text(original, filename=path.name)
        if n:
            path.write_text(text, encoding="utf-8")
            total += n
    return total


def _addressed(finding: Finding, dropped: dict[str, list[int]]) -> bool:
    occurrences = finding.occurrences or [(finding.file, finding.line)]
    return all(file and line and line in dropped.get(Path(file).as_posix(), []) for file, line in occurrences)


@dataclass
class RoundLog:
    round: int
    findings_before: int
    redactions: int = 0
    invisible_chars: int = 0
    dropped: dict[str, list[int]] = field(default_factory=dict)
    revised: bool = False
    note: str = ""
    findings_after: int | None = None
    scan_status: str | None = None


@dataclass
class CorrectionResult:
    initial: ScanResult
    final: ScanResult  # the last scan attempted
    residual: list[Finding]  # findings of the last scan that ran (never hidden by a failed rescan)
    rounds: list[RoundLog] = field(default_factory=list)
    redactions: int = 0  # secrets stripped before the first scan (the scanner has no secret rule)
    screen: dict[str, Any] = field(default_factory=dict)  # skill3's built-in screen of the skill (synth.pipeline.checks)
    screen_residual: list[Finding] = field(default_factory=list)  # its findings in the skill as written

    @property
    def clean(self) -> bool:
        return self.final.clean

    def to_dict(self) -> dict[str, Any]:
        """The ``vetting.output`` block of run.json."""
        return {
            "initial": self.initial.to_dict(),
            "final": self.final.to_dict(),
            "residual": [f.to_dict() for f in self.residual],
            "rounds": [asdict(r) for r in self.rounds],
            "redactions": self.redactions,
            "clean": self.clean,
            "screen": {**self.screen, "residual": [f.to_dict() for f in self.screen_residual]},
        }


def _valid_revision(before: str, after: object) -> str | None:
    """Why a revision is rejected, or None when it may replace SKILL.md."""
    if not isinstance(after, str) or not after.strip():
        return "revision was empty"
    if before.lstrip().startswith("---") and not after.lstrip().startswith("---"):
        return "revision lost the YAML frontmatter"
    return None


def correct(
    skill_dir: Path,
    revise: Revise | None = None,
    max_rounds: int = 3,
    *,
    scan: Scan | None = None,
) -> CorrectionResult:
    """Redact secrets, scan ``skill_dir``; while findings remain (≤ ``max_rounds``): pre-pass,
    ``revise(SKILL.md text, open findings) -> new SKILL.md text``, rescan.

    Edits the folder in place. A scan that does not run ends the loop; the
    result then says so (``final.status``) and keeps the last known findings.
    """
    scan = scan or run_scan
    skill_dir = Path(skill_dir)
    skill_md = skill_dir / "SKILL.md"
    redactions = redact_skill(skill_dir)
    initial = scan(skill_dir)
    result = CorrectionResult(initial=initial, final=initial, residual=list(initial.findings), redactions=redactions)
    if initial.status != "ran":
        return result
    current = initial
    for number in range(1, max_rounds + 1):
        if not current.findings:
            break
        log = RoundLog(round=number, findings_before=len(current.findings))
        result.rounds.append(log)
        pre = prepass(skill_dir, current.findings)
        log.redactions, log.invisible_chars, log.dropped = pre.redactions, pre.invisible_chars, pre.dropped
        changed = pre.changed
        open_findings = [f for f in current.findings if not _addressed(f, pre.dropped)]
        if revise is not None and open_findings and skill_md.is_file():
            before = skill_md.read_text(encoding="utf-8")
            try:
                after = revise(before, open_findings)
            except Exception as exc:  # a failed model call must not lose the skill
                log.note = f"revision failed: {exc.__class__.__name__}: {str(exc)[:160]}"
            else:
                problem = _valid_revision(before, after)
                if problem:
                    log.note = f"{problem}; kept the pre-pass version"
                else:
                    assert isinstance(after, str)
                    after, n = redact_text(after if after.endswith("\n") else after + "\n")
                    log.redactions += n
                    if after != before:
                        skill_md.write_text(after, encoding="utf-8")
                        log.revised = changed = True
        if not changed:
            log.note = (log.note + "; " if log.note else "") + "nothing changed; stopped"
            break
        current = scan(skill_dir)
        result.final = current
        log.scan_status = current.status
        if current.status != "ran":
            log.note = (log.note + "; " if log.note else "") + f"rescan {current.status}: {current.reason}"
            break
        log.findings_after = len(current.findings)
        result.residual = list(current.findings)
    return result
