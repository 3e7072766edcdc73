"""Every rule: failing and passing cases from one table; the catalogue kept honest both ways."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from synth.lint import RULES, Facts, lint_skill
from synth.lint.catalogue import BY_ID
from synth.lint.rules import CHECKS
from tests.lint.conftest import BASE_BODY, BASE_FRONTMATTER, full_facts, write_skill

FM = BASE_FRONTMATTER
DESC = "description: Current usage of the Demo API after its 2.0 release. Use when writing code against the Demo API.\n"


def fm(old: str, new: str) -> str:
    assert old in FM, old
    return FM.replace(old, new)


def body(old: str, new: str) -> str:
    assert old in BASE_BODY, old
    return BASE_BODY.replace(old, new)


LONG_REF = "\n".join(f"line {i}" for i in range(120)) + "\n"
SAME_NAME = {"dup": "name: demo-skill\ndescription: Something else entirely. Use when baking bread.\n"}
SAME_DESC = {"twin-skill": "name: twin-skill\n" + DESC}

# (case id, rule, severity it must fire with — None: it must not fire, write_skill kwargs, facts)
# facts: "full" (every fact known), "none", or a dict of Facts fields replacing the full ones.
CASES = [
    # S: structure
    ("s1-missing", "S1", "error", {"skill_file": None}, "full"),
    ("s1-lowercase", "S1", "error", {"skill_file": "skill.md"}, "full"),
    ("s1-not-utf8", "S1", "error", {"raw": b"---\nname: demo-skill\n---\n\xff\xfe body\n"}, "full"),
    ("s1-ok", "S1", None, {}, "full"),
    ("s2-none", "S2", "error", {"frontmatter": None}, "full"),
    ("s2-unclosed", "S2", "error", {"raw": "---\nname: demo-skill\ndescription: x\n# Body\n"}, "full"),
    ("s2-bad-yaml", "S2", "error", {"frontmatter": fm(DESC, "description: Use it: when: now\n")}, "full"),
    ("s2-not-mapping", "S2", "error", {"frontmatter": "- name\n- description\n"}, "full"),
    ("s2-duplicate-key", "S2", "error", {"frontmatter": FM + "name: demo-skill\n"}, "full"),
    ("s2-second-block", "S2", "error", {"body": "\n---\nname: demo-skill\n---\n" + BASE_BODY}, "full"),
    ("s2-thematic-break-ok", "S2", None, {"body": "---\n\n" + BASE_BODY + "\n---\n\nEnd.\n"}, "full"),
    ("s2-ok", "S2", None, {}, "full"),
    ("s3-extra-key", "S3", "error", {"frontmatter": FM + "version: 1.0.0\n"}, "full"),
    ("s3-ok", "S3", None, {}, "full"),
    ("s4-float", "S4", "error", {"frontmatter": fm('version: "1.0.0"', "version: 1.0")}, "full"),
    ("s4-not-mapping", "S4", "error", {"frontmatter": fm('metadata:\n  version: "1.0.0"\n', "metadata: v1\n")}, "full"),
    ("s4-ok", "S4", None, {}, "full"),
    ("s5-unclosed", "S5", "error", {"body": BASE_BODY + "\n```bash\nls\n"}, "full"),
    ("s5-shorter-closer", "S5", "error", {"body": BASE_BODY + "\n````md\ntext\n```\n"}, "full"),
    ("s5-other-char", "S5", "error", {"body": BASE_BODY + "\n~~~\ntext\n```\n"}, "full"),
    ("s5-nested-ok", "S5", None, {"body": BASE_BODY + "\n````md\n```py\nx\n```\n````\n~~~\na\n~~~~\n"}, "full"),
    ("s6-empty", "S6", "error", {"body": "\n  \n"}, "full"),
    ("s6-ok", "S6", None, {}, "full"),
    # N: name and description
    ("n1-uppercase", "N1", "error", {"frontmatter": fm("name: demo-skill", "name: Demo_Skill"), "folder": "Demo_Skill"}, "full"),
    ("n1-leading-hyphen", "N1", "error", {"frontmatter": fm("name: demo-skill", "name: -demo"), "folder": "-demo"}, "full"),
    ("n1-double-hyphen", "N1", "error", {"frontmatter": fm("name: demo-skill", "name: demo--skill"), "folder": "demo--skill"}, "full"),
    ("n1-too-long", "N1", "error", {"frontmatter": fm("name: demo-skill", "name: " + "a" * 65), "folder": "a" * 65}, "full"),
    ("n1-not-string", "N1", "error", {"frontmatter": fm("name: demo-skill", "name: 123"), "folder": "123"}, "full"),
    ("n1-missing", "N1", "error", {"frontmatter": fm("name: demo-skill\n", "")}, "full"),
    ("n1-64-ok", "N1", None, {"frontmatter": fm("name: demo-skill", "name: " + "a" * 64), "folder": "a" * 64}, "full"),
    ("n2-folder", "N2", "error", {"folder": "demo"}, "full"),
    ("n2-ok", "N2", None, {}, "full"),
    ("n3-claude", "N3", "error", {"frontmatter": fm("name: demo-skill", "name: claude-helper"), "folder": "claude-helper"}, "full"),
    ("n3-anthropic", "N3", "error", {"frontmatter": fm("name: demo-skill", "name: anthropic-x"), "folder": "anthropic-x"}, "full"),
    ("n3-ok", "N3", None, {}, "full"),
    ("n4-too-long", "N4", "error", {"frontmatter": fm(DESC, "description: " + "Use when x. " + "y" * 1013 + "\n")}, "full"),
    ("n4-empty", "N4", "error", {"frontmatter": fm(DESC, "description: ''\n")}, "full"),
    ("n4-missing", "N4", "error", {"frontmatter": fm(DESC, "")}, "full"),
    ("n4-list", "N4", "error", {"frontmatter": fm(DESC, "description: [a, b]\n")}, "full"),
    ("n4-1024-ok", "N4", None, {"frontmatter": fm(DESC, "description: " + "Use when x. " + "y" * 1012 + "\n")}, "full"),
    ("n5-xml-tag", "N5", "error", {"frontmatter": fm(DESC, "description: Use when <tool> is needed.\n")}, "full"),
    ("n5-arrow", "N5", "error", {"frontmatter": fm(DESC, "description: Use when moving a -> b.\n")}, "full"),
    ("n5-ok", "N5", None, {}, "full"),
    ("n6-too-long", "N6", "error", {"frontmatter": fm("compatibility: Python 3.11+", "compatibility: " + "x" * 501)}, "full"),
    ("n6-not-string", "N6", "error", {"frontmatter": fm("compatibility: Python 3.11+", "compatibility: 3")}, "full"),
    ("n6-500-ok", "N6", None, {"frontmatter": fm("compatibility: Python 3.11+", "compatibility: " + "x" * 500)}, "full"),
    ("n7-one-sentence-six-times", "N7", "warn", {"frontmatter": fm(DESC, "description: " + "Use the Demo API 2.0 for new clients. " * 6 + "\n")}, "full"),
    ("n7-ok", "N7", None, {}, "full"),
    ("n8-repeated-phrase", "N8", "warn", {"frontmatter": fm(DESC, "description: The Demo API 2.0 adds streaming, and the "
                                                             "Demo API 2.0 adds batching. Use when writing code.\n")}, "full"),
    ("n8-cut-mid-word", "N8", "warn", {"frontmatter": fm(DESC, "description: Use when writing code against the Demo API "
                                                          "2.0 and its new transp\n")}, "full"),
    ("n8-markup-leftovers", "N8", "warn", {"frontmatter": fm(DESC, "description: Use when writing **Demo** code &amp; "
                                                               "its /description tags.\n")}, "full"),
    ("n8-template-braces", "N8", "warn", {"frontmatter": fm(DESC, "description: Use when writing {{ topic }} code.\n")}, "full"),
    ("n8-ok", "N8", None, {"frontmatter": fm(DESC, "description: 'Use when the user says \"make a Demo API 2.0 client.\"'\n")},
     "full"),
    # V: the reference validator
    ("v1-rejects", "V1", "error", {"folder": "demo"}, "full"),
    ("v1-ok", "V1", None, {}, "full"),
    # B: size
    ("b1-lines", "B1", "warn", {"body": BASE_BODY + "x\n" * 500}, "full"),
    ("b1-budget-from-facts", "B1", "warn", {}, {"max_lines": 10}),
    ("b1-ok", "B1", None, {"body": BASE_BODY + "x\n" * 450}, "full"),
    ("b2-tokens", "B2", "warn", {"body": BASE_BODY + "word " * 5000 + "\n"}, "full"),
    ("b2-ok", "B2", None, {"body": BASE_BODY + "word " * 3000 + "\n"}, "full"),
    # T: trigger
    ("t1-no-trigger", "T1", "info", {"frontmatter": fm(DESC, "description: Notes on the Demo API 2.0.\n")}, "full"),
    ("t1-ok", "T1", None, {}, "full"),
    # L: links and reference files
    ("l1-missing-link", "L1", "error", {"body": body("references/api.md#clients", "references/gone.md")}, "full"),
    ("l1-missing-code-path", "L1", "error", {"body": BASE_BODY + "\nRun `scripts/check.py`.\n"}, "full"),
    ("l1-missing-command-path", "L1", "error", {"body": BASE_BODY + "\nRun `python ./scripts/fill.py --all`.\n"}, "full"),
    ("l1-outside", "L1", "error", {"body": BASE_BODY + "\nSee [x](../elsewhere/README.md).\n", "files": {"../elsewhere/README.md": "x"}}, "full"),
    ("l1-ok", "L1", None, {"body": BASE_BODY + "\nRun `scripts/check.py`; ignore `references/<topic>.md`.\n",
                           "files": {"scripts/check.py": "print(1)\n"}}, "full"),
    ("l2-deep-folder", "L2", "warn", {"body": BASE_BODY + "\n[deep](references/a/b.md)\n", "files": {"references/a/b.md": "x\n"}}, "full"),
    ("l2-chained", "L2", "warn", {"files": {"references/api.md": "# API\nSee [more](more.md).\n", "references/more.md": "x\n"}}, "full"),
    ("l2-outside-is-l1-only", "L2", None, {"body": BASE_BODY + "\n[x](../a/b/c.md)\n", "files": {"../a/b/c.md": "x"}}, "full"),
    ("l2-chained-but-also-direct-ok", "L2", None, {"body": BASE_BODY + "\n[more](references/more.md)\n",
                                                "files": {"references/api.md": "See [more](more.md).\n", "references/more.md": "x\n"}}, "full"),
    ("l2-ok", "L2", None, {"body": BASE_BODY + "\n[deep script](scripts/a/b.py)\n", "files": {"scripts/a/b.py": "x\n"}}, "full"),
    ("l3-no-toc", "L3", "warn", {"files": {"references/api.md": LONG_REF}}, "full"),
    ("l3-toc-ok", "L3", None, {"files": {"references/api.md": "# API\n## Contents\n- Clients\n" + LONG_REF}}, "full"),
    ("l3-anchor-toc-ok", "L3", None, {"files": {"references/api.md": "- [a](#a)\n- [b](#b)\n- [c](#c)\n" + LONG_REF}}, "full"),
    # P: provenance
    ("p1-no-sources", "P1", "warn", {"body": "# Demo\nPlain instructions.\n"}, "full"),
    ("p1-cites-without-sources", "P1", "error", {"body": "# Demo\nA fact [1].\n"}, "full"),
    ("p1-ok", "P1", None, {}, "full"),
    ("p2-unresolved", "P2", "error", {"body": body("`demo.new()` [1]. Details", "`demo.new()` [2]. Details")}, "full"),
    ("p2-ok", "P2", None, {}, "full"),
    ("p3-unused-url", "P3", "error", {}, {"used_sources": frozenset({"https://other.example/"})}),
    ("p3-no-url", "P3", "error", {"body": body("— https://demo.example/releases/2.0", "(offline notes)")}, "full"),
    ("p3-ok-normalized", "P3", None, {}, {"used_sources": frozenset({"HTTPS://Demo.Example/releases/2.0/#notes"})}),
    ("p4-prose-for-sources", "P4", "error", {"body": "# Demo\n\n## Instructions\n1. Create clients with `demo.new()`.\n\n## Sources\n\n"
                                             "No statement in this skill cites a source; the sources it was built from are listed in run.json.\n"}, "full"),
    ("p4-urls-but-no-citation", "P4", "error", {"body": body("`demo.new()` [1]. Details", "`demo.new()`. Details").replace("`demo.new()` [1] |", "`demo.new()` |")}, "full"),
    ("p4-no-run-sources-ok", "P4", None, {"body": "# Demo\nPlain instructions.\n"}, {"used_sources": frozenset()}),
    ("p4-ok", "P4", None, {}, "full"),
    # D: stale constructs
    ("d1-recommended", "D1", "error", {"body": body("1. Create clients with `demo.new()`", "1. Create clients with `demo.old()`")}, "full"),
    ("d1-in-code", "D1", "error", {"body": body("client = demo.new()", "client = demo.old()")}, "full"),
    ("d1-second-deprecated-section-ok", "D1", None, {"body": BASE_BODY + "\n## Deprecated helpers\n- `demo.old()`\n"}, "full"),
    ("d1-ok", "D1", None, {"body": BASE_BODY + "\nNote: `demo.old()` was removed in 2.0.\n"}, "full"),
    # M: model output written to the writer
    ("m1-template-heading-as-instruction", "M1", "error", {"body": body("1. Create clients", "1. ## Modern vs deprecated (only if a source…)\n2. Create clients")}, "full"),
    ("m1-template-note-in-heading", "M1", "error", {"body": body("## Examples", "## Examples   (code copied verbatim from the sources, in fenced blocks)")}, "full"),
    ("m1-placeholder-title", "M1", "error", {"body": body("# Demo", "# <title>")}, "full"),
    ("m1-ordinary-parentheses-ok", "M1", None, {"body": BASE_BODY + "\nUse it (only if a user asks for the old client).\n"}, "full"),
    ("m1-ok", "M1", None, {}, "full"),
    # A: tools
    ("a1-unknown-tool", "A1", "error", {}, {"tools": frozenset({"Read"})}),
    ("a1-unknown-mcp", "A1", "error", {"frontmatter": fm("allowed-tools: Read", "allowed-tools: Read mcp__jira__search")}, "full"),
    ("a1-not-string", "A1", "error", {"frontmatter": fm("allowed-tools: Read Bash(git status:*)", "allowed-tools: 3")}, "full"),
    ("a1-ok-list-and-mcp", "A1", None, {"frontmatter": fm("allowed-tools: Read Bash(git status:*)",
                                                       "allowed-tools: [Read, 'mcp__github__create_issue']")}, "full"),
    ("a2-unknown-tool", "A2", "error", {"body": body("mcp__github__create_issue", "mcp__github__delete_repo")}, "full"),
    ("a2-unknown-server", "A2", "error", {"body": body("the `github` MCP server", "the `gitlab` MCP server")}, "full"),
    ("a2-ok", "A2", None, {}, "full"),
    # C: catalogue
    ("c1-same-name", "C1", "error", {"catalogue_skills": SAME_NAME}, "full"),
    ("c1-same-description", "C1", "warn", {"catalogue_skills": SAME_DESC}, "full"),
    ("c1-ok", "C1", None, {}, "full"),
    # X: skipped rules
    ("x1-no-facts", "X1", "info", {}, "none"),
    ("x1-ok", "X1", None, {}, "full"),
]


def run_case(tmp_path: Path, catalogue: Path, kwargs: dict, facts) -> list:
    kwargs = dict(kwargs)
    for folder, front in kwargs.pop("catalogue_skills", {}).items():
        write_skill(catalogue, folder=folder, frontmatter=front, body="# x\nUse it.\n")
    skill = write_skill(tmp_path / "skills", **kwargs)
    if facts == "none":
        f = Facts()
    else:
        f = full_facts(catalogue)
        if isinstance(facts, dict):
            f = dataclasses.replace(f, **facts)
    return lint_skill(skill, f).findings


@pytest.mark.parametrize("case_id, rule, severity, kwargs, facts", CASES, ids=[c[0] for c in CASES])
def test_rule_case(tmp_path, catalogue, case_id, rule, severity, kwargs, facts):
    findings = run_case(tmp_path, catalogue, kwargs, facts)
    fired = [f for f in findings if f.rule == rule]
    if severity is None:
        assert fired == [], fired
    else:
        assert fired, f"{rule} did not fire; got {[(f.rule, f.message) for f in findings]}"
        assert severity in {f.severity for f in fired}
        assert all(f.severity in BY_ID[rule].severities for f in fired)


def test_baseline_is_clean_with_full_facts(tmp_path, catalogue):
    assert run_case(tmp_path, catalogue, {}, "full") == []


def test_every_rule_has_a_failing_and_a_passing_case():
    ids = {r.id for r in RULES}
    assert {c[1] for c in CASES if c[2] is not None} == ids
    assert {c[1] for c in CASES if c[2] is None} == ids


def test_catalogue_matches_the_checks():
    assert set(CHECKS) == {r.id for r in RULES} - {"X1"}
    assert len({r.id for r in RULES}) == len(RULES)


@pytest.mark.slow
def test_catalogue_is_honest_both_ways(tmp_path, catalogue):
    """Every emitted rule is catalogued, every catalogued rule (and severity) fires somewhere."""
    emitted: set[tuple[str, str]] = set()
    for i, (_, _, _, kwargs, facts) in enumerate(CASES):
        root = tmp_path / str(i)
        cat = root / "catalogue"
        cat.mkdir(parents=True)
        write_skill(cat, folder="other-skill", frontmatter="name: other-skill\ndescription: Other. Use when x.\n", body="x\n")
        emitted |= {(f.rule, f.severity) for f in run_case(root, cat, kwargs, facts)}
    catalogued = {(r.id, s) for r in RULES for s in r.severities}
    assert emitted <= catalogued, emitted - catalogued
    assert catalogued <= emitted, catalogued - emitted
