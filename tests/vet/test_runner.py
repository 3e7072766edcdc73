"""The scanner runner against replays of every recorded real SkillSpector run."""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from pathlib import Path

import pytest

from synth.vet.findings import ReportError, ScanResult, findings_from_report, parse_report
from synth.vet.record import SetupRecord, record_path, save_record
from synth.vet.runner import Scanner, resolve_scanner, result_from_output, run_scan, scanner_env

from .helpers import FIXTURES, case_dir

# case, status, rule ids after merging by fingerprint, completeness, reason fragment
CASES = [
    ("01", "ran", {}, "complete", ""),
    ("02", "ran", {"P1": 1, "YR4": 1, "P6": 1}, "complete", ""),
    ("03", "ran", {"PE3": 5}, "partial", ""),
    ("04", "ran", {"SC2": 2, "TM2": 1}, "complete", ""),  # TM2: one fingerprint in two files
    ("05", "ran", {"E2": 1, "LP3": 1}, "complete", ""),
    ("06", "ran", {"E5": 1}, "partial", ""),
    ("07", "ran", {"YR4": 1, "P2": 4, "PE3": 1, "AE4": 1, "RP1": 1, "EA2": 1}, "partial", ""),
    ("08", "ran", {"TM1": 2, "EA2": 1, "PE2": 1}, "complete", ""),
    ("09", "ran", {"SC1": 3, "SC4": 1}, "partial", ""),
    ("10", "ran", {}, "complete", ""),  # warning on stdout before the JSON
    ("11", "error", {}, None, "Cannot determine input type"),
    ("12", "error", {}, "failed", "No LLM API key configured"),
    ("13", "ran", {}, "partial", ""),
    ("14", "ran", {"P1": 1}, "complete", ""),  # the example corpus skill3 scans for the README's first command
]


@pytest.mark.parametrize("ignore_o", [False, True], ids=["report-file", "stdout-only"])
@pytest.mark.parametrize("case,status,rules,completeness,reason", CASES, ids=[c[0] for c in CASES])
def test_replayed_case(fake_scanner, tmp_path, case, status, rules, completeness, reason, ignore_o):
    fake_scanner.replay(case, ignore_o=ignore_o)
    result = run_scan(tmp_path)
    assert result.status == status, result.reason
    assert Counter(f.rule_id for f in result.findings) == Counter(rules)
    assert result.completeness == completeness
    assert reason in result.reason
    assert not result.clean or (status == "ran" and not rules)
    if status == "ran":
        assert result.scanner_version == "2.9.6"
        assert result.exit_code == int((case_dir(case) / "exitcode.txt").read_text())


def test_exit_code_alone_is_not_clean(fake_scanner, tmp_path):
    """Case 03: exit 0 but HIGH findings - the report decides, not the exit code."""
    fake_scanner.replay("03")
    result = run_scan(tmp_path)
    assert result.exit_code == 0 and not result.clean
    assert {f.severity for f in result.findings} == {"HIGH"}


def test_argv_is_explicit_and_keys_stay_out(fake_scanner, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "not-a-real-key")
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "not-a-real-key")
    fake_scanner.replay("01")
    run_scan(tmp_path)
    (call,) = fake_scanner.calls()
    argv = call["argv"]
    assert argv[:6] == ["scan", str(tmp_path.resolve()), "--no-llm", "--format", "json", "-o"]
    assert Path(argv[6]).name == "report.json" and len(argv) == 7
    assert call["secret_env"] == []


def test_duplicates_merge_by_fingerprint(fake_scanner, tmp_path):
    fake_scanner.replay("07")
    result = run_scan(tmp_path)
    p2 = [f for f in result.findings if f.occurrences == [("SKILL.md", 11), ("SKILL.md", 19)]]
    assert len(p2) == 1 and p2[0].rule_id == "P2"
    assert len({f.fingerprint for f in result.findings}) == len(result.findings)
    fake_scanner.replay("04")
    tm2 = [f for f in run_scan(tmp_path).findings if f.rule_id == "TM2"]
    assert tm2[0].occurrences == [("SKILL.md", 11), ("references/pitfalls.md", 8)]


