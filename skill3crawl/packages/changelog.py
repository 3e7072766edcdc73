"""The release an API change came with, from the package's own changelog (pure: text in, version out).

The API delta compares the releases it read; when releases between two of them were not read, an object first
seen in a later one may have come with any release in the gap. The newest archive's change records say which:
:func:`version_sections` splits a change record at its version headings (Markdown ``#`` headings, or
reStructuredText titles underlined with ``=``, ``-``, ``~`` …), keeping only versions the registry knows, and
:func:`release_naming` finds the oldest release in the gap whose section names the object — in code
(```inspect``` / ```attrs.inspect()``` ) or called (``inspect(``).
"""

from __future__ import annotations

import re

from synth.delta.versions import parse_version

_MD_HEADING = re.compile(r"^#{1,6}[ \t]+(.{1,200}?)[ \t#]*$", re.M)
_RST_HEADING = re.compile(r"^(\S.{0,200})\n[=\-~^\"'`#*+]{3,}[ \t]*$", re.M)
MAX_TEXT = 4 * 1024 * 1024
MIN_SERIES_CHARS = 600  # a smaller series' sections join the next series' page (a page needs content to be kept)


def _marks(text: str, versions: list[str]) -> list[tuple[int, int, str]]:
    """(start, end, version) of each heading that names a known version, in the text's order."""
    known = sorted(set(versions), key=len, reverse=True)
    marks = []
    for m in [*_MD_HEADING.finditer(text), *_RST_HEADING.finditer(text)]:
        heading = m.group(1)
        v = next((v for v in known if re.search(rf"(?<![\w.])[vV]?{re.escape(v)}(?![\w]|\.\d)", heading)), None)
        if v is not None:
            marks.append((m.start(), m.end(), v))
    return sorted(marks)


def version_sections(text: str, versions: list[str]) -> list[tuple[str, str]]:
    """(version, its section's text) for each heading that names a known version, in the text's order."""
    text = text[:MAX_TEXT]
    marks = _marks(text, versions)
    return [(v, text[end:marks[i + 1][0] if i + 1 < len(marks) else len(text)]) for i, (_, end, v) in enumerate(marks)]


def series_sections(text: str, versions: list[str], after: str) -> list[tuple[str, str]]:
    """A change record cut into its release series: (the series' first final release (else its first), the text of
    the version sections of its releases, headings included, in the text's order) for each ``major.minor`` series
    with a release newer than ``after``, oldest series first; a series under ``MIN_SERIES_CHARS`` shares the next
    one's page. Sections of ``after`` and older releases are left out. [] when the text has fewer than two version
    headings (nothing to cut)."""
    text = text[:MAX_TEXT]
    marks = _marks(text, versions)
    base = parse_version(after)
    if len(marks) < 2 or base is None:
        return []
    series: dict[tuple[int, ...], list[tuple[int, str, str]]] = {}
    for i, (start, _, v) in enumerate(marks):
        pv = parse_version(v)
        if pv is not None and pv > base:
            stop = marks[i + 1][0] if i + 1 < len(marks) else len(text)
            series.setdefault(pv.release[:2], []).append((start, v, text[start:stop]))

    def size(parts: list[tuple[int, str, str]]) -> int:
        return sum(len(c) for _, _, c in parts)

    groups: list[list[tuple[int, str, str]]] = []
    for key in sorted(series):
        if groups and size(groups[-1]) < MIN_SERIES_CHARS:
            groups[-1] += series[key]  # a series of a line or two ("only fixes the metadata") joins the next one
        else:
            groups.append(list(series[key]))
    if len(groups) > 1 and size(groups[-1]) < MIN_SERIES_CHARS:
        groups[-2:] = [groups[-2] + groups[-1]]
    out = []
    for parts in groups:
        parsed = [(pv, v) for _, v, _ in parts if (pv := parse_version(v)) is not None]
        first = min([t for t in parsed if not t[0].is_prerelease] or parsed)[1]
        out.append((first, "".join(chunk for _, _, chunk in sorted(parts))))
    return out


def _names(path: str) -> re.Pattern[str]:
    parts = path.split(".")
    short = re.escape(parts[-1])
    qualified = re.escape(".".join(parts[-2:])) if len(parts) > 1 else short
    return re.compile(rf"`[^`\n]{{0,80}}(?<![\w]){short}(?![\w])[^`\n]{{0,80}}`|(?<![\w.]){qualified}\b|(?<![\w.]){short}\(")


def release_naming(sections: list[tuple[str, str]], path: str, after: str, upto: str) -> str | None:
    """The oldest release ``v`` with ``after`` < v ≤ ``upto`` whose section names ``path``'s object, else None."""
    lo, hi = parse_version(after), parse_version(upto)
    if lo is None or hi is None:
        return None
    rx = _names(path)
    found = []
    for v, body in sections:
        pv = parse_version(v)
        if pv is not None and lo < pv <= hi and rx.search(body):
            found.append(pv)
    return str(min(found)) if found else None
