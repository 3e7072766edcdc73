"""Reading versions and release dates the way documentation prints them: pure text functions.

* :func:`clean_heading` / :func:`heading_text` — a heading's text without what themes add to it:
  permalink glyphs of any theme (``¶``, ``§``, ``#``, a private-use icon-font character, a symbol,
  zero-width characters), a link or icon whose text has no letter or digit.
* :func:`find_dates` / :func:`find_date` — every full date (day, month and year) in a text, in
  any common spelling: ISO (``2024-03-04``, also unpadded ``2022-4-04`` and with a time and zone
  after it), ``2024/03/04``, day-first ``04.03.2024``, ``4/25/2024`` when the order is unambiguous,
  English month words ("March 4, 2024", "4 Mar 2024", "Jan 3rd, 2023", "Sept. 3, 2024", "3rd of
  January 2023"), and htmldate's multilingual month patterns for the rest. A numeric date whose
  day and month could swap (``04/03/2024``) is no date.
* :func:`version_heading` — ``(version, date)`` when a heading or title names a release: the
  version with at most two product words and release words around it, the date before or after
  it ("2024-03-04 (2.3.0)", "2.3.0 — March 4, 2024", "Acme Release 2.3.0 On 2024-03-04", "What's
  new in 2.3.0 (March 4, 2024)"), a leading section number dropped ("1.4 Acme 4.0.1").
* :func:`label_date` / :func:`label_version` — the value of a field whose label says what it is
  ("Released: March 4, 2024", "release-date: 2024-3-04 10:15 A.M UTC+1:00", "Since: 17").
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date
from functools import lru_cache
from typing import Any

from skill3crawl.extract.dom import text_content
from synth.delta.versions import BARE_VER, VER, VER_RE, normalize_version  # noqa: F401 - the one version reader

MIN_YEAR = 1990


INVISIBLE = re.compile(r"[\u00ad\u200b-\u200f\u2060-\u2064\ufeff\ue000-\uf8ff\U000f0000-\U0010ffff]")
_WS = re.compile(r"\s+")
_GLYPHS = "¶§⁋#"


def _glyph(ch: str) -> bool:
    return ch in _GLYPHS or unicodedata.category(ch) in ("So", "Co", "Cf", "Cn")


def clean_heading(text: str) -> str:
    """Whitespace collapsed, invisible characters gone, permalink glyphs at either end dropped."""
    text = _WS.sub(" ", INVISIBLE.sub("", text or "").replace("¶", "")).strip()
    end = len(text)
    while end and _glyph(text[end - 1]) and not (text[end - 1] == "#" and end > 1 and not text[end - 2].isspace()):
        end -= 1  # "C#" keeps its "#"; "Title #" and "Title🔗" do not
        while end and text[end - 1].isspace():
            end -= 1
    start = 0
    while start < end and _glyph(text[start]) and not (text[start] == "#" and start + 1 < end and not text[start + 1].isspace()):
        start += 1
        while start < end and text[start].isspace():
            start += 1
    return text[start:end]


def _is_glyph_link(el: Any) -> bool:
    """A permalink or icon inside a heading: a link, button or span whose text has no letter or digit."""
    text = text_content(el)
    return not any(ch.isalnum() for ch in INVISIBLE.sub("", text))


def heading_text(h: Any) -> str:
    """A heading element's text, its permalinks and icons left out (:func:`clean_heading`)."""
    parts: list[str] = []

    def walk(el: Any) -> None:
        if el.text:
            parts.append(el.text)
        for child in el:
            tag = child.tag if isinstance(child.tag, str) else ""
            if tag in ("div", "p", "br", "li", "dd", "dt"):
                parts.append(" ")  # block children are separate words
            if tag and tag not in ("script", "style", "button", "svg", "template") and not (tag == "a" and _is_glyph_link(child)):
                walk(child)
            if child.tail:
                parts.append(child.tail)

    if h is None:
        return ""
    if not len(h):  # no child elements: its text is all there is
        return clean_heading(h.text or "")
    walk(h)
    return clean_heading("".join(parts))


# -- dates ---------------------------------------------------------------------------------------------------------

_MONTHS = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
           r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_YEAR = r"(?:19|20)\d\d"
