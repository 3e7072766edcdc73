"""Table tests for the pure SKILL.md helpers."""

import pytest

from synth.skill import frontmatter, markdown, size


@pytest.mark.parametrize(
    "text, has, closed, yaml_text, body, body_start",
    [
        ("---\nname: a\n---\nbody\n", True, True, "name: a\n", "body\n", 4),
        ("\ufeff---\nname: a\n---\n", True, True, "name: a\n", "", 4),
        ("---\nname: a\n...\nx\n", True, True, "name: a\n", "x\n", 4),
        ("---\nname: a\nbody\n", True, False, "name: a\nbody\n", "", 4),
        ("# title\n---\n", False, False, "", "# title\n---\n", 1),
        ("", False, False, "", "", 1),
    ],
)
def test_split_frontmatter(text, has, closed, yaml_text, body, body_start):
    s = frontmatter.split_frontmatter(text)
    assert (s.has_frontmatter, s.closed, s.yaml_text, s.body, s.body_start) == (has, closed, yaml_text, body, body_start)
    assert (s.error is None) == closed


@pytest.mark.parametrize(
    "body, expected",
    [
        ("\n---\nname: x\n---\n", 6),
        ("---\n\nsome text\n---\n", None),  # thematic breaks around prose
        ("text\n---\nname: x\n---\n", None),
        ("", None),
    ],
)
def test_second_frontmatter_line(body, expected):
    assert frontmatter.second_frontmatter_line(body, first_line=5) == expected


@pytest.mark.parametrize(
    "text, spans",
    [
        ("```py\nx\n```\n", [(1, 3)]),
        ("~~~\nx\n~~~\n", [(1, 3)]),
        ("````md\n```\ninner\n```\n````\n", [(1, 5)]),  # longer fence holds a shorter one
        ("```\nx\n~~~\n", [(1, None)]),  # other character does not close
        ("````\nx\n```\n", [(1, None)]),  # shorter fence does not close
        ("```\nx\n``` not a closer\n", [(1, None)]),  # closer carries no info string
        ("```a``` inline\ntext\n", []),  # backtick info containing a backtick: not a fence
        ("~~~ `ok`\nx\n~~~~~\n", [(1, 3)]),  # tilde info may contain backticks; longer closer ok
        ("1. step\n   ```bash\n   ls\n   ```\n", [(2, 4)]),  # inside a list item
        ("> ```\n> x\n> ```\n", [(1, 3)]),  # inside a block quote
        ("```\n        ```\n```\n", [(1, 3)]),  # an over-indented closer is content
        ("``\nx\n", []),
        ("```\na\n```\n```\nb\n", [(1, 3), (4, None)]),
        ("para\n\n    ```\n    x\n", []),  # indented four columns: an indented code block, not a fence
        ("> ```\n> x\n\nafter\n", [(1, None)]),  # unclosed in a quote: ends with the quote, still unclosed
        ("- a\n  ```\n  x\n  ```\n", [(2, 4)]),  # list item content indentation
    ],
)
def test_find_fences(text, spans):
    assert [(f.start, f.end) for f in markdown.find_fences(text)] == spans


def test_fence_language_and_offsets():
    (f,) = markdown.find_fences("```python title=x\n```\n", first_line=10)
    assert (f.start, f.end, f.language, f.closed) == (10, 11, "python", True)


def test_headings_skip_fences():
    text = "# A\n```\n# not\n```\n## B ##\n"
    assert [(h.level, h.title, h.line) for h in markdown.headings(text)] == [(1, "A", 1), (2, "B", 5)]


def test_find_section_ends_at_same_level():
    text = "## Modern vs deprecated\nx\n### sub\ny\n## Next\nz\n"
    s = markdown.find_section(text, r"modern\s+vs", first_line=3)
    assert (s.start, s.end) == (3, 6)
    assert markdown.find_section(text, "absent") is None


