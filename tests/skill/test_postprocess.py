import re

import pytest
import yaml

from synth.skill.fixers import clean_text, close_fences, recover_skill_text
from synth.skill.names import sanitize_name
from synth.skill.postprocess import PostProcessError, SkillContext, postprocess
from synth.skill.spec import MAX_BODY_LINES

SOURCES = [
    {"n": 1, "url": "https://modelcontextprotocol.io/spec", "title": "Spec", "published": "2026-06-30"},
    {"n": 2, "url": "https://github.com/modelcontextprotocol/python-sdk", "title": "SDK <b>notes</b>", "published": "2026-04-20"},
    {"n": 3, "url": "https://example.org/unused", "title": "Unused"},
]
CTX = SkillContext("mcp", "claude-opus-4-8", "2026-01", "2026-11-29", SOURCES)
BODY = """# MCP after 2026-01

## Overview / When to use
Tasks became a stable part of the protocol in the 2026-06-30 revision [1].

## Instructions
1. Use `MCPServer` instead of `FastMCP` [2].

## Examples
```python
server.run(transport="streamable-http")
```
"""
GOOD = f"---\nname: mcp\ndescription: What changed in MCP after January 2026; use when building MCP servers.\n---\n{BODY}"


def split(skill):
    text = skill.skill_md()
    assert text.startswith("---\n")
    fm_text, body = text[4:].split("\n---\n", 1)
    return yaml.safe_load(fm_text), body


@pytest.mark.parametrize(
    "raw, topic, expected",
    [("Claude MCP!!", "mcp", "mcp"), ("claude", "claude", "learned-skill"), (None, "Claude Code", "code"),
     ("anthropic-claude", "mcp", "mcp"), ("", "JDK 26", "jdk-26"), ("--My__Skill--", "x", "my-skill"),
     ("ÉCOLE ünïcode", "x", "ecole-unicode"), ("a" * 80, "x", "a" * 64), ("word-" * 20, "x", "-".join(["word"] * 12)),
     ("!!!", "claude", "learned-skill"), ("skill", "tidewire", "tidewire"), (None, "anthropic", "learned-skill")],
)
def test_sanitize_name(raw, topic, expected):
    name = sanitize_name(raw, topic)
    assert name == expected
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name) and len(name) <= 64


def adversarial_cases():
    long_desc = "<p>Use <b>this</b> skill</p> " + "for MCP things and more " * 130
    return [
        ("chatty preamble", "Sure! Here is the skill you asked for:\n\n" + GOOD + "\nHope this helps!"),
        ("fenced skill", "```markdown\n" + GOOD + "```\n"),
        ("fenced after preamble", "Here you go:\n\n````md\n" + GOOD + "````\nLet me know."),
        ("two frontmatter blocks", GOOD.replace("# MCP after", "---\nname: other\ndescription: again\n---\n# MCP after")),
        ("reserved name", GOOD.replace("name: mcp", "name: Claude MCP!!")),
        ("3000-char description with tags", GOOD.replace("description: What changed in MCP after January 2026; use when building MCP servers.", "description: " + repr(long_desc))),
        ("unclosed fence", GOOD.replace('server.run(transport="streamable-http")\n```\n', 'server.run(transport="streamable-http")\n')),
        ("unclosed fence before heading", GOOD.replace("1. Use", "```bash\nnpm i\n\n## More\n1. Use")),
        ("extra keys", GOOD.replace("name: mcp\n", "name: mcp\nauthor: bot\nversion: 9\nallowed-tools: Bash(rm:*)\nlicense: MIT\ntags: [a, b]\n")),
        ("no frontmatter", BODY),
        ("invalid yaml frontmatter", GOOD.replace("description: What changed", "description: Use when: x: y [what changed")),
        ("think block", "<think>I should write a skill.</think>\n" + GOOD),
        ("unterminated frontmatter", GOOD.replace("servers.\n---\n", "servers.\n")),
        ("placeholder description", GOOD.replace("description: What changed in MCP after January 2026; use when building MCP servers.", "description: <what it does + when to use it>")),
        ("bogus citations", GOOD.replace("[2]", "[2][9] and [0]")),
        ("model wrote its own Sources", GOOD + "\n## Sources\n- [1] https://evil.example/\n- https://unrelated.example\n"),
        ("crlf", GOOD.replace("\n", "\r\n")),
        ("leading horizontal rule", "---\n" + BODY + "\n---\n\nMore text after a rule [1].\n"),
        ("echoed prompt scaffolding", GOOD.replace("## Examples", "<<<END SOURCE 3 6782f4e75d>>>\nWrite the SKILL.md now.\n<<<SOURCE 1 ab12>>>\n```\n```\n## Examples")),
    ]


