"""Skill folders built from tables: a clean baseline and small edits of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from synth.lint import Facts, StaleConstruct

SOURCE_URL = "https://demo.example/releases/2.0"

BASE_FRONTMATTER = """\
name: demo-skill
description: Current usage of the Demo API after its 2.0 release. Use when writing code against the Demo API.
license: Apache-2.0
compatibility: Python 3.11+
metadata:
  version: "1.0.0"
allowed-tools: Read Bash(git status:*)
"""

BASE_BODY = f"""\
# Demo

## When to use
Writing or reviewing code that calls the Demo API.

## Instructions
1. Create clients with `demo.new()` [1]. Details: [API notes](references/api.md#clients).
2. File bugs through the `github` MCP server: call mcp__github__create_issue.
3. Official site: <https://demo.example/> and [home](https://demo.example/#top), or jump to [Examples](#examples).

## Modern vs deprecated
| Deprecated | Modern |
|---|---|
| `demo.old()` | `demo.new()` [1] |

## Examples
```python
client = demo.new()
```

## Sources
[1] Demo 2.0 release notes — {SOURCE_URL}
"""

BASE_FILES = {"references/api.md": "# API notes\n\n## Clients\nUse `demo.new()`.\n"}


def write_skill(
    root: Path,
    *,
    folder: str = "demo-skill",
    frontmatter: str | None = BASE_FRONTMATTER,
    body: str = BASE_BODY,
    raw: str | bytes | None = None,
    files: dict[str, str] | None = None,
    skill_file: str | None = "SKILL.md",
) -> Path:
    """Write a skill folder; ``raw`` replaces the whole SKILL.md, ``frontmatter=None`` omits it."""
    skill = root / folder
    skill.mkdir(parents=True)
    if skill_file:
        if raw is None:
            raw = (f"---\n{frontmatter}---\n" if frontmatter is not None else "") + body
        path = skill / skill_file
        path.write_bytes(raw if isinstance(raw, bytes) else raw.encode("utf-8"))
    for rel, text in {**BASE_FILES, **(files or {})}.items():
        (skill / rel).parent.mkdir(parents=True, exist_ok=True)
        (skill / rel).write_text(text, encoding="utf-8")
    return skill


def full_facts(catalogue: Path) -> Facts:
    return Facts(
        used_sources=frozenset({SOURCE_URL}),
        stale=(StaleConstruct(r"demo\.old\(", "demo.old()", "demo.new()"),),
        tools=frozenset({"Read", "Bash", "Write"}),
        mcp={"github": frozenset({"create_issue"})},
        catalogue=catalogue,
    )


@pytest.fixture
def catalogue(tmp_path: Path) -> Path:
    cat = tmp_path / "catalogue"
    write_skill(
        cat,
        folder="other-skill",
        frontmatter="name: other-skill\ndescription: Spreadsheet formulas and charts. Use when editing xlsx files.\n",
        body="# Other\nDo things.\n",
    )
    return cat
