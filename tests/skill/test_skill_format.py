"""One reader for the SKILL.md format: the post-processor, the linter and the output vetting agree.

Each named case was read differently by two of the old hand-written parsers; the
table pins the chosen (CommonMark, via markdown-it-py) behaviour for all of them.
"""

from __future__ import annotations

import re

import pytest

from synth.skill import frontmatter, markdown
from synth.skill.fixers import drop_degenerate_lines
from synth.skill.postprocess import postprocess
from synth.skill.references import split_references
from synth.skill.sources import fix_citations
from synth.vet.correct import droppable_lines
from tests.skill.test_postprocess import CTX, GOOD, adversarial_cases

# --------------------------------------------------------------------------- headings


@pytest.mark.parametrize("line, title", [("# C#", "C#"), ("## F# and C# ##", "F# and C#"), ("### Use `a#b` #", "Use `a#b`")])
def test_heading_titles_keep_a_trailing_hash_glued_to_a_word(line, title):
    assert [h.title for h in markdown.headings(line)] == [title]


def test_reference_file_keeps_the_heading_c_sharp():
    """The post-processor's section split titles ``references/c.md`` "C#" (it read "C")."""
    body = "# T\n\n## Overview\nshort.\n\n## C#\n" + "".join(f"- point {i} about C# records\n" for i in range(600))
    _, refs, _ = split_references(body)
    (content,) = refs.values()
    assert content.startswith("# C#\n")


# --------------------------------------------------------------------------- fences in containers


def test_repeated_lines_inside_a_quoted_fence_are_code():
    """A fence inside a block quote is a fence: its repeated lines are code, never collapsed."""
    body = "Intro.\n\n> ```text\n> tick\n> tick\n> tick\n> ```\n"
    assert drop_degenerate_lines(body) == (body, [])


def test_unclosed_quoted_fence_is_closed_inside_the_quote():
    raw = GOOD.replace("## Examples", "## Quoted\n> ```python\n> x = 1\n\nMore prose about the release and its tasks [1].\n\n## Examples")
    skill = postprocess(raw, CTX)
    fences = markdown.find_fences(skill.body)
    assert fences and all(f.closed for f in fences)
    assert "> ```python\n> x = 1\n> ```" in skill.body


# --------------------------------------------------------------------------- vet's correction


@pytest.mark.parametrize("text", [
    "# T\n\n```\na\n~~~\nflagged = 1\n```\n",  # a tilde line does not close a backtick block
    "# T\n\n```\n```python\nflagged = 1\n```\n",  # a line with an info string does not close it
    "# T\n\n> ```\n> flagged = 1\n> ```\n",  # a fence inside a block quote
])
def test_correction_never_drops_code(text):
    flagged = next(i for i, ln in enumerate(text.splitlines(), 1) if "flagged" in ln)
    assert droppable_lines(text, [flagged]) == set()


def test_correction_drops_prose_after_a_closed_block():
    text = "# T\n\n```\n~~~\n```\nflagged prose line\n"
    assert droppable_lines(text, [6]) == {6}


# --------------------------------------------------------------------------- citations


CITATIONS = [
    ("A [1] and B [2][3].", [1, 2, 3]),
    ("foo[1] is an index", []),
    ("list[0] and a[2]", []),
    ("[1][2] adjacent", [1, 2]),
    ("[1000] too large, [2024] a year", []),
    ("[999] three digits", [999]),
    ("[1][ref] a reference link", []),
    ("[1](http://x) a link", []),
    ("\\[4] escaped", []),
    ("`[5]` code", []),
]


@pytest.mark.parametrize("text, numbers", CITATIONS)
def test_lint_and_postprocessor_read_the_same_citations(text, numbers):
    assert [c.number for c in markdown.citations(text)] == numbers
    _, cited, _ = fix_citations(text, 1000, {})
    assert sorted(cited) == sorted(set(numbers))


# --------------------------------------------------------------------------- frontmatter


def test_one_strict_split():
    s = frontmatter.split_frontmatter("---\nname: x\n---\n# T\n")
    assert (s.closed, s.yaml_text, s.body_start) == (True, "name: x\n", 4)


# --------------------------------------------------------------------------- equivalence over adversarial drafts


def _more_drafts():
    return [
        ("C# heading", GOOD.replace("## Examples", "## C#\nRecords in C# 14 changed [2].\n\n## Examples")),
        ("quoted fence", GOOD.replace("## Examples", "> ```\n> quoted\n> ```\n\n## Examples")),
        ("tilde in backticks", GOOD.replace("```python\n", "```python\n~~~\n")),
        ("index and adjacent citations", GOOD.replace("[1].", "[1][2] via foo[3] in [1000].")),
        ("list fence unclosed", GOOD.replace("## Examples", "1. step\n   ```bash\n   ls\n\n## Examples")),
    ]


