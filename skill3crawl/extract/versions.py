"""Version markers and change pages: where a documentation site says *what changed in which release*.

:func:`find_changes` reads a parsed page (the lxml content node, or the whole body) and returns

* ``changes`` — one entry per annotated snippet, in document order:

  - Sphinx ``versionadded`` / ``versionchanged`` / ``deprecated`` / ``deprecated-removed`` /
    ``versionremoved`` directives (old "New in version X" and new "Added in version X" spellings);
  - the same phrases as text anywhere ("Added in v2.3", "Added in: v9.0.0", "Deprecated since 1.4,
    will be removed in 2.0"), and short labels that are a whole marker ("Since: OTP 25.0", "Added
    in 17", "3.2+");
  - labelled fields: a definition-list or table field "Since" / "Added in" / "Deprecated since"
    whose value is a version ("Since: 17"), attached to the API block it sits in;
  - badges and stability attributes: an element classed as a since/added label or a badge whose text
    is a version label, ``data-since`` / ``data-version-added``-style attributes;
  - History tables: a table with a version column and a change column gives one marker per row,
    attached to the API the table sits under; tabs labelled as a marker ("Added in 17") mark the rows
    they select;
  - on change pages, and in version sections of any page, every paragraph / list item of a version's
    section (``kind="release"`` or the Keep a Changelog subsection's kind: Added / Changed /
    Deprecated / Removed), also in a plain-text page (one ``<pre>``) whose lines carry version headings.

  Each entry: ``kind``, ``version``, ``removed_in``, ``date``, ``text``, ``anchor``, ``heading`` (the
  nearest heading), ``path`` (the enclosing headings, outermost first, at most :data:`MAX_PATH` of
  :data:`MAX_PATH_CHARS` characters), ``api`` (the API a marker annotates: a definition term's id or
  signature name, a History table's API, else None) and ``code`` (at most :data:`MAX_CODE` ``{text,
  language}`` code blocks of the entry: ``<pre>`` inside its block or directly after it, before the next
  entry or heading; byte-exact, at most :data:`MAX_CODE_CHARS` characters each — longer ones left out).
* ``page_kind`` — ``"change"`` or ``"doc"``; ``page_version`` — the one version a change page is about.
  A page is a change page by its URL or title words, or by its structure: sections headed by versions,
  a title or first heading that names a version and a date, a field table naming one release, a
  plain-text page of version headings.
* ``release_dates`` — ``{version, date, source, where}`` read from the page, ``where`` one of
  :data:`WHERE`: the heading or title itself (the date before or after the version), a date-only
  sub-heading, a field under the version heading ("Released: March 4, 2024", a field list), a
  sentence in its first blocks ("X was released on …"), ``<time datetime>``, a table of versions and
  dates, a plain-text page's line. A date is never taken from a block that names another version.

Each marker belongs to the block it annotates: a definition (the ``dt`` signature plus the ``dd``
text), the list item or paragraph it sits in, the paragraph a bare marker follows, or the section
it opens. Pure and lxml-only (XPath does the scanning), so it runs in the extraction worker in the
same call as the content extraction. Version and date reading: :mod:`skill3crawl.extract.releases`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from itertools import islice
from typing import Any, Callable
from urllib.parse import unquote, urlsplit

from lxml import etree

from skill3crawl.extract.fastmd import to_markdown
from skill3crawl.extract.releases import (
    INVISIBLE,
    VER,
    VER_RE,
    date_heading,
    find_date,
    find_dates,
    free_date,
    heading_text,
    is_date_label,
    is_version_label,
    label_date,
    label_marker,
    label_version,
    normalize_version,
    since_label,
    version_heading,
    without_dates,
)
from synth.evidence.item import MAX_CHANGE_API_CHARS, MAX_CHANGE_CODE, MAX_CHANGE_CODE_CHARS, MAX_CHANGE_PATH, MAX_CHANGE_PATH_CHARS
from synth.skill.markdown import heading_title
from synth.vet.redact import filename_for_language, redact_text

__all__ = ["MAX_CHANGES", "KINDS", "WHERE", "find_changes", "scan_changes", "redact_changes", "find_date",
           "version_heading", "page_version_of", "normalize_version"]

MAX_CHANGES = 400
MAX_TEXT = 1500
MAX_RELEASE_DATES = 500
MAX_PATH, MAX_PATH_CHARS, MAX_API_CHARS = MAX_CHANGE_PATH, MAX_CHANGE_PATH_CHARS, MAX_CHANGE_API_CHARS
MAX_CODE, MAX_CODE_CHARS = MAX_CHANGE_CODE, MAX_CHANGE_CODE_CHARS
MAX_TABLE_ROWS = 500
MAX_TABS = 40  # tabs labelled as markers read on one page
MAX_TEXT_LINES = 20000
MIN_ENTRY_CHARS = 20  # a change page's field lists and one-word lines are not entries...
MIN_ITEM_WORDS = 3  # ...but a short list item of a few words is ("PEP 673: Self type")
KINDS = ("added", "changed", "deprecated", "removed", "release")
WHERE = ("heading", "title", "field", "paragraph", "time", "table", "text")

_VER = VER
_VER_RE = VER_RE
# "New in version 3.11", "Added in v2.3", "Added in: v9.0.0", "Changed in version 3.8", "Deprecated since version
# 3.11, will be removed in version 3.13", "Removed in 3.12", "Added in Python 3.11" (one product word allowed).
_MARKER_RE = re.compile(
    r"(?i)(?<![\w-])(?<!what's )(?<!whats )(?<!what’s )(?P<verb>new|added|introduced|changed|deprecated|removed)\s+(?:in|since|as\s+of)\s*:?\s+"
    r"(?:(?:version|release|v(?=\d))\s*|(?:[A-Za-z][\w+#-]{0,30}\s+)(?=v?\d+\.\d)|[a-z]{1,6}(?=\d+\.\d))?"
    rf"(?P<ver>{_VER})(?![\w-]|\.\d)(?!\s*(?:ms|s|secs?|seconds?|minutes?|hours?|days?|%|x|[kmg]i?b)\b)"
    r"(?:,?\s*(?:and\s+)?(?:will\s+be\s+|to\s+be\s+|is\s+scheduled\s+(?:for|to\s+be)\s+)?(?:removed|removal)\s+in\s+"
    rf"(?:(?:version|release)\s*|[A-Za-z][\w+#-]{{0,30}}\s+(?=v?\d))?(?P<rem>{_VER}))?"
)
_VERB_KIND = {"new": "added", "added": "added", "introduced": "added", "changed": "changed",
              "deprecated": "deprecated", "removed": "removed"}
_SPHINX_KIND = {"versionadded": "added", "versionchanged": "changed", "deprecated": "deprecated",
                "deprecated-removed": "deprecated", "versionremoved": "removed"}
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_PSEUDO_LEVEL = 7  # a paragraph or definition term that heads a version section sits below every real heading
_TITLE_BLOCK = ("admonition-title", "admonitionheading", "admonition-heading", "admonition_heading")
_BLOCK_TAGS = {"p", "li", "dd", "dt", "td", "th", "blockquote", "summary", "figcaption", "section", "article", "main",
               "details", *_HEADINGS}
_WS = re.compile(r"\s+")
_MD_HEADING = re.compile(r"(?m)(?:^|(?<=\s))#{1,6} ")
_NOTE_COLON = re.compile(r"(?i)(\b(?:version|since|in)\s+v?\d[\w.-]*:)(?=[^\s/])")

_WHATSNEW_RE = re.compile(
    r"(?i)what[’'`]?s\s+new\s+(?:in\s+)?(?:(?:[\w.+#-]+\s+){0,2}?)(?P<ver>" + _VER + r")(?![\w-]|\.\d)"
)
_PAGE_VERSION_RES = (
    _WHATSNEW_RE,
    re.compile(r"(?i)(?:release\s+notes|changelog|change\s+log|changes|news)\s+(?:for|in|of)\s+(?:(?:[\w.+#-]+\s+){0,2}?)(?P<ver>" + _VER + r")(?![\w-]|\.\d)"),
    re.compile(r"(?i)(?<![\w.])(?P<ver>" + _VER + r")(?![\w-]|\.\d)\s+(?:release\s+notes|changelog|change\s+log|is\s+(?:out|released|here))"),
    re.compile(r"(?i)(?:migrat\w*|upgrad\w*|porting)\b.{0,40}?\bto\s+(?:(?:[\w.+#-]+\s+){0,2}?)(?P<ver>" + _VER + r")(?![\w-]|\.\d)"),
)
_CHANGE_TITLE = re.compile(
    r"(?i)what[’'`]?s\s+new|change\s?log|release\s+notes|^news\s+(?:for|in)\b|^changes\s+(?:in|for)\s+\S*\d|release\s+history|version\s+history|migration\s+guide|"
    r"migrating\s+(?:from|to)|upgrade\s+guide|upgrading\s+(?:from|to)|porting\s+to|^releases\b|\breleases\s+·|breaking\s+changes|"
    r"^new\s+(?:apis?|features?)\b|^deprecated\s+(?:apis?|list|features?)\b|\bapi\s+changes\b"
)
_STRONG_URL = ("changelog", "change-log", "change_log", "releasenotes", "release-notes", "release_notes", "whatsnew",
               "whats-new", "whats_new", "what-s-new", "migration", "migrating", "upgrade", "upgrading")
_WEAK_URL = {"changes", "history", "news", "releases", "release", "porting", "changelogs", "tags"}
_WAS_RELEASED = re.compile(
    r"(?i)(?<![\w.])(?P<ver>" + _VER + r")(?![\w-]|\.\d)\s+(?:was|is|has\s+been)\s+(?:officially\s+)?released\s+on\s+"
)
_RELEASE_CUE = re.compile(r"(?i)releas|publish|availab|ship|tagged|launch|\bout\b|\bdated?\b")
# Keep a Changelog / What's New subsections → kind
_SECTION_KIND = (
    (re.compile(r"(?i)^\W*(?:added|new\b|features?\b|additions)"), "added"),
    (re.compile(r"(?i)^\W*(?:changed|changes\b|improved|improvements|updated)"), "changed"),
    (re.compile(r"(?i)^\W*(?:deprecated|deprecations|pending\s+removal)"), "deprecated"),
    (re.compile(r"(?i)^\W*(?:removed|removals|removal)"), "removed"),
)
_REMOVAL_IN = re.compile(r"(?i)remov\w*\s+in\s+(?:version\s+|[A-Za-z][\w+#-]{0,30}\s+(?=v?\d))?(?P<ver>" + _VER + r")")
# History / version tables: the header cells that name their columns
_VER_COL = re.compile(r"(?i)^\W*(?:versions?|releases?|since|added(?:\s+in)?|introduced(?:\s+in)?|tags?|v)\W*$")
_CHANGE_COL = re.compile(r"(?i)^\W*(?:changes?|change\s*log|description|notes?|details|what(?:[’']s|\s+is)?\s+(?:new|changed)|"
                         r"summary|highlights|history|comments?)\W*$")
_DATE_COL = re.compile(r"(?i)^\W*(?:(?:release|released|publish(?:ed)?|ga|availability)(?:\s+date|\s+on)?|date)\W*$")

# Cheap scans (libxml2 evaluates them; a union of paths or self:: chains would cost several ms a page).
_DIRECTIVE_XP = etree.XPath("descendant::div[contains(@class, 'version') or contains(@class, 'deprecated')]")
_MARK_XP = etree.XPath(
    "descendant::*[contains(@class, 'since') or contains(@class, 'badge') or @data-since or @data-version-added "
    "or @data-added or @data-added-in or @data-introduced]"
)
_TAB_XP = etree.XPath("descendant::*[@role='tab'][@id]")
_PLUS_XP = etree.XPath("descendant::text()[contains(., '+')]")
_MARK_ATTRS = ("data-since", "data-added", "data-added-in", "data-version-added", "data-introduced")
_BADGE_WORDS = ("badge", "label", "tag", "pill", "chip", "lozenge")
# On the lower-cased markdown: which marker phrases are there, how many? (" in 3.11" first — a literal
# start scans fast — then the verb before it.)
_QUICK = re.compile(r" (?:in|since|as of):? (?:version |release |v)?(?:[a-z][\w+#-]* )?[`*_]?(?:v|[a-z]{1,6}(?=\d+\.\d))?\d")
_QUICK_VERBS = ("added", "new", "changed", "deprecated", "removed", "introduced")
_QUICK_SINCE = re.compile(r"since(?::[\s*_]*(?:[a-z/]+ )?v?\d|[\s*_]+(?:[a-z/]+ )?v?\d[\w.]*[\s*_]*(?:\n|\||$))")
_AT_LEAST_HINT = re.compile(r"(?:>=|≥)\s*v?\d+\.\d")
_RAW_SINCE = re.compile(r"since:\s*(?:[a-z/]+\s)?v?\d")
_PSEUDO_HINT = re.compile(r"[\W_]{0,6}(?:(?:[A-Za-z][\w.+#/'’-]*\s+){0,4}\[?v?\d+\.\d|(?:19|20)\d\d[-/]\d)")
_QUICK_PLUS = re.compile(r"(?<![\w.+])v?\d+(?:\.\d+)+\+(?![\w+])")
_QUICK_TABLE = re.compile(r"(?i)\|\s*(?:versions?|releases?|since|added(?: in)?|introduced(?: in)?|tags?)\s*\|")
_QUICK_FIELD = re.compile(r"(?i)[|*_\s]*(?:release\s+|current\s+)?(?:version|release date|released(?: on)?|date)[*_\s]*:?[*_\s]*(?:\||$)")
_MD_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")
_HEADING_END_VER = re.compile(r"\S\s*(?:[A-Za-z]+\s+)?v?\d+(?:\.\d+)+\W{0,3}$")
_BARE_VERSION_LINE = re.compile(r"[\W_]*v?\d+(?:\.\d+)+\+?[\W_]*$")
_SECTION_NUMBER = re.compile(r"#+\s*(?:\d+\.)*\d+\.?(?:\s|(?=[A-Za-z]))")
_QUICK_DIGITS = re.compile(r"\d\.\d|\d{4}")
# the text nodes that may hold a verb's phrase (its first letter left out: "Added" and "added" alike)
_VERB_XP = {"added": ("dded in", "dded In"), "new": ("ew in", "ew In"), "changed": ("hanged in", "hanged In"),
            "deprecated": ("eprecated",), "removed": ("emoved in", "emoved In"), "introduced": ("ntroduced in", "ntroduced In")}
_ALL_FLAGS = frozenset(("hver", "badge", "pseudo", "since", "plus", "table", "field"))


def _phrases(low: str) -> tuple[int, frozenset[str]]:
    n, verbs = 0, set()
    for m in _QUICK.finditer(low):
        before = low[max(0, m.start() - 16):m.start()]
        verb = next((v for v in _QUICK_VERBS if before.endswith(v)), None)
        if verb and not before.endswith(("be removed", "to removed")):
            n += 1
            verbs.add(verb)
    return n, frozenset(verbs)


def _quick_flags(text: str, low: str) -> frozenset[str]:
    """Which structures the page's markdown may hold (each flag turns one scan on): one pass over its short lines
    (headings with a version after any section number, version lines, table headers, field labels)."""
    flags = set()
    for ln in text.split("\n"):
        if not ln or len(ln) > 200:
            continue
        c = ln[0]
        if c == "#":
            if "hver" not in flags and _QUICK_DIGITS.search(ln):
                m = _SECTION_NUMBER.match(ln)  # "## 4.1. Usage" is a numbered section, "## 2.3.0 (…)" a release
                if (_VER_RE.search(ln, m.end() if m else 0) or m and version_heading(ln.lstrip("# "))) and heading_title(ln) is not None:
                    flags.add("hver")
            if "badge" not in flags and _HEADING_END_VER.search(ln):
                flags.add("badge")  # a version at a heading's end: a since label or badge in it
            continue
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
    if _label_start(low, "since", _QUICK_SINCE):
        flags.add("since")
    if _plus_badge(text):
        flags.add("plus")
    if ("since" not in flags and (">=" in text or "≥" in text) and _AT_LEAST_HINT.search(text)):
        flags.add("since")  # a requirement label "(Acme 8 >= 8.2.0)" reads like a since label
    return frozenset(flags)


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
def _text_xp(verbs: frozenset[str]) -> etree.XPath:
    tests = " or ".join(f"contains(., '{needle}')" for v in sorted(verbs) for needle in _VERB_XP[v])
    return etree.XPath(f"descendant::text()[{tests}]")


_CHROME = ("nav", "header", "footer", "aside")
_TIME_TAGS = ("time", "relative-time", "local-time")
_WALK_TAGS = (*_HEADINGS, "p", "li", "dt", "table", *_TIME_TAGS)


# -- small helpers ---------------------------------------------------------------------------------------------------

_STRIP = str.maketrans({"¶": "", "\xa0": " "})


def _clean(text: str) -> str:
    text = _WS.sub(" ", text if text.isascii() else INVISIBLE.sub("", text.translate(_STRIP))).strip()
    if text.endswith(" #"):  # Docusaurus / MkDocs heading permalinks
        text = text[:-2].rstrip()
    if ":" in text:  # "New in version 3.11:`x`" (inline runs joined without a space)
        text = _NOTE_COLON.sub(r"\1 ", text)
    return text


def _md(el: Any) -> str:
    return _clean(to_markdown(el))


def _plain(el: Any) -> str:
    return _clean(el.text_content())


def _cap(text: str, n: int = MAX_TEXT) -> str:
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _classes(el: Any) -> str:
    return " " + (el.get("class") or "").lower() + " "


def _tag(el: Any) -> str:
    return el.tag if isinstance(el.tag, str) else ""


def _block_of(el: Any, stop: Any) -> Any:
    """The nearest block element at or above ``el`` (not above ``stop``)."""
    cur = el
    while cur is not None:
        tag = _tag(cur)
        if tag in _BLOCK_TAGS or any(c in _classes(cur) for c in _TITLE_BLOCK):
            return cur
        if cur is stop:
            return cur
        cur = cur.getparent()
    return el


def _definition_of(el: Any, stop: Any) -> Any:
    """The ``dd`` a marker sits in (through wrappers like blockquote/div), unless a list item or section comes first."""
    cur = el.getparent()
    while cur is not None and cur is not stop:
        tag = _tag(cur)
        if tag == "dd":
            return cur
        if tag in ("li", "section", "article", "td", "details") or tag in _HEADINGS:
            return None
        cur = cur.getparent()
    return None


def _dt_of(dd: Any) -> Any:
    prev = dd.getprevious()
    while prev is not None and _tag(prev) != "dt":
        if _tag(prev) == "dd":
            return None
        prev = prev.getprevious()
    return prev


def _dd_of(dt: Any) -> Any:
    nxt = dt.getnext()
    while nxt is not None and _tag(nxt) != "dd":
        if _tag(nxt) == "dt":
            return None
        nxt = nxt.getnext()
    return nxt


def _intro(dd: Any, skip: Any) -> str:
    """The first paragraph of a definition's own text (not a nested definition or version note)."""
    if dd.text and dd.text.strip():
        return _clean(dd.text)
    for child in dd:
        tag = _tag(child)
        if tag == "dl" or child is skip:
            break
        if tag == "p":
            text = _md(child)
            if text and not _MARKER_RE.match(text):
                return text
    return ""


