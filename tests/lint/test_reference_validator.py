"""Where our rules and the reference validator (skills-ref, rule V1) agree and where they differ, on purpose.

Each row: frontmatter lines after ``name``, the S/N error rules we emit, whether V1 errors.
A change in either side shows up here first.
"""

from __future__ import annotations

import pytest

from synth.lint import lint_skill

D = "description: Use when testing.\n"

ROWS = [
    # agreement
    ("agree-clean", D, set(), False),
    ("agree-missing-description", "", {"N4"}, True),
    ("agree-long-description", "description: Use when " + "x" * 1020 + "\n", {"N4"}, True),
    ("agree-extra-key", D + "version: '1'\n", {"S3"}, True),
    ("agree-duplicate-key", D + D, {"S2"}, True),
    ("agree-long-compatibility", D + "compatibility: " + "x" * 501 + "\n", {"N6"}, True),
    # stricter than skills-ref: its checks stop where Anthropic's and the spec's continue
    ("stricter-angle-brackets", "description: Use when <x> is set.\n", {"N5"}, False),
    ("stricter-float-metadata", D + "metadata:\n  version: 1.0\n", {"S4"}, False),  # strictyaml reads every scalar as a string
    ("stricter-empty-compatibility", D + "compatibility: ''\n", {"N6"}, False),  # spec: 1-500 chars if provided
    # laxer than skills-ref: strictyaml refuses flow style that YAML (and skill loaders) accept
    ("laxer-flow-mapping", D + "metadata: {version: '1'}\n", set(), True),
    ("laxer-flow-sequence", D + "allowed-tools: [Read, Write]\n", set(), True),
]


@pytest.mark.parametrize("case, extra, ours, v1", ROWS, ids=[r[0] for r in ROWS])
def test_structure_and_name_rules_against_skills_ref(tmp_path, case, extra, ours, v1):
    skill = tmp_path / case
    skill.mkdir()
    (skill / "SKILL.md").write_text(f"---\nname: {case}\n{extra}---\n# Body\nDo it.\n", encoding="utf-8")
    result = lint_skill(skill)
    assert {f.rule for f in result.errors if f.rule[0] in "SN"} == ours
    assert any(f.rule == "V1" for f in result.errors) == v1


@pytest.mark.parametrize(
    "folder, name, ours",
    [
        ("claude-helper", "claude-helper", {"N3"}),  # Anthropic's reserved words: not in skills-ref
        ("caf\u00e9", "caf\u00e9", {"N1"}),  # skills-ref allows Unicode letters; the spec pattern is [a-z0-9-]
    ],
)
def test_name_rules_stricter_than_skills_ref(tmp_path, folder, name, ours):
    skill = tmp_path / folder
    skill.mkdir()
    (skill / "SKILL.md").write_text(f"---\nname: {name}\n{D}---\n# Body\nDo it.\n", encoding="utf-8")
    result = lint_skill(skill)
    assert {f.rule for f in result.errors} == ours


def test_lowercase_skill_md_is_s1_only(tmp_path):
    skill = tmp_path / "lower"
    skill.mkdir()
    (skill / "skill.md").write_text(f"---\nname: lower\n{D}---\n# Body\nDo it.\n", encoding="utf-8")
    assert {f.rule for f in lint_skill(skill).errors} == {"S1"}  # skills-ref accepts skill.md
