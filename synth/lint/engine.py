"""Run the catalogue over skill folders."""

from __future__ import annotations

import tempfile
from pathlib import Path

from synth.lint.catalogue import BY_ID, RULES, SKIP_RULE
from synth.lint.facts import Facts
from synth.lint.model import Finding, LintError, LintResult, Skip, severity_rank
from synth.lint.rules import CHECKS
from synth.skill.document import find_skill_file, read_skill


def lint_skill(path: str | Path, facts: Facts | None = None) -> LintResult:
    """Lint one skill folder (or its SKILL.md). Raises LintError only when the check cannot run."""
    folder = Path(path)
    if folder.is_file() and folder.name.lower() == "skill.md":
        folder = folder.parent
    if not folder.exists():
        raise LintError(f"no such skill folder: {path}")
    if not folder.is_dir():
        raise LintError(f"not a folder: {path}")
    facts = facts or Facts()
    doc = read_skill(folder)
    result = LintResult(skill=str(path))
    if doc.meta is not None and isinstance(doc.meta.get("name"), str):
        result.name = doc.meta["name"]
    findings: list[Finding] = []
    for rule in RULES:
        if rule.id == SKIP_RULE:
            continue
        for item in CHECKS[rule.id](doc, facts):
            if isinstance(item, Skip):
                result.skipped.append(item)
            else:
                findings.append(item)
    order = {r.id: i for i, r in enumerate(RULES)}
    findings.sort(key=lambda f: (order[f.rule], f.file, f.line))
    findings += [
        Finding(SKIP_RULE, BY_ID[SKIP_RULE].severity, f"{s.rule} did not run: {s.reason}", "SKILL.md", 0)
        for s in result.skipped
    ]
    result.findings = findings
    return result


def lint_text(text: str, folder_name: str, facts: Facts | None = None, files: dict[str, str] | None = None) -> LintResult:
    """Lint a draft SKILL.md held in memory, as if it lived in a folder named ``folder_name``.

    ``files`` adds other skill files (``{"references/api.md": text}``) so link
    rules can see them. The draft is written to a temporary folder (the
    reference validator reads files) that is removed afterwards; ``skill`` in
    the result is ``folder_name``.
    """
    if not folder_name or "/" in folder_name or folder_name in (".", ".."):
        raise LintError(f"not a usable folder name: {folder_name!r}")
    with tempfile.TemporaryDirectory(prefix="skill3-lint-") as tmp:
        folder = Path(tmp) / folder_name
        folder.mkdir()
        (folder / "SKILL.md").write_text(text, encoding="utf-8")
        for rel, content in (files or {}).items():
            target = folder / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        result = lint_skill(folder, facts)
    result.skill = folder_name
    return result


def discover_skills(path: str | Path) -> list[Path]:
    """A skill folder → [it]; a folder of skill folders → its children that hold a SKILL.md.

    A folder that is neither is returned as is, so that linting it reports the
    missing SKILL.md (S1) instead of silently checking nothing.
    """
    folder = Path(path)
    if not folder.exists():
        raise LintError(f"no such path: {path}")
    if folder.is_file():
        if folder.name.lower() == "skill.md":
            return [folder.parent]
        raise LintError(f"not a skill folder or SKILL.md: {path}")
    if find_skill_file(folder) is not None:
        return [folder]
    children = sorted(c for c in folder.iterdir() if c.is_dir() and find_skill_file(c) is not None)
    return children or [folder]


def lint_paths(paths: list[str | Path], facts: Facts | None = None) -> list[LintResult]:
    """Lint every skill found under ``paths`` (see discover_skills). Raises LintError on a bad path."""
    results = []
    for p in paths:
        for folder in discover_skills(p):
            results.append(lint_skill(folder, facts))
    return results


def worst(findings: list[Finding]) -> str | None:
    """The worst severity among findings, or None."""
    return min((f.severity for f in findings), key=severity_rank, default=None)