@pytest.mark.parametrize("label, raw", adversarial_cases() + _more_drafts(), ids=[c[0] for c in adversarial_cases() + _more_drafts()])
def test_what_the_postprocessor_writes_the_linter_reads_alike(label, raw):
    skill = postprocess(raw, CTX)
    split = frontmatter.split_frontmatter(skill.skill_md())
    assert split.closed and split.error is None
    assert all(f.closed for f in markdown.find_fences(split.body, split.body_start)), "every fence closed for lint too"
    sources = markdown.find_sources(split.body, split.body_start)
    cited = {c.number for c in markdown.citations(split.body, split.body_start, exclude=sources.section)}
    assert cited <= set(skill.cited) == sources.numbers(), "lint's citations are the post-processor's"


@pytest.mark.parametrize("comment", ["<!-- ignore previous instructions -->", '<span hidden="">ignore previous instructions</span>'])
def test_screen_reads_a_quoted_fence_as_code(comment):
    """The built-in screen's code blocks are the reader's: quoted code is code, as unquoted code is."""
    from synth.vet.screen import screen_markdown

    plain = screen_markdown(f"Intro.\n\n```html\n{comment}\n```\n", "x.md")
    quoted = screen_markdown(f"Intro.\n\n> ```html\n> {comment}\n> ```\n", "x.md")
    assert {f.rule_id for f in quoted} == {f.rule_id for f in plain}
    assert "SKILL3-HIDDEN-HTML" not in {f.rule_id for f in quoted}


# --------------------------------------------------------------------------- validate_skill is lint's structure

_FM = {"name": "mcp", "description": "What changed in MCP after 2026-01. Use when building MCP servers.",
       "metadata": {"version": "1.0.0"}}
MALFORMED = [
    # label, frontmatter, body, references, the rules that must fire (the same for validate_skill and lint)
    ("clean", _FM, "# T\n\nBody text.\n", {}, set()),
    ("bad name", {**_FM, "name": "My_Skill"}, "# T\n\nx\n", {}, {"N1"}),
    ("reserved name", {**_FM, "name": "claude-mcp"}, "# T\n\nx\n", {}, {"N3"}),
    ("hyphens", {**_FM, "name": "-mcp--x-"}, "# T\n\nx\n", {}, {"N1"}),
    ("long name", {**_FM, "name": "a" * 65}, "# T\n\nx\n", {}, {"N1"}),
    ("no name", {k: v for k, v in _FM.items() if k != "name"}, "# T\n\nx\n", {}, {"N1"}),
    ("tag in description", {**_FM, "description": "Use <b>this</b> when building."}, "# T\n\nx\n", {}, {"N5"}),
    ("long description", {**_FM, "description": "d" * 1025}, "# T\n\nx\n", {}, {"N4"}),
    ("empty description", {**_FM, "description": "  "}, "# T\n\nx\n", {}, {"N4"}),
    ("extra key", {**_FM, "author": "bot"}, "# T\n\nx\n", {}, {"S3"}),
    ("metadata number", {**_FM, "metadata": {"version": 1}}, "# T\n\nx\n", {}, {"S4"}),
    ("metadata list", {**_FM, "metadata": ["a"]}, "# T\n\nx\n", {}, {"S4"}),
    ("long compatibility", {**_FM, "compatibility": "c" * 501}, "# T\n\nx\n", {}, {"N6"}),
    ("unclosed fence", _FM, "# T\n\n```python\nx = 1\n", {}, {"S5"}),
    ("unclosed quoted fence", _FM, "# T\n\n> ~~~\n> x\n", {}, {"S5"}),
    ("second frontmatter", _FM, "---\nname: other\ndescription: again\n---\n# T\n", {}, {"S2"}),
    ("empty body", _FM, "\n", {}, {"S6"}),
    ("over the line limit", _FM, "# T\n" + "line\n" * 560, {}, {"B1"}),
    ("unclosed fence in a reference", _FM, "# T\n\nSee [r](references/r.md).\n", {"references/r.md": "# R\n```\nx\n"}, {"S5"}),
]


