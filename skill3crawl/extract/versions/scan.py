"""The scan of one page (:func:`scan`, the package's entry, → :class:`PageChanges`: the delta model's records;
:func:`find_changes` and :func:`scan_changes` give its item JSON): the page read, the passes run, then each entry's
document order, heading path and code blocks."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, replace
from itertools import islice
from typing import Any, Callable

from skill3crawl.extract.code import NOT_CODE, code_language, code_text
from skill3crawl.extract.releases import heading_text
from skill3crawl.extract.versions.bounds import MAX_CHANGES, MAX_CODE, MAX_CODE_CHARS, MAX_PATH, MAX_PATH_CHARS
from skill3crawl.extract.versions.fields import history_tables, label_markers
from skill3crawl.extract.versions.found import ScanState
from skill3crawl.extract.versions.markers import attribute_markers, directive_markers, tab_markers, text_markers
from skill3crawl.extract.versions.page import (
    PageView,
    Screen,
    read_screen,
)
from skill3crawl.extract.versions.sections import text_sections, walk
from skill3crawl.extract.versions.tree import HEADINGS, PSEUDO_LEVEL, cap, doc_keys, in_chrome, plain_text, tag_of
from synth.delta.model import ChangeRecord, ReleaseDate


@dataclass(frozen=True)
class PageChanges:
    """What one page says changed (:func:`scan`): its change entries (the delta model's
    :class:`~synth.delta.model.ChangeRecord`, in document order) and release dates (its
    :class:`~synth.delta.model.ReleaseDate`, read on this page: no ``url``), whether it is a change page
    (``page_kind``: ``"change"``, ``"doc"``, or ``""`` when the markup could not be read) and the one version a
    change page is about; ``chapter`` when the page heads a group of pages that belong to its release (.chapters:
    its version, date, title and pages). :meth:`to_json` writes the page's fields of its item, at that boundary
    only (the rows the package docstring describes)."""

    changes: tuple[ChangeRecord, ...] = ()
    page_kind: str = ""
    page_version: str | None = None
    release_dates: tuple[ReleaseDate, ...] = ()
    chapter: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The page's fields of its item: ``changes``, ``page_kind``, ``page_version``, ``release_dates`` (and
        ``chapter`` when the page heads one). A page's entries always carry their heading path (a list, empty when
        no heading encloses them), and a release date the part of the page it was read in (``where``)."""
        out = {"changes": [_change_json(c) for c in self.changes], "page_kind": self.page_kind,
               "page_version": self.page_version,
               "release_dates": [{"version": r.version, "date": r.date, "source": r.source, "where": r.where}
                                 for r in self.release_dates]}
        return out | ({"chapter": self.chapter} if self.chapter is not None else {})

    def records(self) -> tuple[ChangeRecord, ...]:
        """The change entries."""
        return self.changes

    def dates(self, url: str | None = None) -> tuple[ReleaseDate, ...]:
        """The release dates, read on ``url``."""
        return tuple(replace(r, url=url) for r in self.release_dates)


def _change_json(change: ChangeRecord) -> dict[str, Any]:
    row = change.to_json()
    row["path"] = list(change.path)  # read by the scan: a list, even when empty (ChangeRecord writes None then)
    return row


_ERRORS = (ValueError, TypeError, AttributeError, IndexError, KeyError, RecursionError)  # markup the scan cannot read


def scan(node: Any, url: str, title: str = "", *, body: bool = False, text: str | None = None, code_chars: int = 0,
         code_of: dict[Any, dict[str, str]] | None = None) -> PageChanges:
    """The package's entry: what the page ``node`` (its main-content element, or the ``<body>`` with ``body=True``)
    says changed, as :func:`scan_page` reads it; markup it cannot read leaves the page's content alone: an empty
    result (no changes, ``page_kind`` ``""``)."""
    try:
        return scan_page(node, url, title, body=body, text=text, code_chars=code_chars, code_of=code_of)
    except _ERRORS:
        return PageChanges()


def find_changes(node: Any, url: str, title: str = "", *, body: bool = False, text: str | None = None,
                 code_chars: int = 0, code_of: dict[Any, dict[str, str]] | None = None) -> dict[str, Any]:
    """:func:`scan` as the item's JSON fields (:meth:`PageChanges.to_json`)."""
    return scan(node, url, title, body=body, text=text, code_chars=code_chars, code_of=code_of).to_json()


