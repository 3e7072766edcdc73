"""Version markers and change pages: where a documentation site says *what changed in which release*.

:func:`find_changes` reads a parsed page (the lxml content node, or the whole body) and returns

* ``changes`` — one entry per annotated snippet, in document order: Sphinx ``versionadded`` /
  ``versionchanged`` / ``deprecated`` / ``deprecated-removed`` / ``versionremoved`` directives
  (old "New in version X" and new "Added in version X" spellings), the same phrases as text
  anywhere (MkDocs-Material / Docusaurus admonition titles, badges, paragraphs: "Added in v2.3",
  "Deprecated since 1.4, will be removed in 2.0"), MkDocs-Material ``mdx-badge`` version badges,
  and on change pages (What's New, release notes, changelogs, release pages, migration guides)
  every paragraph / list item of a version's section (``kind="release"`` or the Keep a
  Changelog subsection's kind: Added / Changed / Deprecated / Removed);
* ``page_kind`` — ``"change"`` or ``"doc"``; ``page_version`` — the one version a change page is about;
* ``release_dates`` — ``{version, date, source}`` read from the page (``## 2.0.0 (2026-04-20)``,
  "Release date: 2022-10-24", a release's ``<relative-time datetime>``, "X was released on <date>").

Each marker belongs to the block it annotates: a definition (the ``dt`` signature plus the ``dd``
text), the list item or paragraph it sits in, the paragraph a bare marker follows, or the section
it opens. Pure and lxml-only (XPath does the scanning), so it runs in the extraction worker in the
same call as the content extraction.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any
from urllib.parse import unquote, urlsplit

from lxml import etree

from skill3crawl.extract.dates import normalize_date
from skill3crawl.extract.fastmd import to_markdown
from synth.skill.markdown import heading_title
from synth.vet.redact import redact_text

MAX_CHANGES = 400
MAX_TEXT = 1500
MAX_RELEASE_DATES = 500
MIN_ENTRY_CHARS = 20  # a change page's field lists and one-word lines are not entries...
MIN_ITEM_WORDS = 3  # ...but a short list item of a few words is ("PEP 673: Self type")
KINDS = ("added", "changed", "deprecated", "removed", "release")

# A version as printed: 3.11, 2.0.0, v1.4, 2.0.0-beta.1, 3.11.0rc2 (a bare integer only after "version"/"v").
_VER = r"v?\d+(?:\.\d+)+(?:[-.]?(?:a|b|rc|alpha|beta|dev|pre|post|preview)[.-]?\d*)?|(?<=version )\d+|(?<=\bv)\d+"
_VER_RE = re.compile(rf"(?i)(?<![\w.])({_VER})(?![\w-]|\.\d)")
_MONTHS = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_DATE_RE = re.compile(
    rf"(?i)\b(\d{{4}}-\d{{2}}-\d{{2}}|\d{{4}}/\d{{2}}/\d{{2}}|{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}|\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTHS},?\s+\d{{4}})\b"
)
# "New in version 3.11", "Added in v2.3", "Changed in version 3.8", "Deprecated since version 3.11, will be
# removed in version 3.13", "Removed in 3.12", "Added in Python 3.11" (one product word allowed).
_MARKER_RE = re.compile(
    r"(?i)(?<![\w-])(?<!what's )(?<!whats )(?<!what’s )(?P<verb>new|added|introduced|changed|deprecated|removed)\s+(?:in|since|as\s+of)\s+"
    r"(?:(?:version|release|v(?=\d))\s*|(?:[A-Za-z][\w+#-]{0,30}\s+)(?=v?\d+\.\d))?"
    rf"(?P<ver>{_VER})(?![\w-]|\.\d)(?!\s*(?:ms|s|secs?|seconds?|minutes?|hours?|days?|%|x|[kmg]i?b)\b)"
    r"(?:,?\s*(?:and\s+)?(?:will\s+be\s+|to\s+be\s+|is\s+scheduled\s+(?:for|to\s+be)\s+)?(?:removed|removal)\s+in\s+"
    rf"(?:(?:version|release)\s*|[A-Za-z][\w+#-]{{0,30}}\s+(?=v?\d))?(?P<rem>{_VER}))?"
)
_VERB_KIND = {"new": "added", "added": "added", "introduced": "added", "changed": "changed",
              "deprecated": "deprecated", "removed": "removed"}
_SPHINX_KIND = {"versionadded": "added", "versionchanged": "changed", "deprecated": "deprecated",
                "deprecated-removed": "deprecated", "versionremoved": "removed"}
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_TITLE_BLOCK = ("admonition-title", "admonitionheading", "admonition-heading", "admonition_heading")
_BLOCK_TAGS = {"p", "li", "dd", "dt", "td", "th", "blockquote", "summary", "figcaption", "section", "article", "main",
               "details", *_HEADINGS}
_WS = re.compile(r"\s+")
_NOTE_COLON = re.compile(r"(?i)(\b(?:version|since|in)\s+v?\d[\w.-]*:)(?=[^\s/])")

# A heading that names a release: "[2.0.0] - 2026-04-20", "2.0.0 (2026-04-20)", "Version 3.2 — April 6, 2021",
# "v1.4.0", "Python 3.11.0 final", "Release 1.2 (LTS)", "Django 4.2 release notes". At most two capitalised
# product words before the version; after it only release words, a date, or a short bracketed note.
_VERSION_HEADING = re.compile(
    r"(?i)^[\s\[(#]*(?:(?:release|version|ver\.?|tag)\s+)?(?-i:(?P<product>(?:[A-Z][\w.+#-]*\s+){0,2}))?\[?(?P<ver>"
    + _VER
    + r")\]?(?P<rest>(?:\s|$|[-–—:(,\[]).*)?$"
)
_PRE_WORDS = re.compile(r"(?i)^\s*(?:(alpha|beta|release candidate|rc)\s*(\d+)?)")
_REST_OK = re.compile(
    r"(?i)^[\s\-–—:(),\[\]/|•·*_]*(?:(?:final|stable|lts|released?|release notes|changelog|change log|unreleased|yanked|"
    r"latest|current|hotfix|patch|security|(?:alpha|beta|release candidate|rc)\s*\d*|on|date|notes|\(.{0,40}\)|\[.{0,40}\])"
    r"[\s\-–—:(),\[\]/|•·*_]*)*$"
)
_WHATSNEW_RE = re.compile(
    r"(?i)what[’'`]?s\s+new\s+(?:in\s+)?(?:(?:[\w.+#-]+\s+){0,2}?)(?P<ver>" + _VER + r")(?![\w-]|\.\d)"
)
_PAGE_VERSION_RES = (
    _WHATSNEW_RE,
    re.compile(r"(?i)(?:release\s+notes|changelog|change\s+log|changes)\s+(?:for|in|of)\s+(?:(?:[\w.+#-]+\s+){0,2}?)(?P<ver>" + _VER + r")(?![\w-]|\.\d)"),
    re.compile(r"(?i)(?<![\w.])(?P<ver>" + _VER + r")(?![\w-]|\.\d)\s+(?:release\s+notes|changelog|change\s+log|is\s+(?:out|released|here))"),
    re.compile(r"(?i)(?:migrat\w*|upgrad\w*|porting)\b.{0,40}?\bto\s+(?:(?:[\w.+#-]+\s+){0,2}?)(?P<ver>" + _VER + r")(?![\w-]|\.\d)"),
)
_CHANGE_TITLE = re.compile(
    r"(?i)what[’'`]?s\s+new|change\s?log|release\s+notes|release\s+history|version\s+history|migration\s+guide|"
    r"migrating\s+(?:from|to)|upgrade\s+guide|upgrading\s+(?:from|to)|porting\s+to|^releases\b|\breleases\s+·|breaking\s+changes"
)
_STRONG_URL = ("changelog", "change-log", "change_log", "releasenotes", "release-notes", "release_notes", "whatsnew",
               "whats-new", "whats_new", "what-s-new", "migration", "migrating", "upgrade", "upgrading")
_WEAK_URL = {"changes", "history", "news", "releases", "release", "porting", "changelogs", "tags"}
# "Release date: 2022-10-24", "Released on April 6, 2021", "Date: …", or a block that is only a date.
_RELEASED_LINE = re.compile(r"(?i)^\W*(?:(?:release(?:d)?|published)(?:\s+(?:date|on))?|date)?\s*[:\-–—]?\s*\W*$")
_WAS_RELEASED = re.compile(
    r"(?i)(?<![\w.])(?P<ver>" + _VER + r")(?![\w-]|\.\d)\s+(?:was|is|has\s+been)\s+(?:officially\s+)?released\s+on\s+"
)
# Keep a Changelog / What's New subsections → kind
_SECTION_KIND = (
    (re.compile(r"(?i)^\W*(?:added|new\b|features?\b|additions)"), "added"),
    (re.compile(r"(?i)^\W*(?:changed|changes\b|improved|improvements|updated)"), "changed"),
    (re.compile(r"(?i)^\W*(?:deprecated|deprecations|pending\s+removal)"), "deprecated"),
    (re.compile(r"(?i)^\W*(?:removed|removals|removal)"), "removed"),
)
_REMOVAL_IN = re.compile(r"(?i)remov\w*\s+in\s+(?:version\s+|[A-Za-z][\w+#-]{0,30}\s+(?=v?\d))?(?P<ver>" + _VER + r")")

# Cheap scans (libxml2 evaluates them; a union of paths or self:: chains would cost several ms a page).
_DIRECTIVE_XP = etree.XPath("descendant::div[contains(@class, 'version') or contains(@class, 'deprecated')]")
_BADGE_XP = etree.XPath("descendant::span[contains(@class, 'mdx-badge')]")
# On the lower-cased markdown: which marker phrases are there, how many? (" in 3.11" first — a literal
# start scans fast — then the verb before it.)
_QUICK = re.compile(r" (?:in|since|as of) (?:version |release |v)?(?:[a-z][\w+#-]* )?[`*_]?v?\d")
_QUICK_VERBS = ("added", "new", "changed", "deprecated", "removed", "introduced")
# the text nodes that may hold a verb's phrase (its first letter left out: "Added" and "added" alike)
_VERB_XP = {"added": ("dded in", "dded In"), "new": ("ew in", "ew In"), "changed": ("hanged in", "hanged In"),
            "deprecated": ("eprecated",), "removed": ("emoved in", "emoved In"), "introduced": ("ntroduced in", "ntroduced In")}


def _phrases(low: str) -> tuple[int, frozenset[str]]:
    n, verbs = 0, set()
    for m in _QUICK.finditer(low):
        before = low[max(0, m.start() - 16):m.start()]
        verb = next((v for v in _QUICK_VERBS if before.endswith(v)), None)
        if verb and not before.endswith(("be removed", "to removed")):
            n += 1
            verbs.add(verb)
    return n, frozenset(verbs)


@lru_cache(maxsize=64)
def _text_xp(verbs: frozenset[str]) -> etree.XPath:
    tests = " or ".join(f"contains(., '{needle}')" for v in sorted(verbs) for needle in _VERB_XP[v])
    return etree.XPath(f"descendant::text()[{tests}]")


_CHROME = ("nav", "header", "footer", "aside")
_CHANGE_TAGS = (*_HEADINGS, "p", "li", "time", "relative-time", "local-time")


# -- small helpers ---------------------------------------------------------------------------------------------------

def normalize_version(s: str) -> str:
    """``v1.4`` → ``1.4``; ``3.11.0 beta 1`` → ``3.11.0b1``; otherwise as printed."""
    s = s.strip().strip("[]()")
    if s[:1] in "vV" and s[1:2].isdigit():
        s = s[1:]
    return s


_STRIP = str.maketrans({"¶": "", "\u200b": "", "\xa0": " "})


def _clean(text: str) -> str:
    text = _WS.sub(" ", text.translate(_STRIP)).strip()
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


_MONTH_NUM = {m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1)}


def find_date(text: str) -> str | None:
    """The first full date (day, month and year) printed in ``text`` → ``YYYY-MM-DD``, else None."""
    m = _DATE_RE.search(text or "")
    if not m:
        return None
    s = m.group(1)
    if s[:4].isdigit():
        d = normalize_date(s.replace("/", "-"))
        return d.isoformat() if d else None
    words = re.findall(r"[a-z]+|\d+", s.lower())
    month = next((_MONTH_NUM[w[:3]] for w in words if w[:3] in _MONTH_NUM), None)
    nums = [int(w) for w in words if w.isdigit()]
    if month is None or len(nums) != 2:
        return None
    d = normalize_date(f"{nums[1]:04d}-{month:02d}-{nums[0]:02d}")
    return d.isoformat() if d else None


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


def _next_block_text(el: Any) -> str:
    nxt = el.getnext()
    while nxt is not None:
        if _tag(nxt) in _HEADINGS:
            return ""
        if _tag(nxt) and not any(k in _classes(nxt) for k in _SPHINX_KIND):
            text = _md(nxt)
            if text:
                return text
        nxt = nxt.getnext()
    return ""


def _prev_block_text(el: Any) -> tuple[str, bool]:
    """(text of the block ``el`` follows, whether ``el`` directly follows a heading)."""
    prev = el.getprevious()
    while prev is not None:
        tag = _tag(prev)
        if tag in _HEADINGS:
            return "", True
        if tag and not any(k in _classes(prev) for k in _SPHINX_KIND) and tag not in ("span", "a", "script", "style"):
            text = _md(prev)
            if text:
                return text, False
        prev = prev.getprevious()
    return "", False


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


def _annotated(marker_el: Any, marker_text: str, own_body: bool, stop: Any, heading: tuple[str, str | None]) -> tuple[str, str | None]:
    """(text, anchor) of the block a marker annotates."""
    dd = _definition_of(marker_el, stop)
    if dd is not None:
        dt = _dt_of(dd)
        sig = _md(dt) if dt is not None else ""
        intro = _intro(dd, marker_el)
        if own_body:
            intro = _cap(intro, 400) if intro else ""
        text = " — ".join(p for p in (sig, " ".join(p for p in (intro, marker_text) if p)) if p)
        anchor = ("#" + dt.get("id")) if dt is not None and dt.get("id") else _anchor_up(dd, stop)
        return text, anchor or heading[1]
    block = _block_of(marker_el, stop)
    tag = _tag(block)
    if tag in _HEADINGS:
        text = " ".join(p for p in (_md(block), _next_block_text(block)) if p)
        return text, _heading_anchor(block) or heading[1]
    if _is_title(block):
        container = block.getparent()
        return _md(container if container is not None else block), _anchor_up(block, stop) or heading[1]
    if tag == "li" or tag in ("td", "th", "dt") or own_body:
        text = _md(block) if tag not in ("section", "article", "main") else marker_text
        if tag == "dt":
            parent_dd = block.getnext()
            if parent_dd is not None and _tag(parent_dd) == "dd":
                text = " — ".join(p for p in (text, _intro(parent_dd, None)) if p)
        if marker_text and marker_text not in text:
            text = f"{text} {marker_text}".strip()
        return text, (block.get("id") and "#" + block.get("id")) or heading[1]
    # a bare marker: the paragraph it follows, or the section it opens
    unit = marker_el if _tag(marker_el) == "div" or block is stop else block
    prev, after_heading = _prev_block_text(unit)
    if prev and not after_heading:
        return f"{prev} {marker_text}", heading[1]
    nxt = _next_block_text(unit)
    return " ".join(p for p in (heading[0], marker_text, nxt) if p), heading[1]


def _marker_fields(text: str) -> tuple[str, str, str | None] | None:
    m = _MARKER_RE.search(text)
    if not m:
        return None
    return _VERB_KIND[m.group("verb").lower()], normalize_version(m.group("ver")), normalize_version(m.group("rem")) if m.group("rem") else None


def _removed_in(text: str) -> str | None:
    m = re.search(r"(?i)remov\w*\s+in\s+(?:version\s+|[A-Za-z][\w+#-]{0,30}\s+(?=v?\d))?(" + _VER + r")", text)
    return normalize_version(m.group(1)) if m else None


def version_heading(text: str) -> tuple[str, str | None] | None:
    """(version, date or None) when a heading names a release, else None."""
    if len(text) > 300 or not any(c.isdigit() for c in text):
        return None
    text = _clean(text)
    if not text or len(text) > 120:
        return None
    m = _VERSION_HEADING.match(text)
    if not m:
        return None
    ver, rest = m.group("ver"), (m.group("rest") or "")
    if re.match(r"^\.\s+[A-Za-z]", rest) or re.match(r"^\.\s*$", rest):  # numbered section "3.2. Usage"
        return None
    date = find_date(rest)
    rest_wo_date = _DATE_RE.sub(" ", rest)
    if not _REST_OK.match(rest_wo_date):
        return None
    pre = re.search(r"(?i)\b(alpha|beta|release candidate|rc)\s*(\d+)?", rest_wo_date)
    ver = normalize_version(ver)
    if pre and not re.search(r"[a-z]", ver.split(".")[-1]):
        ver += {"alpha": "a", "beta": "b", "release candidate": "rc", "rc": "rc"}[pre.group(1).lower()] + (pre.group(2) or "")
    return ver, date


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


def _doc_key(el: Any, stop: Any) -> tuple[int, ...]:
    """Document-order key of ``el`` under ``stop`` (child indices from the top)."""
    key = []
    cur = el
    while cur is not None and cur is not stop:
        parent = cur.getparent()
        if parent is None:
            break
        key.append(parent.index(cur))
        cur = parent
    return tuple(reversed(key))


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


def find_changes(node: Any, url: str, title: str = "", *, body: bool = False, text: str | None = None) -> dict[str, Any]:
    """:func:`scan_changes`; markup it cannot read leaves the page's content alone: no changes, ``page_kind`` ``""``."""
    try:
        return scan_changes(node, url, title, body=body, text=text)
    except (ValueError, TypeError, AttributeError, IndexError, KeyError, RecursionError):
        return {"changes": [], "page_kind": "", "page_version": None, "release_dates": []}


