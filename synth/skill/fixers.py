"""The post-processor's deterministic fixers: each takes text and returns the fixed text and what it fixed.

Recovery of the skill from a reply (reasoning blocks, preambles, a fence around the
whole skill), closing fences, dropping echoed prompt scaffolding, empty blocks, loops and
closing chatter, a second frontmatter block, ``---`` rules, a missing title, and the
description (cleaned, or derived from the body). The structure (fences, headings,
sections) is read through ``synth.skill.markdown``. Pure functions, no I/O.
"""

from __future__ import annotations

import re

from synth.skill.frontmatter import YAMLISH as _YAMLISH
from synth.skill.markdown import CITATION as _CITE
from synth.skill.markdown import fence_marker, fence_state, find_fences, heading_index, looks_like_heading, section_span
from synth.skill.names import display_topic, slugify
from synth.skill.spec import FOOTER_PREFIX, MAX_DESCRIPTION

_TAG = re.compile(r"</?[A-Za-z][^<>]*>|<!--.*?-->", re.S)
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_PLACEHOLDER_DESC = re.compile(
    r"^(?:<?\s*what it does|todo|tbd|description|n/?a|none|null|placeholder|a skill|skill description|\.\.\.|…)\b", re.I
)


# --------------------------------------------------------------------------- description


def _plain(text: str) -> str:
    """One line of plain text from markdown: code, links, citations and emphasis markers removed."""
    text = re.sub(r"`([^`]*)`", r"\1", text)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\s*" + _CITE.pattern, "", text)
    text = re.sub(r"[*_]{1,3}([^*_]+)[*_]{1,3}", r"\1", text)
    return clean_text(text)


_RULE_DASHES = re.compile(r"-{3,}")


def frontmatter_safe(text: str) -> str:
    """``text`` without a run of three hyphens: the Agent Skills reference parser ends the frontmatter at the
    first ``---`` anywhere in the file, even inside a value (a page heading ``# ---`` would cut it)."""
    return _RULE_DASHES.sub("—", text) if "---" in text else text


def clean_text(text: str) -> str:
    """No XML/HTML tags, no angle brackets, no ``---`` (:func:`frontmatter_safe`), one line."""
    text = _TAG.sub(" ", str(text))
    text = text.replace("<", " ").replace(">", " ")
    return frontmatter_safe(" ".join(text.split()).strip(" \"'"))