_TEXT_DATE = re.compile(
    rf"(?i)\b(?:(?P<m1>{_MONTHS})\s+(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y1>{_YEAR})|"
    rf"(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\.?\s+(?:of\s+)?(?P<m2>{_MONTHS}),?\s+(?P<y2>{_YEAR}))(?!\d)"
)
_ISO_DATE = re.compile(rf"(?<![\d.])({_YEAR})([-/])(0?[1-9]|1[0-2])\2(0?[1-9]|[12]\d|3[01])(?!\d)")
_NUM_DATE = re.compile(rf"(?<![\d.])(\d{{1,2}})([./-])(\d{{1,2}})\2({_YEAR})(?!\d|\.\d)")
_HAS_YEAR = re.compile(rf"(?<!\d){_YEAR}(?!\d)")
_MONTH_NUM = {m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1)}
# a time and zone printed after a date: "10:15 A.M UTC+1:00", "T10:00:00Z", "at 14:30 CET"
_TIME = re.compile(
    r"(?i)(?:\s*(?:T|at|,|@))?\s*\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s*[ap]\.?\s?m\.?)?"
    r"(?:\s*(?:utc|gmt|z|[a-z]{1,4}t(?![a-z])))?(?:\s*[+-]\d{1,2}(?::?\d{2})?)?"
)


def _ymd(y: Any, m: Any, d: Any) -> str | None:
    try:
        day = date(int(y), int(m), int(d))
    except (ValueError, TypeError):
        return None
    return day.isoformat() if day.year >= MIN_YEAR else None


@lru_cache(maxsize=1)
def _multilingual() -> tuple[Any, dict[str, int]]:
    from htmldate.extractors import LONG_TEXT_PATTERN, MONTH_NUMBERS

    return LONG_TEXT_PATTERN, MONTH_NUMBERS


def find_dates(text: str) -> list[tuple[int, int, str]]:
    """Every full date printed in ``text``: ``(start, end, "YYYY-MM-DD")`` in order (overlaps dropped)."""
    if not text or not _HAS_YEAR.search(text):
        return []
    found: list[tuple[int, int, str | None]] = []
    for m in _ISO_DATE.finditer(text):
        found.append((m.start(), m.end(), _ymd(m.group(1), m.group(3), m.group(4))))
    for m in _NUM_DATE.finditer(text):
        a, sep, b = int(m.group(1)), m.group(2), int(m.group(3))
        if sep == "." or a > 12:
            day, month = a, b
        elif b > 12:
            day, month = b, a
        else:
            continue  # 04/03/2024: the day or the month first? no date
        found.append((m.start(), m.end(), _ymd(m.group(4), month, day)))
    for m in _TEXT_DATE.finditer(text):
        named = _MONTH_NUM.get((m.group("m1") or m.group("m2"))[:3].lower())
        found.append((m.start(), m.end(), _ymd(m.group("y1") or m.group("y2"), named, m.group("d1") or m.group("d2"))))
    if not any(d for _s, _e, d in found):  # other languages: htmldate's multilingual day-month-year patterns
        pattern, months = _multilingual()
        for m in pattern.finditer(text):
            word = (m.group("month") or m.group("month2") or "").lower()
            named = months.get(word) or months.get(word.rstrip("."))
            if named:
                found.append((m.start(), m.end(), _ymd(m.group("year") or m.group("year2"), named, m.group("day") or m.group("day2"))))
    out: list[tuple[int, int, str]] = []
    for start, end, when in sorted((s, e, d) for s, e, d in found if d):
        if out and start < out[-1][1]:
            continue
        out.append((start, end, when))
    return out


_MONTH_YEAR = re.compile(rf"(?i)(?<![\w-])(?P<m>{_MONTHS}),?\s+(?P<y>{_YEAR})(?![\w-])")
_ISO_MONTH = re.compile(rf"(?<![\w.-])(?P<y>{_YEAR})-(?P<m>0[1-9]|1[0-2])(?![\w.-])")  # "2024-03" (never "2024-03-04")


