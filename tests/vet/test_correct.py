"""The output-side loop: deterministic pre-pass, model revision, rescan (≤3)."""

from __future__ import annotations

import json

import pytest

from synth.vet.correct import (
    correct,
    describe_findings,
    drop_lines,
    droppable_lines,
    prepass,
    redact_skill,
    secret_findings,
)
from synth.vet.findings import Finding
from synth.vet.redact import redact_text

from .helpers import case_dir, copy_skill
from .test_redact import AWS_ID, GHP


def skill_text(case: str) -> str:
    folder = next(p for p in case_dir(case).iterdir() if p.is_dir())
    return (folder / "SKILL.md").read_text()


# case, flagged lines (from the real reports), lines dropped
DROPS = [
    ("02", [16, 18], set(range(16, 20))),  # the injected paragraph
    ("03", [13, 15, 17], {13, 14, 15, 16, 17}),  # three list items with continuations
    ("04", [11], {10, 11}),  # continuation line of item 1 → the whole item
    ("07", [3], set()),  # frontmatter: ambiguous, left to the model
    ("07", [11, 15, 19], {11, 14, 15, 16, 17, 19}),  # item, the whole HTML comment, a paragraph
    ("08", [15, 16], {14, 15, 16}),
    ("01", [7, 11, 23, 99, 0], set()),  # heading, heading, code, out of range
]


@pytest.mark.parametrize("case,flagged,dropped", DROPS)
def test_droppable_lines(case, flagged, dropped):
    assert droppable_lines(skill_text(case), flagged) == dropped


@pytest.mark.parametrize(
    "text,drop,expected",
    [
        ("a\n\nb\n\nc\n", {3}, "a\n\nc\n"),
        ("a\n\nb\n\n```\nx\n\n\ny\n```\n", {3}, "a\n\n```\nx\n\n\ny\n```\n"),  # code untouched
        ("a\nb\n", set(), "a\nb\n"),
    ],
)
def test_drop_lines(text, drop, expected):
    assert drop_lines(text, drop) == expected


def _finding(rule, severity, file, line):
    return Finding(rule, "Cat", severity, 0.8, "msg", file, line, f"{rule}{file}{line}", occurrences=[(file, line)])


def test_prepass_only_acts_on_high_and_markdown(tmp_path):
    skill = copy_skill("08", tmp_path)
    (skill / "notes.md").write_text("x = 1\n" + "\u200b" + "hidden\n" + f"id {AWS_ID}\n")
    report = prepass(skill, [_finding("TM1", "HIGH", "SKILL.md", 15), _finding("EA2", "MEDIUM", "SKILL.md", 9),
                             _finding("SC1", "HIGH", "requirements.txt", 1)])
    assert report.dropped == {"SKILL.md": [14, 15]}
    text = (skill / "SKILL.md").read_text()
    assert "You have full autonomy" in text and "git branch -r --merged" not in text
    notes = (skill / "notes.md").read_text()
    assert report.invisible_chars == 1 and "\u200b" not in notes
    assert report.redactions == 1 and AWS_ID not in notes


def test_injection_fixed_by_prepass_without_the_model(fake_scanner, tmp_path):
    fake_scanner.line_replay()
    skill = copy_skill("02", tmp_path)
    calls = []
    result = correct(skill, revise=lambda text, findings: calls.append(findings) or text)
    assert result.initial.status == "ran" and len(result.initial.findings) == 3
    assert result.clean and result.residual == [] and calls == []
    assert len(result.rounds) == 1 and result.rounds[0].dropped == {"SKILL.md": [16, 17, 18, 19]}
    text = (skill / "SKILL.md").read_text()
    assert "Ignore all previous" not in text and "## Steps" in text and text.startswith("---\nname: meeting-notes-summarizer")


def test_model_revises_what_the_prepass_cannot(fake_scanner, tmp_path):
    fake_scanner.line_replay()
    skill = copy_skill("08", tmp_path)
    seen: list[list[str]] = []

    def revise(text: str, findings: list[Finding]) -> str:
        seen.append([f.rule_id for f in findings])
        return "\n".join(line for line in text.splitlines() if "full autonomy" not in line) + "\n"

    result = correct(skill, revise=revise)
    assert seen == [["EA2"]]  # TM1 lines dropped by the pre-pass; PE2 sat on a dropped line
    assert result.rounds[0].revised and result.rounds[0].findings_after == 0
    assert result.clean


