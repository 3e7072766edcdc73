"""The run gate and the ``vetting`` block of run.json.

HIGH/CRITICAL findings remaining from either side → exit 3 (the skill is
still written). :func:`gate_exit_code` is the one place that decides it: the synthesis run
(through the vetting record's ``gate``, which run.json also records), ``skill3 vet`` and the crawl
that triggers synthesis take the decision from here. Findings in quarantined sources are reported (run.json
``vet.input``, a warning naming source and rule) and never gate: the source never reaches a model or the
skill. MEDIUM/LOW never gate; a scan that did not run never gates but is reported.
"""

from __future__ import annotations

from typing import Any, Iterable

from synth.core.errors import ExitCode
from synth.vet.correct import CorrectionResult
from synth.vet.findings import Finding, ScanResult
from synth.vet.input_vet import InputVetResult


def blocking_findings(*groups: Iterable[Finding]) -> list[Finding]:
    return [f for group in groups for f in group if f.blocking]


def decide(blocking: int, fail_on_findings: bool = True) -> ExitCode:
    """The gate: ``FINDINGS`` (3) when ``blocking`` HIGH/CRITICAL findings remain and the gate is on, else ``OK``."""
    return ExitCode.FINDINGS if fail_on_findings and blocking else ExitCode.OK


def gate_exit_code(*groups: Iterable[Finding], fail_on_findings: bool = True) -> ExitCode:
    """:func:`decide` on the blocking findings of ``groups``."""
    return decide(len(blocking_findings(*groups)), fail_on_findings)


def recorded_exit_code(gate: Any) -> ExitCode:
    """The exit code a run.json ``gate`` records (a run left as it was ends as it ended); a run.json from before
    ``gate.exit_code`` was recorded: its blocking count under its ``fail_on_findings``, as decided above."""
    if not isinstance(gate, dict):
        return ExitCode.OK
    if isinstance(gate.get("exit_code"), int):
        return ExitCode(gate["exit_code"])
    return decide(int(gate.get("blocking") or 0), bool(gate.get("fail_on_findings", True)))


def not_run_scans(*scans: ScanResult | None) -> list[ScanResult]:
    return [s for s in scans if s is not None and s.status != "ran"]


def vetting_record(
    input_result: InputVetResult | None = None,
    output_result: CorrectionResult | None = None,
    *,
    extra_findings: Iterable[Finding] = (),
    fail_on_findings: bool = True,
) -> dict[str, Any]:
    """The ``vetting`` object for run.json: both sides, the gate decision and
    every scan that did not run (recorded as such, never as clean)."""
    extra = list(extra_findings)
    input_findings = input_result.gating_findings if input_result else []
    residual = (output_result.residual + output_result.screen_residual) if output_result else []
    blocking = blocking_findings(input_findings, residual, extra)
    scans = not_run_scans(input_result.scan if input_result else None, output_result.final if output_result else None)
    return {
        "input": input_result.to_dict() if input_result else None,
        "output": output_result.to_dict() if output_result else None,
        "extra_findings": [f.to_dict() for f in extra],
        "not_run": [{"target": s.target, "status": s.status, "reason": s.reason} for s in scans],
        "gate": {
            "fail_on_findings": fail_on_findings,
            "blocking": len(blocking),
            "rules": sorted({f.rule_id for f in blocking}),
            "exit_code": int(gate_exit_code(blocking, fail_on_findings=fail_on_findings)),
        },
    }
