"""Quoting a source without rewriting it: its sentences and blocks, whole.

An extractive skill promises that every statement is the cited page's own text. So text is only ever shortened by
leaving out whole trailing sentences or blocks (and saying so with "…"), never cut inside a word or a sentence, and
never edited inside a sentence except by an elision the reader can see ("…").

Sentence and block boundaries, read on one line of markdown (a scraped block's whitespace collapsed):

* a sentence end — ``.``, ``!``, ``?`` (with closing quotes, brackets or emphasis) followed by a space and a
  character that can open a sentence (a capital, a digit, a quote, a bracket, inline code, emphasis); not after an
  abbreviation ("e.g.", "etc.") or a single initial, and never inside inline code;
* a flattened list item (``: - item``, ``. - item``) and the `` — `` that joins a definition's term to its text.

Pure: no I/O.
"""

from __future__ import annotations

import re

ELLIPSIS = "…"
_END = re.compile(r"[.!?][\"'”’)\]*_]*(?=\s+[A-Z0-9\"'“‘(\[`*_#<>@$\\])"  # a sentence's end
                  r"|[.!?;:)\]`\"'”’]+(?=\s+[-–•]\s+\S)"  # a flattened list item
                  r"|(?<=\S)(?=\s+—\s+\S)")  # a definition's term and its text
_ABBREV = frozenset({"e.g", "i.e", "etc", "vs", "cf", "al", "approx", "no", "nos", "mr", "mrs", "ms", "dr", "st", "fig",
                     "resp", "incl", "ca", "viz", "ed", "eds", "vol", "pp", "sec", "ch", "ref", "refs", "eq", "min", "max"})
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)\.$")


def _in_code(text: str, i: int) -> bool:
    """Whether position ``i`` is inside an inline code span (an odd number of backtick runs before it)."""
    return len(re.findall(r"`+", text[:i])) % 2 == 1


def _abbreviation(text: str, end: int) -> bool:
    m = _WORD_BEFORE.search(text[max(0, end - 12):end])
    if not m:
        return False
    word = m.group(1).lower().rstrip(".")
    return word in _ABBREV or (len(word) == 1 and word.isalpha())


def boundaries(text: str) -> list[int]:
    """The positions (exclusive ends) where a sentence or block of ``text`` ends, in order; the text's end is not
    listed."""
    out: list[int] = []
    for m in _END.finditer(text):
        end = m.end()
        if end >= len(text.rstrip()) or _in_code(text, end):
            continue
        if text[m.start():m.start() + 1] == "." and _abbreviation(text, m.start() + 1):
            continue
        out.append(end)
    return out


def sentences(text: str) -> list[str]:
    """``text`` as its sentences and blocks (each stripped; joined by a space they give the text back)."""
    cuts = [0, *boundaries(text), len(text)]
    return [s for s in (text[a:b].strip() for a, b in zip(cuts, cuts[1:])) if s]


def _word_cut(text: str, limit: int) -> str:
    """The longest run of whole words of ``text`` within ``limit`` characters, not ending inside inline code or a link."""
    cut = text[: max(1, limit)]
    if len(text) > limit and not text[limit].isspace():
        cut = cut.rsplit(" ", 1)[0] if " " in cut else cut
    cut = cut.rstrip()
    if _in_code(cut, len(cut)):  # back to before the open span's backticks
        cut = cut[: cut.rfind("`")].rstrip("`").rstrip()
    opening = cut.rfind("[")
    if opening > cut.rfind("]"):  # a link's text left open
        cut = cut[:opening].rstrip()
    return cut.rstrip(" ,;:—–-(")


def shorten(text: str, limit: int, *, hard: int | None = None) -> str:
    """``text`` within ``limit`` characters, by leaving out whole trailing sentences or blocks and ending with " …".

    A first sentence longer than ``limit`` is kept whole when it fits ``hard`` (default: twice ``limit``); only a
    sentence longer than that is cut, at a word boundary (never inside inline code or a link's text), with "…"."""
    text = text.strip()
    if len(text) <= limit:
        return text
    hard = max(limit, hard if hard is not None else 2 * limit)
    ends = boundaries(text)
    fit = [e for e in ends if e <= limit - 2]
    if fit:
        return text[: fit[-1]].rstrip() + " " + ELLIPSIS
    if ends and ends[0] <= hard - 2:
        return text[: ends[0]].rstrip() + " " + ELLIPSIS
    if len(text) <= hard:
        return text
    return _word_cut(text, limit - 2) + " " + ELLIPSIS


def drop_sentences(text: str, unwanted: "re.Pattern[str]") -> str:
    """``text`` without the sentences ``unwanted`` matches; where sentences were left out between others, "…" says
    so. '' when every sentence matches."""
    parts = sentences(text)
    kept: list[str] = []
    gap = False
    for s in parts:
        if unwanted.search(s):
            gap = True
            continue
        if gap:
            kept.append(ELLIPSIS)
        gap = False
        kept.append(s)
    if gap and kept:
        kept.append(ELLIPSIS)
    return " ".join(kept)
