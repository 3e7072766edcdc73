"""What a page is: a change page by its URL or title words, the one version it is about, a release named with
a date by its first heading, title or field table, version lines that head sections as paragraphs, a plain-text
change log. :func:`read_screen` reads what the URL, title, first heading and markdown say before the tree is read;
:class:`PageView` the rest, once the screen let the page through."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from skill3crawl.extract.dom import text_content
from skill3crawl.extract.releases import (
    find_date,
    find_dates,
    free_date,
    heading_text,
    is_date_label,
    is_version_label,
    label_date,
    label_version,
    normalize_version,
    version_heading,
    without_dates,
)
from skill3crawl.extract.versions.bounds import MAX_TEXT_LINES
from skill3crawl.extract.versions.chapters import chapter_field, chapter_pages
from skill3crawl.extract.versions.phrases import MARKER_VER
from skill3crawl.extract.versions.quick import (
    ALL_FLAGS,
    QUICK_DIGITS,
    QUICK_VERBS,
    RAW_SINCE,
    SINCE_SENTENCE_HINT,
    quick_flags,
    quick_phrases,
)
from skill3crawl.extract.versions.tree import (
    BADGE_WORDS,
    HEADINGS,
    TIME_TAGS,
    classes,
    clean,
    dd_of,
    in_chrome,
    is_title,
    own_wrapper,
    pairs_of,
    plain_text,
    tag_of,
)

_WHATSNEW_RE = re.compile(
    r"(?i)what(?:[’'`]?s|\s+is)\s+new\s+(?:(?:in|for)\s+)?(?:(?:[\w.+#-]+\s+){0,2}?)(?P<ver>" + MARKER_VER + r")(?![\w-]|\.\d)"
)
_PAGE_VERSION_RES = (
    _WHATSNEW_RE,
    re.compile(r"(?i)(?:release\s+notes|changelog|change\s+log|changes|news)\s+(?:for|in|of)\s+(?:(?:[\w.+#-]+\s+){0,2}?)(?P<ver>" + MARKER_VER + r")(?![\w-]|\.\d)"),
    re.compile(r"(?i)\bnew\s+(?:apis?|features?)\s+(?:in|for|since)\s+(?:(?:[\w.+#-]+\s+){0,2}?)(?P<ver>" + MARKER_VER + r")(?![\w-]|\.\d)"),
    re.compile(r"(?i)(?<![\w.])(?P<ver>" + MARKER_VER + r")(?![\w-]|\.\d)\s+(?:release\s+notes|changelog|change\s+log|is\s+(?:out|released|here))"),
    re.compile(r"(?i)(?:migrat\w*|upgrad\w*|porting)\b.{0,40}?\bto\s+(?:(?:[\w.+#-]+\s+){0,2}?)(?P<ver>" + MARKER_VER + r")(?![\w-]|\.\d)"),
)
_CHANGE_TITLE = re.compile(
    r"(?i)what(?:[’'`]?s|\s+is)\s+new|change\s?log|release\s+notes|^news\s+(?:for|in)\b|^changes\s+(?:in|for)\s+\S*\d|release\s+history|version\s+history|migration\s+guide|"
    r"migrating\s+(?:from|to)|upgrade\s+guide|upgrading\s+(?:from|to)|porting\s+to|^releases\b|\breleases\s+·|breaking\s+changes|"
    r"(?:^|[:|—–]\s*)new\s+(?:apis?|features?)\b|^deprecated\s+(?:apis?|list|features?)\b|\bapi\s+changes\b"
)
_STRONG_URL = ("changelog", "change-log", "change_log", "releasenotes", "release-notes", "release_notes", "whatsnew",
               "whats-new", "whats_new", "what-s-new", "migration", "migrating", "upgrade", "upgrading")
_WEAK_URL = {"changes", "history", "news", "releases", "release", "porting", "changelogs", "tags"}


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


def _title_parts(title: str) -> list[str]:
    """A page title and its parts around a site-name separator ("Acme 2.3.0 released — Acme docs")."""
    if not title:
        return []
    parts = [p.strip() for p in re.split(r"\s+(?:[—–|·•»:]|-{1,2}|::)\s+", title) if p.strip()]
    return [title, *parts] if len(parts) > 1 else [title]


_RELEASE_WORDS = re.compile(r"(?i)releas|\bversion\b|what(?:[’'`]?s|\s+is)\s+new|change\s?log|\bnotes\b|\bnews\b|(?<![\w.])v\d|"
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
    if parent is not None and tag_of(parent) in ("header", "div", "hgroup") and len(parent) <= 4:
        sibs += list(parent.itersiblings())[:2]
    outer = own_wrapper(h, None)  # a title nested in wrappers that hold only it ("titlepage > div > div > h2")
    if outer is not h and outer is not parent:
        sibs += list(outer.itersiblings())[:3]
    for el in sibs:
        if not tag_of(el) or tag_of(el) in HEADINGS:
            break
        t = el if tag_of(el) in TIME_TAGS else next(el.iter(*TIME_TAGS), None)
        if t is not None:
            when = find_date((t.get("datetime") or "")[:10]) or find_date(plain_text(t))
            if when:
                return when, "time"
        text = plain_text(el)
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


def _pseudo_headings(node: Any, body: bool) -> dict[int, tuple[Any, ...]]:
    """Paragraphs and definition terms that are version headings ("2.3.0 (2024-03-04)" on a line of its own) with
    a date or a list after them: at least two of them, or one with a date."""
    found: dict[int, tuple[Any, ...]] = {}
    for el in node.iter("p", "dt"):
        t = text_content(el)
        if len(t) > 160 or not any(ch.isdigit() for ch in t) or (body and in_chrome(el)):
            continue
        if tag_of(el) == "p" and next(el.iterancestors("li", "td", "th", "table", "blockquote", "dd", "dt"), None) is not None:
            continue
        if is_title(el) or any(w in classes(c) for c in el.iter() for w in BADGE_WORDS):
            continue  # an admonition's title, a badge
        vh = version_heading(clean(t))
        if vh and (vh[1] or _heads_list(el)):
            found[id(el)] = (vh[0], vh[1], "heading", el)  # the element kept: its id stays its own
    if len(found) < 2 and not any(v[1] for v in found.values()):
        return {}
    return found


def _heads_list(el: Any) -> bool:
    """A version line heads the list after it (a plain-text change log rendered as paragraphs and lists), or
    a definition term its definition's list or paragraphs."""
    nxt = dd_of(el) if tag_of(el) == "dt" else el.getnext()
    if nxt is None:
        return False
    if tag_of(el) == "dt":
        return next((c for c in nxt if tag_of(c) in ("ul", "ol", "p")), None) is not None
    return tag_of(nxt) in ("ul", "ol")