def _is_title(el: Any) -> bool:
    return _tag(el) == "summary" or any(c in _classes(el) for c in _TITLE_BLOCK)


def _next_block_text(el: Any, enough: int = 120) -> str:
    """The text of the blocks after ``el`` up to the next heading: the first one, more while it is short."""
    nxt, size = el.getnext(), 0
    parts: list[str] = []
    while nxt is not None and size < enough and len(parts) < 3:
        if _tag(nxt) in _HEADINGS:
            break
        if _tag(nxt) and not any(k in _classes(nxt) for k in _SPHINX_KIND):
            text = _MD_HEADING.sub("", _md(nxt))
            if text and parts and (_MARKER_RE.search(text) or label_marker(text)):
                break  # the next block is another marker's
            if text:
                parts.append(text)
                size += len(text)
        nxt = nxt.getnext()
    return " ".join(parts)


def _prev_block(el: Any) -> tuple[Any, str, bool]:
    """(the block ``el`` follows, its text, whether ``el`` directly follows a heading)."""
    prev = el.getprevious()
    while prev is not None:
        tag = _tag(prev)
        if tag in _HEADINGS:
            return None, "", True
        if tag and not any(k in _classes(prev) for k in _SPHINX_KIND) and tag not in ("span", "a", "script", "style"):
            text = _md(prev)
            if text:
                return prev, text, False
        prev = prev.getprevious()
    return None, "", False


def _anchor_up(el: Any, stop: Any) -> str | None:
    cur = el
    while cur is not None:
        if cur.get("id"):
            return "#" + cur.get("id")
        if cur is stop:
            break
        cur = cur.getparent()
    return None


