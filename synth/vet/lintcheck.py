"""Lint as a vet check: `skill3 vet` reports lint findings beside the scanner's.

Lint severities map onto vet's scale so they are shown and recorded, but a
malformed skill is not a security risk: lint errors are MEDIUM and never trip
the exit-3 gate (lint's own gate is `skill3 lint --fail-on`).
"""

from __future__ import annotations

from pathlib import Path

from synth.lint import Facts, LintError, lint_skill
from synth.vet.findings import Finding, stable_hash

_SEVERITY = {"error": "MEDIUM", "warn": "LOW", "info": "INFO"}


def lint_findings(folder: Path, facts: Facts | None = None) -> list[Finding]:
    try:
        result = lint_skill(folder, facts)
    except LintError as exc:
        return [Finding("SKILL3-LINT-NOT-RUN", "Lint", "MEDIUM", None, f"lint did not run: {exc}", None, None,
                        stable_hash("lint-not-run", str(exc)), tool="lint")]
    return [
        Finding(
            rule_id=f.rule,
            category="Lint",
            severity=_SEVERITY[f.severity],
            confidence=None,
            message=f.message,
            file=f.file,
            line=f.line or None,
            fingerprint=stable_hash("lint", f.rule, f.file, f.line, f.message),
            tool="lint",
        )
        for f in result.findings
    ]
