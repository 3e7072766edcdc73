"""Hidden text, for the built-in screen (:mod:`synth.vet.screen`): runs of Unicode tag characters, zero-width
characters inside words and bidi controls, HTML comments and CSS/attribute-hidden elements outside code blocks; and
:func:`strip_invisible`, the pre-pass that removes invisible characters (keeping those emoji and scripts need)."""

from __future__ import annotations

import bisect
import re

from synth.skill.markdown import fence_spans
from synth.vet.screen_rules import HIDDEN_TAGS, HIDDEN_UNICODE, Hit

_ZERO_WIDTH = "\u200b\u200c\u200d\u2060\u180e\ufeff"
_BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_TAG_RANGE = (0xE0000, 0xE007F)
INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\u180e\ufeff\u202a-\u202e\u2066-\u2069\U000E0000-\U000E007F]")
_OPEN_TAG = re.compile(r"<(\w{1,20})(\s[^<>]{0,1000})?>")
_HIDDEN_ATTRS = re.compile(
    r"style\s*=\s*[\"'][^\"']*(?:display\s*:\s*none|visibility\s*:\s*hidden|"
    r"font-size\s*:\s*0(?:\.0+)?(?:px|pt|em|rem|%)?\s*(?:;|[\"'])|opacity\s*:\s*0(?:\.0+)?\s*(?:;|[\"'])|"
    r"(?:left|top)\s*:\s*-\d{4,}px)|(?:^|\s)hidden(?=[\s/=]|$)|\saria-hidden\s*=\s*[\"']true[\"']", re.I)
_CLOSE_TAG = re.compile(r"</(\w{1,20})\s*>")


def tag_hits(text: str) -> list[Hit]:
    """Runs of Unicode tag characters that are not part of an emoji flag sequence (U+1F3F4 + tags)."""
    hits = []
    for m in re.finditer("[\U000E0000-\U000E007F]+", text):
        if m.start() > 0 and text[m.start() - 1] == "\U0001F3F4":
            continue
        decoded = "".join(chr(ord(c) - 0xE0000) for c in m.group(0) if 0x20 <= ord(c) - 0xE0000 < 0x7F)
        if len(decoded.strip()) >= 2:
            hits.append(Hit(HIDDEN_TAGS, "HIGH", m.start(), m.end(), " ".join(decoded.split())[:160], "decoded tag characters"))
    return hits


def invisible_hits(text: str) -> list[Hit]:
    """Zero-width characters between two letters/digits (word-internal) and bidi controls, one hit per line."""
    hits = []
    for line_m in re.finditer(r"[^\n]+", text):
        line = line_m.group(0)
        zw = [m for m in re.finditer(f"[{_ZERO_WIDTH}]+", line)
              if 0 < m.start() and m.end() < len(line) and line[m.start() - 1].isascii() and line[m.end()].isascii()
              and not (line[m.start() - 1].isspace() or line[m.end()].isspace())]
        bidi = [m for m in re.finditer(f"[{_BIDI}]", line)]
        if not zw and not bidi:
            continue
        what = []
        if zw:
            what.append(f"{len(zw)} zero-width run(s) inside words")
        if bidi:
            what.append(f"{len(bidi)} bidi control(s)")
        start = line_m.start() + (zw or bidi)[0].start()
        hits.append(Hit(HIDDEN_UNICODE, "MEDIUM", start, start + 1, "; ".join(what), ", ".join(
            sorted({f"U+{ord(c):04X}" for m in zw + bidi for c in m.group(0)}))))
    return hits


def _code_spans(text: str) -> list[tuple[int, int]]:
    return fence_spans(text)


def hidden_spans(text: str) -> list[tuple[int, int, str]]:
    """HTML comments and hidden elements outside code blocks, found in linear time (a page of
    unclosed ``<!--`` or ``<p hidden>`` must not stall the screen): closing marks are indexed once."""
    code = _code_spans(text)
    code_starts = [a for a, _b in code]

    def in_code(pos: int) -> bool:
        k = bisect.bisect_right(code_starts, pos) - 1
        return k >= 0 and pos < code[k][1]

    spans: list[tuple[int, int, str]] = []
    closes = [m.start() for m in re.finditer("-->", text)]
    pos = text.find("<!--")
    while pos >= 0:
        k = bisect.bisect_left(closes, pos + 4)
        end = closes[k] + 3 if k < len(closes) else len(text)
        if not in_code(pos):
            spans.append((pos, end, "an HTML comment"))
        pos = text.find("<!--", end)
    closing: dict[str, list[int]] = {}
    for m in _CLOSE_TAG.finditer(text):
        closing.setdefault(m.group(1).lower(), []).append(m.end())
    last_end = -1
    for m in _OPEN_TAG.finditer(text):
        if not m.group(2) or _HIDDEN_ATTRS.search(m.group(2)) is None or m.start() < last_end or in_code(m.start()):
            continue
        ends = closing.get(m.group(1).lower(), [])
        k = bisect.bisect_left(ends, m.end())
        end = ends[k] if k < len(ends) else min(len(text), m.end() + 2000)
        spans.append((m.start(), end, "a hidden HTML element"))
        last_end = end
    return spans


def strip_invisible(text: str) -> tuple[str, int]:
    """Remove invisible and bidi control characters (keeps emoji flag tag sequences and the ZWJ/ZWNJ
    that scripts and emoji need between non-ASCII characters); returns (text, number removed)."""
    if text.isascii():
        return text, 0
    removed = 0

    def repl(m: re.Match) -> str:
        nonlocal removed
        ch, i = m.group(0), m.start()
        if 0xE0000 <= ord(ch) <= 0xE007F:
            j = i
            while j > 0 and 0xE0000 <= ord(text[j - 1]) <= 0xE007F:
                j -= 1
            if j > 0 and text[j - 1] == "\U0001F3F4":
                return ch
        elif ch in "\u200c\u200d" and 0 < i < len(text) - 1 and not text[i - 1].isascii() and not text[i + 1].isascii():
            return ch
        removed += 1
        return ""

    return INVISIBLE.sub(repl, text), removed