def _heading_anchor(h: Any) -> str | None:
    if h.get("id"):
        return "#" + h.get("id")
    parent = h.getparent()
    if parent is not None and parent.get("id") and _tag(parent) in ("section", "div", "article"):
        return "#" + parent.get("id")
    prev = h.getprevious()
    if prev is not None and _tag(prev) == "span" and prev.get("id"):
        return "#" + prev.get("id")
    return None


# -- the API a marker annotates -------------------------------------------------------------------------------------

_KIND_WORDS = (r"(?:(?:abstract|async|static|final|public|protected|private|sealed|non-sealed|default|native|synchronized|"
               r"pub(?:\([\w:]+\))?|extern|unsafe|inline|virtual|override|open|internal|suspend|operator|mut|"
               r"const|readonly|export|declare|class|interface|enum|record|annotation|module|package|namespace|struct|"
               r"union|trait|impl|type|typedef|function|func|fn|def|method|property|attribute|field|constructor|exception|"
               r"macro|variable|var|let|object|coroutine|awaitable|decorator|data|opcode|command|directive|option|envvar|"
               r"event|hook|signal|filter|role|element|component|resource|endpoint)\s+)")
_API_NAME = re.compile(
    rf"(?i)^(?P<kinds>{_KIND_WORDS}*)(?-i:(?P<name>(?:-{{1,2}}[A-Za-z]|[A-Za-z_$@])[\w$@-]*(?:(?:\.|::|:|#|->)[A-Za-z_$][\w$-]*)*))(?P<call>\s*[(<\[])?"
)
_QUALIFIED = re.compile(r"\.|::|:|#|->|_|[a-z][A-Z]")


def api_name(text: str | None, *, signature: bool = False) -> str | None:
    """The API name a signature, heading or id gives: ``class asyncio.TaskGroup`` → ``asyncio.TaskGroup``,
    ``isSealed()`` → ``isSealed``, "Class HexFormat" → ``HexFormat``. From a heading or an id (not a
    ``signature``) only a name that looks like code: called, qualified, or after a kind word."""
    text = _clean(text or "").lstrip("`*_ ")
    if not text:
        return None
    m = _API_NAME.match(text)
    if not m:
        return None
    name = m.group("name").rstrip("-:")
    if not name or len(name) > MAX_API_CHARS:
        return None
    if signature or m.group("call") or m.group("kinds") or _QUALIFIED.search(name):
        return name
    return None


def _dt_api(dt: Any) -> str | None:
    if dt is None:
        return None
    by_id = api_name(dt.get("id"))
    sig = api_name(_plain(dt), signature=True)
    if by_id and (not sig or len(by_id) >= len(sig)):
        return by_id
    return sig or by_id


def _heading_api(h: Any, text: str | None = None) -> str | None:
    if h is None:
        return None
    text = heading_text(h) if text is None else text
    if next(h.iter("code", "tt", "kbd"), None) is not None:
        return api_name(text, signature=True)
    return api_name(text) or api_name(h.get("id"))


# -- markers --------------------------------------------------------------------------------------------------------

def _annotated(marker_el: Any, marker_text: str, own_body: bool, stop: Any, heading: tuple[str, str | None, Any]
               ) -> tuple[str, str | None, str | None, Any]:
    """(text, anchor, api, code element) of the block a marker annotates (``heading``: the one it sits under)."""
    dd = _definition_of(marker_el, stop)
    if dd is not None:
        dt = _dt_of(dd)
        sig = _md(dt) if dt is not None else ""
        intro = _intro(dd, marker_el)
        if own_body:
            intro = _cap(intro, 400) if intro else ""
        text = " — ".join(p for p in (sig, " ".join(p for p in (intro, marker_text) if p)) if p)
        anchor = ("#" + dt.get("id")) if dt is not None and dt.get("id") else _anchor_up(dd, stop)
        return text, anchor or heading[1], _dt_api(dt), dd
    block = _block_of(marker_el, stop)
    tag = _tag(block)
    if tag in _HEADINGS:
        htext = heading_text(block)
        text = " ".join(p for p in (htext, _next_block_text(block)) if p)
        return text, _heading_anchor(block) or heading[1], _heading_api(block, htext), block
    if _is_title(block):
        container = block.getparent()
        container = container if container is not None else block
        return _md(container), _anchor_up(block, stop) or heading[1], None, container
    if tag == "li" or tag in ("td", "th", "dt") or own_body:
        text = _md(block) if tag not in ("section", "article", "main") else marker_text
        api = None
        if tag == "dt":
            api = _dt_api(block)
            parent_dd = block.getnext()
            if parent_dd is not None and _tag(parent_dd) == "dd":
                text = " — ".join(p for p in (text, _intro(parent_dd, None)) if p)
        if marker_text and marker_text not in text:
            text = f"{text} {marker_text}".strip()
        return text, (block.get("id") and "#" + block.get("id")) or heading[1], api, block
    # a bare marker: the paragraph it follows, or the section it opens
    unit = marker_el if _tag(marker_el) == "div" or block is stop or _tag(block) in ("section", "article", "main", "body") else block
    if unit is marker_el:
        unit = _own_wrapper(marker_el, stop)
    prev, prev_text, after_heading = _prev_block(unit)
    if prev_text and not after_heading:
        return f"{prev_text} {marker_text}", heading[1], None, prev
    nxt = _next_block_text(unit)
    api = _heading_api(heading[2], heading[0]) if after_heading and heading[2] is not None else None
    return " ".join(p for p in (heading[0], marker_text, nxt) if p), heading[1], api, unit


def _own_wrapper(el: Any, stop: Any) -> Any:
    """The outermost element below ``stop`` that holds nothing but ``el`` (a metadata box around a lone "Added in:
    v18.0.0"): the marker's own block, whose neighbours are the heading it follows and the text it annotates.
    Read from the children and their text, never a whole container's text (markers are many on an API page)."""
    cur = el
    while True:
        parent = cur.getparent()
        if parent is None or parent is stop or (parent.text or "").strip():
            return cur
        if any(c is not cur and isinstance(c.tag, str) or (c.tail or "").strip() for c in parent):
            return cur
        cur = parent


def _blocks_text(container: Any, skip: Any, limit: int = 500) -> str:
    """The text of a container's first blocks, ``skip`` (the block holding a marker) and headings left out."""
    parts: list[str] = []
    size = 0
    for child in container:
        tag = _tag(child)
        if not tag or tag in _HEADINGS or tag in ("script", "style", "pre") or child is skip:
            continue
        if skip is not None and child in skip.iterancestors():
            continue
        text = _md(child)
        if text:
            parts.append(text)
            size += len(text)
            if size >= limit:
                break
    return _cap(" ".join(parts), limit)


def _api_block(el: Any, stop: Any, page_heading: tuple[str, Any]) -> tuple[str, str | None, str | None, Any]:
    """(text, anchor, api, code element) of the API block a labelled field (``Since: 17``) sits in: the
    definition, the section or article with its own heading, the heading it follows, else the page's own API."""
    cur = el.getparent()
    while cur is not None and cur is not stop:
        tag = _tag(cur)
        if tag == "dd":
            dt = _dt_of(cur)
            if dt is not None:
                text = " — ".join(p for p in (_md(dt), _cap(_intro(cur, el), 400)) if p)
                return text, ("#" + dt.get("id")) if dt.get("id") else _anchor_up(cur, stop), _dt_api(dt), cur
        if tag in ("section", "article", "div", "li", "details"):
            h = next((c for c in cur[:4] if _tag(c) in _HEADINGS), None)
            if h is not None:
                htext = heading_text(h)
                text = " — ".join(p for p in (htext, _blocks_text(cur, el)) if p)
                api = api_name(cur.get("id")) or _heading_api(h, htext)
                return text, ("#" + cur.get("id")) if cur.get("id") else _heading_anchor(h), api, cur
        cur = cur.getparent()
    h = _heading_before(el, stop)
    if h is not None and h is not page_heading[1]:  # flat markup: the heading the field follows, and the blocks between
        htext = heading_text(h)
        chain = set(el.iterancestors())
        parts: list[str] = []
        for sib in h.itersiblings():
            if sib is el or _tag(sib) in _HEADINGS:
                break
            if sib in chain:
                parts.append(_blocks_text(sib, el, 300))
                break
            parts.append(_md(sib))
            if sum(len(p) for p in parts) >= 400:
                break
        text = " — ".join(p for p in (htext, _cap(" ".join(p for p in parts if p), 500)) if p)
        return text, _heading_anchor(h), _heading_api(h, htext), h
    container = el.getparent()
    htext, h = page_heading
    body = _blocks_text(container, el) if container is not None else ""
    return " — ".join(p for p in (htext, body) if p), None, _heading_api(h, htext) if h is not None else None, container


def _marker_fields(text: str) -> tuple[str, str, str | None] | None:
    m = _MARKER_RE.search(text)
    if not m:
        return None
    return _VERB_KIND[m.group("verb").lower()], normalize_version(m.group("ver")), normalize_version(m.group("rem")) if m.group("rem") else None


def _removed_in(text: str) -> str | None:
    m = re.search(r"(?i)remov\w*\s+in\s+(?:version\s+|[A-Za-z][\w+#-]{0,30}\s+(?=v?\d))?(" + _VER + r")", text)
    return normalize_version(m.group(1)) if m else None


def _kind_of_text(text: str, default: str = "changed") -> str:
    """A History row's kind from its change text ("Added in: v9.0.0" → added, "Deprecated…" → deprecated)."""
    t = text.lower().lstrip(" *_`")
    if re.match(r"(?:added|introduced|new\b)", t):
        return "added"
    if re.match(r"(?:deprecat|runtime\s+deprecat|documentation-only\s+deprecat)", t):
        return "deprecated"
    if re.match(r"(?:removed|remove\b|end-of-life)", t):
        return "removed"
    return default


def _section_kind(stack: list[tuple[int, str, str | None]]) -> str:
    for _level, text, _anchor in reversed(stack):
        for rx, kind in _SECTION_KIND:
            if rx.match(text):
                return kind
    return "release"


def page_version_of(text: str) -> str | None:
    for rx in _PAGE_VERSION_RES:
        m = rx.search(text or "")
        if m:
            return normalize_version(m.group("ver"))
    return None


def _url_tokens(url: str) -> list[str]:
    path = unquote(urlsplit(url).path).lower()
    segs = [s for s in path.split("/") if s]
    return [re.sub(r"\.(?:html?|md|mdx|rst|txt|php|aspx?)$", "", s) for s in segs]


def _url_hint(url: str) -> tuple[bool, bool]:
    """(strong, weak) evidence from the URL path that this is a change page."""
    tokens = _url_tokens(url)
    strong = any(any(k in t for k in _STRONG_URL) for t in tokens)
    weak = any(t in _WEAK_URL for t in tokens)
    return strong, weak


