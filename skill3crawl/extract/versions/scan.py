"""The scan of one page (:func:`scan_changes`, :func:`find_changes`): the page read, the passes run, then each
entry's document order, heading path and code blocks."""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import islice
from typing import Any

from skill3crawl.extract.releases import find_date, heading_text, version_heading
from skill3crawl.extract.versions.bounds import MAX_CHANGES, MAX_CODE, MAX_CODE_CHARS, MAX_PATH, MAX_PATH_CHARS
from skill3crawl.extract.versions.fields import _history_tables, _labels
from skill3crawl.extract.versions.markers import _attribute_markers, _directives, _tab_markers, _text_markers
from skill3crawl.extract.versions.page import (
    _CHANGE_TITLE,
    _date_after,
    _one_release,
    _page_fields,
    _pseudo_headings,
    _release_like,
    _source_of,
    _url_hint,
    _url_tokens,
    page_version_of,
)
from skill3crawl.extract.versions.quick import _ALL_FLAGS, _QUICK_VERBS, _RAW_SINCE, _phrases, _quick_flags
from skill3crawl.extract.versions.sections import _plain_text, _text_sections, _walk
from skill3crawl.extract.versions.state import _Scan
from skill3crawl.extract.versions.tree import _HEADINGS, _PSEUDO_LEVEL, _TIME_TAGS, _cap, _doc_keys, _in_chrome, _plain, _tag


def _empty() -> dict[str, Any]:
    return {"changes": [], "page_kind": "", "page_version": None, "release_dates": []}


def find_changes(node: Any, url: str, title: str = "", *, body: bool = False, text: str | None = None,
                 code_chars: int = 0, code_of: dict[Any, dict[str, str]] | None = None) -> dict[str, Any]:
    """:func:`scan_changes`; markup it cannot read leaves the page's content alone: no changes, ``page_kind`` ``""``."""
    try:
        return scan_changes(node, url, title, body=body, text=text, code_chars=code_chars, code_of=code_of)
    except (ValueError, TypeError, AttributeError, IndexError, KeyError, RecursionError):
        return _empty()


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