def find_month(text: str) -> tuple[int, int, str] | None:
    """The first month and year printed without a day ("March 2024", "Sept. 2023", "2024-03") → ``(start, end, "YYYY-MM-01")``: a
    release dated so came out in that month, and its first day places it against a cutoff month exactly."""
    m = _MONTH_YEAR.search(text or "")
    if m:
        day = _ymd(m.group("y"), _MONTH_NUM[m.group("m")[:3].lower()], 1)
        return (m.start(), m.end(), day) if day else None
    iso = _ISO_MONTH.search(text or "")
    if iso:
        day = _ymd(iso.group("y"), iso.group("m"), 1)
        return (iso.start(), iso.end(), day) if day else None
    return None


def find_date(text: str) -> str | None:
    """The first full date printed in ``text`` → ``YYYY-MM-DD``, else None."""
    dates = find_dates(text)
    return dates[0][2] if dates else None


def without_dates(text: str, dates: list[tuple[int, int, str]] | None = None) -> str:
    """``text`` with its dates (and a time of day printed after one) replaced by a space."""
    dates = find_dates(text) if dates is None else dates
    if not dates:
        return text
    parts, pos = [], 0
    for start, end, _day in dates:
        parts.append(text[pos:start])
        t = _TIME.match(text, end)
        pos = t.end() if t else end
        parts.append(" ")
    parts.append(text[pos:])
    return "".join(parts)


def free_date(value: str, languages: list[str] | None = None) -> str | None:
    """A labelled field's value read by dateparser when no pattern matched ("4. März 2024"): a day, a
    month and a four-digit year required."""
    value = (value or "").strip()
    if not value or len(value) > 60 or not _HAS_YEAR.search(value):
        return None
    import dateparser

    settings = {"REQUIRE_PARTS": ["day", "month", "year"], "RETURN_AS_TIMEZONE_AWARE": False, "PREFER_DAY_OF_MONTH": "first"}
    try:
        parsed = dateparser.parse(value, languages=languages or ["en"], settings=settings)
    except (ValueError, TypeError, OverflowError):
        return None
    return _ymd(parsed.year, parsed.month, parsed.day) if parsed else None


# -- labelled fields ------------------------------------------------------------------------------------------------

# "Released", "Release date", "release-date", "Released on", "Date", "Published", "Tagged", "Shipped", "Out".
_DATE_LABEL = re.compile(
    r"(?i)^\W*(?:(?:(?:first\s+|initial\s+|original\s+|general\s+availability\s+|ga\s+)?(?:release|released|publish|published|publication|"
    r"tagged|shipped|out|available)(?:[\s_-]*(?:date|day|on|at))?)|date(?:[\s_-]*(?:released|published))?)\s*[:\-–—=]?[\s*_`]*$"
)
_VERSION_LABEL = re.compile(r"(?i)^\W*(?:version|release|current\s+version|latest\s+version|tag|release\s+version)\s*[:=]?\s*$")
_SINCE_LABEL = re.compile(
    r"(?i)^\W*(?P<verb>since|available\s+since|supported\s+since|stable\s+since|added(?:\s+in)?|new\s+in|introduced(?:\s+in)?|"
    r"version\s+added|first\s+version|min(?:imum)?\s+version|deprecated(?:\s+(?:since|in))?|removed(?:\s+in)?|changed(?:\s+in)?)\s*:?\s*$"
)
_LABEL_VALUE_VER = re.compile(
    rf"(?i)^\W*(?:(?:version|release|v(?=\d))\s*|(?:[A-Za-z][\w/+#-]*\s+){{0,2}}(?=v?\d))?v?(?P<ver>{BARE_VER})"
    r"(?:\s*\(.{0,40}\))?[\s.,;:]*$"
)
# A short label that is a whole marker: "Added in 17", "Since: OTP 25.0", "Deprecated in 16", "New in v2.3", "3.2+".
_LABEL_MARKER = re.compile(
    rf"(?i)^\W*(?:(?!(?:new|added|introduced|changed|deprecated|removed|since)\b)[A-Za-z]+\s+)?"
    rf"(?P<verb>new|added|introduced|changed|deprecated|removed|since|available\s+since|stable\s+since)\s*"
    rf"(?:(?:in|since|as\s+of)\b\s*)?:?\s*(?:(?:version|release)\s+|[A-Za-z][\w/+#-]{{0,20}}\s+(?=v?\d)|v(?=\d))?v?(?P<ver>{BARE_VER})[\s.,;:]*$"
)
PLUS_RE = re.compile(r"^\W*(?:[A-Za-z][\w.]*\s+){0,2}v?(?P<ver>\d+(?:\.\d+)+|\d+)\s*\+\s*$")  # "2.3+", "Acme 17.0+"
# a requirement label: "(Acme 8 >= 8.2.0)", "≥ 2.3"
_AT_LEAST = re.compile(rf"^\W*(?:[\w.]+\s+){{0,3}}(?:>=|≥)\s*v?(?P<ver>{BARE_VER})\W*$")
LABEL_KIND = {"since": "added", "available since": "added", "stable since": "added", "new": "added", "added": "added",
              "introduced": "added", "changed": "changed", "deprecated": "deprecated", "removed": "removed"}


