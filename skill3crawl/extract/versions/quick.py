"""The cheap pre-screen over a page's markdown: which marker phrases it holds and which structures it may
have (each flag turns one scan on), so a page with none of them costs a few regexes."""

from __future__ import annotations

import re
from functools import lru_cache

from lxml import etree

from skill3crawl.extract.releases import version_heading
from skill3crawl.extract.versions.phrases import MARKER_VER_RE
from synth.skill.markdown import heading_title

# On the lower-cased markdown: which marker phrases are there, how many? (" in 3.11" first — a literal
# start scans fast — then the verb before it.)
_QUICK = re.compile(r" (?:in|since|as of):? (?:version |release |v)?(?:[a-z][\w+#-]* )?[`*_]?(?:v|[a-z]{1,6}(?=\d+\.\d))?\d")
QUICK_VERBS = ("added", "new", "changed", "deprecated", "removed", "introduced", "available", "the change")
_QUICK_SINCE = re.compile(r"since(?::[\s*_]*(?:[a-z/]+ )?v?\d|[\s*_]+(?:[a-z/]+ )?v?\d[\w.]*[\s*_]*(?:\n|\||$))")
_AT_LEAST_HINT = re.compile(r"(?:>=|≥)\s*v?\d+\.\d")
RAW_SINCE = re.compile(r"since:\s*(?:[a-z/]+\s)?v?\d")
# A "Since" field whose value is a sentence: "This function is available since Acme 2.26.0." (lower-cased text)
# or a label with the product and version before its colon ("Since Acme 4.8:")
SINCE_SENTENCE_HINT = re.compile(r"(?:available|supported|present|introduced|provided) (?:since|as of) (?:[a-z][\w/+#-]* ){0,2}v?\d"
                                  r"|since (?:[a-z][\w/+#-]* )?v?\d+(?:\.\d+)*:")
_PSEUDO_HINT = re.compile(r"[\W_]{0,6}(?:(?:[A-Za-z][\w.+#/'’-]*\s+){0,4}\[?v?\d+\.\d|(?:19|20)\d\d[-/]\d)")
_QUICK_PLUS = re.compile(r"(?<![\w.+])v?\d+(?:\.\d+)+\+(?![\w+])")
_QUICK_TABLE = re.compile(r"(?i)\|\s*(?:versions?|releases?|since|added(?: in)?|introduced(?: in)?|tags?)\s*\|")
_QUICK_FIELD = re.compile(r"(?i)[|*_\s]*(?:release\s+|current\s+)?(?:version|release date|released(?: on)?|date)[*_\s]*:?[*_\s]*(?:\||$)")
_MD_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")
_HEADING_END_VER = re.compile(r"\S\s*(?:[A-Za-z]+\s+)?v?\d+(?:\.\d+)+\W{0,3}$")
_BARE_VERSION_LINE = re.compile(r"[\W_]*v?\d+(?:\.\d+)+\+?[\W_]*$")
_SECTION_NUMBER = re.compile(r"#+\s*(?:\d+\.)*\d+\.?(?:\s|(?=[A-Za-z]))")
QUICK_DIGITS = re.compile(r"\d\.\d|\d{4}")
# the text nodes that may hold a verb's phrase (its first letter left out: "Added" and "added" alike)
_VERB_XP = {"added": ("dded in", "dded In"), "new": ("ew in", "ew In"), "changed": ("hanged in", "hanged In"),
            "deprecated": ("eprecated",), "removed": ("emoved in", "emoved In"), "introduced": ("ntroduced in", "ntroduced In"),
            "available": ("vailable in", "vailable In", "vailable since", "vailable as of"), "the change": ("he change in",),
            "opener": ("Since ", "As from ", "As of ", "From ", "Starting with ", "Starting in ", "Starting from ", "Beginning with ")}
# A sentence that opens with the version it holds from ("Since Acme 4.2.0, …"; lower-cased text)
_QUICK_OPENER = re.compile(r"(?:^|[.!?:;(]\s?|\n)\s*(?:since|as from|as of|from|starting (?:with|in|from)|beginning with) "
                           r"(?:version |release |[a-z][\w+#-]{0,30} )?v?\d+\.\d")
