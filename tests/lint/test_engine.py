"""lint_skill / lint_text / discovery: the library entry points."""

from __future__ import annotations

import pytest

from synth.lint import LintError, discover_skills, lint_skill, lint_text
from tests.lint.conftest import BASE_BODY, BASE_FRONTMATTER, write_skill


def test_lint_text_matches_lint_skill(tmp_path):
    skill = write_skill(tmp_path)
    text = (skill / "SKILL.md").read_text()
    from_text = lint_text(text, "demo-skill", files={"references/api.md": "# API\n"})
    from_dir = lint_skill(skill)
    assert from_text.skill == "demo-skill" and from_text.name == "demo-skill"
    assert [(f.rule, f.line) for f in from_text.findings] == [(f.rule, f.line) for f in from_dir.findings]
    assert from_text.ok


def test_lint_text_reports_draft_errors_for_the_fixer():
    draft = f"---\n{BASE_FRONTMATTER}---\n" + BASE_BODY.replace("[1]. Details", "[3]. Details") + "```py\nx\n"
    result = lint_text(draft, "demo-skill")
    assert {f.rule for f in result.errors} >= {"P2", "S5", "L1"}
    assert result.fails("error") and not result.ok


@pytest.mark.parametrize("name", ["", "a/b", ".."])
def test_lint_text_rejects_bad_folder_names(name):
    with pytest.raises(LintError):
        lint_text("x", name)


def test_lint_skill_accepts_the_skill_md_path(tmp_path):
    skill = write_skill(tmp_path)
    assert lint_skill(skill / "SKILL.md").name == "demo-skill"


@pytest.mark.parametrize("make, message", [(lambda p: p / "missing", "no such"), (lambda p: p / "f.txt", "not a folder")])
def test_lint_skill_cannot_run(tmp_path, make, message):
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(LintError, match=message):
        lint_skill(make(tmp_path))


def test_discover_skills(tmp_path):
    root = tmp_path / "skills"
    a = write_skill(root, folder="a")
    b = write_skill(root, folder="b")
    (root / "not-a-skill").mkdir()
    assert discover_skills(root) == [a, b]
    assert discover_skills(a) == [a]
    assert discover_skills(a / "SKILL.md") == [a]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert discover_skills(empty) == [empty]  # linted as a skill: S1 says SKILL.md is missing
    assert "S1" in lint_skill(empty).rule_ids()


def test_findings_are_ordered_by_catalogue_then_line_x1_last(tmp_path):
    from synth.lint import RULES

    skill = write_skill(tmp_path, folder="wrong", body=BASE_BODY + "```\n")
    rules = [f.rule for f in lint_skill(skill).findings]
    assert {"S5", "N2", "V1", "X1"} <= set(rules)
    order = [r.id for r in RULES]
    assert rules == sorted(rules, key=order.index)
    assert rules[-1] == "X1"


def test_a_crashing_reference_validator_is_a_skip_not_a_verdict(tmp_path, monkeypatch):
    import skills_ref

    def boom(_path):
        raise RuntimeError("strictyaml exploded")

    monkeypatch.setattr(skills_ref, "validate", boom)
    result = lint_skill(write_skill(tmp_path))
    assert "V1" not in result.rule_ids()
    assert "V1" in [s.rule for s in result.skipped]
    x1 = [f for f in result.findings if f.rule == "X1" and f.message.startswith("V1 did not run")]
    assert x1 and "strictyaml exploded" in x1[0].message
