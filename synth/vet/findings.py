"""Typed findings and scan results, parsed from SkillSpector's JSON report.

Pure functions: no subprocesses here (see ``runner``). Everything serialises to
plain JSON through ``to_dict`` so it can go into ``run.json``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Literal

from synth.core.errors import (
    ReportError,  # noqa: F401 - defined with every error (synth.core.errors)
    )

SEVERITIES = ("INFO", "LOW", "MEDIUM", "HIGH", "CRITICAL")
BLOCKING = frozenset({"HIGH", "CRITICAL"})

ScanStatus = Literal["ran", "not_run", "error"]

NOT_RUN_RULE = "SKILL3-NOT-RUN"


def severity_rank(severity: str) -> int:
    """Order of a severity name; unknown names rank with INFO."""
    try:
        return SEVERITIES.index(severity.upper())
    except ValueError:
        return 0


@dataclass
class Finding:
    """One problem found in a skill or a corpus.

    ``fingerprint`` is SkillSpector's ``match_fingerprint`` (stable across runs
    and paths) or, when that is null, a hash of rule, file, line and text.
    ``occurrences`` lists every (file, line) the merged finding was seen at.
    """

    rule_id: str
    category: str
    severity: str
    confidence: float | None
    message: str
    file: str | None
    line: int | None
    fingerprint: str
    title: str | None = None  # SkillSpector ``pattern``
    matched: str | None = None  # SkillSpector ``finding`` (the matched text)
    remediation: str | None = None
    occurrences: list[tuple[str | None, int | None]] = field(default_factory=list)
    tool: str = "skillspector"  # or "skill3" (our own checks), "lint", ...
    source_url: str | None = None  # input side: the source this came from

    @property
    def blocking(self) -> bool:
        return self.severity in BLOCKING

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["occurrences"] = [{"file": f, "line": n} for f, n in self.occurrences]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Finding":
        data = dict(data)
        data["occurrences"] = [(o.get("file"), o.get("line")) for o in data.get("occurrences") or []]
        return cls(**data)


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def stable_hash(*parts: Any) -> str:
    text = "\x1f".join("" if p is None else str(p) for p in parts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def finding_from_issue(issue: dict[str, Any]) -> Finding:
    """One SkillSpector ``issues[]`` entry → Finding (tolerates nulls)."""
    raw_location = issue.get("location")
    location = raw_location if isinstance(raw_location, dict) else {}
    file = location.get("file") if isinstance(location.get("file"), str) else None
    line = _int_or_none(location.get("start_line"))
    rule_id = str(issue.get("id") or "UNKNOWN")
    severity = str(issue.get("severity") or "INFO").upper()
    if severity not in SEVERITIES:
        severity = "INFO"
    confidence = issue.get("confidence")
    confidence = float(confidence) if isinstance(confidence, (int, float)) and not isinstance(confidence, bool) else None
    message = str(issue.get("explanation") or issue.get("pattern") or issue.get("finding") or rule_id)
    fingerprint = issue.get("match_fingerprint")
    if not isinstance(fingerprint, str) or not fingerprint:
        fingerprint = stable_hash(rule_id, file, line, issue.get("category"), issue.get("finding"), message)
    occurrences: list[tuple[str | None, int | None]] = []
    listed = issue.get("occurrences")
    for occ in (listed if isinstance(listed, list) else [])[:MAX_OCCURRENCES]:
        if isinstance(occ, dict):
            pair = (occ.get("file") if isinstance(occ.get("file"), str) else None, _int_or_none(occ.get("start_line")))
            if pair not in occurrences:
                occurrences.append(pair)
    if (file, line) not in occurrences:
        occurrences.insert(0, (file, line))
        del occurrences[MAX_OCCURRENCES:]
    return Finding(
        rule_id=rule_id,
        category=str(issue.get("category") or ""),
        severity=severity,
        confidence=confidence,
        message=message,
        file=file,
        line=line,
        fingerprint=fingerprint,
        title=issue.get("pattern") if isinstance(issue.get("pattern"), str) else None,
        matched=issue.get("finding") if isinstance(issue.get("finding"), str) else None,
        remediation=issue.get("remediation") if isinstance(issue.get("remediation"), str) else None,
        occurrences=occurrences,
    )


def merge_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Merge findings sharing a fingerprint: first one wins, occurrences are
    united, the highest severity is kept. Order of first appearance is kept."""
    merged: dict[str, Finding] = {}
    for f in findings:
        seen = merged.get(f.fingerprint)
        if seen is None:
            merged[f.fingerprint] = Finding(**{**f.__dict__, "occurrences": list(f.occurrences)})
            continue
        for occ in f.occurrences:
            if len(seen.occurrences) >= MAX_OCCURRENCES:
                break
            if occ not in seen.occurrences:
                seen.occurrences.append(occ)
        if severity_rank(f.severity) > severity_rank(seen.severity):
            seen.severity = f.severity
    return list(merged.values())