def test_find_sections_all_matches():
    text = "## Deprecated A\nx\n## Keep\ny\n# Deprecated B\nz\n"
    assert [(s.start, s.end) for s in markdown.find_sections(text, "deprecated")] == [(1, 2), (5, 6)]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("see [doc](references/a.md) and ![i](assets/x.png \"t\")", [("references/a.md", False), ("assets/x.png", True)]),
        ("`[x](no.md)` [y](<sp ace.md>)", [("sp ace.md", False)]),
        ("[1]: https://e.org/x", [("https://e.org/x", False)]),
        ("```\n[x](in-fence.md)\n```", []),
    ],
)
def test_links(text, expected):
    assert [(ln.target, ln.image) for ln in markdown.links(text)] == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("A [1] and B [2][3].", [1, 2, 3]),
        ("many [1, 4; 5]", [1, 4, 5]),
        ("link [1](http://x) def\n[2]: http://y", []),
        ("code `a[0]` and `[7]`, list[0] x", []),  # an index glued to a word is no citation
        ("\\[9] escaped", []),
        ("foo[1] and [1000], [2024]", []),  # an index, too many digits
        ("[1][ref] reference link, [2][3]", [2, 3]),
        ("```\n[5]\n```", []),
    ],
)
def test_citations(text, expected):
    assert [c.number for c in markdown.citations(text)] == expected


def test_citations_exclude_sources_section():
    body = "Claim [1].\n\n## Sources\n[1] https://a.example/x\n"
    src = markdown.find_sources(body)
    assert [c.number for c in markdown.citations(body, exclude=src.section)] == [1]


def test_find_sources_entry_styles():
    body = (
        "## Sources\n"
        "[1] Spec — https://spec.example/v2.\n"
        "- [2] [Blog](https://blog.example/p)\n"
        "3. https://three.example/a_b\n"
        "[4]: <https://four.example/>\n"
        "- https://unnumbered.example/\n"
        "```\n[9] in fence https://no.example\n```\n"
        "## After\n[8] https://after.example\n"
    )
    src = markdown.find_sources(body, first_line=20)
    got = [(e.number, e.url, e.line) for e in src.entries]
    assert got == [
        (1, "https://spec.example/v2", 21),
        (2, "https://blog.example/p", 22),
        (3, "https://three.example/a_b", 23),
        (4, "https://four.example/", 24),
        (None, "https://unnumbered.example/", 25),
    ]
    assert src.numbers() == {1, 2, 3, 4}
    assert markdown.find_sources("## Resources\n[1] x\n") is None


@pytest.mark.parametrize(
    "text, tokens",
    [("", 0), ("the cat", 2), ("tokenization", 4), ("a.b()", 2), ("x" * 400, 115), ("abcdefg", 2), ("x" * 3500, 1000)],
)
def test_estimate_tokens(text: str, tokens: int) -> None:
    assert size.estimate_tokens(text) == tokens


@pytest.mark.parametrize(
    "text, expected",
    [
        ("https://en.wikipedia.org/wiki/Mercury_(planet)", ["https://en.wikipedia.org/wiki/Mercury_(planet)"]),
        ("(see https://en.wikipedia.org/wiki/Mercury_(planet)).", ["https://en.wikipedia.org/wiki/Mercury_(planet)"]),
        ("(see https://x.example/a).", ["https://x.example/a"]),
        ("https://x.example/a_(b)_(c), then", ["https://x.example/a_(b)_(c)"]),
        ("**https://x.example/bold**", ["https://x.example/bold"]),
        ("https://x.example/open(", ["https://x.example/open("]),
        ("https:// nothing", []),
    ],
)
def test_find_urls_keeps_balanced_parentheses(text, expected):
    assert markdown.find_urls(text) == expected


def test_sources_and_links_keep_parenthesised_urls():
    url = "https://en.wikipedia.org/wiki/Mercury_(planet)"
    body = f"## Sources\n\n- [1] Mercury (planet) — {url} (2026-05-01)\n- [2] [Mercury]({url})\n3. <{url}>\n"
    assert markdown.find_sources(body).urls() == [url, url, url]
    assert [ln.target for ln in markdown.links(f"[a]({url}) and [b](https://x.example/c \"t\")")] == [url, "https://x.example/c"]