def test_at_most_three_rounds_and_residual_reported(fake_scanner, tmp_path):
    fake_scanner.line_replay()
    skill = copy_skill("06", tmp_path)  # E5 (MEDIUM) on a step line: never dropped
    rounds = []

    def stubborn(text: str, findings: list[Finding]) -> str:
        rounds.append(len(rounds) + 1)
        return text + f"\n<!-- revision {len(rounds)} -->\n"

    result = correct(skill, revise=stubborn, max_rounds=3)
    assert rounds == [1, 2, 3] and len(result.rounds) == 3
    assert [f.rule_id for f in result.residual] == ["E5"]
    assert result.redactions == 3  # the secrets went before the first scan
    assert len(fake_scanner.calls()) == 4  # initial scan + 3 rescans
    assert AWS_ID[:4] not in (skill / "SKILL.md").read_text().replace("[REDACTED", "")


@pytest.mark.parametrize(
    "revision,note",
    [
        (lambda text, f: "", "revision was empty"),
        (lambda text, f: "# no frontmatter\n", "revision lost the YAML frontmatter"),
        (lambda text, f: (_ for _ in ()).throw(TimeoutError("model timed out")), "revision failed: TimeoutError: model timed out"),
    ],
    ids=["empty", "no-frontmatter", "raises"],
)
def test_bad_revisions_keep_the_skill(fake_scanner, tmp_path, revision, note):
    fake_scanner.line_replay()
    skill = copy_skill("06", tmp_path)
    before = (skill / "SKILL.md").read_text()
    result = correct(skill, revise=revision)
    assert note in result.rounds[0].note and "nothing changed; stopped" in result.rounds[0].note
    assert (skill / "SKILL.md").read_text() == redact_text(before)[0]
    assert (skill / "SKILL.md").read_text().startswith("---\nname: s3-backup")
    assert [f.rule_id for f in result.residual] == ["E5"] and len(result.rounds) == 1


def test_revision_cannot_reintroduce_secrets(fake_scanner, tmp_path):
    fake_scanner.line_replay()
    skill = copy_skill("06", tmp_path)
    result = correct(skill, revise=lambda text, f: text + f"\nUse {GHP}\n", max_rounds=1)
    assert GHP not in (skill / "SKILL.md").read_text() and result.rounds[0].redactions == 1


def test_scanner_absent_means_not_run(no_scanner, tmp_path):
    skill = copy_skill("02", tmp_path)
    result = correct(skill, revise=lambda t, f: pytest.fail("no revision without a scan"))
    assert result.final.status == "not_run" and result.rounds == [] and not result.clean
    assert json.loads(json.dumps(result.to_dict()))["final"]["status"] == "not_run"


def test_failed_rescan_keeps_last_known_findings(fake_scanner, tmp_path, monkeypatch):
    fake_scanner.line_replay()
    skill = copy_skill("06", tmp_path)

    def revise_then_break_scanner(text, findings):
        monkeypatch.setenv("FAKE_SS_MODE", "crash")
        return text + "\nmore\n"

    result = correct(skill, revise=revise_then_break_scanner)
    assert result.final.status == "not_run" and "crashed" in result.rounds[0].note
    assert [f.rule_id for f in result.residual] == ["E5"]


def test_secret_findings_and_git_dirs(tmp_path):
    skill = copy_skill("06", tmp_path)
    (skill / ".git").mkdir()
    (skill / ".git" / "config").write_text(f"token = {GHP}\n")
    (skill / "references").mkdir()
    (skill / "references" / "key.md").write_text("intro\n-----BEGIN " + "PRIVATE KEY-----\nabc\n-----END " + "PRIVATE KEY-----\n")
    found = secret_findings(skill)
    assert [(f.file, f.line, f.title) for f in found] == [
        ("SKILL.md", 14, "Secret literal (aws-access-key)"),
        ("SKILL.md", 15, "Secret literal (aws-secret-key)"),
        ("SKILL.md", 20, "Secret literal (github-token)"),
        ("references/key.md", 2, "Secret literal (private-key)"),
    ]
    assert all(f.blocking and f.tool == "skill3" for f in found)
    assert redact_skill(skill) == 4 and secret_findings(skill) == []
    assert GHP in (skill / ".git" / "config").read_text()  # left alone


def test_describe_findings():
    f = Finding("P1", "Prompt Injection", "HIGH", 0.8, "Overrides instructions.", "SKILL.md", 16, "fp",
                title="Instruction Override", remediation="Remove it.", occurrences=[("SKILL.md", 16), ("SKILL.md", 30)])
    assert describe_findings([f]) == (
        "- [HIGH] P1 Instruction Override at SKILL.md:16, SKILL.md:30: Overrides instructions. Fix: Remove it."
    )
