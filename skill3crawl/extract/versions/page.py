"""What a page is: a change page by its URL or title words, the one version it is about, a release named with
a date by its first heading, title or field table, version lines that head sections as paragraphs."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote, urlsplit

from skill3crawl.extract.releases import (
    find_date,
    find_dates,
    free_date,
    is_date_label,
    is_version_label,
    label_date,
    label_version,
    normalize_version,
    version_heading,
    without_dates,
)
from skill3crawl.extract.versions.phrases import _VER
from skill3crawl.extract.versions.tree import (
    _BADGE_WORDS,
    _HEADINGS,
    _TIME_TAGS,
    _classes,
    _clean,
    _dd_of,
    _in_chrome,
    _is_title,
    _own_wrapper,
    _pairs,
    _plain,
    _tag,
)

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
