"""The frontmatter of a SKILL.md: a strict split with line numbers (lint) and a lenient recovery (post-processor).

``split_frontmatter`` never parses YAML and never fails: it reports where the
block is and what is wrong with it. ``read_frontmatter`` repairs a model's draft
and returns the parsed mapping with the fixes it made.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

from synth.core.errors import (
    FrontmatterRefused,  # noqa: F401 - defined with every error (synth.core.errors)
    )

__all__ = ["Split", "split_frontmatter", "second_frontmatter_line", "read_frontmatter", "YAMLISH", "BoundedLoader",
           "FrontmatterRefused", "MAX_FRONTMATTER_BYTES", "MAX_FRONTMATTER_NODES", "MAX_FRONTMATTER_DEPTH"]

_DELIM = "---"

# Frontmatter is a handful of short keys: these bounds are far past any real one, and keep a hostile one
# (a 1 KB "billion laughs" of aliases, 100,000 keys, 100,000 nested lists) from costing gigabytes or minutes.
MAX_FRONTMATTER_BYTES = 64 * 1024
MAX_FRONTMATTER_NODES = 1_000  # keys, values and list items together
MAX_FRONTMATTER_DEPTH = 20


class BoundedLoader(yaml.SafeLoader):
    """PyYAML's SafeLoader that refuses anchors and aliases (so nothing is ever expanded) and stops past
    :data:`MAX_FRONTMATTER_NODES` nodes or :data:`MAX_FRONTMATTER_DEPTH` levels, as the nodes are composed."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._nodes = 0
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node | None:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            kind = "alias" if isinstance(event, yaml.AliasEvent) else "anchor"
            sign = "*" if kind == "alias" else "&"
            raise FrontmatterRefused(f"a YAML {kind} ({sign}{event.anchor}) is not allowed in frontmatter: write the value out",
                                     event.start_mark)
        self._nodes += 1
        if self._nodes > MAX_FRONTMATTER_NODES:
            raise FrontmatterRefused(f"more than {MAX_FRONTMATTER_NODES:,} keys and values; not read", event.start_mark)
        self._depth += 1
        try:
            if self._depth > MAX_FRONTMATTER_DEPTH:
                raise FrontmatterRefused(f"nested more than {MAX_FRONTMATTER_DEPTH} levels deep; not read", event.start_mark)
            return super().compose_node(parent, index)  # type: ignore[arg-type]
        finally:
            self._depth -= 1


def bounded_yaml(text: str, loader: type[BoundedLoader] = BoundedLoader) -> object:
    """Parse frontmatter YAML within the bounds (raises :class:`FrontmatterRefused` or another ``YAMLError``)."""
    size = len(text.encode("utf-8", errors="replace"))
    if size > MAX_FRONTMATTER_BYTES:
        raise FrontmatterRefused(f"{size:,} bytes, more than {MAX_FRONTMATTER_BYTES // 1024} KiB; not read")
    try:
        return yaml.load(text, Loader=loader)  # noqa: S506 - a SafeLoader subclass
    except RecursionError:  # flow collections nest in the parser itself, before compose_node
        raise FrontmatterRefused(f"nested more than {MAX_FRONTMATTER_DEPTH} levels deep; not read") from None


# --------------------------------------------------------------------------- frontmatter


@dataclass(frozen=True)
class Split:
    """SKILL.md cut into frontmatter and body.

    ``has_frontmatter``: the file starts with a ``---`` line. ``closed``: a
    closing ``---`` (or ``...``) line was found. ``yaml_text``: the raw text
    between the delimiters ("" when absent). ``yaml_start``: file line of the
    first YAML line (0 when absent). ``body_start``: file line where the body
    begins. ``error``: why the frontmatter is unusable, or None.
    """

    has_frontmatter: bool
    closed: bool
    yaml_text: str
    body: str
    yaml_start: int
    body_start: int
    error: str | None = None