def label_kind(verb: str) -> str:
    """The change kind a label's verb names ("Since" → added, "Deprecated since" → deprecated)."""
    v = _WS.sub(" ", verb.lower()).strip()
    for word in ("deprecated", "removed", "changed"):
        if v.startswith(word):
            return word
    return LABEL_KIND.get(v, "added")


def is_date_label(label: str) -> bool:
    return len(label) <= 40 and bool(_DATE_LABEL.match(label))


def is_version_label(label: str) -> bool:
    return len(label) <= 40 and bool(_VERSION_LABEL.match(label))


def since_label(label: str) -> str | None:
    """The kind a field label names ("Since:" → added, "Deprecated since" → deprecated), else None."""
    if len(label) > 40:
        return None
    m = _SINCE_LABEL.match(label)
    return label_kind(m.group("verb")) if m else None


def label_version(value: str) -> str | None:
    """A field's value that is one version ("17", "OTP 25.0", "v2.3.0 (LTS)"), else None."""
    if not value or len(value) > 60:
        return None
    m = _LABEL_VALUE_VER.match(value)
    return normalize_version(m.group("ver")) if m else None


# A sentence that is a Since field's value: "This function is available since Acme 2.26.0.", "Available since 2.4",
# "Added in Acme 1.2": "since" / "in" / "as of" after an availability word, at most two product words, the version.
_SINCE_SENTENCE = re.compile(
    rf"(?i)\b(?:available|supported|present|added|introduced|provided|exists?|new)\s+(?:(?:in|since|as\s+of|with|from)\s+)"
    rf"(?:(?:version|release)\s+|(?:[A-Za-z][\w/+#-]*\s+){{0,2}}(?=v?\d))?v?(?P<ver>{BARE_VER})(?!\w|\.\d)"
)


def since_value_version(value: str) -> str | None:
    """The version a "Since" field's value names: a version label ("17", "OTP 25.0"), or a short sentence that names
    one version as the one something is available since ("This function is available since Acme 2.26.0."), else
    None (a sentence naming several versions is no field value)."""
    ver = label_version(value)
    if ver or not value or len(value) > 200:
        return ver
    m = _SINCE_SENTENCE.search(value)
    if not m or len({normalize_version(v.group(0)) for v in VER_RE.finditer(value)}) != 1:
        return None
    return normalize_version(m.group("ver"))


def label_marker(text: str) -> tuple[str, str] | None:
    """(kind, version) when a short label is a whole marker ("Added in 17", "Since: OTP 25.0", "3.2+", "(Acme 8 >= 8.2.0)")."""
    if not text or len(text) > 60:
        return None
    m = _LABEL_MARKER.match(text)
    if m:
        return label_kind(m.group("verb")), normalize_version(m.group("ver"))
    m = PLUS_RE.match(text) or _AT_LEAST.match(text)
    if m and "." in m.group("ver"):
        return "added", m.group("ver")
    return None


def label_date(text: str, languages: list[str] | None = None) -> str | None:
    """The date of a short block that is only a date, or a date label and a date ("Released: March 4,
    2024", "release-date: 2024-3-04 10:15 A.M UTC+1:00", "Jul 3, 2022"), else None."""
    if not text or len(text) > 120:
        return None
    dates = find_dates(text)
    if dates:
        rest = without_dates(text, dates[:1]).strip(" \t*_`")
        if not rest.strip(" \t-–—:()[],.|/*_") or is_date_label(rest):
            return dates[0][2]
        return None
    month = find_month(text)
    if month is not None:  # a date that names only its month: the release's month
        rest = (text[:month[0]] + " " + text[month[1]:]).strip(" \t*_`")
        if not rest.strip(" \t-–—:()[],.|/*_") or is_date_label(rest):
            return month[2]
    if ":" in text:
        label, _, value = text.partition(":")
        if is_date_label(label):
            return free_date(value, languages)
    return None