def scan_changes(node: Any, url: str, title: str = "", *, body: bool = False, text: str | None = None) -> dict[str, Any]:
    """Version markers and change-page sections of one page (see the module docstring).

    ``node`` is the main-content element (or the ``<body>``, with ``body=True``: its nav, header,
    footer and aside are then left out). ``text``, the page's markdown when the caller has it, lets a
    page with no marker phrase, no version heading and no change-page URL or title skip the scan.
    Returns empty results for ``None``.
    """
    out: dict[str, Any] = {"changes": [], "page_kind": "", "page_version": None, "release_dates": []}
    if node is None:
        return out
    out["page_kind"] = "doc"
    strong_url, weak_url = _url_hint(url)
    h1 = next(node.iter("h1"), None)
    h1_text = _plain(h1) if h1 is not None else ""
    titles = " | ".join(t for t in (h1_text, title) if t)
    title_hint = bool(_CHANGE_TITLE.search(h1_text) or _CHANGE_TITLE.search(title or ""))
    maybe_change = strong_url or weak_url or title_hint
    low = text.lower() if text is not None else None
    phrases, verbs = _phrases(low) if low is not None else (-1, frozenset(_QUICK_VERBS))
    if low is not None and not maybe_change and not phrases:
        if not any(_VER_RE.search(ln) for ln in text.split("\n") if ln.startswith("#") and heading_title(ln) is not None):
            return out  # nothing to find: the common page costs one regex over its markdown
    headings = [h for h in node.iter(*_HEADINGS) if not (body and _in_chrome(h))]
    vheads = {id(h): version_heading(h.text_content()) for h in headings}
    n_versions = sum(1 for v in vheads.values() if v)
    n_dated = sum(1 for v in vheads.values() if v and v[1])
    is_change = strong_url or title_hint or (weak_url and n_versions >= 1) or n_dated >= 2 or n_versions >= 3
    whatsnew = bool(re.search(r"(?i)what[’'`]?s[\s_-]*new", titles) or
                    any(t in ("whatsnew", "whats-new", "whats_new", "what-s-new") for t in _url_tokens(url)))
    page_version = (page_version_of(h1_text) or page_version_of(title or "")) if is_change else None
    if page_version is None and is_change and n_versions == 1 and h1 is not None and vheads.get(id(h1)):
        page_version = vheads[id(h1)][0]
    out["page_kind"] = "change" if is_change else "doc"
    out["page_version"] = page_version
    source = _source_of(url, title, whatsnew)

    found: list[tuple[Any, dict[str, Any]]] = []  # (element, change) — sorted into document order at the end
    emitted: set[Any] = set()  # blocks a marker already stands for

    def entry(el: Any, kind: str, ver: str, removed_in: str | None, text: str, anchor: str | None,
              heading: str, date: str | None = None) -> dict[str, Any] | None:
        text = _cap(_clean(text))
        if not (ver and text):
            return None
        change = {"kind": kind, "version": ver, "removed_in": removed_in, "date": date, "text": text, "anchor": anchor,
                  "heading": heading}
        found.append((el, change))
        return change

    def heading_of(el: Any) -> tuple[str, str | None]:
        h = _heading_before(el, node)
        return (_plain(h), _heading_anchor(h)) if h is not None else ("", None)

    # 1. Sphinx directives: div.versionadded / versionchanged / deprecated / deprecated-removed / versionremoved
    directives: list[Any] = []
    if phrases:
        for d in _DIRECTIVE_XP(node):
            cls = _classes(d)
            kind = next((k for k in _SPHINX_KIND if f" {k} " in cls), None)
            if kind is None or (body and _in_chrome(d)):
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
            if len(found) >= MAX_CHANGES:
                continue
            note = _md(d)
            own_body = len(note) - len(_clean(label)) > 3
            head = heading_of(d)
            entry(d, _SPHINX_KIND[kind], ver, rem or (_removed_in(label) if kind.startswith("deprecated") else None),
                  *_annotated(d, note, own_body, node, head), head[0])
    # 2. the phrases as text: admonition titles, badges, paragraphs, headings
    emitted.update(directives)
    # (on a change page the version sections speak: "deprecated since 2.5" in a 3.0 entry is history)
    if not is_change and (phrases < 0 or phrases > len(directives)):
        dset = set(directives)
        for t in _text_xp(verbs)(node):
            if len(found) >= MAX_CHANGES:
                break
            owner = t.getparent()
            el = owner.getparent() if (owner is not None and t.is_tail) else owner
            if el is None or _tag(el) in ("pre", "code", "script", "style") or next(el.iterancestors("pre", "code", "script", "style"), None) is not None:
                continue
            if _inside(el, dset, node) or (body and _in_chrome(el)):
                continue
            for m in _MARKER_RE.finditer(str(t)):
                block = _block_of(el, node)
                btext = _plain(block) if _tag(block) not in ("section", "article", "main", "body", "dd") else str(t)
                own_body = len(_MARKER_RE.sub("", btext).strip(" .:;,-–—()[]")) > 15 or _tag(block) in _HEADINGS
                head = heading_of(el)
                kind = _VERB_KIND[m.group("verb").lower()]
                rem = normalize_version(m.group("rem")) if m.group("rem") else None
                entry(el, kind, normalize_version(m.group("ver")), rem, *_annotated(el, m.group(0), own_body, node, head), head[0])
                if _tag(block) in ("p", "li"):
                    emitted.add(block)
    # 3. MkDocs-Material version badges (<!-- md:version 9.0.0 -->)
    if _tag(node) in ("article", "body") or "md-content" in _classes(node):
        for b in _BADGE_XP(node):
            label = " ".join((e.get("title") or "") for e in b.iter()).lower() + _classes(b)
            vm = _VER_RE.search(_plain(b))
            if "version" in label and vm and len(found) < MAX_CHANGES:
                head = heading_of(b)
                entry(b, "added", normalize_version(vm.group(1)), None, *_annotated(b, "", False, node, head), head[0])
    # 4. change pages: every paragraph / list item of a version's section, and the release dates
    release_dates: list[dict[str, str]] = []
    if is_change or n_versions >= 2:
        release_dates = _change_sections(node, body, vheads, is_change, page_version, whatsnew, source, emitted, entry)
    if len(found) > 1:
        found.sort(key=lambda pair: _doc_key(pair[0], node))
    out["changes"] = [c for _el, c in found[:MAX_CHANGES]]
    out["release_dates"] = release_dates
    return out