_CHANGE_TOKENS = frozenset({"notes", "relnotes", "releaselog", "release-log", "release_log", "deprecations"})
_VERSIONED_CHANGE_TOKEN = re.compile(r"(?:release|releases|changes|news|changelog|relnotes|notes)[-_]?v?\d")


def change_like_url(url: str) -> bool:
    """Whether a URL's path names a change page ("whatsnew/v1.5.0.html", "changelog", "release-15.html", "news/"):
    a crawl with a page budget claims these first."""
    strong, weak = _url_hint(url)
    return strong or weak or any(t in _CHANGE_TOKENS or _VERSIONED_CHANGE_TOKEN.match(t) for t in _url_tokens(url))


def _source_of(url: str, title: str, whatsnew: bool) -> str:
    if whatsnew:
        return "whatsnew"
    path = urlsplit(url).path.lower()
    if re.search(r"/releases?(?:/|$)|/-/releases|/tags?(?:/|$)", path) or re.match(r"(?i)^releases\b|^release\s+v?\d", title or ""):
        return "release-page"
    return "changelog"


def _in_chrome(el: Any) -> bool:
    return next(el.iterancestors(*_CHROME), None) is not None


def _heading_before(el: Any, stop: Any) -> Any:
    """The heading a node sits under: its own heading ancestor, else the nearest heading before it among the
    preceding siblings of it and its ancestors (sections and flat markdown alike)."""
    for anc in el.iterancestors(*_HEADINGS):
        return anc
    cur = el
    while cur is not None and cur is not stop:
        for sib in cur.itersiblings(*_HEADINGS, preceding=True):
            return sib
        cur = cur.getparent()
    return None


def _doc_keys(stop: Any) -> Callable[[Any], tuple[int, ...]]:
    """Document-order key of an element under ``stop`` (child indices from the top), each parent's children
    counted once (a flat page of thousands of headings stays linear)."""
    positions: dict[Any, dict[Any, int]] = {}  # parent → {child: index}; the elements kept, so they keep their identity

    def key(el: Any) -> tuple[int, ...]:
        parts = []
        cur = el
        while cur is not None and cur is not stop:
            parent = cur.getparent()
            if parent is None:
                break
            index = positions.get(parent)
            if index is None:
                index = positions[parent] = {child: i for i, child in enumerate(parent)}
            parts.append(index[cur])
            cur = parent
        return tuple(reversed(parts))

    return key


def _field_list(el: Any) -> bool:
    """A paragraph of a metadata field list (Sphinx ``:Release:`` / ``:Date:``, docutils docinfo)."""
    dd = el.getparent()
    dl = dd.getparent() if dd is not None and _tag(dd) in ("dd", "td") else None
    return dl is not None and any(k in _classes(dl) for k in ("field-list", "docinfo", "field-body"))


def _inside(el: Any, group: set[Any], stop: Any) -> bool:
    if not group:
        return False
    cur = el
    while cur is not None and cur is not stop:
        if cur in group:
            return True
        cur = cur.getparent()
    return False


def _title_parts(title: str) -> list[str]:
    """A page title and its parts around a site-name separator ("Acme 2.3.0 released — Acme docs")."""
    if not title:
        return []
    parts = [p.strip() for p in re.split(r"\s+(?:[—–|·•»:]|-{1,2}|::)\s+", title) if p.strip()]
    return [title, *parts] if len(parts) > 1 else [title]


_RELEASE_WORDS = re.compile(r"(?i)releas|\bversion\b|what[’'`]?s\s+new|change\s?log|\bnotes\b|\bnews\b|(?<![\w.])v\d|"
                            r"announc|introducing|\bis\s+(?:out|here|available)\b|\bships?\b|\blaunch")
_VERSION_FIRST = re.compile(r"[\W_]*v?\d+\.\d")
_DATE_SET_OFF = "([—–-/|:"  # a date in brackets or after a dash: "2.3.0 (2024-03-04)", "v2.3.0 — March 4, 2024"


def _one_release(h1_text: str, title: str) -> tuple[str, str, str] | None:
    """(version, date, where) when the page's first heading or title names one version and a date as a release
    does: with a release word ("Acme Release 2.3.0 On 2024-03-04") or the date set off ("Acme 2.3.0 (2024-03-04)")
    — not a post that merely mentions a version on a day."""
    for cand, where in ((h1_text, "heading"), *((t, "title") for t in _title_parts(title))):
        if cand and len(cand) <= 200:
            vh = version_heading(cand)
            if vh and vh[1] and _release_like(cand):
                return vh[0], vh[1], where
    return None


def _release_like(text: str) -> bool:
    """A heading with a version and a date reads as a release: a release word, the version first, or the date set
    off — not "Scaling Acme 2.3 on March 4, 2024"."""
    return bool(_RELEASE_WORDS.search(text) or _VERSION_FIRST.match(text) or _date_set_off(text))


def _date_after(h: Any) -> tuple[str, str] | None:
    """(date, where) of a ``<time datetime>`` or a date line in the first blocks after a heading (or after the
    header the heading sits in)."""
    sibs = list(h.itersiblings())[:3]
    parent = h.getparent()
    if parent is not None and _tag(parent) in ("header", "div", "hgroup") and len(parent) <= 4:
        sibs += list(parent.itersiblings())[:2]
    outer = _own_wrapper(h, None)  # a title nested in wrappers that hold only it ("titlepage > div > div > h2")
    if outer is not h and outer is not parent:
        sibs += list(outer.itersiblings())[:3]
    for el in sibs:
        if not _tag(el) or _tag(el) in _HEADINGS:
            break
        t = el if _tag(el) in _TIME_TAGS else next(el.iter(*_TIME_TAGS), None)
        if t is not None:
            when = find_date((t.get("datetime") or "")[:10]) or find_date(_plain(t))
            if when:
                return when, "time"
        text = _plain(el)
        when = label_date(text) if len(text) <= 120 else None
        if when:
            return when, "field" if re.search(r"[A-Za-z]{3}", without_dates(text)) else "paragraph"
    return None


def _date_set_off(text: str) -> bool:
    dates = find_dates(text)
    if not dates:
        return False
    start, end, _day = dates[0]
    before, after = text[:start].rstrip(), text[end:].lstrip()
    return (bool(before) and before[-1] in _DATE_SET_OFF) or (not before and bool(after) and after[0] in _DATE_SET_OFF)


# -- the scan -------------------------------------------------------------------------------------------------------

def _empty() -> dict[str, Any]:
    return {"changes": [], "page_kind": "", "page_version": None, "release_dates": []}


def find_changes(node: Any, url: str, title: str = "", *, body: bool = False, text: str | None = None,
                 code_chars: int = 0, code_of: dict[Any, dict[str, str]] | None = None) -> dict[str, Any]:
    """:func:`scan_changes`; markup it cannot read leaves the page's content alone: no changes, ``page_kind`` ``""``."""
    try:
        return scan_changes(node, url, title, body=body, text=text, code_chars=code_chars, code_of=code_of)
    except (ValueError, TypeError, AttributeError, IndexError, KeyError, RecursionError):
        return _empty()


class _Scan:
    """One page's scan state: the entries found, the release dates, the blocks already taken."""

    def __init__(self, node: Any, body: bool, source: str, htext: dict[int, str], code_of: dict[Any, dict[str, str]] | None
                 ) -> None:
        self.node = node
        self.htext = htext  # heading element id → its text (the headings stay referenced by the caller)
        self.code_of = code_of  # <pre> → its code block, when the caller has them
        self.body = body
        self.source = source
        self.found: list[tuple[Any, dict[str, Any], Any]] = []  # (element, change, code element)
        self.emitted: set[Any] = set()  # blocks a marker already stands for
        self.marked: set[tuple[Any, str, str]] = set()  # (annotated block, kind, version): one marker each
        self.dates: dict[str, str] = {}
        self.release_dates: list[dict[str, str]] = []

    def entry(self, el: Any, kind: str, ver: str | None, removed_in: str | None, text: str, anchor: str | None,
              heading: str, date: str | None = None, *, api: str | None = None, code_el: Any = None,
              path: list[str] | None = None) -> dict[str, Any] | None:
        text = _cap(_clean(text))
        if not (ver and text) or len(self.found) >= MAX_CHANGES:
            return None
        change = {"kind": kind, "version": ver, "removed_in": removed_in, "date": date, "text": text, "anchor": anchor,
                  "heading": heading, "path": path, "api": api[:MAX_API_CHARS] if api else None, "code": []}
        self.found.append((el, change, code_el))
        return change

    def mark(self, block: Any, kind: str, ver: str) -> bool:
        """True the first time a block gets a marker of this kind and version."""
        key = (block, kind, ver)
        if key in self.marked:
            return False
        self.marked.add(key)
        return True

    def add_date(self, ver: str | None, date: str | None, where: str) -> None:
        if ver and date and ver not in self.dates and len(self.release_dates) < MAX_RELEASE_DATES:
            self.dates[ver] = date
            self.release_dates.append({"version": ver, "date": date, "source": self.source, "where": where})

    def heading_of(self, el: Any) -> tuple[str, str | None, Any]:
        """(text, anchor, element) of the heading ``el`` sits under."""
        h = _heading_before(el, self.node)
        if h is None:
            return "", None, None
        text = self.htext.get(id(h))
        return (heading_text(h) if text is None else text), _heading_anchor(h), h