# -- version headings ----------------------------------------------------------------------------------------------

_FUNCTION_WORDS = r"(?:in|to|from|for|with|and|or|of|on|at|by|the|a|an|since|until|before|after|over|under|vs|via|than|is|are|was)"
# "[2.0.0] - 2026-04-20", "Version 3.2 — April 6, 2021", "v1.4.0", "Python 3.11.0 final", "Release 1.2 (LTS)",
# "Django 4.2 release notes", "What's new in 2.3", "Changes in Acme 2.3", "pytest 7.2.0 (2022-10-23)": at most two product words
# before the version; after it only release words or a short bracketed note (dates are taken out first).
_VERSION_HEADING = re.compile(
    r"(?i)^[\s\[(#\-–—:|•·*/]*(?:(?:what(?:[’'`]?s|\s+is)\s+new|new|changes|changelog|change\s+log|release\s+notes|notes|news)\s+(?:in|for|since)\s+)?"
    r"(?:(?:release|version|ver\.?|tag)\s+)?(?P<product>(?:(?!" + _FUNCTION_WORDS + r"\s)[A-Za-z][\w.+#/-]*\s+){0,2})?\[?(?P<ver>"
    + VER
    + r")[\])]?(?P<rest>(?:\s|$|[-–—:(,\[/|]).*)?$"
)
_REST_OK = re.compile(
    r"(?i)^[\s\-–—:(),\[\]/|•·*_]*(?:(?:final|stable|lts|released?|release notes|changelog|change log|unreleased|yanked|"
    r"latest|current|hotfix|patch|security|(?:alpha|beta|release candidate|rc)\s*\d*|on|date|notes|\(.{0,40}\)|\[.{0,40}\])"
    r"[\s\-–—:(),\[\]/|•·*_]*)*$"
)
_SECNUM = re.compile(r"^\s*(?:\d+\.)*\d+\.?\s+(?=\D)")


def _match_version(text: str) -> tuple[str, str] | None:
    m = _VERSION_HEADING.match(text)
    if not m:
        return None
    ver, rest = m.group("ver"), (m.group("rest") or "")
    if re.match(r"^\.\s+[A-Za-z]", rest) or re.match(r"^\.\s*$", rest):  # numbered section "3.2. Usage"
        return None
    if not _REST_OK.match(rest):
        return None
    return ver, rest


def version_heading(text: str) -> tuple[str, str | None] | None:
    """(version, date or None) when a heading names a release, else None."""
    if not text or len(text) > 300 or not any(c.isdigit() for c in text):
        return None
    text = clean_heading(text)
    if not text or len(text) > 160:
        return None
    dates = find_dates(text)
    if not dates and (month := find_month(text)) is not None and re.search(r"[(\[—–-]\s*$", text[:month[0]]):
        dates = [month]  # "2.3.0 (March 2024)", "Acme 2.3.0 — November 2023": the month set off as a release's date
    bare = without_dates(text, dates[:1]) if dates else text
    hit = None
    m = _SECNUM.match(bare)
    if m and VER_RE.search(bare, m.end()):  # "1.4 Acme 4.0.1": a section number before the heading
        hit = _match_version(bare[m.end():])
    if hit is None:
        hit = _match_version(bare)
    if hit is None:
        return None
    ver, rest = hit
    pre = re.search(r"(?i)\b(alpha|beta|release candidate|rc)\s*(\d+)?", rest)
    ver = normalize_version(ver)
    if pre and not re.search(r"[a-z]", ver.split(".")[-1]):
        ver += {"alpha": "a", "beta": "b", "release candidate": "rc", "rc": "rc"}[pre.group(1).lower()] + (pre.group(2) or "")
    return ver, (dates[0][2] if dates else None)


def date_heading(text: str) -> str | None:
    """The date of a heading that is only a date ("Jul 3, 2022", "Released 2022-08-01"), else None."""
    text = clean_heading(text)
    if not text or VER_RE.search(without_dates(text)):
        return None
    return label_date(text)
