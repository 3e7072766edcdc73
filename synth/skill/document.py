"""A skill folder read once for all rules: SKILL.md text, frontmatter mapping, body."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from synth.skill import frontmatter, markdown

REFUSED_PREFIX = "refused: "
MAX_FILE_BYTES = 4 * 2**20  # a SKILL.md (or a file it links) larger than this is not read: a finding, never a crash


class _UniqueKeyLoader(frontmatter.BoundedLoader):
    """The bounded SafeLoader (no anchors or aliases, bounded count and depth) that also refuses duplicate
    mapping keys (PyYAML silently keeps the last one)."""


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: set = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            duplicate = key in seen
        except TypeError:
            continue  # unhashable key: let the normal constructor report it
        if duplicate:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def parse_yaml(text: str) -> tuple[Any, str | None, int]:
    """Parse frontmatter YAML within the bounds of :func:`synth.skill.frontmatter.bounded_yaml`.
    Returns (value, error, 0-based error line within the text)."""
    try:
        return frontmatter.bounded_yaml(text, _UniqueKeyLoader), None, 0
    except frontmatter.FrontmatterRefused as exc:
        mark = exc.problem_mark
        return None, REFUSED_PREFIX + exc.problem, mark.line if mark is not None else 0
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return None, str(problem).strip(), mark.line if mark is not None else 0


@dataclass
class SkillDoc:
    """What the rules read. ``skill_md`` is None when no SKILL.md was found; ``text`` None when unreadable."""

    dir: Path
    skill_md: Path | None = None
    text: str | None = None
    read_error: str | None = None
    split: frontmatter.Split | None = None
    meta: dict | None = None  # the frontmatter when it parsed to a mapping
    yaml_error: str | None = None
    yaml_error_line: int = 0
    yaml_refused: bool = False  # the frontmatter was past a bound (alias, count, depth, size): not read
    too_large: bool = False  # SKILL.md was past MAX_FILE_BYTES: not read
    fences: list[markdown.Fence] = field(default_factory=list)

    @property
    def refused(self) -> str | None:
        """Why this skill was not read whole (a bound), for the rules that would read it again; else None."""
        if self.too_large:
            return f"SKILL.md {self.read_error}"
        if self.yaml_refused:
            return f"its frontmatter was refused ({self.yaml_error})"
        return None

    @property
    def body(self) -> str:
        return self.split.body if self.split else ""

    @property
    def body_start(self) -> int:
        return self.split.body_start if self.split else 1

    def key_line(self, key: str) -> int:
        """File line of a top-level frontmatter key (0 when not found)."""
        if not self.split or not self.split.has_frontmatter:
            return 0
        for i, line in enumerate(self.split.yaml_text.splitlines()):
            if line.startswith((f"{key}:", f'"{key}":', f"'{key}':")):
                return self.split.yaml_start + i
        return 0


def find_skill_file(folder: Path) -> Path | None:
    """SKILL.md, else the lowercase skill.md the reference validator also accepts."""
    try:
        names = set(os.listdir(folder))
    except OSError:
        return None
    for name in ("SKILL.md", "skill.md"):
        if name in names and (folder / name).is_file():
            return folder / name
    return None


def read_skill(folder: Path) -> SkillDoc:
    """Read a skill folder's SKILL.md once for all rules (an unreadable file is recorded, never raised)."""
    doc = SkillDoc(dir=folder, skill_md=find_skill_file(folder))
    if doc.skill_md is None:
        return doc
    try:
        data = read_bounded(doc.skill_md)
        if data is None:
            doc.too_large = True
            doc.read_error = f"is {doc.skill_md.stat().st_size:,} bytes, more than the {MAX_FILE_BYTES // 2**20} MiB lint reads: not read"
            return doc
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        doc.read_error = f"not UTF-8 text (byte {exc.start})"
        return doc
    except OSError as exc:
        doc.read_error = f"cannot be read: {exc.strerror or exc}"
        return doc
    return _parse(doc, text)


def read_bounded(path: Path, limit: int = MAX_FILE_BYTES) -> bytes | None:
    """The bytes of ``path``, or None when it holds more than ``limit`` (never more than ``limit + 1`` are read,
    whatever its size claims: a sparse or growing file too)."""
    with path.open("rb") as fh:
        data = fh.read(limit + 1)
    return None if len(data) > limit else data


def read_bounded_text(path: Path, limit: int = MAX_FILE_BYTES) -> str | None:
    """:func:`read_bounded` decoded as UTF-8 with replacement characters; None when too large or unreadable."""
    try:
        data = read_bounded(path, limit)
    except OSError:
        return None
    return None if data is None else data.decode("utf-8", errors="replace")


def read_text(text: str, folder: Path) -> SkillDoc:
    """A SKILL.md held in memory, read as if it were ``folder``/SKILL.md (nothing is read from disk)."""
    return _parse(SkillDoc(dir=folder, skill_md=folder / "SKILL.md"), text)


def _parse(doc: SkillDoc, text: str) -> SkillDoc:
    """Fill ``doc`` from the SKILL.md text: the frontmatter split, the parsed mapping, the body's fences."""
    doc.text = text
    doc.split = frontmatter.split_frontmatter(doc.text)
    if doc.split.closed:
        value, doc.yaml_error, doc.yaml_error_line = parse_yaml(doc.split.yaml_text)
        doc.yaml_refused = doc.yaml_error is not None and doc.yaml_error.startswith(REFUSED_PREFIX)
        if doc.yaml_error is None and isinstance(value, dict):
            doc.meta = value
    doc.fences = markdown.find_fences(doc.split.body, doc.split.body_start)
    return doc
