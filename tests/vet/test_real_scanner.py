"""Against the real SkillSpector, when SKILLSPECTOR_BIN points at it.

Skipped otherwise (the reason is printed with -ra). Results must match the
recorded runs in tests/fixtures/skillspector (same version, 2.9.6)."""

from __future__ import annotations

import os
from collections import Counter

import pytest

from synth.vet.correct import correct
from synth.vet.findings import findings_from_report, parse_report
from synth.vet.input_vet import vet_sources
from synth.vet.runner import run_scan

from .helpers import case_dir, copy_skill
from .test_input_vet import corpus

pytestmark = [
    pytest.mark.skillspector,
    pytest.mark.skipif(
        not os.environ.get("SKILLSPECTOR_BIN"),
        reason="SKILLSPECTOR_BIN is not set: the real SkillSpector scanner is not available",
    ),
]


@pytest.mark.parametrize("case", ["01", "02", "04", "05"])
def test_real_scan_matches_recording(tmp_path, case):
    skill = copy_skill(case, tmp_path)
    result = run_scan(skill)
    recorded = findings_from_report(parse_report((case_dir(case) / "stdout.txt").read_text()))
    assert result.status == "ran", result.reason
    assert Counter(f.rule_id for f in result.findings) == Counter(f.rule_id for f in recorded)
    assert sorted(f.fingerprint for f in result.findings) == sorted(f.fingerprint for f in recorded)


def test_real_input_vetting_quarantines_the_injection():
    items = corpus()
    result = vet_sources(items)
    assert result.scan.status == "ran", result.scan.reason
    assert [s.url for s in result.quarantined] == [items[1].url]
    assert "P1" in result.quarantined[0].rules


def test_real_correction_loop_fixes_injection(tmp_path):
    skill = copy_skill("02", tmp_path)
    result = correct(skill, revise=None)
    assert result.initial.status == "ran" and len(result.initial.findings) == 3
    assert result.final.status == "ran" and result.residual == []


def test_real_scanner_the_readme_first_command_exits_0(tmp_path):
    from .test_synth_wiring import check_readme_first_run, readme_first_command

    out = tmp_path / "mcp"
    check_readme_first_run(readme_first_command(out), out)

