"""The always-loaded index of a skill's delta, in the files agents read on every turn.

An agent loads ``AGENTS.md`` / ``CLAUDE.md`` / an ``alwaysApply`` Cursor rule every time, a skill only when
it decides to; so the index is short (``MAX_BYTES``, 8 KB): a header with the topic, the cutoff, the learned
date and where the skill is, then one line per post-cutoff change (version, kind, what to use now, what not
to use), pointing at the skill's ``references/`` for details.

Formats (``FORMATS``), each written atomically into the folder ``to``:

- ``agents-md``: ``AGENTS.md``; ``claude-md``: ``CLAUDE.md``. The index is a section between
  ``<!-- skill3:begin NAME -->`` and ``<!-- skill3:end NAME -->``: a re-export replaces that section only;
  the user's own text around it is kept byte for byte; a file with an unbalanced marker is refused;
- ``cursor``: ``.cursor/rules/skill3-NAME.mdc`` (frontmatter ``description`` and ``alwaysApply: true``);
- ``llms-txt``: ``llms.txt`` (the llms.txt layout: H1, blockquote, H2 lists of links).

The last two are whole files skill3 owns (they carry ``<!-- skill3:generated NAME -->``): an existing one
without that marker is refused, never overwritten. Entry texts came from the web: they are cleaned
(markup markers and control characters removed, one line each) and an entry skill3's own screen
flags HIGH/CRITICAL is left out (counted in the message).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from synth.agents import AgentsError, no_links
from synth.agents.diff import norm
from synth.agents.runview import Entry, RunView, load
from synth.skill.markdown import fence_state

FORMATS = ("agents-md", "claude-md", "cursor", "llms-txt")
MAX_BYTES = 8 * 1024
MAX_LINE_TEXT = 200
MAX_EXISTING = 4 << 20  # an AGENTS.md/CLAUDE.md larger than this is not edited
KIND_ORDER = {"breaking": 0, "removed": 1, "deprecated": 2, "added": 3, "changed": 4, "fixed": 5, "release": 6}
_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]")
_MARKUP = re.compile(r"<!--|-->|<[/!?]?[A-Za-z][^>\n]{0,200}>")


def begin_marker(name: str) -> str:
    return f"<!-- skill3:begin {name} -->"


def end_marker(name: str) -> str:
    return f"<!-- skill3:end {name} -->"


def generated_marker(name: str) -> str:
    return f"<!-- skill3:generated {name} (re-exporting replaces this file) -->"


def clean(text: str, limit: int = MAX_LINE_TEXT) -> str:
    """One safe line: no control or invisible characters, no HTML/comment markup, at most ``limit`` characters."""
    text = " ".join(_MARKUP.sub(" ", _CTRL.sub("", text)).split())
    if len(text) > limit:
        text = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return text


# "New in 3.11:" / "Deprecated in 3.11, removed in 3.13:" at the start of a text repeats the line's own head
_LABEL = re.compile(r"^(?:added|new|changed|deprecated|removed)\s+in\s+[\w.]+(?P<removed>,\s*removed\s+in\s+[\w.]+)?\s*:\s*", re.I)
_PATCH_OR_PRE = re.compile(r"^\d+\.\d+\.(?:[1-9]\d*)|^\d+(?:\.\d+)*(?:a|b|rc|alpha|beta|dev|pre)\d*", re.I)


def entry_line(e: Entry) -> str:
    """``- **3.11 added** · asyncio: text. Use `X`, not `Y`. [references/asyncio.md]``"""
    head = " ".join(x for x in (clean(e.version, 40), e.kind) if x)
    label = _LABEL.match(e.text)
    if label and label.group("removed"):
        head += clean(label.group("removed"), 40)
    text = clean(e.text[label.end():] if label else e.text, 180)
    area = clean(e.area, 60)
    lead = f"**{head}**" + (f" · {area}" if area and area.lower() not in text.lower() else "")
    advice = ""
    if e.use and e.use not in text:
        advice += f" Use {clean(e.use, 80)}" + (f", not {clean(e.instead_of, 80)}." if e.instead_of else ".")
    elif e.instead_of and e.instead_of not in text:
        advice += f" Not {clean(e.instead_of, 80)}."
    ref = f" [{e.file}]" if e.file and e.file != "SKILL.md" else ""
    return f"- {lead}: {text}{advice}{ref}"


def select_entries(entries: list[Entry]) -> list[Entry]:
    """Distinct entries (by text), kinds in ``KIND_ORDER``; within a kind a release's own entries (``3.11``,
    ``3.11.0``) before those of its patch and pre-releases (``3.11.2``, ``3.11.0rc1``), else the delta's order."""
    seen: set[str] = set()
    out = []
    for e in entries:
        key = norm(e.text)
        if key and key not in seen:
            seen.add(key)
            out.append(e)
    return sorted(out, key=lambda e: (KIND_ORDER.get(e.kind, 9), bool(_PATCH_OR_PRE.match(e.version or ""))))