def _fields_of(container: Any) -> tuple[str | None, str | None]:
    """(version, date) a field list or a two-column table states ("Version | 2.3.0", "Released: …")."""
    ver = when = None
    for label_el, value_el in pairs_of(container):
        label = plain_text(label_el).rstrip(": ")
        value = plain_text(value_el)
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
        if body and in_chrome(container):
            continue
        seen += 1
        if seen > 4:
            break
        ver, when = _fields_of(container)
        if ver and when:
            return ver, when, "table" if tag_of(container) == "table" else "field"
    return None


# Help-file tags in a plain-text page (``*version-9.0*``: the targets its links jump to). A line of tags only opens a
# section; one tag naming a version ("version-9.0", "acme-2.1", "release2.1") makes it that release's section. A line of
# words and then tags ("NEW FEATURES   *new-9*") is a sub-heading; a line opening with a file's tag ("*version9.txt*
# For Acme version 9.0.  Last change: …") is the file's own header (its stamp), never a release heading.
_HELP_TAG = r"\*[^\s*|]+\*"
HELP_TAGS_LINE = re.compile(r"^\s*(?:" + _HELP_TAG + r"\s*)+$")
HELP_TAGGED_HEADING = re.compile(r"^(?P<title>\S.{0,70}?\S)\s+(?:" + _HELP_TAG + r"\s*)+$")
HELP_FILE_TAG = re.compile(r"^\s*\*[^\s*|]+\.(?:txt|text|doc)\*")
_HELP_TAG_VERSION = re.compile(r"(?i)^\*(?:[a-z][a-z0-9]*[-_]?)?v?(?P<ver>\d+(?:\.\d+)+)\*$")