def test_null_fingerprint_gets_a_stable_hash(fake_scanner, tmp_path):
    fake_scanner.replay("05")
    first = {f.rule_id: f.fingerprint for f in run_scan(tmp_path).findings}
    second = {f.rule_id: f.fingerprint for f in run_scan(tmp_path).findings}
    assert first == second and len(first["LP3"]) == 64


def test_rerun_keeps_fingerprints_not_finding_ids(fake_scanner, tmp_path):
    fake_scanner.replay("02")
    main = run_scan(tmp_path)
    fake_scanner.replay("02", variant="-rerun", ignore_o=True)
    rerun = run_scan(tmp_path)
    assert [f.fingerprint for f in main.findings] == [f.fingerprint for f in rerun.findings]
    ids = [json.loads(p.read_text())["issues"][0]["finding_id"] for p in (case_dir("02") / "report.json",)]
    rerun_text = (case_dir("02") / "stdout-rerun.txt").read_text()
    assert ids[0] not in rerun_text


@pytest.mark.parametrize("case", ["01", "02", "05"])
def test_report_file_equals_stdout_report(case):
    """The -o report.json and the stdout JSON of the same case parse to the same findings."""
    from_file = findings_from_report(parse_report((case_dir(case) / "report.json").read_text()))
    from_stdout = findings_from_report(parse_report((case_dir(case) / "stdout.txt").read_text()))
    assert [f.to_dict() for f in from_file] == [f.to_dict() for f in from_stdout]


@pytest.mark.parametrize(
    "text,message",
    [
        ((FIXTURES / "case-10-two-skills" / "report-recursive.json").read_text(), "multi-skill"),
        ((FIXTURES / "case-10-two-skills" / "stdout-recursive.txt").read_text(), "no JSON report"),
        ("", "no JSON report"),
        ("{not json", "not valid JSON"),
        ('{"issues": {}}', "no issues[] list"),
    ],
    ids=["recursive-report", "recursive-stdout", "empty", "broken", "issues-not-list"],
)
def test_unusable_reports(text, message):
    with pytest.raises(ReportError, match=re.escape(message)):
        parse_report(text)


@pytest.mark.parametrize(
    "exit_code,stdout,stderr,status,reason",
    [
        (139, "", "Segmentation fault", "not_run", "crashed (exit 139): Segmentation fault"),
        (-9, "", "", "not_run", "crashed (exit -9)"),
        (0, "Report saved to: x\n", "", "not_run", "no JSON report"),
        (2, "", "Error: boom\nmore", "error", "Error: boom"),
    ],
)
def test_classification_of_failures(exit_code, stdout, stderr, status, reason):
    result = result_from_output(Path("/x"), exit_code, stdout, stderr, None, Scanner("/bin/skillspector", "PATH"))
    assert (result.status, result.clean) == (status, False)
    assert reason in result.reason
    assert result.status_finding() is not None and result.status_finding().severity == "INFO"


def test_not_installed_is_not_run(no_scanner, tmp_path):
    result = run_scan(tmp_path)
    assert result.status == "not_run" and not result.clean
    assert "not installed" in result.reason and "skill3 setup" in result.reason
    assert "NOT RUN" in result.status_finding().message


@pytest.mark.parametrize("mode,reason", [("hang", "timed out after 1s"), ("crash", "crashed (exit 139)"), ("garbage", "no JSON report")])
def test_misbehaving_scanner_is_not_run(fake_scanner, tmp_path, mode, reason):
    fake_scanner.replay("01")
    fake_scanner.mode(mode)
    result = run_scan(tmp_path, timeout=1)
    assert result.status == "not_run" and reason in result.reason