def _screened(lines: list[str]) -> tuple[list[str], int]:
    """The index lines as composed, through the same publishable-text gate as the entries they hold (a line the
    screen flags, alone or with its neighbour, is left out)."""
    from synth.vet.publish import publishable_texts

    kept = [line for line, ok in zip(lines, publishable_texts(lines)) if ok is not None]
    return kept, len(lines) - len(kept)


def _topic(view: RunView) -> str:
    """The run's topic as it may be published (the skill's name when the screen flags it)."""
    from synth.vet.publish import publishable

    return publishable(view.topic) or view.name


@dataclass
class Index:
    """The index text and what went into it."""

    text: str
    shown: int
    total: int
    flagged: int


def skill_path_for(view: RunView, to: Path, override: str | None) -> str:
    """Where the skill is, as the exported file should name it: ``override``, else relative to ``to``."""
    if override:
        return override.rstrip("/")
    try:
        rel = os.path.relpath(view.skill_dir.resolve(), to.resolve())
    except ValueError:  # another drive (Windows)
        rel = str(view.skill_dir.resolve())
    return Path(rel).as_posix()


def build_index(view: RunView, skill_path: str, *, budget: int = MAX_BYTES, heading: str = "##",
                line_of=entry_line) -> Index:
    """The markdown index within ``budget`` bytes (UTF-8), header and footer included."""
    topic = clean(_topic(view), 80)
    cutoff = clean(view.cutoff or "?", 20)
    head = [
        f"{heading} {topic}: what changed after the {cutoff} training cutoff (skill3)",
        "",
        f"Learned {clean(view.learned_date or '?', 20)} for {clean(view.target_model or 'the target model', 60)}, whose training data "
        f"ends {cutoff}; skill `{clean(view.name, 64)}` version {clean(view.version or '?', 20)}. These changes are newer than "
        f"what you remember: prefer them. Details and sources: `{skill_path}/SKILL.md` (bracketed paths are in "
        f"`{skill_path}/`).",
        "",
    ]
    entries = select_entries(view.entries())
    lines, flagged = _screened([line_of(e) for e in entries])
    flagged += view.entries_flagged
    used = len("\n".join(head).encode()) + 200  # room for the footer line and the markers
    shown: list[str] = []
    for line in lines:
        size = len(line.encode()) + 1
        if used + size > budget:
            break
        shown.append(line)
        used += size
    foot = []
    if len(shown) < len(lines):
        foot = ["", f"… {len(lines) - len(shown)} more change(s) in `{skill_path}/SKILL.md` and its `references/`."]
    if not shown:
        shown = ["- No post-cutoff change entries were found; see the skill for what it learned."]
    return Index("\n".join(head + shown + foot) + "\n", len(shown), len(lines), flagged)


# --------------------------------------------------------------------------- file formats


def _read_existing(path: Path) -> str | None:
    if path.is_symlink():
        raise AgentsError(f"{path} is a symbolic link; skill3 does not write through it (export elsewhere with --to)")
    if not path.exists():
        return None
    if not path.is_file():
        raise AgentsError(f"{path} exists and is not a file; move it away or export elsewhere with --to")
    if path.stat().st_size > MAX_EXISTING:
        raise AgentsError(f"{path} is larger than {MAX_EXISTING >> 20} MB; skill3 does not edit it")
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise AgentsError(f"{path} is not UTF-8 text; skill3 does not edit it") from None


def _marker_lines(lines: list[str], fenced: list[bool], marker: str) -> list[int]:
    """Indexes of the lines that are ``marker`` alone, outside fenced code (a fenced example quoting skill3's
    markers is the user's text, not a marker)."""
    return [i for i, (line, inside) in enumerate(zip(lines, fenced)) if not inside and line.strip() == marker]


def splice_section(existing: str | None, name: str, section: str) -> str:
    """``existing`` with skill3's section for ``name`` replaced (or appended): text outside the markers is kept
    byte for byte. The markers are lines of their own outside code fences; the file's line ends (LF or CRLF) are
    the section's too."""
    body = section.rstrip().split("\n")
    if not existing:
        return "\n".join([begin_marker(name), *body, end_marker(name)]) + "\n"
    nl = "\r\n" if existing.count("\r\n") * 2 > existing.count("\n") else "\n"
    block = nl.join([begin_marker(name), *body, end_marker(name)]) + nl
    lines = existing.split("\n")
    fenced = fence_state(existing.replace("\r\n", "\n"))
    begins = _marker_lines(lines, fenced, begin_marker(name))
    ends = _marker_lines(lines, fenced, end_marker(name))
    if not begins and not ends:
        sep = "" if existing.endswith(nl * 2) else (nl if existing.endswith("\n") else nl * 2)
        return existing + sep + block
    if len(begins) != 1 or len(ends) != 1 or begins[0] > ends[0]:
        raise AgentsError(f"skill3's markers for {name} are unbalanced in the file ({len(begins)} begin, {len(ends)} end); "
                          "fix or remove them by hand, then export again")
    start = sum(len(line) + 1 for line in lines[: begins[0]])
    end = min(sum(len(line) + 1 for line in lines[: ends[0] + 1]), len(existing))
    return existing[:start] + block + existing[end:]