def truncate(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters: at a sentence end in the second half, else at a word with '…'."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    sentence_end = max(cut.rfind(". "), cut.rfind("! "), cut.rfind("? "))
    if sentence_end >= limit // 2:
        return cut[: sentence_end + 1]
    return cut[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def is_degenerate_description(desc: str, name: str, topic: str) -> bool:
    """A placeholder, the name or topic restated, a template or under 20 characters."""
    d = desc.strip().lower().rstrip(".")
    return (
        len(d) < 20
        or bool(_PLACEHOLDER_DESC.match(d))
        or d in (name.lower(), topic.lower(), slugify(topic))
        or "{" in d
    )


def derive_description(body: str, topic: str, cutoff: str) -> str:
    """Overview's first sentences + a when-to-use clause; always non-empty."""
    topic = topic.strip() or "this topic"
    sentences: list[str] = []
    section = _section_text(body, re.compile(r"overview|when to use|summary", re.I)) or _first_prose(body)
    for para in (section or "").split("\n\n"):
        if para.lstrip().startswith(("#", "```", "~~~", "|")):
            continue
        for s in re.split(r"(?<=[.!?])\s+", _plain(para)):
            if len(s) >= 25:
                sentences.append(s if s.endswith((".", "!", "?")) else s + ".")
            if len(" ".join(sentences)) > 300:
                break
        if sentences:
            break
    lead = " ".join(sentences[:2]) or f"What changed in {topic} after the {cutoff} training cutoff, compiled from fresh sources."
    when = f" Use when working with {topic} features, APIs or changes published after {cutoff}."
    return truncate(clean_text(truncate(lead, MAX_DESCRIPTION - len(when)) + when), MAX_DESCRIPTION)


def _first_prose(body: str) -> str:
    """The body's first paragraph of prose (no heading, list, table, quote or code)."""
    out: list[str] = []
    heads = heading_index(body)
    for i, (line, fenced) in enumerate(_lines_with_fence_state(body)):
        if fenced or i in heads or line.lstrip().startswith(("-", "*", "|", ">")):
            if out:
                break
            continue
        if line.strip():
            out.append(line.strip())
        elif out:
            break
    return " ".join(out)


# --------------------------------------------------------------------------- text structure


def _lines_with_fence_state(body: str) -> list[tuple[str, bool]]:
    """(line, inside_or_on_fence) pairs, one per ``body.split("\\n")`` line."""
    return list(zip(body.split("\n"), fence_state(body)))


def _section_text(body: str, title: re.Pattern) -> str | None:
    """The content of the first section whose heading matches ``title`` (heading line excluded), or None."""
    lines = body.split("\n")
    b = section_span(body, title)
    return "\n".join(lines[b[0] + 1 : b[1]]).strip() if b else None


def close_fences(body: str) -> tuple[str, list[str]]:
    """Close every unclosed fence: before the next heading-looking line when one follows, else at its end."""
    fixes: list[str] = []
    lines = body.split("\n")
    for _ in range(100):
        fence = next((f for f in find_fences("\n".join(lines)) if not f.closed), None)
        if fence is None:
            break
        open_at, stop = fence.start - 1, min(fence.last, len(lines))
        insert = stop
        for j in range(open_at + 1, stop):
            if looks_like_heading(lines[j]):
                insert = j
                break
        while insert > open_at + 1 and not lines[insert - 1].strip():
            insert -= 1
        lines.insert(insert, fence.closing_line())
        fixes.append(f"closed the code fence opened on body line {open_at + 1}")
    return "\n".join(lines), fixes


# --------------------------------------------------------------------------- recovery


def recover_skill_text(text: str) -> tuple[str, list[str]]:
    """Strip reasoning blocks, chatty preambles and a code fence wrapped around the whole skill."""
    fixes: list[str] = []
    text = (text or "").replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    if _THINK.search(text):
        text = _THINK.sub("", text)
        fixes.append("removed reasoning blocks")
    text = text.strip("\n")
    lines = text.split("\n")
    if lines and lines[0].strip() == "---":
        return text, fixes
    # A skill wrapped in a fence: an opener whose next non-blank line is '---'.
    for i, line in enumerate(lines):
        m = fence_marker(line)
        if not m or m[1].lower() not in ("", "markdown", "md", "yaml", "skill", "skill.md", "text"):
            continue
        nxt = next((k for k in range(i + 1, len(lines)) if lines[k].strip()), None)
        if nxt is None or lines[nxt].strip() != "---":
            continue
        fence = m[0]
        end = None
        for k in range(len(lines) - 1, nxt, -1):
            if lines[k].strip() and set(lines[k].strip()) == {fence[0]} and len(lines[k].strip()) >= len(fence):
                end = k
                break
        inner = lines[nxt : end if end is not None else len(lines)]
        fixes.append("unwrapped a skill the model put inside a code fence" + (" after a preamble" if i else ""))
        return "\n".join(inner).strip("\n"), fixes
    # Chatter before the frontmatter: a '---' line followed by a key line.
    for i, line in enumerate(lines):
        if line.strip() == "---" and i + 1 < len(lines) and re.match(r"^(name|description)\s*:", lines[i + 1]):
            fixes.append("removed text before the frontmatter")
            return "\n".join(lines[i:]), fixes
    return text, fixes


_CHATTER = re.compile(
    r"^(?:i hope|hope (?:this|that)|let me know|feel free|is there anything|if you (?:have|need|want)|"
    r"happy to help|good luck|enjoy|would you like|do you want|this skill (?:should|will) help)\b",
    re.I,
)


def strip_trailing_chatter(body: str) -> tuple[str, list[str]]:
    """Drop closing pleasantries the model appended after the skill (outside fences)."""
    lines = body.rstrip().split("\n")
    fenced = [f for _l, f in _lines_with_fence_state("\n".join(lines))]
    removed = False
    while lines:
        i = len(lines) - 1
        if not lines[i].strip():
            lines.pop()
            continue
        if not fenced[i] and _CHATTER.match(lines[i].strip().lstrip("*_> ")):
            lines.pop()
            removed = True
            continue
        break
    return "\n".join(lines), (["removed closing chatter after the skill"] if removed else [])


_EMPTY_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s*$")
MAX_REPEAT = 2


_SCAFFOLD = re.compile(
    r"<<<\s*(?:END\s+)?(?:SOURCE|DRAFT)\b[^\n]*?>>>|^\s*(?:Write the SKILL\.md now\.|Output the corrected SKILL\.md\.|"
    r"SOURCES \((?:quoted pages|condensed notes)[^)]*\):|Today is \d{4}-\d{2}-\d{2}\. Topic: .*)\s*$",
    re.I,
)


def remove_scaffolding(body: str) -> tuple[str, list[str]]:
    """Remove prompt scaffolding a model echoed back: source/draft markers and the prompt's own instruction lines."""
    out, n = [], 0
    for line, _fenced in _lines_with_fence_state(body):
        if _SCAFFOLD.search(line):
            n += 1
            continue
        out.append(line)
    return "\n".join(out), ([f"removed {n} line(s) of echoed prompt scaffolding"] if n else [])


def drop_empty_fences(body: str) -> tuple[str, list[str]]:
    """Remove code blocks with nothing inside."""
    empty = [f for f in find_fences(body) if f.end is not None and f.end == f.start + 1]
    drop = {n - 1 for f in empty for n in (f.start, f.start + 1)}  # an empty block: its end is the next line
    lines = [line for i, line in enumerate(body.split("\n")) if i not in drop]
    return "\n".join(lines), ([f"removed {len(empty)} empty code block(s)"] if empty else [])


def drop_degenerate_lines(body: str) -> tuple[str, list[str]]:
    """Remove empty list items and collapse runs of identical lines (a small model's loops), outside fences."""
    out: list[str] = []
    empty = repeated = 0
    run = 0
    for line, fenced in _lines_with_fence_state(body):
        if not fenced and _EMPTY_ITEM.match(line):
            empty += 1
            continue
        if not fenced and line.strip() and out and line == out[-1]:
            run += 1
            if run >= MAX_REPEAT:
                repeated += 1
                continue
        else:
            run = 0
        out.append(line)
    out, looped = _collapse_periodic(out)
    repeated += looped
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(out))
    fixes = []
    if empty:
        fixes.append(f"removed {empty} empty list item(s)")
    if repeated:
        fixes.append(f"removed {repeated} repeated line(s)")
    return text, fixes


MAX_PERIOD = 8


def _collapse_periodic(lines: list[str]) -> tuple[list[str], int]:
    """Keep one copy of a block of 2..8 lines that repeats three or more times in a row (outside fences)."""
    fenced = [f for _l, f in _lines_with_fence_state("\n".join(lines))]
    removed = 0
    i = 0
    out: list[str] = []
    n = len(lines)
    while i < n:
        collapsed = False
        if not fenced[i] and lines[i].strip():
            for p in range(2, MAX_PERIOD + 1):
                block = lines[i : i + p]
                if len(block) < p or any(fenced[i : i + p]):
                    break
                k = 1
                while lines[i + k * p : i + (k + 1) * p] == block and not any(fenced[i + k * p : i + (k + 1) * p]):
                    k += 1
                if k >= 3:
                    tail = 0  # a cut-off last copy of the block
                    while tail < p - 1 and i + k * p + tail < n and lines[i + k * p + tail] == block[tail] and not fenced[i + k * p + tail]:
                        tail += 1
                    out.extend(block)
                    removed += (k - 1) * p + tail
                    i += k * p + tail
                    collapsed = True
                    break
        if not collapsed:
            out.append(lines[i])
            i += 1
    return out, removed


def remove_extra_frontmatter(body: str) -> tuple[str, list[str]]:
    """Remove secondary frontmatter blocks (``---`` + key lines + ``---``) outside fences."""
    fixes: list[str] = []
    lines = body.split("\n")
    fenced = [f for _l, f in _lines_with_fence_state(body)]
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not fenced[i] and lines[i].strip() == "---" and i + 1 < len(lines) and _YAMLISH.match(lines[i + 1]):
            j = i + 1
            while j < len(lines) and lines[j].strip() not in ("---", "...") and (
                _YAMLISH.match(lines[j]) or lines[j].startswith((" ", "\t", "-")) or not lines[j].strip()
            ):
                j += 1
            if j < len(lines) and lines[j].strip() in ("---", "..."):
                keys = {m.group(0).split(":")[0].strip() for m in (_YAMLISH.match(x) for x in lines[i + 1 : j]) if m}
                if keys & {"name", "description", "metadata", "allowed-tools", "license"}:
                    fixes.append("removed a second frontmatter block from the body")
                    i = j + 1
                    continue
        out.append(lines[i])
        i += 1
    return "\n".join(out), fixes


# --------------------------------------------------------------------------- rules and title


def normalize_rules(body: str) -> tuple[str, list[str]]:
    """A '---' horizontal rule in the body becomes '***' so no reader mistakes it for a frontmatter delimiter."""
    lines = body.split("\n")
    fenced = [f for _l, f in _lines_with_fence_state(body)]
    n = 0
    for i, line in enumerate(lines):
        if not fenced[i] and line.strip() == "---" and (i == 0 or not lines[i - 1].strip()):
            lines[i] = "***"
            n += 1
    return "\n".join(lines), ([f"rewrote {n} '---' rule(s) as '***'"] if n else [])


def ensure_title(body: str, topic: str, cutoff: str) -> tuple[str, list[str]]:
    """Add ``# <Topic>: what changed after <cutoff>`` when the body does not open with a titled level-1 heading."""
    heads = heading_index(body)
    for i, (line, fenced) in enumerate(_lines_with_fence_state(body)):
        if fenced or not line.strip():
            continue
        if heads.get(i, (0, ""))[0] == 1 and heads[i][1]:
            return body, []
        break
    title = f"# {display_topic(topic)}: what changed after {cutoff}"
    return f"{title}\n\n{body.lstrip()}", ["added a title heading"]


def content_words(body: str) -> int:
    """Words of real content: prose and code, not headings, citations or the footer."""
    n = 0
    heads = heading_index(body)
    for i, (line, fenced) in enumerate(_lines_with_fence_state(body)):
        if not fenced and (i in heads or line.startswith(FOOTER_PREFIX)):
            continue
        n += len(re.findall(r"[^\W\d_]{2,}", _CITE.sub("", line)))
    return n
