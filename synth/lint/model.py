"""Records: a finding, one skill's result, and the error for a check that could not run."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from synth.core.errors import (
    LintError,  # noqa: F401 - defined with every error (synth.core.errors)
    )
from synth.lint.catalogue import SEVERITIES, Severity

FAIL_ON = ("error", "warn", "info", "never")


@dataclass(frozen=True)
class Finding:
    """One rule's verdict on one place. ``line`` is 1-based; 0 means the whole file.

    ``file`` is relative to the skill folder (``SKILL.md``, ``references/x.md``).
    """

    rule: str
    severity: Severity
    message: str
    file: str = "SKILL.md"
    line: int = 0

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Skip:
    """A rule that did not run, and why (becomes an X1 finding)."""

    rule: str
    reason: str


def severity_rank(severity: str) -> int:
    """0 for error, 1 for warn, 2 for info."""
    return SEVERITIES.index(severity)


def fails(findings: list[Finding], fail_on: str) -> bool:
    """The gate: does any finding reach the ``fail_on`` threshold (error|warn|info|never)?"""
    if fail_on not in FAIL_ON:
        raise ValueError(f"fail_on must be one of {', '.join(FAIL_ON)}")
    if fail_on == "never":
        return False
    limit = severity_rank(fail_on)
    return any(severity_rank(f.severity) <= limit for f in findings)


@dataclass
class LintResult:
    """Everything the linter said about one skill folder.

    ``skill``: the folder as given; ``name``: the frontmatter name when it
    parsed; ``findings``: in catalogue order, then by file and line (X1 last);
    ``skipped``: the rules that did not run, with the reason (also present as
    X1 findings, so a reader of findings alone never mistakes a partial check
    for a clean one).
    """

    skill: str
    name: str | None = None
    findings: list[Finding] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)

    def by_severity(self, severity: Severity) -> list[Finding]:
        return [f for f in self.findings if f.severity == severity]

    @property
    def errors(self) -> list[Finding]:
        return self.by_severity("error")

    @property
    def warnings(self) -> list[Finding]:
        return self.by_severity("warn")

    @property
    def ok(self) -> bool:
        """No error finding (warnings and infos allowed)."""
        return not self.errors

    def rule_ids(self) -> set[str]:
        return {f.rule for f in self.findings}

    def fails(self, fail_on: str = "error") -> bool:
        return fails(self.findings, fail_on)

    def counts(self) -> dict[str, int]:
        return {s: len(self.by_severity(s)) for s in SEVERITIES}

    def to_dict(self) -> dict:
        return {
            "skill": self.skill,
            "name": self.name,
            "counts": self.counts(),
            "findings": [f.to_dict() for f in self.findings],
            "skipped": [asdict(s) for s in self.skipped],
        }