def scan_changes(node: Any, url: str, title: str = "", *, body: bool = False, text: str | None = None,
                 code_chars: int = 0, code_of: dict[Any, dict[str, str]] | None = None) -> dict[str, Any]:
    """:func:`scan_page` as the item's JSON fields (its errors raised)."""
    return scan_page(node, url, title, body=body, text=text, code_chars=code_chars, code_of=code_of).to_json()


def scan_page(node: Any, url: str, title: str = "", *, body: bool = False, text: str | None = None,
              code_chars: int = 0, code_of: dict[Any, dict[str, str]] | None = None) -> PageChanges:
    """Version markers and change-page sections of one page (see the module docstring).

    ``node`` is the main-content element (or the ``<body>``, with ``body=True``: its nav, header,
    footer and aside are then left out). ``text``, the page's markdown when the caller has it, lets a
    page with no marker phrase, no version heading, no version table or field and no change-page URL
    or title skip the scan; ``code_chars`` (the characters of its code blocks) tells a plain-text page
    (its ``<pre>`` is the content) apart; ``code_of`` (``<pre>`` element → its code block) saves reading
    an entry's code again. Returns an empty result for ``None``.
    """
    if node is None:
        return PageChanges()
    screen = read_screen(node, url, title, body, text, code_chars)
    if text is not None and not screen.worth_scanning(code_chars):
        return PageChanges(page_kind="doc")  # nothing to find: the common page costs a few regexes over its markdown
    headings = [h for h in node.iter(*HEADINGS) if not (body and in_chrome(h))]
    htext = {id(h): (screen.h1_text if h is screen.h1 else heading_text(h)) for h in headings}
    page = PageView(node, url, title, body, screen, headings, htext)
    scan = ScanState(node, body, page.source, htext, code_of)
    if page.one is not None:
        scan.add_date(page.one[0], page.one[1] or None, page.one[2])
    chapter = None
    if page.chapter and page.version:  # its pages belong to its release (.chapters: inherited when the feed closes)
        chapter = {"version": page.version, "date": page.one[1] or None if page.one else None,
                   "title": page.chapter_title or title, "pages": page.chapter}
    _markers(scan, screen, page)
    _sections(scan, screen, page)
    _finish(scan, headings, htext, page.pseudo)
    return PageChanges(changes=tuple(c for _el, c, _code in scan.found[:MAX_CHANGES]),
                       page_kind="change" if page.is_change else "doc", page_version=page.version,
                       release_dates=tuple(scan.release_dates), chapter=chapter)


def _markers(scan: ScanState, screen: Screen, page: PageView) -> None:
    """The marker passes, each only where the screen found what it reads."""
    phrases, flags = screen.phrases, screen.flags
    # 1. Sphinx directives: div.versionadded / versionchanged / deprecated / deprecated-removed / versionremoved
    directives: list[Any] = []
    if phrases:
        directives = directive_markers(scan)
    # 2. History tables, tables of versions and dates
    tables = history_tables(scan) if "table" in flags else set()
    # 3. the phrases as text: admonition titles, badges, paragraphs, headings
    scan.emitted.update(directives)
    # (on a change page the version sections speak: "deprecated since 2.5" in a 3.0 entry is history)
    if not page.is_change and (phrases < 0 or phrases > len(directives)):
        text_markers(scan, screen.verbs, {*directives, *tables})
    # 4. badges, since labels, stability attributes, "X+" badges, tabs labelled as markers
    if flags & {"badge", "since", "plus"}:  # a badge's or label's version shows in a heading or a line of its own
        attribute_markers(scan, set(directives), "plus" in flags, screen.heading)
    if screen.maybe_change or "since" in flags:
        tab_markers(scan)


def _sections(scan: ScanState, screen: Screen, page: PageView) -> None:
    """5. version sections, field tables and lists: entries and release dates; a plain-text change log's."""
    labels = "since" in screen.flags
    if page.sections:
        walk(scan, page, screen.heading, labels)
    elif screen.flags & {"since", "table", "field"}:
        label_markers(scan, screen.heading, labels)
    if page.pre_lines:
        text_sections(scan, page.pre_lines, screen.h1_text)