def help_tags_version(s: str) -> str | None:
    """The release a line of help tags names (its most specific version tag), else None."""
    best: str | None = None
    for tag in s.split():
        m = _HELP_TAG_VERSION.match(tag)
        if m and (best is None or m.group("ver").count(".") > best.count(".")):
            best = m.group("ver")
    return normalize_version(best) if best else None


def _plain_text(node: Any, body: bool) -> tuple[Any, list[str]] | None:
    """(the ``<pre>``, its lines) of a page whose content is plain text with at least two version headings (a line of
    help tags naming a version counts: ``*version-9.0*``)."""
    for pre in node.iter("pre"):
        if body and in_chrome(pre):
            continue
        text = text_content(pre)
        if len(text) < 200:
            continue
        lines = text.split("\n")[:MAX_TEXT_LINES]
        n = 0
        for ln in lines:
            s = ln.strip().lstrip("#").strip()
            if (s.endswith("*") and HELP_TAGS_LINE.match(s) and help_tags_version(s)) or (
                    s and len(s) <= 120 and not ln[:1].isspace() and QUICK_DIGITS.search(s) and version_heading(s)):
                n += 1
                if n >= 2:
                    return pre, lines
        return None  # the first long <pre> is the page's text
    return None


def _chapter_release(node: Any, url: str, body: bool) -> tuple[tuple[str | None, str, str] | None, list[str], str]:
    """A page heading a group of pages whose top field table names the release they belong to, without a date
    (:mod:`.chapters`): (its release as ``(version, date, where)``, the pages nested under it, its heading); else
    (None, [], "")."""
    field = chapter_field(node, body)
    if field is None:
        return None, [], ""
    pages = chapter_pages(node, url)
    if not pages:
        return None, [], ""  # a lone page's "Version | 2.3" box says which version it documents, not a release
    return (field[0], field[1] or "", "table"), pages, field[2]


@dataclass
class Screen:
    """What a page's URL, title, first heading and markdown say before its tree is read (:func:`read_screen`)."""

    h1: Any  # the first <h1> outside the page's chrome
    h1_text: str
    strong_url: bool  # the URL path names a change page (changelog, whatsnew, migration …)
    weak_url: bool  # … or may (changes, history, news, releases …)
    title_hint: bool  # the first heading or the title reads as a change page's
    phrases: int  # marker phrases in the markdown (-1: no markdown, every scan runs)
    verbs: frozenset[str]  # the verbs of those phrases
    flags: frozenset[str]  # the structures the markdown may hold (one scan each)
    plain: bool  # the page's <pre> may be its content
    one: tuple[str | None, str, str] | None  # (version, date, where) of the one release its first heading or title names
    titled: bool  # a title that names a release ("Release 15"): a date may follow

    @property
    def maybe_change(self) -> bool:
        return self.strong_url or self.weak_url or self.title_hint

    @property
    def heading(self) -> tuple[str, Any]:
        """(text, element) of the page's first heading."""
        return self.h1_text, self.h1

    def worth_scanning(self, code_chars: int) -> bool:
        """Whether anything may be found: without any of these the common page costs a few regexes over its markdown."""
        return bool(self.maybe_change or self.phrases or self.flags or self.one or self.titled or (self.plain and code_chars))