def scan_changes(node: Any, url: str, title: str = "", *, body: bool = False, text: str | None = None,
                 code_chars: int = 0, code_of: dict[Any, dict[str, str]] | None = None) -> dict[str, Any]:
    """Version markers and change-page sections of one page (see the module docstring).

    ``node`` is the main-content element (or the ``<body>``, with ``body=True``: its nav, header,
    footer and aside are then left out). ``text``, the page's markdown when the caller has it, lets a
    page with no marker phrase, no version heading, no version table or field and no change-page URL
    or title skip the scan; ``code_chars`` (the characters of its code blocks) tells a plain-text page
    (its ``<pre>`` is the content) apart; ``code_of`` (``<pre>`` element → its code block) saves reading
    an entry's code again. Returns empty results for ``None``.
    """
    out = _empty()
    if node is None:
        return out
    out["page_kind"] = "doc"
    strong_url, weak_url = _url_hint(url)
    h1 = next((h for h in node.iter("h1") if not (body and _in_chrome(h))), None)
    h1_text = heading_text(h1) if h1 is not None else ""
    title_hint = bool(_CHANGE_TITLE.search(h1_text) or _CHANGE_TITLE.search(title or ""))
    maybe_change = strong_url or weak_url or title_hint
    low = text.lower() if text is not None else None
    phrases, verbs = _phrases(low) if low is not None else (-1, frozenset(_QUICK_VERBS))
    flags = _quick_flags(text, low) if text is not None and low is not None else _ALL_FLAGS
    if body and low is not None:  # a generic extractor's markdown leaves out field lists and labels: read the body's text too
        raw = node.text_content().lower()
        more, more_verbs = _phrases(raw)
        phrases, verbs = max(phrases, more), verbs | more_verbs
        if "since" not in flags and "since:" in raw and _RAW_SINCE.search(raw):
            flags = flags | {"since"}  # "Since: 17", the label and its value in one text
    plain = text is None or code_chars >= 200 and code_chars > 0.6 * len(text)  # the page's <pre> may be its content
    one: tuple[str | None, str, str] | None = _one_release(h1_text, title)
    titled = bool(title) and _release_like(title) and version_heading(title) is not None  # "Release 15": a date may follow
    if low is not None and not (maybe_change or phrases or flags or one or titled or (plain and code_chars)):
        return out  # nothing to find: the common page costs a few regexes over its markdown
    headings = [h for h in node.iter(*_HEADINGS) if not (body and _in_chrome(h))]
    htext = {id(h): (h1_text if h is h1 else heading_text(h)) for h in headings}
    vheads: dict[int, tuple[str, str | None, str]] = {}
    for h in headings:
        vh = version_heading(htext[id(h)])
        if vh and vh[1] and not _release_like(htext[id(h)]):
            vh = None  # a post's title that mentions a version on a day
        if vh:
            when, where = vh[1], "heading"
            if when is None:  # a <time datetime> inside the heading
                t = next(h.iter(*_TIME_TAGS), None)
                when = find_date((t.get("datetime") or "")[:10]) if t is not None else None
                where = "time" if when else where
            vheads[id(h)] = (vh[0], when, where)
    pseudo: dict[int, tuple[Any, ...]] = {}
    if "pseudo" in flags:
        pseudo = _pseudo_headings(node, body)
    n_versions = len(vheads) + len(pseudo)
    n_dated = sum(1 for v in (*vheads.values(), *pseudo.values()) if v[1])
    fields = _page_fields(node, body) if ("field" in flags or "table" in flags) and not n_versions and not one else None
    if fields and (maybe_change or re.search(r"(?i)releas|version", f"{h1_text} {title}") or fields[0] in f"{h1_text} {title}"):
        one = fields  # a page about one release whose version and date are only in a field table or list
    lead = h1 if h1 is not None else (headings[0] if headings else None)  # the page's title heading
    lead_text = htext[id(lead)] if lead is not None else ""
    if one is None and lead is not None and (lead is h1 or n_versions <= 1) and (id(lead) in vheads or _release_like(lead_text)):
        ver = vheads[id(lead)][0] if id(lead) in vheads else page_version_of(lead_text)
        after = _date_after(lead) if ver and not (id(lead) in vheads and vheads[id(lead)][1]) else None
        if after:
            one = (ver, after[0], after[1])  # "Announcing Acme 2.3" and the post's <time> under it; "Release 15" + "Release date:"
    pre_lines = _plain_text(node, body) if plain and not n_versions else None
    is_change = bool(strong_url or title_hint or (weak_url and n_versions >= 1) or n_dated >= 2 or n_versions >= 3
                     or one is not None or pre_lines)
    change_heading = n_versions >= 1 and any(_CHANGE_TITLE.search(t) for t in htext.values())
    sections = is_change or n_versions >= 2 or n_dated >= 1 or change_heading
    titles = " | ".join(t for t in (h1_text, title) if t)
    whatsnew = bool(re.search(r"(?i)what[’'`]?s[\s_-]*new", titles) or
                    any(t in ("whatsnew", "whats-new", "whats_new", "what-s-new") for t in _url_tokens(url)))
    page_version = None
    if is_change:  # the page's first heading before its title; a title of many releases names none
        page_version = page_version_of(h1_text)
        if page_version is None and n_versions == 1 and h1 is not None and vheads.get(id(h1)):
            page_version = vheads[id(h1)][0]
        page_version = page_version or page_version_of(title or "") or (one[0] if one is not None else None)
    out["page_kind"] = "change" if is_change else "doc"
    out["page_version"] = page_version
    source = _source_of(url, title, whatsnew)
    if source == "changelog" and one is not None and n_versions <= 1:
        source = "release-page"  # a page about one release
    scan = _Scan(node, body, source, htext, code_of)
    if one is not None:
        scan.add_date(one[0], one[1], one[2])
    page_heading = (h1_text, h1)

    # 1. Sphinx directives: div.versionadded / versionchanged / deprecated / deprecated-removed / versionremoved
    directives: list[Any] = []
    if phrases:
        directives = _directives(scan)
    # 2. History tables, tables of versions and dates
    tables = _history_tables(scan) if "table" in flags else set()
    # 3. the phrases as text: admonition titles, badges, paragraphs, headings
    scan.emitted.update(directives)
    # (on a change page the version sections speak: "deprecated since 2.5" in a 3.0 entry is history)
    if not is_change and (phrases < 0 or phrases > len(directives)):
        _text_markers(scan, verbs, {*directives, *tables})
    # 4. badges, since labels, stability attributes, "X+" badges, tabs labelled as markers
    if flags & {"badge", "since", "plus"}:  # a badge's or label's version shows in a heading or a line of its own
        _attribute_markers(scan, set(directives), "plus" in flags, page_heading)
    if maybe_change or "since" in flags:
        _tab_markers(scan)
    # 5. version sections, field tables and lists: entries and release dates
    if sections:
        _walk(scan, vheads, pseudo, htext, sections, page_version, is_change, page_heading, "since" in flags)
    elif flags & {"since", "table", "field"}:
        _labels(scan, page_heading, "since" in flags)
    if pre_lines:
        _text_sections(scan, pre_lines, page_version, h1_text)
    _finish(scan, headings, htext, pseudo)
    out["changes"] = [c for _el, c, _code in scan.found[:MAX_CHANGES]]
    out["release_dates"] = scan.release_dates
    return out


def _directives(scan: _Scan) -> list[Any]:
    node, directives = scan.node, []
    for d in _DIRECTIVE_XP(node):
        cls = _classes(d)
        kind = next((k for k in _SPHINX_KIND if f" {k} " in cls), None)
        if kind is None or (scan.body and _in_chrome(d)):
            continue
        span = next((s for s in d.iter("span") if " versionmodified " in _classes(s)), None)
        label = _plain(span) if span is not None else _plain(d)[:200]
        fields = _marker_fields(label)
        if fields:
            ver, rem = fields[1], fields[2]
        else:  # a translated build: the first version in the note
            vm = _VER_RE.search(label)
            if not vm:
                continue
            ver, rem = normalize_version(vm.group(1)), _removed_in(label)
        directives.append(d)
        if len(scan.found) >= MAX_CHANGES:
            continue
        note = _md(d)
        own_body = len(note) - len(_clean(label)) > 3
        head = scan.heading_of(d)
        text, anchor, api, code_el = _annotated(d, note, own_body, node, head)
        scan.entry(d, _SPHINX_KIND[kind], ver, rem or (_removed_in(label) if kind.startswith("deprecated") else None),
                   text, anchor, head[0], api=api, code_el=code_el)
    return directives


def _text_markers(scan: _Scan, verbs: frozenset[str], dset: set[Any]) -> None:
    node = scan.node
    for t in _text_xp(verbs)(node):
        if len(scan.found) >= MAX_CHANGES:
            break
        owner = t.getparent()
        el = owner.getparent() if (owner is not None and t.is_tail) else owner
        if el is None or _tag(el) in ("pre", "code", "script", "style") or next(el.iterancestors("pre", "code", "script", "style"), None) is not None:
            continue
        if _inside(el, dset, node) or (scan.body and _in_chrome(el)):
            continue
        for m in _MARKER_RE.finditer(str(t)):
            block = _block_of(el, node)
            btext = _plain(block) if _tag(block) not in ("section", "article", "main", "body", "dd") else str(t)
            own_body = len(_MARKER_RE.sub("", btext).strip(" .:;,-–—()[]")) > 15 or _tag(block) in _HEADINGS
            head = scan.heading_of(el)
            kind = _VERB_KIND[m.group("verb").lower()]
            rem = normalize_version(m.group("rem")) if m.group("rem") else None
            ver = normalize_version(m.group("ver"))
            text, anchor, api, code_el = _annotated(el, m.group(0), own_body, node, head)
            scan.mark(block, kind, ver)
            scan.entry(el, kind, ver, rem, text, anchor, head[0], api=api, code_el=code_el)
            if _tag(block) in ("p", "li"):
                scan.emitted.add(block)


def _in_since_field(el: Any) -> bool:
    """``el`` is (in) a definition-list field labelled as a since field: the field pass reads it."""
    for cur in (el, *islice(el.iterancestors(), 3)):
        tag = _tag(cur)
        if tag == "dt":
            return since_label(_plain(cur).rstrip(": ")) is not None
        if tag == "dd":
            dt = _dt_of(cur)
            return dt is not None and since_label(_plain(dt).rstrip(": ")) is not None
    return False