def extract_json_text(stdout: str) -> str | None:
    """The JSON report inside stdout: from the first line starting with ``{``
    (SkillSpector may print warnings before it)."""
    lines = stdout.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith("{"):
            return "".join(lines[i:])
    return None


MAX_REPORT_CHARS = 64 * 2**20  # a report of SkillSpector on a skill is kilobytes; this is far past any real one
MAX_ISSUES = 10_000  # issues read from one report
MAX_OCCURRENCES = 200  # places kept per (merged) finding


def parse_report(text: str) -> dict[str, Any]:
    """Parse a single-skill JSON report (or stdout holding one)."""
    body = text if text.lstrip().startswith("{") else extract_json_text(text)
    if body is None:
        raise ReportError("no JSON report in the scanner output")
    if len(body) > MAX_REPORT_CHARS:
        raise ReportError(f"scanner report is larger than {MAX_REPORT_CHARS // 2**20} MiB; not read")
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise ReportError(f"scanner report is not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:  # e.g. 100,000 nested arrays: the decoder's recursion limit, not a report
        raise ReportError("scanner report nests too deeply to be a report; not read") from None
    if not isinstance(data, dict):
        raise ReportError("scanner report is not a JSON object")
    if "multi_skill" in data or ("skills" in data and "issues" not in data):
        raise ReportError("scanner wrote a multi-skill (--recursive) report; scan one skill folder at a time")
    if not isinstance(data.get("issues", []), list):
        raise ReportError("scanner report has no issues[] list")
    return data


def findings_from_report(data: dict[str, Any]) -> list[Finding]:
    """The report's issues as merged findings (at most :data:`MAX_ISSUES` issues are read)."""
    issues = (i for i in (data.get("issues") or [])[:MAX_ISSUES] if isinstance(i, dict))
    return merge_findings(finding_from_issue(i) for i in issues)


@dataclass
class ScanResult:
    """What one scan produced. ``status``:

    - ``ran``: a report was produced (exit 0 or 1, ``execution_successful``);
    - ``error``: the scanner ran but reported failure (exit 2 or
      ``execution_successful: false``); findings it did report are kept;
    - ``not_run``: no scan happened (not installed, timed out, crashed).

    Only ``ran`` may be called clean, and only when ``findings`` is empty.
    """

    status: ScanStatus
    target: str
    reason: str = ""
    findings: list[Finding] = field(default_factory=list)
    exit_code: int | None = None
    scanner: str | None = None  # binary used
    scanner_version: str | None = None
    risk_score: int | None = None
    recommendation: str | None = None
    completeness: str | None = None  # complete / partial / failed
    duration_s: float | None = None

    @property
    def ran(self) -> bool:
        return self.status == "ran"

    @property
    def clean(self) -> bool:
        return self.status == "ran" and not self.findings

    @property
    def blocking(self) -> list[Finding]:
        return [f for f in self.findings if f.blocking]

    def status_finding(self) -> Finding | None:
        """A pseudo-finding that records a scan that did not run (or failed),
        so it shows up wherever findings are listed. Severity INFO: it never gates."""
        if self.status == "ran":
            return None
        label = "NOT RUN" if self.status == "not_run" else "SCAN ERROR"
        return Finding(
            rule_id=NOT_RUN_RULE,
            category="Vetting",
            severity="INFO",
            confidence=None,
            message=f"SkillSpector scan {label}: {self.reason} (not checked, not clean)",
            file=None,
            line=None,
            fingerprint=stable_hash(NOT_RUN_RULE, self.status, self.reason),
            tool="skill3",
        )

    def all_findings(self) -> list[Finding]:
        extra = self.status_finding()
        return ([extra] if extra else []) + list(self.findings)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["findings"] = [f.to_dict() for f in self.findings]
        data["clean"] = self.clean
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ScanResult":
        data = {k: v for k, v in data.items() if k != "clean"}
        data["findings"] = [Finding.from_dict(f) for f in data.get("findings") or []]
        return cls(**data)