def read_screen(node: Any, url: str, title: str, body: bool, text: str | None, code_chars: int) -> Screen:
    """The page's URL, title and first heading, and the pre-screen over its markdown (``text``; None: every scan runs)."""
    strong_url, weak_url = _url_hint(url)
    h1 = next((h for h in node.iter("h1") if not (body and in_chrome(h))), None)
    h1_text = heading_text(h1) if h1 is not None else ""
    title_hint = bool(_CHANGE_TITLE.search(h1_text) or _CHANGE_TITLE.search(title or ""))
    phrases, verbs, flags = _markdown_hints(node, body, text)
    plain = text is None or code_chars >= 200 and code_chars > 0.6 * len(text)  # the page's <pre> may be its content
    one: tuple[str | None, str, str] | None = _one_release(h1_text, title)
    titled = bool(title) and _release_like(title) and version_heading(title) is not None  # "Release 15": a date may follow
    return Screen(h1, h1_text, strong_url, weak_url, title_hint, phrases, verbs, flags, plain, one, titled)


def _markdown_hints(node: Any, body: bool, text: str | None) -> tuple[int, frozenset[str], frozenset[str]]:
    """(marker phrases, their verbs, structure flags) of the page's markdown; without markdown every scan runs."""
    low = text.lower() if text is not None else None
    phrases, verbs = quick_phrases(low) if low is not None else (-1, frozenset(QUICK_VERBS))
    flags = quick_flags(text, low) if text is not None and low is not None else ALL_FLAGS
    if body and low is not None:  # a generic extractor's markdown leaves out field lists and labels: read the body's text too
        raw = text_content(node).lower()
        more, more_verbs = quick_phrases(raw)
        phrases, verbs = max(phrases, more), verbs | more_verbs
        if "since" not in flags and "since:" in raw and RAW_SINCE.search(raw):
            flags = flags | {"since"}  # "Since: 17", the label and its value in one text
        low = raw
    if low is not None and "since" not in flags and "since " in low and SINCE_SENTENCE_HINT.search(low):
        flags = flags | {"since"}  # a Since field whose value is a sentence ("… is available since Acme 2.26.0.")
    return phrases, verbs, flags


def _version_in_code(h: Any) -> bool:
    """The heading's version sits in a code span with other code ("`use v5.36`", "`require 2.3`"), not alone."""
    for code in h.iter("code", "tt", "kbd"):
        text = " ".join(plain_text(code).split())
        if QUICK_DIGITS.search(text) and len(text.split()) > 1:
            return True
    return False


def _version_heads(headings: list[Any], htext: dict[int, str]) -> dict[int, tuple[str, str | None, str]]:
    """Heading id → (version, date, where) of each heading that names a release; its date from a ``<time
    datetime>`` inside it when its text has none."""
    vheads: dict[int, tuple[str, str | None, str]] = {}
    for h in headings:
        vh = version_heading(htext[id(h)])
        if vh and vh[1] and not _release_like(htext[id(h)]):
            vh = None  # a post's title that mentions a version on a day
        if vh and _version_in_code(h):
            vh = None  # "`use v5.36`": a statement of code that names a version, no release heading
        if vh:
            when, where = vh[1], "heading"
            if when is None:  # a <time datetime> inside the heading
                t = next(h.iter(*TIME_TAGS), None)
                when = find_date((t.get("datetime") or "")[:10]) if t is not None else None
                where = "time" if when else where
            vheads[id(h)] = (vh[0], when, where)
    return vheads