def _attribute_markers(scan: _Scan, dset: set[Any], plus: bool, page_heading: tuple[str, Any]) -> None:
    """Badges and labels whose text is a version label, ``data-since``-style attributes, "X+" badges."""
    node = scan.node
    candidates: list[tuple[Any, str, str]] = []  # (element, kind, version)
    for el in _MARK_XP(node):
        if scan.body and _in_chrome(el) or _inside(el, dset, node):
            continue
        attr = next((el.get(a) for a in _MARK_ATTRS if el.get(a)), None)
        if attr:
            ver = label_version(attr)
            if ver:
                candidates.append((el, "deprecated" if "deprecat" in _classes(el) else "added", ver))
            continue
        cls = _classes(el)
        label = _plain(el)
        if not label or len(label) > 60:
            continue
        hit = label_marker(label)
        if hit is None and "since" in cls:
            ver = label_version(label)  # <span class="since">OTP 25.0</span>
            hit = ("added", ver) if ver else None
        if hit is None and any(w in cls for w in _BADGE_WORDS):
            hint = " ".join((e.get("title") or "") + " " + (e.get("aria-label") or "") for e in el.iter()).lower()
            ver = label_version(label) if ("version" in hint or "since" in hint) else None
            hit = ("added", ver) if ver else None  # a version badge titled "Minimum version"
        if hit is not None:
            candidates.append((el, hit[0], hit[1]))
    if plus:
        for t in _PLUS_XP(node):
            owner = t.getparent()
            el = owner.getparent() if (owner is not None and t.is_tail) else owner
            if el is None or scan.body and _in_chrome(el):
                continue
            s = str(t).strip()
            if not s.endswith("+") or len(s) > 20 or _plain(el) != s:
                continue
            hit = label_marker(s)
            context = el.iterancestors(*_HEADINGS, "dt", "th", "summary")
            if hit and (next(context, None) is not None or any(w in _classes(el) for w in _BADGE_WORDS)):
                candidates.append((el, hit[0], hit[1]))
    for el, kind, ver in candidates:
        if len(scan.found) >= MAX_CHANGES:
            break
        if _in_since_field(el):
            continue
        block = _block_of(el, node)
        if not scan.mark(block, kind, ver):
            continue  # a badge inside a since label: one marker
        head = scan.heading_of(el)
        if _tag(block) in ("section", "article", "main", "body") and _tag(el) not in _HEADINGS and \
                next(el.iterancestors(*_HEADINGS), None) is None:  # a label block of its own inside an API's section
            text, anchor, api, code_el = _api_block(el, node, page_heading)
            scan.entry(el, kind, ver, None, text, anchor, head[0], api=api, code_el=code_el)
            continue
        own_body = _tag(block) not in ("section", "article", "main", "body") and len(_plain(block)) - len(_plain(el)) > 15
        unit = el if own_body else _badge_unit(el, node)  # a badge alone in its list or paragraph: the section's
        text, anchor, api, code_el = _annotated(unit, "" if unit is el else _plain(el), own_body, node, head)
        scan.entry(el, kind, ver, None, text, anchor, head[0], api=api, code_el=code_el)


def _badge_unit(el: Any, stop: Any) -> Any:
    """The outermost element around a badge that holds nothing but the badge (its list, its paragraph)."""
    text, cur = _plain(el), el
    parent = cur.getparent()
    while parent is not None and parent is not stop and _tag(parent) not in _HEADINGS and _plain(parent) == text:
        cur, parent = parent, parent.getparent()
    return cur


_SAFE_ID = re.compile(r"^[\w-]{1,100}$")


_PANEL_XP = etree.XPath("descendant::*[@role='tabpanel']")
_CLASSED_XP = etree.XPath("descendant::*[@class]")


def _tab_markers(scan: _Scan) -> None:
    """Tabs labelled as markers ("Added in 17", "Deprecated in 16"): each row the tab selects (an element
    classed with the tab's id inside the panel the tab controls, or the rows of the tab panel it labels) is one
    marker. One pass over the page's tab panels and classed elements, however many tabs."""
    node = scan.node
    tabs = []
    for tab in _TAB_XP(node):
        hit = label_marker(_plain(tab))
        if hit is not None and _SAFE_ID.match(tab.get("id") or ""):
            tabs.append((tab, hit))
            if len(tabs) >= MAX_TABS:
                break
    if not tabs:
        return
    panels: dict[str, Any] = {}  # id / aria-labelledby → the panel
    for panel in _PANEL_XP(node):
        for key in (panel.get("id"), panel.get("aria-labelledby")):
            if key:
                panels.setdefault(key, panel)
    classed: dict[Any, dict[str, list[Any]]] = {}  # scope → class token → elements, read once per scope

    def with_class(scope: Any, token: str) -> list[Any]:
        if scope not in classed:
            index: dict[str, list[Any]] = {}
            for el in _CLASSED_XP(scope):
                for c in (el.get("class") or "").split():
                    index.setdefault(c, []).append(el)
            classed[scope] = index
        return classed[scope].get(token, [])

    for tab, (kind, ver) in tabs:
        tid = tab.get("id")
        rows: list[list[Any]] = []
        labelled = panels.get(tid) if panels.get(tid) is not None and panels[tid].get("aria-labelledby") == tid else None
        if labelled is not None:
            rows = [[el] for el in labelled.iter("li", "tr", "dt")]
        else:
            scope = panels.get(tab.get("aria-controls") or "")
            for el in with_class(scope if scope is not None else node, tid):
                starts = len(_plain(el)) <= 200 and next(el.iter("a", "code"), None) is not None
                if starts or not rows:
                    rows.append([el])
                else:
                    rows[-1].append(el)
        for row in rows[:MAX_CHANGES]:
            if len(scan.found) >= MAX_CHANGES:
                return
            name = _plain(row[0])
            text = " — ".join(t for t in (_md(el) for el in row) if t)
            head = scan.heading_of(row[0])
            link = next(row[0].iter("a"), None)
            anchor = link.get("href") if link is not None and (link.get("href") or "").startswith("#") else None
            if scan.mark(row[0], kind, ver):
                scan.entry(row[0], kind, ver, _removed_in(text) if kind == "deprecated" else None, text, anchor, head[0],
                           api=api_name(name, signature=True), code_el=None)


def _pseudo_headings(node: Any, body: bool) -> dict[int, tuple[Any, ...]]:
    """Paragraphs and definition terms that are version headings ("2.3.0 (2024-03-04)" on a line of its own) with
    a date or a list after them: at least two of them, or one with a date."""
    found: dict[int, tuple[Any, ...]] = {}
    for el in node.iter("p", "dt"):
        t = el.text_content()
        if len(t) > 160 or not any(ch.isdigit() for ch in t) or (body and _in_chrome(el)):
            continue
        if _tag(el) == "p" and next(el.iterancestors("li", "td", "th", "table", "blockquote", "dd", "dt"), None) is not None:
            continue
        if _is_title(el) or any(w in _classes(c) for c in el.iter() for w in _BADGE_WORDS):
            continue  # an admonition's title, a badge
        vh = version_heading(_clean(t))
        if vh and (vh[1] or _heads_list(el)):
            found[id(el)] = (vh[0], vh[1], "heading", el)  # the element kept: its id stays its own
    if len(found) < 2 and not any(v[1] for v in found.values()):
        return {}
    return found


def _heads_list(el: Any) -> bool:
    """A version line heads the list after it (a plain-text change log rendered as paragraphs and lists), or
    a definition term its definition's list or paragraphs."""
    nxt = _dd_of(el) if _tag(el) == "dt" else el.getnext()
    if nxt is None:
        return False
    if _tag(el) == "dt":
        return next((c for c in nxt if _tag(c) in ("ul", "ol", "p")), None) is not None
    return _tag(nxt) in ("ul", "ol")


def _pairs(container: Any) -> list[tuple[Any, Any]]:
    """A definition list's (dt, dd) or a table's (label cell, value cell) pairs."""
    pairs: list[tuple[Any, Any]] = []
    if _tag(container) == "dl":
        for dt in container:
            if _tag(dt) == "dt":
                dd = _dd_of(dt)
                if dd is not None:
                    pairs.append((dt, dd))
            if len(pairs) >= 40:
                break
    else:
        for tr in container.iter("tr"):
            cells = [c for c in tr if _tag(c) in ("td", "th")]
            if len(cells) == 2:
                pairs.append((cells[0], cells[1]))
            if len(pairs) >= 40:
                break
    return pairs


def _fields_of(container: Any) -> tuple[str | None, str | None]:
    """(version, date) a field list or a two-column table states ("Version | 2.3.0", "Released: …")."""
    ver = when = None
    for label_el, value_el in _pairs(container):
        label = _plain(label_el).rstrip(": ")
        value = _plain(value_el)
        if ver is None and is_version_label(label):
            ver = label_version(value)
        elif when is None and is_date_label(label):
            when = find_date(value) or free_date(value)
    return ver, when


def _page_fields(node: Any, body: bool) -> tuple[str, str, str] | None:
    """A page about one release whose version is only in a field table or list ("Version | 2.3.0",
    "Release date | 2024-03-04"): (version, date, where) from its first tables and field lists."""
    seen = 0
    for container in node.iter("table", "dl"):
        if body and _in_chrome(container):
            continue
        seen += 1
        if seen > 4:
            break
        ver, when = _fields_of(container)
        if ver and when:
            return ver, when, "table" if _tag(container) == "table" else "field"
    return None


def _cell_version(cell: Any) -> str | None:
    text = _plain(cell)
    ver = label_version(text)
    if ver:
        return ver
    m = _VER_RE.search(text)
    return normalize_version(m.group(1)) if m else None


