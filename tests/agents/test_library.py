"""synth.agents.library: blocks, search across skills, resolve, the token budget (pure logic over run folders)."""

from __future__ import annotations

import pytest

from synth.agents.library import blocks, budgeted, resolve, search_skills
from synth.agents.runview import load
from synth.skill.size import estimate_tokens
from tests.agents.fixtures import entry, make_run

U = "https://lib.example/notes"

BODY = """## Instructions

- `lib.run()` takes a timeout now (since 4.2) [1]
- Plain paragraph without a version.

## 4.3 (released 2026-05-01)

- `lib.fast()` replaces `lib.slow()`. ([notes](https://lib.example/4.3#fast))

```python
lib.fast()  # 4.9 in a comment is code, not a heading
```

## Sources

- [1] Notes — https://lib.example/notes
"""


@pytest.fixture
def view(tmp_path):
    make_run(tmp_path / "lib", name="lib", topic="lib", entries=[entry("4.2", "changed", "`lib.run()` takes a timeout now.", U)],
             body=BODY, used_sources=[U])
    return load(tmp_path / "lib")


def test_blocks_carry_heading_version_and_citations(view):
    got = [(b.heading, b.text.split("\n")[0][:20], b.version, b.citations) for b in blocks(view)]
    assert got == [
        ("Instructions", "- `lib.run()` takes ", "4.2", ((1, U),)),
        ("Instructions", "- Plain paragraph wi", None, ()),
        ("4.3 (released 2026-05-01)", "- `lib.fast()` repla", "4.3", ((None, "https://lib.example/4.3#fast"),)),
        ("4.3 (released 2026-05-01)", "```python", "4.3", ()),
    ]  # the Sources section is not a block; a code block is one of its own


@pytest.mark.parametrize("query, first_text, version", [
    ("timeout run", "`lib.run()`", "4.2"),
    ("fast slow", "`lib.fast()`", "4.3"),
    ("4.3", "`lib.fast()`", "4.3"),  # a version in the query matches that version's blocks
])
def test_search_ranks_blocks(view, query, first_text, version):
    first = search_skills([view], query)["results"][0]
    assert first_text in first["snippet"] and first["version"] == version and first["uri"].startswith("skill://lib/")


def test_nothing_matches_nothing(view):
    assert search_skills([view], "kubernetes")["results"] == []
    assert resolve([view], "kubernetes")["matches"] == []


@pytest.mark.parametrize("tokens", [500, 600, 1000, 5000])
def test_the_budget_is_never_exceeded(view, tokens):
    view.references["references/big.md"] = "# Big\n\n" + "word " * 20_000
    got = budgeted(view, tokens)
    assert got["tokens"] <= tokens and estimate_tokens(got["text"]) == got["tokens"]
