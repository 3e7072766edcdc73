"""The structural checks of a SKILL.md text alone (no folder, no other file, no facts): the format the
post-processor guarantees and checks before anything is written, and lint's rules S2–S6, N1, N3–N6 and B1
(:mod:`synth.lint.rules` gives each problem its catalogue severity).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

from synth.skill import frontmatter
from synth.skill.document import SkillDoc, read_text
from synth.skill.spec import MAX_COMPATIBILITY, MAX_DESCRIPTION, MAX_NAME, NAME_RE, RESERVED_WORDS, SPEC_KEYS

DEFAULT_MAX_LINES = 500  # B1's budget of body lines (lint's --max-lines)


class Problem(NamedTuple):
    """One structural problem: the lint rule it is, one line, the SKILL.md line (0: the file)."""

    rule: str
    message: str
    line: int = 0


def _short(value: object, limit: int = 80, repr_: bool = True) -> str:
    """A value for a message, at most ``limit`` characters."""
    text = repr(value) if repr_ else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _meta(doc: SkillDoc) -> dict:
    return doc.meta if doc.meta is not None else {}


def s2_frontmatter(doc: SkillDoc) -> Iterator[Problem]:
    if doc.split is None:
        return
    if doc.split.error:
        yield Problem("S2", doc.split.error, 1)
        return
    if doc.yaml_refused:
        yield Problem("S2", f"frontmatter {doc.yaml_error}", doc.split.yaml_start + doc.yaml_error_line)
    elif doc.yaml_error:
        yield Problem("S2", f"frontmatter is not valid YAML: {doc.yaml_error}", doc.split.yaml_start + doc.yaml_error_line)
    elif doc.meta is None:
        yield Problem("S2", "frontmatter must be a YAML mapping (key: value lines)", doc.split.yaml_start)
    second = frontmatter.second_frontmatter_line(doc.split.body, doc.split.body_start)
    if second:
        yield Problem("S2", "a second frontmatter block follows the first; keep exactly one", second)


def s3_keys(doc: SkillDoc) -> Iterator[Problem]:
    for key in _meta(doc):
        if key not in SPEC_KEYS:
            yield Problem("S3", f"frontmatter key {key!r} is not in the spec ({', '.join(SPEC_KEYS)}); move it under metadata",
                          doc.key_line(str(key)))


def s4_metadata(doc: SkillDoc) -> Iterator[Problem]:
    meta = _meta(doc)
    if "metadata" not in meta:
        return
    line = doc.key_line("metadata")
    value = meta["metadata"]
    if not isinstance(value, dict):
        yield Problem("S4", f"metadata must be a mapping, not {type(value).__name__}", line)
        return
    for k, v in value.items():
        if not isinstance(k, str):
            yield Problem("S4", f"metadata key {_short(k)} is {type(k).__name__}; quote it", line)
        if not isinstance(v, str):
            yield Problem("S4", f"metadata.{_short(k, 40, repr_=False)} is {type(v).__name__} {_short(v)}, not a string; quote it",
                          line)


def s5_fences(doc: SkillDoc) -> Iterator[Problem]:
    for fence in doc.fences:
        if not fence.closed:
            opener = fence.char * fence.length
            yield Problem("S5", f"code fence {opener}{fence.info} is never closed (needs a line of {opener} or longer)", fence.start)


def s6_body(doc: SkillDoc) -> Iterator[Problem]:
    if doc.split is not None and doc.split.closed and not doc.split.body.strip():
        yield Problem("S6", "the body is empty: the frontmatter says when to load the skill, the body must say what to do",
                      doc.split.body_start - 1)


def _name_characters(name: str, line: int) -> Iterator[Problem]:
    bad = sorted({c for c in name if not (c.isascii() and (c.islower() or c.isdigit() or c == "-"))})
    if bad:
        yield Problem("N1", f"name {name!r} has characters outside [a-z0-9-]: {''.join(bad)!r}", line)
    if name.startswith("-") or name.endswith("-"):
        yield Problem("N1", f"name {name!r} starts or ends with a hyphen", line)
    if "--" in name:
        yield Problem("N1", f"name {name!r} has a double hyphen", line)


def n1_name(doc: SkillDoc) -> Iterator[Problem]:
    if doc.meta is None:
        return
    line = doc.key_line("name")
    if "name" not in doc.meta:
        yield Problem("N1", "frontmatter has no name", doc.split.yaml_start if doc.split else 0)
        return
    name = doc.meta["name"]
    if not isinstance(name, str):
        yield Problem("N1", f"name must be a string, not {type(name).__name__}", line)
        return
    if not name:
        yield Problem("N1", "name is empty", line)
        return
    if len(name) > MAX_NAME:
        yield Problem("N1", f"name is {len(name)} chars; at most {MAX_NAME}", line)
    if not NAME_RE.match(name):
        yield from _name_characters(name, line)


def n3_reserved(doc: SkillDoc) -> Iterator[Problem]:
    name = _meta(doc).get("name")
    if isinstance(name, str):
        for word in RESERVED_WORDS:
            if word in name.lower():
                yield Problem("N3", f"name {name!r} contains the reserved word {word!r}", doc.key_line("name"))


def n4_description(doc: SkillDoc) -> Iterator[Problem]:
    if doc.meta is None:
        return
    line = doc.key_line("description")
    if "description" not in doc.meta:
        yield Problem("N4", "frontmatter has no description", doc.split.yaml_start if doc.split else 0)
        return
    desc = doc.meta["description"]
    if not isinstance(desc, str):
        yield Problem("N4", f"description must be a string, not {type(desc).__name__}", line)
    elif not desc.strip():
        yield Problem("N4", "description is empty", line)
    elif len(desc) > MAX_DESCRIPTION:
        yield Problem("N4", f"description is {len(desc)} chars; at most {MAX_DESCRIPTION}", line)


_XML_TAG = re.compile(r"</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>")


def n5_angle_brackets(doc: SkillDoc) -> Iterator[Problem]:
    desc = _meta(doc).get("description")
    if isinstance(desc, str) and ("<" in desc or ">" in desc):
        tag = _XML_TAG.search(desc)
        what = f"an XML tag {tag.group(0)!r}" if tag else "an angle bracket"
        yield Problem("N5", f"description contains {what}; angle brackets are not allowed", doc.key_line("description"))


def n6_compatibility(doc: SkillDoc) -> Iterator[Problem]:
    meta = _meta(doc)
    if "compatibility" not in meta:
        return
    value, line = meta["compatibility"], doc.key_line("compatibility")
    if not isinstance(value, str):
        yield Problem("N6", f"compatibility must be a string, not {type(value).__name__}", line)
    elif not value.strip():
        yield Problem("N6", "compatibility is empty; omit the key instead", line)
    elif len(value) > MAX_COMPATIBILITY:
        yield Problem("N6", f"compatibility is {len(value)} chars; at most {MAX_COMPATIBILITY}", line)


def b1_lines(doc: SkillDoc, max_lines: int = DEFAULT_MAX_LINES) -> Iterator[Problem]:
    n = len(doc.body.splitlines())
    if n > max_lines:
        yield Problem("B1", f"body is {n} lines; budget {max_lines} — move details to references/")


CHECKS: dict[str, Callable[[SkillDoc], Iterator[Problem]]] = {
    "S2": s2_frontmatter, "S3": s3_keys, "S4": s4_metadata, "S5": s5_fences, "S6": s6_body,
    "N1": n1_name, "N3": n3_reserved, "N4": n4_description, "N5": n5_angle_brackets, "N6": n6_compatibility,
}
# The rules that read the SKILL.md text alone; B1 too, with a line budget.
STRUCTURAL = tuple(CHECKS)


def structural_problems(text: str, rules: tuple[str, ...] = STRUCTURAL, max_lines: int = DEFAULT_MAX_LINES) -> list[Problem]:
    """The problems ``rules`` (the ``STRUCTURAL`` ones by default, ``B1`` with ``max_lines``) find in a SKILL.md text
    held in memory: the post-processor's last guard, the same checks ``skill3 lint`` runs."""
    doc = read_text(text, Path("skill"))
    return [p for rule in rules for p in (b1_lines(doc, max_lines) if rule == "B1" else CHECKS[rule](doc))]
