"""Pure helpers for reading a SKILL.md: frontmatter, fences, headings, links, citations, Sources.

Everything here works on text and returns plain records with **1-based line
numbers of the original file**: functions that take a body take
``first_line`` (the file line the body starts on, ``Split.body_start``) so their
results point into SKILL.md, not into the slice. No I/O, no YAML parsing (the
caller chooses the parser), no exceptions for malformed input: a malformed
document yields records that say so (``Split.error``, ``Fence.closed``).

Fences follow CommonMark where it matters for "is every block closed": a fence
is a run of at least three backticks or tildes; a backtick fence's info string
may not contain a backtick; the closing fence uses the same character, is at
least as long as the opening one and carries nothing but whitespace; an
unclosed fence runs to the end of the document. Container blocks (lists,
block quotes) are approximated: a fence may be indented any amount (fences
inside list items are indented), ``>`` quote markers are stripped, and a closing
fence may be indented at most three columns more than its opening fence.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

__all__ = [
    "Split",
    "Fence",
    "Heading",
    "Section",
    "Link",
    "Citation",
    "SourceEntry",
    "SourcesSection",
    "split_frontmatter",
    "second_frontmatter_line",
    "find_fences",
    "fenced_line_numbers",
    "lines_outside_fences",
    "headings",
    "find_section",
    "find_sections",
    "links",
    "citations",
    "find_sources",
    "estimate_tokens",
]

_DELIM = "---"


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


_YAMLISH = re.compile(r"^[A-Za-z_][\w-]*\s*:")


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
            if inner and _YAMLISH.match(inner[0]):
                return first_line + i
            return None
    return None


# --------------------------------------------------------------------------- fences


@dataclass(frozen=True)
class Fence:
    """One fenced code block. ``end`` is the closing line, None when unclosed."""

    start: int
    end: int | None
    char: str
    length: int
    info: str
    indent: int

    @property
    def closed(self) -> bool:
        return self.end is not None

    @property
    def language(self) -> str:
        return self.info.split()[0] if self.info.split() else ""


_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_QUOTE = re.compile(r"^[ \t]{0,3}(?:>[ \t]?)+")


def _strip_quote(line: str) -> str:
    return _QUOTE.sub("", line, count=1)


def _indent_width(s: str) -> int:
    return len(s.expandtabs(4))


def find_fences(text: str, first_line: int = 1) -> list[Fence]:
    """All fenced code blocks of ``text``, in order, with their closing line (or None)."""
    fences: list[Fence] = []
    current: dict | None = None
    lines = text.splitlines()
    for idx, raw in enumerate(lines):
        line = _strip_quote(raw.rstrip("\r\n"))
        m = _OPEN.match(line)
        if current is None:
            if not m:
                continue
            fence, info = m.group("fence"), m.group("info").strip()
            if fence[0] == "`" and "`" in info:
                continue  # inline code such as ```a``` , not a fence
            current = {
                "start": first_line + idx,
                "char": fence[0],
                "length": len(fence),
                "info": info,
                "indent": _indent_width(m.group("indent")),
            }
            continue
        if (
            m
            and m.group("fence")[0] == current["char"]
            and len(m.group("fence")) >= current["length"]
            and not m.group("info").strip()
            and _indent_width(m.group("indent")) <= current["indent"] + 3
        ):
            fences.append(Fence(end=first_line + idx, **current))
            current = None
    if current is not None:
        fences.append(Fence(end=None, **current))
    return fences


def fenced_line_numbers(text: str, first_line: int = 1) -> set[int]:
    """Line numbers inside fenced blocks, fence lines included."""
    last = first_line + len(text.splitlines()) - 1
    out: set[int] = set()
    for f in find_fences(text, first_line):
        out.update(range(f.start, (f.end if f.end is not None else last) + 1))
    return out


def lines_outside_fences(text: str, first_line: int = 1) -> list[tuple[int, str]]:
    """``(line_number, line)`` for every line that is not in a fenced block."""
    inside = fenced_line_numbers(text, first_line)
    return [(first_line + i, ln) for i, ln in enumerate(text.splitlines()) if first_line + i not in inside]


# --------------------------------------------------------------------------- headings and sections


@dataclass(frozen=True)
class Heading:
    level: int
    title: str
    line: int


_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")


def headings(text: str, first_line: int = 1) -> list[Heading]:
    """ATX headings (``# Title``) outside fenced blocks."""
    out = []
    for n, line in lines_outside_fences(text, first_line):
        m = _ATX.match(line)
        if m:
            out.append(Heading(len(m.group(1)), m.group(2).strip(), n))
    return out


@dataclass(frozen=True)
class Section:
    """A heading and its content up to the next heading of the same or higher level.

    ``start`` is the heading line, ``end`` the last line of the section (inclusive).
    """

    heading: Heading
    start: int
    end: int

    def contains(self, line: int) -> bool:
        return self.start <= line <= self.end


def find_sections(text: str, title: str | re.Pattern[str], first_line: int = 1) -> list[Section]:
    """Every section whose heading matches ``title`` (a regex; a string is searched case-insensitively)."""
    pattern = re.compile(title, re.I) if isinstance(title, str) else title
    hs = headings(text, first_line)
    last = first_line + len(text.splitlines()) - 1
    out = []
    for i, h in enumerate(hs):
        if pattern.search(h.title):
            end = last
            for nxt in hs[i + 1 :]:
                if nxt.level <= h.level:
                    end = nxt.line - 1
                    break
            out.append(Section(h, h.line, end))
    return out


def find_section(text: str, title: str | re.Pattern[str], first_line: int = 1) -> Section | None:
    """The first section whose heading matches ``title`` (see find_sections)."""
    found = find_sections(text, title, first_line)
    return found[0] if found else None


# --------------------------------------------------------------------------- links and citations

_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")


def _blank_inline_code(line: str) -> str:
    return _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)