def _running(pid: int) -> bool:
    """The process exists and is not a zombie (a zombie has ended; only its exit status is left)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc to see which processes still run")
def test_a_hanging_scanner_is_stopped_with_its_children(fake_scanner, tmp_path, monkeypatch):
    pids_file = tmp_path / "pids"
    monkeypatch.setenv("FAKE_SS_PIDS", str(pids_file))
    fake_scanner.mode("hang-children")
    t0 = time.monotonic()
    result = run_scan(tmp_path, timeout=3)
    assert time.monotonic() - t0 < 15
    assert result.status == "not_run" and "timed out after 3s" in result.reason and "child processes" in result.reason
    pids = [int(p) for p in pids_file.read_text().split()]
    assert len(pids) == 2
    deadline = time.monotonic() + 5
    while any(_running(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in pids if _running(p)], "the scanner's children outlived it"


def test_a_100k_deep_report_is_not_run_loudly(fake_scanner, tmp_path):
    fake_scanner.mode("deep")
    result = run_scan(tmp_path)  # no RecursionError
    assert result.status == "not_run" and "nests too deeply" in result.reason and not result.clean
    with pytest.raises(ReportError, match="nests too deeply"):
        parse_report('{"issues": [], "x": ' + "[" * 100_000 + "]" * 100_000 + "}")


def test_scanner_output_is_read_bounded(fake_scanner, tmp_path):
    """64 MiB of noise on stdout before a report written with -o: read at most MAX_OUTPUT_BYTES of it."""
    from synth.vet.runner import MAX_OUTPUT_BYTES

    fake_scanner.replay("02")
    fake_scanner.mode("huge-stdout")
    result = run_scan(tmp_path)
    assert result.status == "ran" and {f.rule_id for f in result.findings} == {"P1", "YR4", "P6"}
    assert MAX_OUTPUT_BYTES < 64 * 2**20


@pytest.mark.parametrize("report, issues", [
    ({"issues": [{"id": "P1", "severity": "HIGH", "location": [1, 2], "occurrences": "x"}]}, 1),
    ({"issues": [{"id": f"R{i}", "severity": "LOW", "match_fingerprint": f"f{i}"} for i in range(20_000)]}, 10_000),
    ({"issues": [{"id": "P1", "severity": "HIGH", "match_fingerprint": "same",
                  "occurrences": [{"file": f"f{i}.md", "start_line": i} for i in range(5_000)]}] * 50}, 1),
])
def test_odd_and_oversized_reports_are_bounded(report, issues):
    found = findings_from_report(parse_report(json.dumps(report)))
    assert len(found) == issues and all(len(f.occurrences) <= 200 for f in found)


def test_skillspector_bin_wins_and_must_be_executable(fake_scanner, tmp_path, monkeypatch):
    monkeypatch.setenv("SKILLSPECTOR_BIN", str(tmp_path / "nope"))
    result = run_scan(tmp_path)
    assert result.status == "not_run" and "SKILLSPECTOR_BIN=" in result.reason
    monkeypatch.setenv("SKILLSPECTOR_BIN", str(fake_scanner.binary))
    assert resolve_scanner().origin == "SKILLSPECTOR_BIN"


def test_setup_record_is_used_before_path(fake_scanner, tmp_path, monkeypatch):
    home = tmp_path / "home"
    save_record(SetupRecord(binary=str(fake_scanner.binary), version="2.9.6",
                            scan_options=["--format", "--no-llm", "--output"]), record_path(home))
    scanner = resolve_scanner()
    assert (scanner.origin, scanner.version) == ("skill3 setup", "2.9.6")
    save_record(SetupRecord(binary=str(fake_scanner.binary), version="1.0", scan_options=["--format"]), record_path(home))
    fake_scanner.replay("01")
    result = run_scan(tmp_path)
    assert result.status == "not_run" and "lacks --no-llm, --output" in result.reason
    record_path(home).write_text("{broken")
    assert "re-run `skill3 setup`" in run_scan(tmp_path).reason


def test_scanner_env_strips_credentials():
    env = scanner_env({"PATH": "/bin", "ANTHROPIC_API_KEY": "x", "GITHUB_TOKEN": "y", "AWS_SECRET_ACCESS_KEY": "z", "HOME": "/h"})
    assert set(env) == {"PATH", "HOME", "COLUMNS", "NO_COLOR", "TERM", "PYTHONIOENCODING"}


def test_scan_result_round_trips():
    data = parse_report((case_dir("04") / "stdout.txt").read_text())
    result = ScanResult(status="ran", target="x", findings=findings_from_report(data))
    again = ScanResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again.findings == result.findings