ALL_FLAGS = frozenset(("hver", "badge", "pseudo", "since", "plus", "table", "field"))


def quick_phrases(low: str) -> tuple[int, frozenset[str]]:
    n, verbs = 0, set()
    for m in _QUICK.finditer(low):
        before = low[max(0, m.start() - 16):m.start()]
        verb = next((v for v in QUICK_VERBS if before.endswith(v)), None)
        if verb and not before.endswith(("be removed", "to removed")):
            n += 1
            verbs.add(verb)
    if ("since " in low or "from " in low or "as of " in low or "with " in low) and _QUICK_OPENER.search(low):
        n += 1
        verbs.add("opener")
    return n, frozenset(verbs)


def quick_flags(text: str, low: str) -> frozenset[str]:
    """Which structures the page's markdown may hold (each flag turns one scan on): one pass over its short lines
    (headings with a version after any section number, version lines, table headers, field labels)."""
    flags: set[str] = set()
    for ln in text.split("\n"):
        if not ln or len(ln) > 200:
            continue
        if ln[0] == "#":
            _heading_flags(ln, flags)
        else:
            _line_flags(ln, flags)
    if _label_start(low, "since", _QUICK_SINCE):
        flags.add("since")
    if _plus_badge(text):
        flags.add("plus")
    if ("since" not in flags and (">=" in text or "≥" in text) and _AT_LEAST_HINT.search(text)):
        flags.add("since")  # a requirement label "(Acme 8 >= 8.2.0)" reads like a since label
    return frozenset(flags)


def _heading_flags(ln: str, flags: set[str]) -> None:
    """A markdown heading line: a version after any section number ("hver"), a version at its end ("badge")."""
    if "hver" not in flags and QUICK_DIGITS.search(ln):
        m = _SECTION_NUMBER.match(ln)  # "## 4.1. Usage" is a numbered section, "## 2.3.0 (…)" a release
        if (MARKER_VER_RE.search(ln, m.end() if m else 0) or m and version_heading(ln.lstrip("# "))) and heading_title(ln) is not None:
            flags.add("hver")
    if "badge" not in flags and _HEADING_END_VER.search(ln):
        flags.add("badge")  # a version at a heading's end: a since label or badge in it


def _line_flags(ln: str, flags: set[str]) -> None:
    """Any other short line: a version table's header, a line that is only a version, a field label, a paragraph
    that heads a version ("pseudo")."""
    c = ln[0]
    if c == "|" and "table" not in flags and _QUICK_TABLE.search(ln):
        flags.add("table")
    if c == "[" and "](" in ln:  # a line that starts with a link: read the link's text
        ln = _MD_LINK.sub(r"\1", ln)
    if len(ln) <= 60:
        if "badge" not in flags and len(ln) <= 40 and _BARE_VERSION_LINE.match(ln):
            flags.add("badge")  # a line that is only a version: a badge
        if "field" not in flags and _QUICK_FIELD.match(ln):
            flags.add("field")
    if "pseudo" not in flags and _PSEUDO_HINT.match(ln) and version_heading(ln.strip("*_|-> \t")):
        flags.add("pseudo")


def _label_start(low: str, word: str, rx: re.Pattern[str]) -> bool:
    """A label ``word`` at the start of a line or table cell, its pattern matching there."""
    i = low.find(word)
    while i >= 0:
        start = max(low.rfind("\n", 0, i), low.rfind("|", 0, i)) + 1
        if not low[start:i].strip(" \t*_>-#`"):
            if rx.match(low, i):
                return True
        i = low.find(word, i + len(word))
    return False


def _plus_badge(text: str) -> bool:
    """A "3.2+" version badge somewhere in the text."""
    i = text.find("+")
    while i >= 0:
        if i and text[i - 1].isdigit() and _QUICK_PLUS.search(text, max(0, i - 24), i + 2):
            return True
        i = text.find("+", i + 1)
    return False


@lru_cache(maxsize=64)
def text_xp(verbs: frozenset[str]) -> etree.XPath:
    tests = " or ".join(f"contains(., '{needle}')" for v in sorted(verbs) for needle in _VERB_XP[v])
    return etree.XPath(f"descendant::text()[{tests}]")