@pytest.mark.parametrize("label, raw", adversarial_cases(), ids=[c[0] for c in adversarial_cases()])
def test_adversarial_drafts_become_valid_skills(label, raw):
    skill = postprocess(raw, CTX)
    fm, body = split(skill)
    text = skill.skill_md()
    assert list(fm) == ["name", "description", "metadata"]
    assert fm["name"] == "mcp"
    assert 20 <= len(fm["description"]) <= 1024 and "<" not in fm["description"] and ">" not in fm["description"]
    assert fm["metadata"] == {"version": "1.0.0", "learned-date": "2026-11-29", "target-model": "claude-opus-4-8", "cutoff": "2026-01"}
    assert all(isinstance(v, str) for v in fm["metadata"].values())
    assert len(re.findall(r"^---$", text, re.M)) == 2, "exactly one frontmatter block"
    assert close_fences(body)[0] == body, "every fence closed"
    assert body.count("## Sources") == 1
    sources = body.split("## Sources", 1)[1]
    assert "https://modelcontextprotocol.io/spec" in sources
    assert "evil.example" not in sources and "https://example.org/unused" not in sources
    assert "Hope this helps" not in text and "Let me know" not in text and "<think>" not in text
    assert "[9]" not in body and "[0]" not in body
    assert "<<<" not in body and "Write the SKILL.md now" not in body and "```\n```" not in body


def test_sources_list_exactly_the_cited(tmp_path):
    skill = postprocess(GOOD.replace("[1]", "[1, 3]").replace("[2]", ""), CTX)
    assert skill.cited == [1, 3]
    entries = re.findall(r"^- \[(\d+)\]", skill.body.split("## Sources")[1], re.M)
    assert entries == ["1", "3"]


def test_description_cleaned_and_truncated():
    long = "<b>Use</b> this " + " ".join(f"word{i}" for i in range(400)) + "."
    skill = postprocess(GOOD.replace("description: What changed in MCP after January 2026; use when building MCP servers.", f"description: {long!r}"), CTX)
    assert len(skill.frontmatter["description"]) <= 1024
    assert skill.frontmatter["description"].startswith("Use this word0 word1")


@pytest.mark.parametrize("bad", [
    "MCP 2.0 adds Tasks for servers. MCP 2.0 adds Tasks for clients too. Use when building MCP servers.",  # a phrase twice
    "Use when building MCP servers with the new Tasks and the streamable transp",  # cut mid-word
    "Use when building MCP servers: the <summary>Tasks</summary> tags and &quot;elicitation&quot;.",  # markup leftovers
])
def test_a_description_that_does_not_read_as_written_is_derived_from_the_body(bad):
    from synth.skill.echoes import description_problems

    skill = postprocess(GOOD.replace("description: What changed in MCP after January 2026; use when building MCP servers.",
                                     f"description: {bad!r}"), CTX)
    desc = skill.frontmatter["description"]
    assert desc.startswith("Tasks became a stable part of the protocol") and description_problems(desc) == []
    assert any("derived the description from the body (the model's" in f for f in skill.fixes)


def test_degenerate_description_derived_from_overview():
    skill = postprocess(GOOD.replace("description: What changed in MCP after January 2026; use when building MCP servers.", "description: mcp"), CTX)
    assert skill.frontmatter["description"].startswith("Tasks became a stable part of the protocol")
    assert "Use when" in skill.frontmatter["description"]


def test_degenerate_loops_are_collapsed():
    raw = GOOD.replace("## Instructions\n", "## Instructions\n" + "- \n" * 40 + "Use it.\n" * 30)
    skill = postprocess(raw, CTX)
    assert skill.body.count("Use it.") == 2 and "\n- \n" not in skill.body
    assert any("empty list item" in f for f in skill.fixes) and any("repeated line" in f for f in skill.fixes)


def test_periodic_loops_are_collapsed():
    loop = "# Install the SDK\npython3 -m pip install sdk\n\n# Create a server\npython3 -m pip install sdk\n\n" * 12
    skill = postprocess(GOOD + "\n" + loop, CTX)
    assert skill.body.count("# Install the SDK") == 1 and skill.body.count("python3 -m pip install sdk") == 2


def test_idempotent():
    once = postprocess(GOOD, CTX)
    twice = postprocess(once.skill_md(), CTX)
    assert twice.skill_md() == once.skill_md()


def test_long_body_split_into_references():
    filler = "\n".join(f"- step {i} uses the new API [1]" for i in range(400))
    examples = "\n".join(f"example line {i}" for i in range(300))
    raw = GOOD.replace("## Examples", f"## Details\n{filler}\n\n## Examples\n```text\n{examples}\n```\n\n## Notes\nSee [2].")
    skill = postprocess(raw, CTX)
    assert len(skill.skill_md().splitlines()) <= MAX_BODY_LINES
    assert skill.references and all(p.startswith("references/") and p.count("/") == 1 for p in skill.references)
    for path in skill.references:
        assert f"]({path})" in skill.body
    assert "## Sources" in skill.body and skill.cited == [1, 2]
    for text in skill.references.values():
        assert close_fences(text)[0] == text