def _walk(scan: _Scan, vheads: dict[int, tuple[str, str | None, str]], pseudo: dict[int, tuple[Any, ...]],
          htext: dict[int, str], sections: bool, page_version: str | None, is_change: bool,
          page_heading: tuple[str, Any], labels: bool) -> None:
    """One pass in document order: the heading outline, version sections and their entries and dates, History
    and version tables, labelled fields."""
    node, body = scan.node, scan.body
    stack: list[tuple[int, str, str | None]] = []  # (level, text, anchor) of the enclosing headings
    version: tuple[int, str, Any] | None = None  # (heading level, version, scope: a dl for a dt heading)
    pending: str | None = page_version if page_version and page_version not in scan.dates else None
    since_heading = 0
    section_entries: list[dict[str, Any]] = []
    done: set[Any] = set()  # field lists and tables read
    n_entries = 0

    def date_for(ver: str | None, d: str | None, where: str) -> None:
        nonlocal pending
        scan.add_date(ver, d, where)
        if ver == pending:
            pending = None

    for el in node.iter(*_WALK_TAGS):
        tag = el.tag
        if body and _in_chrome(el):
            continue
        if version is not None and version[2] is not None and not _inside(el, {version[2]}, node):
            version, pending = None, None  # a definition list of versions ended
            while stack and stack[-1][0] >= _PSEUDO_LEVEL:
                stack.pop()
        vh = vheads.get(id(el)) or pseudo.get(id(el))
        if tag in _HEADINGS or (vh and id(el) in pseudo):
            level = _HEADINGS.get(tag, _PSEUDO_LEVEL)
            while stack and stack[-1][0] >= level:
                stack.pop()
            text = htext.get(id(el)) or _plain(el)
            stack.append((level, text, _heading_anchor(el) if tag in _HEADINGS else _anchor_up(el, node)))
            if vh:
                scope = el.getparent() if tag == "dt" else None
                version = (level, vh[0], scope)
                scan.add_date(vh[0], vh[1], vh[2])
                pending, since_heading = (None if vh[0] in scan.dates else vh[0]), 0
            elif pending and (when := date_heading(text)):
                date_for(pending, when, "heading")  # "Jul 3, 2022" heading the release's section
            elif version and level <= version[0]:
                version, pending = None, None
            continue
        if tag in _TIME_TAGS:
            if pending and since_heading <= 3:
                date_for(pending, find_date((el.get("datetime") or "")[:10]), "time")
            continue
        if tag == "table":
            if el not in done:
                done.add(el)
                _table(scan, el, stack, version[1] if version else None, pending, date_for, page_heading)
            continue
        if tag == "dt":
            dl = el.getparent()
            if dl is not None and dl not in done:
                done.add(dl)
                _dl_fields(scan, dl, pending, date_for, page_heading, labels)
            continue
        if el in scan.emitted or _inside(el.getparent(), scan.emitted, node):
            continue
        if _field_list(el):
            continue
        ver = version[1] if version else page_version
        want = sections and bool(ver) and n_entries < MAX_CHANGES
        if pending or want or (is_change and not scan.dates):
            text = _md(el)
        else:  # a short paragraph may be a label of its own ("Since: OTP 25.0")
            text = _md(el) if labels and len(el.text_content()) <= 80 else ""
        if pending:
            since_heading += 1
            if text and (when := label_date(text)):
                date_for(pending, when, "field" if re.search(r"[A-Za-z]{3}", without_dates(text)) else "paragraph")
                continue
            if text and (when := _sentence_date(text, pending)):
                date_for(pending, when, "paragraph")
            if since_heading > 3:
                pending = None
        if text and is_change and "releas" in text:
            wm = _WAS_RELEASED.search(text)
            if wm:
                scan.add_date(normalize_version(wm.group("ver")), find_date(text[wm.end():wm.end() + 40]), "paragraph")
        if labels and text and len(text) <= 60 and not want:
            hit = label_marker(text)  # "Since: OTP 25.0" as a paragraph of its own: it marks its section
            if hit and scan.mark(el, hit[0], hit[1]):
                head = scan.heading_of(el)
                block_text, anchor, api, code_el = _annotated(el, text, False, node, head)
                scan.entry(el, hit[0], hit[1], None, block_text, anchor, head[0], api=api, code_el=code_el)
                continue
        if text and len(text) <= 120 and label_date(text):
            continue  # a date line ("Published: March 4, 2024") is no entry
        if not want or (len(text) < MIN_ENTRY_CHARS and (tag != "li" or len(text.split()) < MIN_ITEM_WORDS)):
            continue
        if tag == "li":
            scan.emitted.add(el)
        kind = _section_kind(stack)
        heading_texts = " ".join(t for _l, t, _a in stack)
        rem = _removed_in(heading_texts) if kind == "deprecated" else None
        anchor = ("#" + el.get("id")) if el.get("id") else (stack[-1][2] if stack else None)
        change = scan.entry(el, kind, ver, rem, text, anchor, stack[-1][1] if stack else "", scan.dates.get(ver),
                            code_el=el, path=[t for _l, t, _a in stack])
        if change is not None:
            section_entries.append(change)
        n_entries += 1
    # a date printed after a section's first entries ("X was released on …" further down) reaches them too
    for change in section_entries:
        if change["date"] is None:
            change["date"] = scan.dates.get(change["version"])


MAX_TRAILING_LABEL_TEXT = 1200  # a member's description, not a page
_TRAILING_LABEL = re.compile(r"[.;!?)]\s+((?:Since|Added|Available\s+since)\s*:\s*v?\d+(?:\.\d+)*)\s*\.?$")
_LABEL_TEXT_XP = etree.XPath("descendant::text()[contains(., 'ince') or contains(., '>=') or contains(., '≥') "
                             "or contains(., 'dded') or contains(., 'eprecated')]")


def _labels(scan: _Scan, page_heading: tuple[str, Any], labels: bool) -> None:
    """A page without version sections: labelled fields of definition lists and two-column tables ("Since: 17"),
    short blocks that are a label of their own ("Since: OTP 25.0", "(Acme 8 >= 8.2.0)")."""
    node = scan.node
    for el in node.iter("dl", "table"):
        if scan.body and _in_chrome(el) or el in scan.emitted:
            continue
        if _tag(el) == "dl":
            _dl_fields(scan, el, None, lambda *_a: None, page_heading, labels)
        else:
            _table(scan, el, [], None, None, lambda *_a: None, page_heading)
    if not labels:
        return
    seen: set[Any] = set()
    for t in _LABEL_TEXT_XP(node):
        owner = t.getparent()
        el = owner.getparent() if (owner is not None and t.is_tail) else owner
        block = _block_of(el, node) if el is not None else None
        if block is None or block in seen or _tag(block) not in ("p", "li", "div") or (scan.body and _in_chrome(block)):
            continue
        seen.add(block)
        if _inside(block, scan.emitted, node):
            continue
        text = _plain(block)
        hit = label_marker(text) if len(text) <= 60 else None
        row = None
        if hit is None and len(text) <= MAX_TRAILING_LABEL_TEXT and (tail := _TRAILING_LABEL.search(text)):
            # "Default flags. Since: 2.74": a label ending a member's description in a table of members
            row = next((a for a in block.iterancestors() if _tag(a) == "tr" or a is node), None)
            hit = label_marker(tail.group(1)) if row is not None and row is not node else None
        if hit and scan.mark(block, hit[0], hit[1]) and len(scan.found) < MAX_CHANGES:
            head = scan.heading_of(block)
            if row is not None and hit:
                cells = [c for c in row if _tag(c) in ("td", "th")]
                name = _plain(cells[0]) if cells else ""
                block_text = " — ".join(t for t in (_plain(c) for c in cells) if t)
                anchor = next((("#" + a.get("name", a.get("id", ""))) for a in row.iter("a") if a.get("name") or a.get("id")),
                              head[1])
                scan.entry(block, hit[0], hit[1], None, block_text, anchor, head[0], api=api_name(name), code_el=row)
                continue
            block_text, anchor, api, code_el = _annotated(block, text, False, node, head)
            scan.entry(block, hit[0], hit[1], None, block_text, anchor, head[0], api=api, code_el=code_el)


def _sentence_date(text: str, ver: str) -> str | None:
    """The release date a sentence under a version's heading states ("This release was published on March
    4, 2024"), unless another version is named before it."""
    text = text[:600]
    dates = find_dates(text)
    if not dates:
        return None
    start, end, when = dates[0]
    around = text[max(0, start - 80):start] + " " + text[end:end + 30]
    if not _RELEASE_CUE.search(around):
        return None
    for m in _VER_RE.finditer(text[:start]):
        other = normalize_version(m.group(1))
        if other != ver and not ver.startswith(other + ".") and not other.startswith(ver + "."):
            return None  # "2.2.0 was released on …": that date is 2.2.0's
    return when


def _table_columns(table: Any) -> tuple[list[Any], int, int | None, int | None, str] | None:
    """(rows, version column, change column, date column, the version column's label) of a table whose header
    names a version column and a change or date column, else None."""
    rows = []
    for tr in table.iter("tr"):
        rows.append(tr)
        if len(rows) >= MAX_TABLE_ROWS:
            break
    if len(rows) < 2:
        return None
    head_cells = [c for c in rows[0] if _tag(c) in ("td", "th")]
    header = head_cells and (all(_tag(c) == "th" for c in head_cells) or _tag(rows[0].getparent()) == "thead")
    if not header or len(head_cells) < 2:
        return None
    labels = [_plain(c) for c in head_cells]
    vcol = next((i for i, t in enumerate(labels) if _VER_COL.match(t)), None)
    ccol = next((i for i, t in enumerate(labels) if _CHANGE_COL.match(t) and i != vcol), None)
    dcol = next((i for i, t in enumerate(labels) if _DATE_COL.match(t) and i != vcol), None)
    if vcol is None or (ccol is None and dcol is None):
        return None
    return rows, vcol, ccol, dcol, labels[vcol]


def _history_tables(scan: _Scan) -> set[Any]:
    """History tables (a version column and a change column: one marker per row, on the API the table
    belongs to) and tables of versions and dates (release dates); → the tables read."""
    node, done = scan.node, set()
    for table in node.iter("table"):
        if scan.body and _in_chrome(table):
            continue
        cols = _table_columns(table)
        if cols is None:
            continue
        rows, vcol, ccol, dcol, vlabel = cols
        done.add(table)
        scan.emitted.add(table)
        api_text, anchor, api, _el = _table_api(scan, table)
        head = scan.heading_of(table)
        # a column of names besides version, change and date: a table of APIs (Name | Description | Since), one per row
        ncol = next((i for i in range(len([c for c in rows[0] if _tag(c) in ("td", "th")])) if i not in (vcol, ccol, dcol)), None)
        default = "release" if dcol is not None else "added" if since_label(vlabel) == "added" else "changed"
        for tr in rows[1:]:
            cells = [c for c in tr if _tag(c) in ("td", "th")]
            if len(cells) <= max(c for c in (vcol, ccol, dcol) if c is not None):
                continue
            ver = _cell_version(cells[vcol])
            if not ver:
                continue
            when = find_date(_plain(cells[dcol])) if dcol is not None else None
            if when:
                scan.add_date(ver, when, "table")
            change = _md(cells[ccol]) if ccol is not None else ""
            if not change:
                continue
            kind = _kind_of_text(change, default)
            row_api, row_text = api, api_text
            if ncol is not None and ncol < len(cells) and dcol is None:
                row_text = _md(cells[ncol])
                row_api = api_name(_plain(cells[ncol]), signature=True)
            if scan.mark(tr, kind, ver):
                scan.entry(tr, kind, ver, _removed_in(change) if kind == "deprecated" else None,
                           f"{row_text} — {change}" if row_text else change, anchor, head[0], when, api=row_api)
    return done


def _table(scan: _Scan, table: Any, stack: list[tuple[int, str, str | None]], section_version: str | None,
           pending: str | None, date_for: Callable[[str | None, str | None, str], None], page_heading: tuple[str, Any]) -> None:
    """A two-column field table in a section: ``Version | 2.3.0``, ``Release date | …``, ``Since | 17``."""
    if table in scan.emitted:
        return  # a History table or a table of versions and dates, read already
    fields_ver, fields_date = None, None
    for label_el, value_el in _pairs(table):
        label = _plain(label_el).rstrip(": ")
        value = _plain(value_el)
        since_kind = since_label(label)
        if since_kind is not None:
            ver = label_version(value)
            if ver and scan.mark(table, since_kind, ver):
                block_text, anchor, api, code_el = _api_block(table, scan.node, page_heading)
                scan.entry(table, since_kind, ver, None, block_text, anchor, stack[-1][1] if stack else "", api=api, code_el=code_el)
        elif fields_ver is None and is_version_label(label):
            fields_ver = label_version(value)
        elif fields_date is None and is_date_label(label):
            fields_date = find_date(value) or free_date(value)
    if fields_date:
        target = fields_ver or pending or (section_version if section_version not in scan.dates else None)
        date_for(target, fields_date, "table")