def split_frontmatter(text: str) -> Split:
    """Split a SKILL.md into its YAML frontmatter and markdown body (no YAML parsing)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != _DELIM:
        return Split(False, False, "", text, 0, 1, "SKILL.md does not start with a '---' frontmatter line")
    for i in range(1, len(lines)):
        if lines[i].rstrip() in (_DELIM, "..."):
            return Split(True, True, "".join(lines[1:i]), "".join(lines[i + 1 :]), 2, i + 2)
    return Split(True, False, "".join(lines[1:]), "", 2, len(lines) + 1, "frontmatter is not closed with a '---' line")


YAMLISH = re.compile(r"^[A-Za-z_][\w-]*[ \t]*:")


def second_frontmatter_line(body: str, first_line: int = 1) -> int | None:
    """Line of a second frontmatter block at the top of the body, or None.

    A body whose first non-blank line is ``---`` followed by ``key:`` lines and
    another ``---`` is a duplicated header (a common model failure), not a
    thematic break.
    """
    lines = body.splitlines()
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i >= len(lines) or lines[i].rstrip() != _DELIM:
        return None
    for j in range(i + 1, len(lines)):
        if lines[j].rstrip() in (_DELIM, "..."):
            inner = [ln for ln in lines[i + 1 : j] if ln.strip()]
            if inner and YAMLISH.match(inner[0]):
                return first_line + i
            return None
    return None


def _unclosed_end(lines: list[str]) -> int:
    """Where an unclosed block ends: after the YAML-looking lines at the top (a blank line followed by
    something that is not YAML ends it)."""
    end = 1
    while end < len(lines) and (YAMLISH.match(lines[end]) or lines[end].startswith((" ", "\t")) or not lines[end].strip()):
        if not lines[end].strip() and end + 1 < len(lines) and not YAMLISH.match(lines[end + 1]):
            break
        end += 1
    return end


def _lenient_yaml(yaml_lines: list[str], fixes: list[str]) -> dict:
    """The block as YAML; when it is not a valid YAML mapping, the ``name``/``description``/``compatibility``
    lines read one by one."""
    yaml_text = "\n".join(yaml_lines)
    data: object
    try:
        data = bounded_yaml(yaml_text) if yaml_text.strip() else {}
    except yaml.YAMLError:
        data = None
    if isinstance(data, dict):
        return data
    recovered = {}
    for line in yaml_lines:
        m = re.match(r"^(name|description|compatibility)\s*:\s*(.*)$", line)
        if m:
            recovered[m.group(1)] = m.group(2).strip().strip("'\"")
    fixes.append("frontmatter was not valid YAML: recovered name/description line by line")
    return recovered


def read_frontmatter(text: str) -> tuple[dict, str, list[str]]:
    """Lenient recovery: (frontmatter mapping, body, fixes) from a model's draft.

    A leading rule that is no frontmatter is dropped, an unclosed block ends at the last
    YAML-looking line, invalid YAML falls back to reading ``key: value`` lines.
    """
    fixes: list[str] = []
    lines = text.split("\n")
    first_content = next((l for l in lines[1:] if l.strip()), "")
    if lines and lines[0].strip() == "---" and not YAMLISH.match(first_content):
        lines = lines[1:]  # a horizontal rule, not a frontmatter block
        text = "\n".join(lines)
        fixes.append("removed a leading horizontal rule")
    if not lines or lines[0].strip() != "---":
        if text.strip():
            fixes.append("added a frontmatter block (the draft had none)")
        return {}, text, fixes
    end = next((k for k in range(1, min(len(lines), 200)) if lines[k].strip() in ("---", "...")), None)
    if end is None:  # unclosed: the YAML-looking lines at the top are the frontmatter
        end = _unclosed_end(lines)
        yaml_lines, body = lines[1:end], "\n".join(lines[end:])
        fixes.append("closed an unterminated frontmatter block")
    else:
        yaml_lines, body = lines[1:end], "\n".join(lines[end + 1 :])
    return _lenient_yaml(yaml_lines, fixes), body, fixes