@pytest.mark.parametrize(
    "raw",
    ["", "   \n", "Sorry, I cannot help with that.", "---\nname: x\ndescription: y\n---\n# Title\n## Instructions\n",
     "# Title\n\n" + "-\n" * 500, "## A\n1.\n2.\n3.\n[1] [2] [3]\n", "# T\n\nok ok\nok ok\nok ok\nok ok\nok ok\nok ok\nok ok\nok ok\n"],
    ids=["empty", "blank", "refusal", "headings only", "empty bullets", "numbers and citations", "one line looped"],
)
def test_unfixable_drafts_raise(raw):
    with pytest.raises(PostProcessError):
        postprocess(raw, CTX)


@pytest.mark.parametrize(
    "text, expected",
    [("a <b>bold</b> move", "a bold move"), ("x < y > z", "x y z"), ("<!-- hidden --> shown", "shown"), ("  spaced\n\nout ", "spaced out")],
)
def test_clean_text(text, expected):
    assert clean_text(text) == expected


def test_recover_keeps_a_clean_skill_unchanged():
    assert recover_skill_text(GOOD) == (GOOD.strip("\n"), [])


@pytest.mark.parametrize("description", ["What changed in MCP: --- tasks --- and server cards after 2026-01.",
                                         "What changed in MCP after 2026-01\n---\nignored: yes, and more words here."])
def test_frontmatter_values_never_hold_three_hyphens(tmp_path, description):
    from skills_ref.parser import read_properties

    raw = "---\n" + yaml.safe_dump({"name": "mcp", "description": description}) + "---\n" + BODY.replace("# MCP", "# ---\n\n# MCP")
    skill = postprocess(raw, SkillContext("mcp", "gpt---x", "2026-01", "2026-11-29", SOURCES))
    text = skill.skill_md()
    assert "---" not in text[4:].split("\n---\n", 1)[0]
    (tmp_path / "mcp").mkdir()
    (tmp_path / "mcp" / "SKILL.md").write_text(text)
    props = read_properties(tmp_path / "mcp")  # the reference parser reads the whole frontmatter
    # (the second description, cut at its first line by the recovery, is derived from the body instead: N8)
    assert props.name == "mcp" and "---" not in props.description and props.description
    assert props.metadata["cutoff"] == "2026-01" and props.metadata["target-model"] == "gpt—x"


def test_the_template_echo_rules_know_the_prompt_they_echo():
    """synth.skill.echoes holds the synthesis prompt's section template: it must be the prompt's."""
    from synth.pipeline.model_calls import SYSTEM_SYNTH
    from synth.skill.echoes import TEMPLATE_HEADINGS, TEMPLATE_NOTES, TEMPLATE_PLACEHOLDERS

    template = SYSTEM_SYNTH.split("Then these sections:", 1)[1]
    headings = re.findall(r"^## (.+?)(?:\s{2,}\(|$)", template, re.M)
    assert tuple(h.strip() for h in headings) == TEMPLATE_HEADINGS
    assert all(f"({note})" in template for note in TEMPLATE_NOTES)
    assert all(p in SYSTEM_SYNTH for p in TEMPLATE_PLACEHOLDERS)


@pytest.mark.parametrize("draft_body, kept, gone", [
    ("## Instructions\n- ## Modern vs deprecated (only if a source…)\n1. Use `MCPServer` instead of `FastMCP` [2].\n",
     ["Use `MCPServer`"], ["only if a source", "- ## Modern"]),
    ("# <title>\n\n## Overview / When to use\nTasks became stable [1].\n\n## Examples   (code copied verbatim from the sources, in fenced blocks)\n"
     "```python\nserver.run()\n```\n", ["## Examples\n", "# MCP: what changed after 2026-01"], ["<title>", "copied verbatim"]),
])
def test_template_echoes_are_removed(draft_body, kept, gone):
    skill = postprocess("---\nname: mcp\ndescription: What changed in MCP after January 2026; use when building servers.\n---\n"
                        + draft_body + "\nMore words about the Model Context Protocol tasks and transports to count as content here.\n", CTX)
    text = skill.skill_md()
    assert all(k in text for k in kept) and not any(g in text for g in gone), text
    assert any("echoing the prompt's section template" in f for f in skill.fixes)


def test_a_draft_that_names_its_sources_only_in_its_own_sources_section_keeps_them():
    draft = ("---\nname: mcp\ndescription: What changed in MCP after January 2026; use when building servers.\n---\n# MCP\n\n"
             "## Instructions\n1. Use the new server class for every server you write from now on, with the stateless transport and the task API.\n\n"
             "## Sources\n- [1] Spec — https://modelcontextprotocol.io/spec\n- https://github.com/modelcontextprotocol/python-sdk\n"
             "- https://invented.example/not-a-source\n")
    skill = postprocess(draft, CTX)
    sources = skill.body.split("## Sources", 1)[1]
    assert "https://modelcontextprotocol.io/spec" in sources and "python-sdk" in sources and "invented.example" not in sources
    assert skill.cited == [1, 2]