def _finish(scan: ScanState, headings: list[Any], htext: dict[int, str], pseudo: dict[int, Any]) -> None:
    """Document order, then each entry's heading path (from the outline) and code blocks."""
    node, found = scan.node, scan.found
    if not found:
        return
    doc_key = doc_keys(node)
    keys = [doc_key(el) for el, _c, _code in found]
    if len(found) > 1:
        order = sorted(range(len(found)), key=keys.__getitem__)
        found[:] = [found[i] for i in order]
        keys = [keys[i] for i in order]
    if scan.no_path:
        _outline_paths(found, scan.no_path, keys, headings, htext, pseudo, doc_key)
    stops: set[Any] = set()
    for el, _c, _code in found:
        cur = el
        while cur is not None and cur is not node and cur not in stops:
            stops.add(cur)
            cur = cur.getparent()
    for el, change, code_el in found:
        change.path = tuple(cap(t, MAX_PATH_CHARS) for t in change.path if t)[-MAX_PATH:]
        if code_el is not None:
            codes = _codes(code_el, stops, scan.code_of)
            change.code, change.code_langs = tuple(c["text"] for c in codes), tuple(c["language"] for c in codes)


def _outline_paths(found: list[tuple[Any, ChangeRecord, Any]], no_path: set[int], keys: list[tuple[int, ...]],
                   headings: list[Any], htext: dict[int, str], pseudo: dict[int, Any],
                   doc_key: Callable[[Any], tuple[int, ...]]) -> None:
    """The heading path of each entry without one: the enclosing headings of the outline (headings and the
    paragraphs that head a version) before it in document order (``keys``: the entries' document-order keys)."""
    outline = headings
    if pseudo:
        extra = [v[3] for v in pseudo.values()]
        outline = sorted([*headings, *extra], key=doc_key)
    hkeys, paths = [], []
    stack: list[tuple[int, str]] = []
    for h in outline:
        level = HEADINGS.get(tag_of(h), PSEUDO_LEVEL)
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, htext.get(id(h)) or plain_text(h)))
        hkeys.append(doc_key(h))
        paths.append([t for _l, t in stack])
    for (el, change, _code), key in zip(found, keys):
        if id(change) in no_path:
            i = bisect_right(hkeys, key) - 1
            change.path = tuple(paths[i]) if i >= 0 else ()


def _codes(code_el: Any, stops: set[Any], code_of: dict[Any, dict[str, str]] | None = None) -> list[dict[str, str]]:
    """The code blocks of an entry: ``<pre>`` inside its block, then right after it (before the next entry or
    heading), byte-exact; one too long to keep whole is left out."""

    out: list[dict[str, str]] = []
    for pre in _code_pres(code_el, stops):
        known = code_of.get(pre) if code_of is not None else None
        if known is not None:
            if len(known["text"]) <= MAX_CODE_CHARS:
                out.append(dict(known))
            if len(out) >= MAX_CODE:
                break
            continue
        if any(c in (a.get("class") or "") for a in (pre, *pre.iterancestors()) for c in NOT_CODE):
            continue
        text = code_text(pre)
        if text.strip() and len(text) <= MAX_CODE_CHARS:
            out.append({"text": text, "language": code_language(pre)})
        if len(out) >= MAX_CODE:
            break
    return out


def _code_pres(code_el: Any, stops: set[Any]) -> list[Any]:
    """The ``<pre>`` elements of an entry: inside its block (not a heading's), then in the siblings after it up to the
    next heading or entry (at most six siblings)."""
    pres: list[Any] = []
    if tag_of(code_el) not in HEADINGS:
        pres += islice(code_el.iter("pre"), MAX_CODE)
    sib, hops = code_el.getnext(), 0
    while sib is not None and len(pres) < MAX_CODE and hops < 6:
        tag = tag_of(sib)
        if tag in HEADINGS or sib in stops:
            break
        if tag == "pre":
            pres.append(sib)
        elif tag:
            pres += islice(sib.iter("pre"), MAX_CODE)
        sib, hops = sib.getnext(), hops + 1
    return pres