class PageView:
    """What a page is, read from its tree: its version headings (and the paragraphs that head a version), the one
    release it is about, its plain-text change log, whether it is a change page and has version sections, the
    version it is about and its source kind ("whatsnew", "release-page", "changelog")."""

    def __init__(self, node: Any, url: str, title: str, body: bool, screen: Screen, headings: list[Any],
                 htext: dict[int, str]) -> None:
        self.htext = htext  # heading element id → its text
        self.vheads = _version_heads(headings, htext)
        self.pseudo: dict[int, tuple[Any, ...]] = _pseudo_headings(node, body) if "pseudo" in screen.flags else {}
        n_versions = len(self.vheads) + len(self.pseudo)
        n_dated = sum(1 for v in (*self.vheads.values(), *self.pseudo.values()) if v[1])
        one = self._field_release(node, title, body, screen, n_versions)
        self.one = self._lead_release(screen, headings, n_versions, one)
        self.chapter: list[str] = []  # the pages nested under this one, which belong to its release (.chapters)
        self.chapter_title = ""
        if self.one is None and not n_versions and ("field" in screen.flags or "table" in screen.flags):
            self.one, self.chapter, self.chapter_title = _chapter_release(node, url, body)
        self.pre_lines = _plain_text(node, body) if screen.plain and not n_versions else None
        self.is_change = bool(screen.strong_url or screen.title_hint or (screen.weak_url and n_versions >= 1) or n_dated >= 2
                              or n_versions >= 3 or self.one is not None or self.pre_lines)
        change_heading = n_versions >= 1 and any(_CHANGE_TITLE.search(t) for t in htext.values())
        self.sections = self.is_change or n_versions >= 2 or n_dated >= 1 or change_heading
        self.version = self._version(screen, title, n_versions) if self.is_change else None
        self.source = self._source(url, title, screen, n_versions)

    @staticmethod
    def _field_release(node: Any, title: str, body: bool, screen: Screen, n_versions: int) -> tuple[str | None, str, str] | None:
        """The screen's release, else a page about one release whose version and date are only in a field table or list."""
        one, h1_text = screen.one, screen.h1_text
        fields = _page_fields(node, body) if ("field" in screen.flags or "table" in screen.flags) and not n_versions and not one else None
        if fields and (screen.maybe_change or re.search(r"(?i)releas|version", f"{h1_text} {title}") or fields[0] in f"{h1_text} {title}"):
            one = fields  # a page about one release whose version and date are only in a field table or list
        return one

    def _lead_release(self, screen: Screen, headings: list[Any], n_versions: int, one: tuple[str | None, str, str] | None
                      ) -> tuple[str | None, str, str] | None:
        """``one``, else the release the page's title heading names with a date right after it ("Announcing Acme 2.3" and
        the post's <time> under it; "Release 15" + "Release date:")."""
        h1, vheads = screen.h1, self.vheads
        lead = h1 if h1 is not None else (headings[0] if headings else None)  # the page's title heading
        if one is not None or lead is None:
            return one
        lead_text = self.htext[id(lead)]
        if (lead is h1 or n_versions <= 1) and (id(lead) in vheads or _release_like(lead_text)):
            ver = vheads[id(lead)][0] if id(lead) in vheads else page_version_of(lead_text)
            after = _date_after(lead) if ver and not (id(lead) in vheads and vheads[id(lead)][1]) else None
            if after:
                return (ver, after[0], after[1])
        return None

    def _version(self, screen: Screen, title: str, n_versions: int) -> str | None:
        """A change page's version: its first heading's before its title's; a title of many releases names none."""
        h1 = screen.h1
        page_version = page_version_of(screen.h1_text)
        if page_version is None and n_versions == 1 and h1 is not None and self.vheads.get(id(h1)):
            page_version = self.vheads[id(h1)][0]
        return page_version or page_version_of(title or "") or (self.one[0] if self.one is not None else None)

    def _source(self, url: str, title: str, screen: Screen, n_versions: int) -> str:
        """The page's source kind: "whatsnew", "release-page" (also a page about one release) or "changelog"."""
        titles = " | ".join(t for t in (screen.h1_text, title) if t)
        whatsnew = bool(re.search(r"(?i)what(?:[’'`]?s|\s+is)[\s_-]*new", titles) or
                        any(t in ("whatsnew", "whats-new", "whats_new", "what-s-new") for t in _url_tokens(url)))
        source = _source_of(url, title, whatsnew)
        if source == "changelog" and self.one is not None and n_versions <= 1:
            source = "release-page"  # a page about one release
        return source