def _change_sections(node: Any, body: bool, vheads: dict[int, Any], is_change: bool, page_version: str | None,
                     whatsnew: bool, source: str, emitted: set[Any], entry: Any) -> list[dict[str, str]]:
    dates: dict[str, str] = {}
    release_dates: list[dict[str, str]] = []
    stack: list[tuple[int, str, str | None]] = []  # (level, text, anchor) of the enclosing headings
    version: tuple[int, str] | None = None  # (heading level, version) of the release section we are in
    pending: str | None = None  # a version whose date may follow its heading
    since_heading = 0
    section_entries: list[dict[str, Any]] = []
    n_entries = 0

    def add_date(ver: str, date: str | None) -> None:
        if date and ver not in dates and len(release_dates) < MAX_RELEASE_DATES:
            dates[ver] = date
            release_dates.append({"version": ver, "date": date, "source": source})

    for el in node.iter(*_CHANGE_TAGS):
        tag = el.tag
        if body and _in_chrome(el):
            continue
        if tag in _HEADINGS:
            level = _HEADINGS[tag]
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, _plain(el), _heading_anchor(el)))
            vh = vheads.get(id(el))
            if vh:
                version = (level, vh[0])
                add_date(vh[0], vh[1])
                pending, since_heading = (None if vh[1] else vh[0]), 0
            elif version and level <= version[0]:
                version, pending = None, None
            continue
        if tag in ("time", "relative-time", "local-time"):
            if pending and since_heading <= 3:
                when = normalize_date((el.get("datetime") or "")[:10])
                add_date(pending, when.isoformat() if when else None)
                pending = None
            continue
        if el in emitted or _inside(el.getparent(), emitted, node) or _field_list(el):
            continue
        ver = version[1] if version else page_version
        want = bool(ver) and n_entries < MAX_CHANGES
        text = _md(el) if pending or want or (whatsnew and not dates) else ""
        if pending:
            since_heading += 1
            if text and len(text) <= 80 and find_date(text) and _RELEASED_LINE.match(_DATE_RE.sub("", text)):
                add_date(pending, find_date(text))
                pending = None
                continue
            if since_heading > 3:
                pending = None
        if text and whatsnew:
            wm = _WAS_RELEASED.search(text)
            if wm:
                add_date(normalize_version(wm.group("ver")), find_date(text[wm.end():wm.end() + 40]))
        if not want or (len(text) < MIN_ENTRY_CHARS and (tag != "li" or len(text.split()) < MIN_ITEM_WORDS)):
            continue
        if tag == "li":
            emitted.add(el)
        kind = _section_kind(stack)
        heading_texts = " ".join(t for _l, t, _a in stack)
        rem = _removed_in(heading_texts) if kind == "deprecated" else None
        anchor = ("#" + el.get("id")) if el.get("id") else (stack[-1][2] if stack else None)
        change = entry(el, kind, ver, rem, text, anchor, stack[-1][1] if stack else "", dates.get(ver))
        if change is not None:
            section_entries.append(change)
        n_entries += 1
    # a date printed after a section's first entries ("X was released on …" further down) reaches them too
    for change in section_entries:
        if change["date"] is None:
            change["date"] = dates.get(change["version"])
    return release_dates


# -- redaction ------------------------------------------------------------------------------------------------------

_CHUNK = re.compile(r"(?<=[.:;!?])\s+| — ")
_NOTE = re.compile(r"(?:New|Added|Changed|Removed) in version \d+(?:\.\d+)*[.:]")  # a bare note: nothing to hide


def redact_changes(changes: list[dict[str, Any]], excerpts: list[str], trusted: bool) -> int:
    """Redact each change's text in place; → secrets redacted.

    A change's text is rendered from the same blocks as the excerpts, which were just scanned. On a
    generator page (``trusted``) a text every sentence of which occurs verbatim in the scanned excerpts
    (a redacted excerpt no longer matches the original sentence) or is a bare "New in version 3.7." is
    not scanned again — on a Sphinx page most notes and definitions are such texts; everything else
    goes through :func:`redact_text`.
    """
    seen = "\n".join(_WS.sub(" ", e) for e in excerpts) if trusted else ""
    total = 0
    for change in changes:
        text = change["text"]
        if seen and all(chunk in seen or _NOTE.fullmatch(chunk) for chunk in _CHUNK.split(text) if chunk):
            continue
        change["text"], n = redact_text(text)
        total += n
    return total
