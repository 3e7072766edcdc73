"""Exit 3 has one home, synth.vet.gate: the findings' gate, the vetting record, and a run.json's recorded gate
(a refresh that leaves the skill as it was ends as the previous run ended)."""

from __future__ import annotations

import pytest

from synth.core.errors import ExitCode
from synth.vet.findings import Finding
from synth.vet.gate import decide, gate_exit_code, recorded_exit_code, vetting_record

HIGH = Finding(rule_id="P1", category="Prompt Injection", severity="HIGH", confidence=None, message="m", file="SKILL.md", line=1, fingerprint="f1")
LOW = Finding(rule_id="SC4", category="Supply Chain", severity="LOW", confidence=None, message="m", file="SKILL.md", line=2, fingerprint="f2")


@pytest.mark.parametrize("blocking, on, code", [(0, True, ExitCode.OK), (2, True, ExitCode.FINDINGS), (2, False, ExitCode.OK)])
def test_decide(blocking, on, code):
    assert decide(blocking, on) is code


@pytest.mark.parametrize("findings, on, code", [([HIGH], True, 3), ([HIGH], False, 0), ([LOW], True, 0), ([], True, 0)])
def test_the_findings_gate_and_the_record_agree(findings, on, code):
    assert gate_exit_code(findings, fail_on_findings=on) == code
    gate = vetting_record(extra_findings=findings, fail_on_findings=on)["gate"]
    assert gate["exit_code"] == code and recorded_exit_code(gate) == code


@pytest.mark.parametrize("gate, code", [
    ({"fail_on_findings": True, "blocking": 1, "rules": ["P1"], "exit_code": 3}, ExitCode.FINDINGS),
    ({"fail_on_findings": False, "blocking": 1, "rules": ["P1"], "exit_code": 0}, ExitCode.OK),
    ({"fail_on_findings": True, "blocking": 2, "rules": ["P1"]}, ExitCode.FINDINGS),  # a run.json from before exit_code
    ({"fail_on_findings": False, "blocking": 2}, ExitCode.OK),
    (None, ExitCode.OK),
])
def test_a_recorded_gate(gate, code):
    assert recorded_exit_code(gate) is code