def _owned_file(path: Path, name: str) -> None:
    existing = _read_existing(path)
    if existing is not None and generated_marker(name) not in existing:
        raise AgentsError(f"{path} exists and was not written by skill3 for {name}; it was left alone "
                          "(move it away or export elsewhere with --to)")


def _cursor(view: RunView, index: Index) -> str:
    desc = clean(f"What changed in {_topic(view)} after the {view.cutoff or '?'} training cutoff (skill3 index of skill {view.name})", 200)
    return (f"---\ndescription: {_yaml_str(desc)}\nglobs:\nalwaysApply: true\n---\n{generated_marker(view.name)}\n\n{index.text}")


def _yaml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _llms_line(e: Entry) -> str:
    head = " ".join(x for x in (clean(e.version, 40), e.kind) if x)
    title = clean(f"{head}: {e.text}", 120).replace("[", "(").replace("]", ")")
    url = e.url if re.match(r"^https?://[^\s<>()]+$", e.url or "") else ""
    notes = []
    if e.use:
        notes.append(f"use {clean(e.use, 80)}")
    if e.instead_of:
        notes.append(f"not {clean(e.instead_of, 80)}")
    if e.file and e.file != "SKILL.md":
        notes.append(f"details: {e.file}")
    tail = f": {'; '.join(notes)}" if notes else ""
    return f"- [{title}]({url}){tail}" if url else f"- {title}{tail}"


def _llms_txt(view: RunView, skill_path: str) -> Index:
    body = build_index(view, skill_path, budget=MAX_BYTES - 400, heading="##", line_of=_llms_line)
    # build_index's header is markdown prose; llms.txt wants an H1, a blockquote, then H2 link lists
    _, _, rest = body.text.partition("\n\n")
    summary, _, items = rest.partition("\n\n")
    text = (f"# {clean(_topic(view), 80)} after the {clean(view.cutoff or '?', 20)} cutoff\n\n> {summary.strip()}\n\n"
            f"## Changes\n\n{items.strip()}\n\n## Skill\n\n- [SKILL.md]({skill_path}/SKILL.md): the full skill, with its sources\n\n"
            f"{generated_marker(view.name)}\n")
    return Index(text, body.shown, body.total, body.flagged)


def target_file(fmt: str, to: Path, name: str) -> Path:
    return {"agents-md": to / "AGENTS.md", "claude-md": to / "CLAUDE.md",
            "cursor": to / ".cursor" / "rules" / f"skill3-{name}.mdc", "llms-txt": to / "llms.txt"}[fmt]


def export_view(view: RunView, fmt: str, to: Path, *, skill_path: str | None = None) -> tuple[Path, Index]:
    """Write the index of ``view`` in ``fmt`` into ``to``; returns (file written, index)."""
    from synth.output.writing import atomic_write_text

    if fmt not in FORMATS:
        raise AgentsError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    if to.exists() and not to.is_dir():
        raise AgentsError(f"{to} is not a folder; pass the folder the {fmt} file goes into")
    if to.is_symlink():
        raise AgentsError(f"{to} is a symbolic link; skill3 does not write through it (export into the folder itself)")
    path = target_file(fmt, to, view.name)
    no_links(to, path, "write")  # .cursor/, .cursor/rules/ or the file itself: never written through a link
    where = skill_path_for(view, to, skill_path)
    if fmt in ("agents-md", "claude-md"):
        index = build_index(view, where, budget=MAX_BYTES - len(begin_marker(view.name)) - len(end_marker(view.name)) - 4)
        text = splice_section(_read_existing(path), view.name, index.text)
    elif fmt == "cursor":
        _owned_file(path, view.name)
        index = build_index(view, where, budget=MAX_BYTES - 400)
        text = _cursor(view, index)
    else:
        _owned_file(path, view.name)
        index = _llms_txt(view, where)
        text = index.text
    no_links(to, path, "write")
    atomic_write_text(path, text)
    return path, index


def export_run(run: str | Path, fmt: str, *, to: str | Path, skill_path: str | None = None) -> str:
    """``skill3 export``: the one-line report of what was written."""
    view = load(run)
    path, index = export_view(view, fmt, Path(to), skill_path=skill_path)
    flagged = f"; {index.flagged} entr{'y' if index.flagged == 1 else 'ies'} flagged by skill3's screen left out" if index.flagged else ""
    return (f"exported {view.name} ({fmt}) to {path}: {index.shown} of {index.total} change(s) "
            f"(from {view.entries_source}), {len(index.text.encode())} bytes{flagged}")
