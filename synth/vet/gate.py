"""The run gate and the ``vetting`` block of run.json.

HIGH/CRITICAL findings remaining from either side → exit 3 (the skill is
still written). Findings in quarantined sources are reported (run.json
``vet.input``, a warning naming source and rule) and never gate: the source
never reaches a model or the skill (DESIGN §3). MEDIUM/LOW never gate; a scan
that did not run never gates but is reported.
"""

from __future__ import annotations

from typing import Any, Iterable

from synth.vet.correct import CorrectionResult
from synth.vet.findings import Finding, ScanResult
from synth.vet.input_vet import InputVetResult

GATE_EXIT = 3


def blocking_findings(*groups: Iterable[Finding]) -> list[Finding]:
    return [f for group in groups for f in group if f.blocking]


def gate_exit_code(*groups: Iterable[Finding], fail_on_findings: bool = True) -> int:
    """3 when a HIGH/CRITICAL finding remains and the gate is on, else 0."""
    return GATE_EXIT if fail_on_findings and blocking_findings(*groups) else 0


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
            "exit_code": gate_exit_code(blocking, fail_on_findings=fail_on_findings),
        },
    }
