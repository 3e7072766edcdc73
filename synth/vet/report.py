"""`skill3 vet` reports: text (rich table), json, sarif 2.1.0."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from synth.core.console import printable, table_console
from synth.core.errors import ExitCode
from synth.vet.findings import Finding, ScanResult, severity_rank
from synth.vet.gate import blocking_findings, gate_exit_code

FORMATS = ("text", "json", "sarif")
_LEVEL = {"CRITICAL": "error", "HIGH": "error", "MEDIUM": "warning", "LOW": "note", "INFO": "note"}
_STYLE = {"CRITICAL": "bold red", "HIGH": "red", "MEDIUM": "yellow", "LOW": "cyan", "INFO": "dim"}


@dataclass
class VetReport:
    """The result of vetting one skill folder: the scan plus any extra
    findings (the hook for lint and other checks)."""

    path: Path
    scan: ScanResult
    extra_findings: list[Finding] = field(default_factory=list)
    fail_on_findings: bool = True

    @property
    def findings(self) -> list[Finding]:
        found = list(self.scan.findings) + list(self.extra_findings)
        return sorted(found, key=lambda f: (-severity_rank(f.severity), f.file or "", f.line or 0, f.rule_id))

    @property
    def blocking(self) -> list[Finding]:
        return blocking_findings(self.findings)

    @property
    def exit_code(self) -> ExitCode:
        """3 blocking findings (the gate, when on); 1 the scan did not run; else 0."""
        gate = gate_exit_code(self.findings, fail_on_findings=self.fail_on_findings)
        if gate != ExitCode.OK:
            return gate
        return ExitCode.FAILURE if self.scan.status != "ran" else ExitCode.OK

    def summary_line(self) -> str:
        if self.scan.status != "ran":
            label = "NOT RUN" if self.scan.status == "not_run" else "SCAN FAILED"
            return f"SkillSpector {label}: {self.scan.reason} - {self.path} was NOT scanned (not clean)"
        n, b = len(self.findings), len(self.blocking)
        if not n:
            return f"clean: no findings in {self.path}"
        return f"{n} finding(s), {b} HIGH/CRITICAL in {self.path}"

    def to_dict(self) -> dict[str, Any]:
        status = self.scan.status_finding()
        return {
            "path": str(self.path),
            "scan": self.scan.to_dict(),
            "extra_findings": [f.to_dict() for f in self.extra_findings],
            "findings": ([status.to_dict()] if status else []) + [f.to_dict() for f in self.findings],
            "blocking": len(self.blocking),
            "fail_on_findings": self.fail_on_findings,
            "exit_code": int(self.exit_code),
            "summary": self.summary_line(),
        }


def _location(f: Finding) -> str:
    if not f.file:
        return "-"
    where = f"{f.file}:{f.line}" if f.line else f.file
    more = len(f.occurrences) - 1
    return where + (f" (+{more})" if more > 0 else "")


def findings_table(findings: list[Finding], title: str | None = None) -> Table:
    table = Table(title=title, show_lines=False)
    table.add_column("Severity")
    table.add_column("Rule")
    table.add_column("Category")
    table.add_column("Location", overflow="fold")
    table.add_column("What", overflow="fold")
    for f in findings:
        what = f.title or f.matched or f.message
        cells = (printable(c) for c in (f.rule_id, f.category, _location(f), what))  # names and texts from the skill
        table.add_row(f"[{_STYLE.get(f.severity, '')}]{f.severity}[/]", *(Text(c) for c in cells))
    return table


def render_text(report: VetReport, out: TextIO) -> None:
    console = table_console(out)
    scan = report.scan
    if scan.status != "ran":
        console.print(Panel(Text(printable(report.summary_line()), style="bold"), title="NOT RUN", style="bold red"))
    else:
        meta = ", ".join(
            x for x in (
                f"SkillSpector {scan.scanner_version}" if scan.scanner_version else "SkillSpector",
                f"risk {scan.risk_score}" if scan.risk_score is not None else "",
                scan.recommendation or "",
                f"analysis {scan.completeness}" if scan.completeness else "",
            ) if x
        )
        console.print(Text(printable(f"{report.summary_line()} ({meta})")))
    if report.findings:
        console.print(findings_table(report.findings))
    if report.blocking:
        state = "exit 3" if report.fail_on_findings else "gate disabled (--no-fail-on-findings)"
        console.print(f"[red]{len(report.blocking)} HIGH/CRITICAL finding(s) remain: {state}[/]")


def render_json(report: VetReport, out: TextIO) -> None:
    out.write(json.dumps(report.to_dict(), indent=2) + "\n")


def sarif_rule_id(f: Finding) -> str:
    """The SARIF rule id: namespaced by the check that found it (``skillspector/P1``, ``lint/P1``,
    ``skill3/SKILL3-SECRET``), because different checks reuse the same short ids."""
    return f"{f.tool or 'unknown'}/{f.rule_id}"


def sarif_log(report: VetReport, tool_version: str) -> dict[str, Any]:
    findings = report.findings
    rules: dict[str, dict[str, Any]] = {}
    results = []
    for f in findings:
        rule_id = sarif_rule_id(f)
        rules.setdefault(
            rule_id,
            {
                "id": rule_id,
                "name": f.category or f.rule_id,
                "shortDescription": {"text": f.title or f.category or f.rule_id},
                "properties": {"category": f.category, "tool": f.tool, "toolRuleId": f.rule_id},
            },
        )
        result: dict[str, Any] = {
            "ruleId": rule_id,
            "level": _LEVEL.get(f.severity, "note"),
            "message": {"text": f.message},
            "partialFingerprints": {"matchFingerprint/v1": f.fingerprint},
            "properties": {"severity": f.severity, "confidence": f.confidence, "category": f.category, "tool": f.tool},
        }
        locations = []
        for file, line in f.occurrences or [(f.file, f.line)]:
            if not file:
                continue
            physical: dict[str, Any] = {"artifactLocation": {"uri": file, "uriBaseId": "SKILLROOT"}}
            if line and line > 0:
                physical["region"] = {"startLine": line}
            locations.append({"physicalLocation": physical})
        if locations:
            result["locations"] = locations
        results.append(result)
    scan = report.scan
    invocation: dict[str, Any] = {"executionSuccessful": scan.status == "ran"}
    if scan.status != "ran":
        invocation["toolExecutionNotifications"] = [
            {"level": "error", "message": {"text": report.summary_line()}}
        ]
    invocation["properties"] = {
        "scanStatus": scan.status,
        "scanner": "skillspector",
        "scannerVersion": scan.scanner_version,
        "riskScore": scan.risk_score,
        "recommendation": scan.recommendation,
        "analysisCompleteness": scan.completeness,
    }
    root = report.path.resolve().as_uri().rstrip("/") + "/"
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "skill3-vet",
                        "version": tool_version,
                        "informationUri": "https://github.com/NVIDIA/SkillSpector",
                        "rules": list(rules.values()),
                    }
                },
                "originalUriBaseIds": {"SKILLROOT": {"uri": root}},
                "invocations": [invocation],
                "results": results,
            }
        ],
    }


def render_sarif(report: VetReport, out: TextIO, tool_version: str = "0") -> None:
    out.write(json.dumps(sarif_log(report, tool_version), indent=2) + "\n")