@dataclass(frozen=True)
class Link:
    text: str
    target: str
    line: int
    image: bool = False


_LINK = re.compile(r"(?P<bang>!?)\[(?P<text>[^\]\n]*)\]\(\s*(?P<target><[^>\n]*>|[^)\s]*)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
_REF_DEF = re.compile(r"^ {0,3}\[(?P<label>[^\]]+)\]:\s*(?P<target><[^>]*>|\S+)")


def links(text: str, first_line: int = 1) -> list[Link]:
    """Inline links/images and reference definitions outside fenced blocks and inline code."""
    out = []
    for n, line in lines_outside_fences(text, first_line):
        clean = _blank_inline_code(line)
        for m in _LINK.finditer(clean):
            out.append(Link(m.group("text"), m.group("target").strip("<>"), n, bool(m.group("bang"))))
        d = _REF_DEF.match(clean)
        if d:
            out.append(Link(d.group("label"), d.group("target").strip("<>"), n))
    return out


@dataclass(frozen=True)
class Citation:
    number: int
    line: int


_CITE = re.compile(r"(?<!\\)\[(\d{1,4}(?:\s*[,;]\s*\d{1,4})*)\](?![(:])")


def citations(text: str, first_line: int = 1, exclude: Section | None = None) -> list[Citation]:
    """``[n]`` / ``[n, m]`` citation markers outside fences, inline code and ``exclude``.

    Markdown links (``[1](url)``) and reference definitions (``[1]: url``) are
    not citations.
    """
    out = []
    for n, line in lines_outside_fences(text, first_line):
        if exclude is not None and exclude.contains(n):
            continue
        clean = _blank_inline_code(line)
        if _REF_DEF.match(clean):
            continue
        for m in _CITE.finditer(clean):
            for num in re.split(r"\s*[,;]\s*", m.group(1)):
                out.append(Citation(int(num), n))
    return out


# --------------------------------------------------------------------------- the Sources section


@dataclass(frozen=True)
class SourceEntry:
    """One entry of the Sources section: its number (None when unnumbered), URL, text, line."""

    number: int | None
    url: str | None
    text: str
    line: int


@dataclass(frozen=True)
class SourcesSection:
    section: Section
    entries: list[SourceEntry] = field(default_factory=list)

    def numbers(self) -> set[int]:
        return {e.number for e in self.entries if e.number is not None}

    def urls(self) -> list[str]:
        return [e.url for e in self.entries if e.url]


SOURCES_HEADING = re.compile(r"^sources\b", re.I)
_ENTRY_BRACKET = re.compile(r"^\s*(?:[-*+]\s+)?\[(\d{1,4})\]:?\s*(.*)$")
_ENTRY_ORDERED = re.compile(r"^\s*(\d{1,4})[.)]\s+(.*)$")
_ENTRY_BULLET = re.compile(r"^\s*[-*+]\s+(.*)$")
_URL = re.compile(r"https?://[^\s<>()\[\]\"'`]+")


def _first_url(text: str) -> str | None:
    m = _LINK.search(text)
    if m and m.group("target").startswith(("http://", "https://", "<http")):
        return m.group("target").strip("<>")
    m = _URL.search(text)
    return m.group(0).rstrip(".,;:!?*_") if m else None


def find_sources(text: str, first_line: int = 1) -> SourcesSection | None:
    """The section headed ``Sources`` (any level) and its entries.

    Entries may be written ``[1] Title — https://…``, ``- [1] …``,
    ``[1]: https://…``, ``1. [Title](https://…)`` or as unnumbered bullets.
    """
    section = find_section(text, SOURCES_HEADING, first_line)
    if section is None:
        return None
    entries = []
    for n, line in lines_outside_fences(text, first_line):
        if not (section.start < n <= section.end) or not line.strip():
            continue
        for pattern in (_ENTRY_BRACKET, _ENTRY_ORDERED):
            m = pattern.match(line)
            if m:
                rest = m.group(2).strip()
                entries.append(SourceEntry(int(m.group(1)), _first_url(rest), rest, n))
                break
        else:
            m = _ENTRY_BULLET.match(line)
            if m:
                rest = m.group(1).strip()
                entries.append(SourceEntry(None, _first_url(rest), rest, n))
    return SourcesSection(section, entries)


# --------------------------------------------------------------------------- size


_TOKEN_PIECES = re.compile(r"\w+|[^\w\s]")


def estimate_tokens(text: str) -> int:
    """Offline token estimate: each word counts ceil(len/4) tokens, each punctuation mark one.

    BPE vocabularies keep common short words whole and split long ones into
    pieces of about four characters; punctuation is mostly a token of its own.
    On English prose this lands near the usual "4 characters per token" rule;
    on code (dense punctuation) it counts more, as real tokenizers do. It is a
    budget check, not a tokenizer: no vocabulary, no network.
    """
    return sum(math.ceil(len(p) / 4) if p[0].isalnum() or p[0] == "_" else 1 for p in _TOKEN_PIECES.findall(text))
