"""One reader for the markdown of a SKILL.md: fences, headings, sections, links, citations.

Block structure (fenced code blocks, headings) comes from markdown-it-py's
CommonMark parser and its line maps, so a fence inside a block quote or a list
item, a ``~~~`` line inside a backtick block, or a longer closing fence are
decided as any CommonMark renderer decides them. Only ATX headings (``# Title``)
at the top level count as headings (a ``---`` under a line of text is kept as a
rule, not read as a heading). An unclosed fence runs to the end of its container
(the document, or the block quote / list item it opened in).

Every function takes ``first_line`` (the file line the text starts on) and
returns **1-based line numbers** of the original file. No I/O; malformed input
yields records that say so (``Fence.closed``), never an exception.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from markdown_it import MarkdownIt

__all__ = [
    "Fence", "Heading", "Section", "Link", "Citation", "SourceEntry", "SourcesSection",
    "find_fences", "fence_spans", "fence_state", "fenced_line_numbers", "lines_outside_fences", "fence_marker",
    "headings", "looks_like_heading", "find_section", "find_sections", "links", "citations",
    "citation_numbers", "blank_inline_code", "find_sources", "CITATION", "SOURCES_HEADING",
    "heading_index", "section_span", "level2_spans", "heading_title", "code_block_texts", "fence_for", "FenceTracker",
    "paragraphs", "LINK", "URL", "find_urls", "trim_url",
]

_MD = MarkdownIt("commonmark")
_MD.core.ruler.disable(["inline", "text_join"], ignoreInvalid=True)  # blocks only: linear time on scraped pages


@lru_cache(maxsize=16)
def _blocks(text: str) -> tuple:
    return tuple(t for t in _MD.parse(text) if t.map is not None and t.type in ("fence", "heading_open", "inline"))


# --------------------------------------------------------------------------- fences


@dataclass(frozen=True)
class Fence:
    """One fenced code block. ``end`` is the closing line, None when unclosed; ``last`` is its last line either way."""

    start: int
    end: int | None
    char: str
    length: int
    info: str
    indent: int
    last: int = 0
    prefix: str = ""  # what precedes the opening marker on its line (quote markers, indentation)

    @property
    def closed(self) -> bool:
        return self.end is not None

    @property
    def language(self) -> str:
        return self.info.split()[0] if self.info.split() else ""

    def closing_line(self) -> str:
        """A line that closes this fence in its container (list markers become spaces, quote markers stay)."""
        return re.sub(r"[^>\s]", " ", self.prefix) + self.char * self.length


_MARKER = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


def fence_marker(line: str) -> tuple[str, str] | None:
    """``(marker, info)`` when ``line`` alone is a fence line (``` ```py ``` / ``~~~``), else None."""
    m = _MARKER.match(line)
    if not m or (m.group("fence")[0] == "`" and "`" in m.group("info")):
        return None
    return m.group("fence"), m.group("info").strip()


def _lines(text: str) -> list[str]:
    """Lines as markdown-it numbers them (``\\r\\n``, ``\\r`` and ``\\n`` end a line; nothing else does)."""
    lines = re.split(r"\r\n?|\n", text)
    return lines[:-1] if lines and lines[-1] == "" else lines


def _content_lines(content: str) -> int:
    return content.count("\n") + (1 if content and not content.endswith("\n") else 0)


def find_fences(text: str, first_line: int = 1) -> list[Fence]:
    """All fenced code blocks of ``text``, in order, with their closing line (or None)."""
    lines = _lines(text)
    out = []
    for t in _blocks(text):
        if t.type != "fence":
            continue
        a, b = t.map
        closed = b - a - 1 - _content_lines(t.content) == 1
        raw = lines[a] if a < len(lines) else ""
        at = raw.find(t.markup)
        prefix = raw[:at] if at >= 0 else ""
        indent = len(re.sub(r"^.*>[ ]?", "", prefix).expandtabs(4)) if ">" in prefix else len(prefix.expandtabs(4))
        out.append(Fence(first_line + a, first_line + b - 1 if closed else None, t.markup[0], len(t.markup),
                         t.info.strip(), indent, first_line + b - 1, prefix))
    return out


def fence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` character offsets of each fenced block in ``text`` (fence lines included)."""
    offsets = [0]
    for m in re.finditer(r"\r\n?|\n", text):
        offsets.append(m.end())
    offsets.append(len(text))
    return [(offsets[f.start - 1], offsets[min(f.last, len(offsets) - 1)]) for f in find_fences(text)]


def fence_state(text: str) -> list[bool]:
    """One flag per ``text.split("\\n")`` line: inside a fenced block (fence lines included)."""
    n = len(text.split("\n"))
    state = [False] * n
    for f in find_fences(text):
        for i in range(f.start - 1, min(f.last, n)):
            state[i] = True
    return state


def fenced_line_numbers(text: str, first_line: int = 1) -> set[int]:
    """Line numbers inside fenced blocks, fence lines included."""
    out: set[int] = set()
    for f in find_fences(text, first_line):
        out.update(range(f.start, f.last + 1))
    return out


def lines_outside_fences(text: str, first_line: int = 1) -> list[tuple[int, str]]:
    """``(line_number, line)`` for every line that is not in a fenced block."""
    inside = fenced_line_numbers(text, first_line)
    return [(first_line + i, ln) for i, ln in enumerate(_lines(text)) if first_line + i not in inside]


def code_block_texts(text: str) -> list[str]:
    """The content of each fenced code block of ``text``, in order (fence lines excluded)."""
    return [t.content for t in _blocks(text) if t.type == "fence"]


def fence_for(code: str) -> str:
    """A backtick fence longer than any backtick run in ``code``, so the code cannot close it."""
    longest = max((len(m) for m in re.findall(r"`{3,}", code)), default=2)
    return "`" * max(3, longest + 1)


_STREAM_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_STREAM_FENCE_FIRST = frozenset(" `~")


class FenceTracker:
    """Fenced code blocks of a markdown stream read one line at a time (a file too large to parse whole).

    A top-level fence opens on a line of three or more backticks or tildes (at most three spaces
    of indentation) and closes on a line of the same character, at least as long, with nothing
    after it. Containers (block quotes, list items) are not followed: for a whole text use
    ``find_fences``. ``feed`` returns whether the line was part of a fenced block.
    """

    def __init__(self) -> None:
        self.fence: str | None = None

    @property
    def open(self) -> bool:
        """The stream is inside a fenced block."""
        return self.fence is not None

    def feed(self, line: str) -> bool:
        """Read one line; True when it opens, is inside or closes a fenced block."""
        m = _STREAM_FENCE.match(line) if line[:1] in _STREAM_FENCE_FIRST else None
        if self.fence is not None:
            if m and m.group(1)[0] == self.fence[0] and len(m.group(1)) >= len(self.fence) and not line.strip()[len(m.group(1)):].strip():
                self.fence = None
            return True
        if m and not (m.group(1)[0] == "`" and "`" in line.strip()[len(m.group(1)):]):
            self.fence = m.group(1)
            return True
        return False


# --------------------------------------------------------------------------- headings and sections


@dataclass(frozen=True)
class Heading:
    level: int
    title: str
    line: int


def headings(text: str, first_line: int = 1) -> list[Heading]:
    """Top-level ATX headings (``# Title``), outside fences; the title is markdown-it's (``# C#`` is "C#")."""
    out = []
    toks = _blocks(text)
    for i, t in enumerate(toks):
        if t.type == "heading_open" and t.level == 0 and t.markup.startswith("#"):
            title = toks[i + 1].content.strip() if i + 1 < len(toks) and toks[i + 1].type == "inline" else ""
            out.append(Heading(len(t.markup), title, first_line + t.map[0]))
    return out


_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")


def heading_title(line: str) -> str | None:
    """The title when one line alone is a CommonMark ATX heading (``## Title ##`` → "Title", ``# C#`` → "C#"),
    else None (``#hashtag``, ``#!/bin/sh`` and ``####### x`` are not headings). A regex with the
    parser's answer (pinned by a test against ``headings``): cheap enough for every excerpt of a crawl."""
    m = _ATX.match(line.rstrip("\r\n"))
    if not m:
        return None
    title = m.group(2) or ""
    return "" if re.fullmatch(r"#+", title) else title.strip()


def looks_like_heading(line: str) -> bool:
    """Whether one line, read on its own, is an ATX heading with a title (e.g. inside an unclosed fence)."""
    return any(h.title for h in headings(line))


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
    last = first_line + len(_lines(text)) - 1
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


def heading_index(text: str) -> dict[int, tuple[int, str]]:
    """0-based ``text.split("\\n")`` line → (level, title) of each top-level ATX heading (for line-list editors)."""
    return {h.line - 1: (h.level, h.title) for h in headings(text)}


def section_span(text: str, title: re.Pattern[str]) -> tuple[int, int, int] | None:
    """``(start, end, level)`` over ``text.split("\\n")``: the first section whose heading matches ``title``.

    ``start`` is the heading's 0-based index, ``end`` the index of the next heading of the same or
    higher level (exclusive; the line count when none follows).
    """
    n = len(text.split("\n"))
    heads = sorted(heading_index(text).items())
    for k, (i, (level, head)) in enumerate(heads):
        if title.search(head):
            end = next((j for j, (lv, _t) in heads[k + 1 :] if lv <= level), n)
            return i, end, level
    return None


def level2_spans(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, title)`` over ``text.split("\\n")`` of each level-2 section (end: the next level-2 heading)."""
    n = len(text.split("\n"))
    heads = [(i, title) for i, (level, title) in sorted(heading_index(text).items()) if level == 2]
    return [(i, heads[k + 1][0] if k + 1 < len(heads) else n, title) for k, (i, title) in enumerate(heads)]


def paragraphs(text: str) -> list[tuple[str, str]]:
    """``(kind, text)`` blocks of a page's markdown outside fenced code: ``heading`` (its line as written)
    or ``text`` (a run of non-blank lines; a fence or a heading ends it). ``\r\n`` is read as ``\n``.

    Read line by line with ``FenceTracker`` and ``heading_title`` (the parser costs ~2 µs a character:
    too much for every crawled page), so fences and headings are the top-level ones; the two readers
    agree there (pinned by a test).
    """
    fences = FenceTracker()
    out: list[tuple[str, str]] = []
    para: list[str] = []

    def flush() -> None:
        if para:
            out.append(("text", "\n".join(para).strip()))
            para.clear()

    for line in text.replace("\r\n", "\n").split("\n"):
        if fences.feed(line) or not line.strip():
            flush()
        elif heading_title(line) is not None:
            flush()
            out.append(("heading", line.strip()))
        else:
            para.append(line.rstrip())
    flush()
    return out


# --------------------------------------------------------------------------- links and citations

_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")


def blank_inline_code(line: str) -> str:
    """``line`` with inline code spans replaced by spaces (same length, so offsets still match)."""
    return _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)


@dataclass(frozen=True)
class Link:
    text: str
    target: str
    line: int
    image: bool = False


# A destination may hold balanced parentheses one level deep (CommonMark), as in ``/wiki/Mercury_(planet)``.
LINK = re.compile(r"(?P<bang>!?)\[(?P<text>[^\]\n]*)\]\(\s*(?P<target><[^>\n]*>|(?:[^()\s]|\([^()\s]*\))*)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
_REF_DEF = re.compile(r"^ {0,3}\[(?P<label>[^\]]+)\]:\s*(?P<target><[^>]*>|\S+)")


def links(text: str, first_line: int = 1) -> list[Link]:
    """Inline links/images and reference definitions outside fenced blocks and inline code."""
    out = []
    for n, line in lines_outside_fences(text, first_line):
        clean = blank_inline_code(line)
        for m in LINK.finditer(clean):
            out.append(Link(m.group("text"), m.group("target").strip("<>"), n, bool(m.group("bang"))))
        d = _REF_DEF.match(clean)
        if d:
            out.append(Link(d.group("label"), d.group("target").strip("<>"), n))
    return out


@dataclass(frozen=True)
class Citation:
    number: int
    line: int


# A citation marker: [n] or [n, m; k] with 1-3 digit numbers, not escaped, not glued to a word
# (``foo[1]`` is an index), not a link (``[1](url)``), a definition (``[1]: url``) or a reference
# link (``[1][label]``); adjacent markers ``[1][2]`` are two citations. ``[1000]`` / ``[2024]`` are not.
CITATION = re.compile(r"(?<![\\\w])\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\](?![(:]|\[(?!\d{1,3}(?:\s*[,;]\s*\d{1,3})*\]))")


def citation_numbers(marker: str) -> list[int]:
    """The numbers of one matched marker's group: ``"1, 4; 5"`` → [1, 4, 5]."""
    return [int(x) for x in re.split(r"\s*[,;]\s*", marker)]


def citations(text: str, first_line: int = 1, exclude: Section | None = None) -> list[Citation]:
    """Citation markers (see ``CITATION``) outside fences, inline code, reference definitions and ``exclude``."""
    out: list[Citation] = []
    for n, line in lines_outside_fences(text, first_line):
        if exclude is not None and exclude.contains(n):
            continue
        clean = blank_inline_code(line)
        if _REF_DEF.match(clean):
            continue
        for m in CITATION.finditer(clean):
            out.extend(Citation(num, n) for num in citation_numbers(m.group(1)))
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
# A bare URL; :func:`trim_url` then drops what prose put after it (GFM's extended-autolink rules).
URL = re.compile(r"https?://[^\s<>\[\]\"'`]+")
_TRAILING = ".,;:!?*_~"


def trim_url(url: str) -> str:
    """A bare URL's match without trailing punctuation or emphasis, and without a trailing ``)`` that
    closes no ``(`` of the URL itself: ``(see https://x.org/a).`` → ``https://x.org/a``, while
    ``https://x.org/wiki/Mercury_(planet)`` keeps its parentheses."""
    while url:
        if url[-1] in _TRAILING:
            url = url[:-1]
        elif url[-1] == ")" and url.count(")") > url.count("("):
            url = url[:-1]
        else:
            break
    return url


def find_urls(text: str) -> list[str]:
    """The bare ``http(s)`` URLs in ``text``, each trimmed with :func:`trim_url`."""
    return [u for u in (trim_url(m.group(0)) for m in URL.finditer(text)) if "://" in u]


def _first_url(text: str) -> str | None:
    m = LINK.search(text)
    if m and m.group("target").startswith(("http://", "https://", "<http")):
        return m.group("target").strip("<>")
    urls = find_urls(text)
    return urls[0] if urls else None


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
