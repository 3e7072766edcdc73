"""`skill3 lint` through typer's CliRunner: exit codes, formats, --rules."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from skill3.cli.app import app
from synth.lint import RULES
from tests.lint.conftest import BASE_BODY, write_skill

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, ["lint", *map(str, args)])


@pytest.fixture
def skills(tmp_path):
    root = tmp_path / "skills"
    clean = write_skill(root, folder="demo-skill")
    warn_only = write_skill(root, folder="warn-skill",
                            frontmatter="name: warn-skill\ndescription: Use when testing warnings.\n",
                            body=BASE_BODY + "x\n" * 500)
    broken = write_skill(root, folder="broken-skill", body=BASE_BODY + "```\nunclosed\n")
    return {"root": root, "clean": clean, "warn": warn_only, "broken": broken}


@pytest.mark.parametrize(
    "which, fail_on, code",
    [
        ("clean", "error", 0),
        ("clean", "info", 1),  # X1 infos: rules skipped without facts
        ("warn", "error", 0),
        ("warn", "warn", 1),
        ("broken", "error", 1),
        ("broken", "never", 0),
    ],
)
def test_exit_code_follows_fail_on(skills, which, fail_on, code):
    result = run(skills[which], "--fail-on", fail_on)
    assert result.exit_code == code, result.output


def test_folder_of_skills_and_text_format(skills):
    result = run(skills["root"])
    assert result.exit_code == 1
    assert "broken-skill/SKILL.md:" in result.output and ": S5 error: code fence" in result.output
    assert "warn-skill/SKILL.md: B1 warn:" in result.output
    assert "3 skill(s):" in result.output


def test_json_format(skills):
    result = run(skills["broken"], "--format", "json")
    data = json.loads(result.output)
    (res,) = data["results"]
    assert res["name"] == "demo-skill"
    assert {"S5", "N2", "V1"} <= {f["rule"] for f in res["findings"]}
    assert {"rule", "severity", "message", "file", "line"} == set(res["findings"][0])
    assert res["counts"]["error"] >= 3


def test_sarif_format(skills):
    result = run(skills["broken"], "--format", "sarif")
    sarif = json.loads(result.output)
    assert sarif["version"] == "2.1.0"
    driver = sarif["runs"][0]["tool"]["driver"]
    assert [r["id"] for r in driver["rules"]] == [r.id for r in RULES]
    s5 = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "S5"]
    assert s5 and s5[0]["level"] == "error"
    assert driver["rules"][s5[0]["ruleIndex"]]["id"] == "S5"
    loc = s5[0]["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"].startswith("file:///") and loc["artifactLocation"]["uri"].endswith("broken-skill/SKILL.md")
    assert loc["region"]["startLine"] > 1


def test_rules_prints_the_catalogue():
    result = run("--rules")
    assert result.exit_code == 0
    for r in RULES:
        assert f"│ {r.id} " in result.output
    assert "[a-z0-9-]" in result.output and "catalogue" in result.output


def test_facts_option_turns_skips_into_checks(skills, tmp_path):
    facts = tmp_path / "facts.json"
    facts.write_text(json.dumps({"stale": [{"pattern": r"demo\.new\(", "what": "demo.new()", "instead": "demo.make()"}]}))
    without = run(skills["clean"])
    assert "X1 info: D1 did not run" in without.output
    result = run(skills["clean"], "--facts", facts)
    assert result.exit_code == 1
    assert "D1 error: demo.new() is deprecated or removed — use demo.make()" in result.output
    assert "D1 did not run" not in result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["/nonexistent/skill"], "error: no such path"),
        ([], "error: give at least one skill folder"),
        (["{clean}", "--facts", "/nonexistent/facts.json"], "error: facts file not found"),
        (["{clean}", "--facts", "{badfacts}"], "error: facts file"),
        (["{file}"], "error: not a skill folder"),
    ],
)
def test_cannot_run_exits_2_with_one_line(skills, tmp_path, args, message):
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    other = tmp_path / "notes.txt"
    other.write_text("x")
    args = [a.format(clean=skills["clean"], badfacts=bad, file=other) for a in args]
    result = run(*args)
    assert result.exit_code == 2
    assert result.output.strip().startswith(message), result.output
    assert len(result.output.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_bad_option_value_is_usage_error(skills):
    assert run(skills["clean"], "--fail-on", "sometimes").exit_code == 2


@pytest.mark.slow
def test_console_script_path_has_no_traceback(tmp_path):
    """The real entry point (not CliRunner): exit 2 and a one-line stderr for a bad path."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "skill3.cli.app", "lint", str(tmp_path / "missing")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("error: no such path") and len(proc.stderr.strip().splitlines()) == 1
    assert proc.stdout == ""


def test_text_output_escapes_control_characters_in_file_names(tmp_path):
    """A crafted name (newline, carriage return, escape sequence) cannot forge a finding line."""
    forged = "x\nFAKE.md:1: S1 error: FORGED\r\x1b[2K"
    folder = tmp_path / f"demo{forged}"
    write_skill(folder.parent, folder=folder.name, body=BASE_BODY + "```\nunclosed\n")
    refs = folder / "references"
    refs.mkdir(exist_ok=True)
    (refs / f"notes{forged}.md").write_text("# Notes\n" + "line\n" * 150, encoding="utf-8")
    r = run(folder)
    lines = r.stdout.splitlines()
    assert not any("FORGED" in l and not l.startswith(str(tmp_path)) for l in lines)
    assert not any(l.startswith(("FAKE", "\x1b")) for l in lines)
    assert "\r" not in r.stdout and "\x1b" not in r.stdout
    findings = [l for l in lines[:-1]]
    assert len(findings) == len(json.loads(run(folder, "--format", "json").stdout)["results"][0]["findings"])
    assert any("references/notes" in l and "\\nFAKE.md:1: S1 error: FORGED\\r\\x1b[2K.md" in l for l in lines)