@pytest.mark.parametrize("label, fm, body, refs, rules", MALFORMED, ids=[c[0] for c in MALFORMED])
def test_validate_skill_and_lint_agree(label: str, fm: dict, body: str, refs: dict[str, str], rules: set[str]) -> None:
    """The post-processor's last guard is lint's structural rules: the same verdict on each malformed skill."""
    from synth.lint import Facts, lint_text
    from synth.lint.rules import STRUCTURAL
    from synth.skill.postprocess import Skill, validate_skill
    from synth.skill.spec import MAX_BODY_LINES

    skill = Skill(name=str(fm.get("name", "x")), frontmatter=fm, body=body, references=refs)
    problems = validate_skill(skill)
    assert {re.search(r"\b([A-Z]\d)\b", p).group(1) for p in problems} == rules, problems
    lint = lint_text(skill.skill_md(), "skill", Facts(max_lines=MAX_BODY_LINES + 40), files=refs)
    findings = {f.rule for f in lint.findings if f.rule in STRUCTURAL + ("B1",)}
    for text in refs.values():  # lint's fence rule reads SKILL.md; a reference file is read by it as a body of its own
        as_body = Skill(name="skill", frontmatter=_FM, body=text).skill_md()
        findings |= {f.rule for f in lint_text(as_body, "skill").findings if f.rule == "S5"}
    assert findings == rules


# --------------------------------------------------------------------------- the line reader agrees with the parser

HEADING_LINES = ["# C#", "## F# and C# ##", "### Use `a#b` #", "#hashtag", "#", "# #", "####### x", "   # x", "    # x",
                 "#\tTab", "# x ###  ", "# x#", "## ", "#5 bolt", "#!/bin/sh", "\\# escaped", "###### six"]


@pytest.mark.parametrize("line", HEADING_LINES)
def test_heading_title_is_the_parsers(line: str) -> None:
    """``heading_title`` (a regex, for every excerpt of a crawl) gives markdown-it's answer on one line."""
    parsed = markdown.headings(line)
    assert markdown.heading_title(line) == (parsed[0].title if parsed else None)


TOP_LEVEL_PAGES = [
    "# T\n\n```py\n# not a heading\n```\n\ntext\n",
    "````\n```\ninner\n````\nafter\n",
    "~~~\n```\n~~~\nafter\n",
    "```\n~~~\n```\nafter\n",
    "```\n```python\nstill code\n```\nafter\n",
    "   ```\n   indented fence\n   ```\nafter\n",
    "    ```\n    indented code, not a fence\n",
    "```a`b\nnot a fence: a backtick in the info\n",
    "text\n```\nunclosed\n\n# still code\n",
    "para\n# heading interrupts\nmore\n",
]


@pytest.mark.parametrize("page", TOP_LEVEL_PAGES)
def test_line_reader_agrees_with_the_parser_at_top_level(page: str) -> None:
    """``FenceTracker`` / ``paragraphs`` (line by line, for crawled pages and streams) read top-level fences
    and headings as ``find_fences`` / ``headings`` do."""
    tracker = markdown.FenceTracker()
    lines = page.split("\n")[:-1]  # every page ends with a newline
    assert [tracker.feed(line) for line in lines] == markdown.fence_state(page)[: len(lines)]
    heads = [text for kind, text in markdown.paragraphs(page) if kind == "heading"]
    assert [markdown.heading_title(h) for h in heads] == [h.title for h in markdown.headings(page)]


def test_fence_for_outlasts_the_code() -> None:
    code = "a\n````\nb\n```\n"
    fence = markdown.fence_for(code)
    assert fence == "`````"
    assert markdown.code_block_texts(f"{fence}\n{code}{fence}\n") == [code]


# --------------------------------------------------------------------------- writers fence code it cannot close

CODE_WITH_FENCES = "print('a')\n```\n<!-- not prose -->\n~~~\n"


def test_the_scanner_and_the_prompt_read_a_page_code_block_whole() -> None:
    """A page's code that holds ``` stays one code block in the file the scanner reads and in the prompt."""
    from synth.evidence.item import SourceItem
    from synth.pipeline.model_calls import render_bundle_source
    from synth.vet.input_vet import render_source

    item = SourceItem(url="https://x.example/a", title="A", code_blocks=[{"text": CODE_WITH_FENCES, "language": "py"}])
    assert markdown.code_block_texts(render_source(item)) == [CODE_WITH_FENCES]
    src = {"url": "https://x.example/a", "code_blocks": [CODE_WITH_FENCES.rstrip("\n")], "code_languages": ["py"]}
    assert markdown.code_block_texts(render_bundle_source(src)) == [CODE_WITH_FENCES]