def _table_api(scan: _Scan, table: Any) -> tuple[str, str | None, str | None, Any]:
    """(signature text, anchor, api, element) of the API a History table belongs to: the definition it sits in,
    else the heading it sits under."""
    dd = _definition_of(table, scan.node)
    if dd is not None:
        dt = _dt_of(dd)
        if dt is not None:
            return _md(dt), ("#" + dt.get("id")) if dt.get("id") else None, _dt_api(dt), dd
    h = _heading_before(table, scan.node)
    if h is None:
        return "", None, None, None
    text = heading_text(h)
    api = _heading_api(h, text)
    return (text if api else ""), _heading_anchor(h), api, h  # a heading that names no API is no signature


def _dl_fields(scan: _Scan, dl: Any, pending: str | None, date_for: Callable[[str | None, str | None, str], None],
               page_heading: tuple[str, Any], labels: bool) -> None:
    """A definition list of fields: "Release: 3.11.2" + "Date: …" (that version's date), a date alone (the
    pending version's), "Since: 17" (a marker on the API block the list sits in)."""
    ver = when = None
    for dt, dd in _pairs(dl):
        label = _plain(dt).rstrip(": ")
        if len(label) > 40:
            continue
        kind = since_label(label) if labels else None
        if kind is not None:
            sver = label_version(_plain(dd))
            if sver and scan.mark(dl, kind, sver) and len(scan.found) < MAX_CHANGES:
                text, anchor, api, code_el = _api_block(dl, scan.node, page_heading)
                head = scan.heading_of(dl)
                scan.entry(dt, kind, sver, None, text, anchor, head[0], api=api, code_el=code_el)
        elif ver is None and is_version_label(label):
            ver = label_version(_plain(dd))
        elif when is None and is_date_label(label):
            value = _plain(dd)
            when = find_date(value) or free_date(value)
    if when:
        date_for(ver or pending, when, "field")


# -- plain-text pages -----------------------------------------------------------------------------------------------

_BULLET = re.compile(r"^(\s*)(?:[-*+•o]|\d{1,3}[.)])\s+(\S.*)$")
_UNDERLINE = re.compile(r"^\s*([=\-~^*#+`'\".:_])\1{2,}\s*$")


def _plain_text(node: Any, body: bool) -> tuple[Any, list[str]] | None:
    """(the ``<pre>``, its lines) of a page whose content is plain text with at least two version headings."""
    for pre in node.iter("pre"):
        if body and _in_chrome(pre):
            continue
        text = pre.text_content()
        if len(text) < 200:
            continue
        lines = text.split("\n")[:MAX_TEXT_LINES]
        n = 0
        for ln in lines:
            s = ln.strip().lstrip("#").strip()
            if s and len(s) <= 120 and not ln[:1].isspace() and _QUICK_DIGITS.search(s) and version_heading(s):
                n += 1
                if n >= 2:
                    return pre, lines
        return None  # the first long <pre> is the page's text
    return None


def _text_sections(scan: _Scan, pre_lines: tuple[Any, list[str]], page_version: str | None, h1_text: str) -> None:
    """A plain-text change log: version heading lines (alone, or underlined), sub-heading lines ("Bug fixes:",
    underlined words), bullet items and paragraphs as entries, dates from the heading or a field line."""
    pre, lines = pre_lines
    version: str | None = None
    sub: str | None = None
    heading = ""
    pending = False
    item: list[str] = []

    def flush() -> None:
        if item and version:
            text = _clean(" ".join(s.strip() for s in item))
            if len(text) >= MIN_ENTRY_CHARS or len(text.split()) >= MIN_ITEM_WORDS:
                path = [p for p in (h1_text, heading, sub) if p]
                kind = _section_kind([(0, sub, None)]) if sub else "release"
                scan.entry(pre, kind, version, None, text, None, sub or heading, scan.dates.get(version), path=path)
        item.clear()

    for i, line in enumerate(lines):
        s = line.strip()
        if not s:
            flush()
            continue
        if _UNDERLINE.match(s):
            continue
        nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
        underlined = bool(_UNDERLINE.match(nxt)) and len(nxt) >= max(3, len(s) // 2)
        cand = s.lstrip("#").strip()
        if len(cand) <= 120 and (underlined or not line[:1].isspace() or s.startswith("#")) and not _BULLET.match(line):
            vh = version_heading(cand) if _QUICK_DIGITS.search(cand) else None
            if vh:
                flush()
                version, sub, heading = vh[0], None, cand
                scan.add_date(vh[0], vh[1], "text")
                pending = vh[0] not in scan.dates
                continue
        if version and pending and len(s) <= 120 and (when := label_date(s)):
            scan.add_date(version, when, "text")
            pending = False
            continue
        if version and not _BULLET.match(line) and len(s) <= 60 and (underlined or s.startswith("#") or
                                                                      (s.endswith(":") and not item)):
            flush()
            sub = s.lstrip("#").strip().rstrip(":")
            continue
        bullet = _BULLET.match(line)
        if bullet:
            flush()
            item.append(bullet.group(2))
        else:
            item.append(s)
        if len(scan.found) >= MAX_CHANGES:
            break
    flush()


# -- paths, code -----------------------------------------------------------------------------------------------------

def _finish(scan: _Scan, headings: list[Any], htext: dict[int, str], pseudo: dict[int, Any]) -> None:
    """Document order, then each entry's heading path (from the outline) and code blocks."""
    node, found = scan.node, scan.found
    if not found:
        return
    doc_key = _doc_keys(node)
    keys = [doc_key(el) for el, _c, _code in found]
    if len(found) > 1:
        order = sorted(range(len(found)), key=keys.__getitem__)
        found[:] = [found[i] for i in order]
        keys = [keys[i] for i in order]
    if any(c["path"] is None for _el, c, _code in found):
        outline = headings
        if pseudo:
            extra = [v[3] for v in pseudo.values()]
            outline = sorted([*headings, *extra], key=doc_key)
        hkeys, paths = [], []
        stack: list[tuple[int, str]] = []
        for h in outline:
            level = _HEADINGS.get(_tag(h), _PSEUDO_LEVEL)
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, htext.get(id(h)) or _plain(h)))
            hkeys.append(doc_key(h))
            paths.append([t for _l, t in stack])
        for (el, change, _code), key in zip(found, keys):
            if change["path"] is None:
                i = bisect_right(hkeys, key) - 1
                change["path"] = paths[i] if i >= 0 else []
    stops: set[Any] = set()
    for el, _c, _code in found:
        cur = el
        while cur is not None and cur is not node and cur not in stops:
            stops.add(cur)
            cur = cur.getparent()
    for el, change, code_el in found:
        change["path"] = [_cap(t, MAX_PATH_CHARS) for t in change["path"] if t][-MAX_PATH:]
        if code_el is not None:
            change["code"] = _codes(code_el, stops, scan.code_of)


def _codes(code_el: Any, stops: set[Any], code_of: dict[Any, dict[str, str]] | None = None) -> list[dict[str, str]]:
    """The code blocks of an entry: ``<pre>`` inside its block, then right after it (before the next entry or
    heading), byte-exact; one too long to keep whole is left out."""
    from skill3crawl.extract.content import _NOT_CODE, _code_text, code_language

    pres: list[Any] = []
    if _tag(code_el) not in _HEADINGS:
        pres += islice(code_el.iter("pre"), MAX_CODE)
    sib, hops = code_el.getnext(), 0
    while sib is not None and len(pres) < MAX_CODE and hops < 6:
        tag = _tag(sib)
        if tag in _HEADINGS or sib in stops:
            break
        if tag == "pre":
            pres.append(sib)
        elif tag:
            pres += islice(sib.iter("pre"), MAX_CODE)
        sib, hops = sib.getnext(), hops + 1
    out: list[dict[str, str]] = []
    for pre in pres:
        known = code_of.get(pre) if code_of is not None else None
        if known is not None:
            if len(known["text"]) <= MAX_CODE_CHARS:
                out.append(dict(known))
            if len(out) >= MAX_CODE:
                break
            continue
        if any(c in (a.get("class") or "") for a in (pre, *pre.iterancestors()) for c in _NOT_CODE):
            continue
        text = _code_text(pre)
        if text.strip() and len(text) <= MAX_CODE_CHARS:
            out.append({"text": text, "language": code_language(pre)})
        if len(out) >= MAX_CODE:
            break
    return out


# -- redaction ------------------------------------------------------------------------------------------------------

_CHUNK = re.compile(r"(?<=[.:;!?])\s+| — ")
_NOTE = re.compile(r"(?:New|Added|Changed|Removed) in version \d+(?:\.\d+)*[.:]")  # a bare note: nothing to hide


def redact_changes(changes: list[dict[str, Any]], excerpts: list[str], trusted: bool,
                   code_map: dict[str, str] | None = None) -> int:
    """Redact each change's text, path, api and code in place; → secrets redacted.

    A change's text is rendered from the same blocks as the excerpts, which were just scanned. On a
    generator page (``trusted``) a text every sentence of which occurs verbatim in the scanned excerpts
    (a redacted excerpt no longer matches the original sentence) or is a bare "New in version 3.7." is
    not scanned again — on a Sphinx page most notes and definitions are such texts; everything else
    goes through :func:`redact_text`. Heading paths and API names are scanned once per distinct text;
    a code block that is one of the page's code blocks takes its redacted text from ``code_map``
    (original → redacted), any other is scanned.
    """
    seen = "\n".join(_WS.sub(" ", e) for e in excerpts) if trusted else ""
    total = 0
    short: dict[str, str] = {}

    def clean_short(value: str) -> str:
        nonlocal total
        if value not in short:
            if seen and value in seen:
                short[value] = value
            else:
                short[value], n = redact_text(value)
                total += n
        return short[value]

    for change in changes:
        text = change["text"]
        if not (seen and all(chunk in seen or _NOTE.fullmatch(chunk) for chunk in _CHUNK.split(text) if chunk)):
            change["text"], n = redact_text(text)
            total += n
        if change.get("path"):
            change["path"] = [clean_short(p) for p in change["path"]]
        if change.get("api"):
            change["api"] = clean_short(change["api"])
        for block in change.get("code") or ():
            if code_map is not None and block["text"] in code_map:
                block["text"] = code_map[block["text"]]
            else:
                block["text"], n = redact_text(block["text"], filename=filename_for_language(block.get("language", "")))
                total += n
    return total
