"""Reference files: a SKILL.md over the line limit moves its largest level-2 sections to ``references/``.

Each moved section leaves a stub that links it one level deep (``references/<slug>.md``).
Sections are read through ``synth.skill.markdown``. Pure functions, no I/O.
"""

from __future__ import annotations

import re

from synth.skill.markdown import level2_spans
from synth.skill.names import slugify
from synth.skill.spec import MAX_BODY_LINES

__all__ = ["split_references", "attach_delta", "SPLIT_TARGET_LINES", "INDEX_TITLE"]

SPLIT_TARGET_LINES = 450


def split_references(body: str) -> tuple[str, dict[str, str], list[str]]:
    """Move the largest level-2 sections into ``references/`` until SKILL.md is under the line limit.

    Sections are read once: moving one (its content becomes a four-line stub) changes no other
    section's extent, so the largest remaining one is chosen from the same list each time.
    """
    lines = body.split("\n")
    if len(lines) <= MAX_BODY_LINES - 20:
        return body, {}, []
    keep_first = re.compile(r"^(overview|when to use|sources)\b", re.I)
    refs: dict[str, str] = {}
    fixes: list[str] = []
    sections = [s for s in level2_spans(body) if not _is_stub(lines, s)]
    moved: dict[int, list[str]] = {}  # start line -> the stub that replaces the section
    total = len(lines)
    for pass_keep in (re.compile(r"^(overview|when to use|sources|instructions)\b", re.I), keep_first):
        while total > SPLIT_TARGET_LINES:
            movable = [s for s in sections if s[0] not in moved and not pass_keep.search(s[2])]
            if not movable:
                break
            start, end, title = max(movable, key=lambda s: s[1] - s[0])
            slug = slugify(title) or f"section-{len(refs) + 1}"
            path = f"references/{slug}.md"
            k = 2
            while path in refs:
                path = f"references/{slug}-{k}.md"
                k += 1
            content = "\n".join(lines[start + 1 : end]).strip("\n")
            refs[path] = f"# {title}\n\n{content}\n"
            moved[start] = [lines[start], "", f"Details: [{title}]({path}).", ""]
            total += 4 - (end - start)
            fixes.append(f"moved section '{title}' to {path} (SKILL.md over {MAX_BODY_LINES} lines)")
    for start, end, _title in sorted(sections, reverse=True):
        if start in moved:
            lines[start:end] = moved[start]
    return "\n".join(lines), refs, fixes


def _is_stub(lines: list[str], s: tuple[int, int, str]) -> bool:
    """Whether the section already is a stub linking a reference file (a second run never moves it again)."""
    return any(l.startswith("Details: [") and "(references/" in l for l in lines[s[0] : s[1]])


INDEX_TITLE = "Reference files"
_INDEX_SECTION = re.compile(rf"^{INDEX_TITLE}\b", re.I)


def attach_delta(body: str, refs: dict[str, str], delta_refs: dict[str, str], index: list[str]) -> tuple[str, dict[str, str], list[str]]:
    """Add the delta's reference files (written deterministically) and SKILL.md's index of them.

    The index section is always the generator's: a model-written "Reference files" section is replaced, so
    every reference file is named in SKILL.md and every file SKILL.md's index names exists. A section the
    size split moved under a delta file's name is renamed.
    """
    from synth.skill.sources import remove_section

    fixes: list[str] = []
    merged = dict(delta_refs)
    for path, text in refs.items():
        new = path
        k = 2
        while new in merged:
            new = f"{path[:-3]}-{k}.md"
            k += 1
        if new != path:
            body = body.replace(f"]({path})", f"]({new})")
        merged[new] = text
    body, removed = remove_section(body, _INDEX_SECTION)
    if removed:
        fixes.append("replaced the draft's Reference files section with the generator's index")
    if index:
        body = f"{body.rstrip()}\n\n## {INDEX_TITLE}\n\n" + "\n".join(index) + "\n"
    return body, merged, fixes
