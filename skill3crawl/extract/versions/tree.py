"""The lxml helpers of the scan: an element's text (markdown or plain, cleaned), its block, its definition, its
heading and anchor, document order, and the page chrome a body scan leaves out."""

from __future__ import annotations

import re
from typing import Any, Callable

from skill3crawl.extract.dom import text_content
from skill3crawl.extract.fastmd import to_markdown
from skill3crawl.extract.releases import INVISIBLE
from skill3crawl.extract.versions.bounds import MAX_TEXT
from synth.skill.quote import shorten

HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
PSEUDO_LEVEL = 7  # a paragraph or definition term that heads a version section sits below every real heading
_TITLE_BLOCK = ("admonition-title", "admonitionheading", "admonition-heading", "admonition_heading")
_BLOCK_TAGS = {"p", "li", "dd", "dt", "td", "th", "blockquote", "summary", "figcaption", "section", "article", "main",
               "details", *HEADINGS}
WS = re.compile(r"\s+")


_NOTE_COLON = re.compile(r"(?i)(\b(?:version|since|in)\s+v?\d[\w.-]*:)(?=[^\s/])")


BADGE_WORDS = ("badge", "label", "tag", "pill", "chip", "lozenge")


_CHROME = ("nav", "header", "footer", "aside")
TIME_TAGS = ("time", "relative-time", "local-time")


_STRIP = str.maketrans({"¶": "", "\xa0": " "})


def clean(text: str) -> str:
    text = WS.sub(" ", text if text.isascii() else INVISIBLE.sub("", text.translate(_STRIP))).strip()
    if text.endswith(" #"):  # Docusaurus / MkDocs heading permalinks
        text = text[:-2].rstrip()
    if ":" in text:  # "New in version 3.11:`x`" (inline runs joined without a space)
        text = _NOTE_COLON.sub(r"\1 ", text)
    return text


def md(el: Any) -> str:
    return clean(to_markdown(el))


def plain_text(el: Any) -> str:
    return clean(text_content(el))


def cap(text: str, n: int = MAX_TEXT) -> str:
    """At most ``n`` characters: whole trailing sentences left out, "…" said (``synth.skill.quote.shorten``)."""
    return text if len(text) <= n else shorten(text, n, hard=n)


def classes(el: Any) -> str:
    return " " + (el.get("class") or "").lower() + " "


def tag_of(el: Any) -> str:
    return el.tag if isinstance(el.tag, str) else ""


def block_of(el: Any, stop: Any) -> Any:
    """The nearest block element at or above ``el`` (not above ``stop``)."""
    cur = el
    while cur is not None:
        tag = tag_of(cur)
        if tag in _BLOCK_TAGS or any(c in classes(cur) for c in _TITLE_BLOCK):
            return cur
        if cur is stop:
            return cur
        cur = cur.getparent()
    return el


def definition_of(el: Any, stop: Any) -> Any:
    """The ``dd`` a marker sits in (through wrappers like blockquote/div), unless a list item or section comes first."""
    cur = el.getparent()
    while cur is not None and cur is not stop:
        tag = tag_of(cur)
        if tag == "dd":
            return cur
        if tag in ("li", "section", "article", "td", "details") or tag in HEADINGS:
            return None
        cur = cur.getparent()
    return None


def dt_of(dd: Any) -> Any:
    return _partner(dd, "dt", "dd", lambda el: el.getprevious())


def dd_of(dt: Any) -> Any:
    return _partner(dt, "dd", "dt", lambda el: el.getnext())


def _partner(el: Any, want: str, stop: str, step: Callable[[Any], Any]) -> Any:
    """The nearest ``want`` sibling of ``el`` in ``step``'s direction (a definition list's term or description),
    or None when a ``stop`` sibling comes first."""
    sib = step(el)
    while sib is not None and tag_of(sib) != want:
        if tag_of(sib) == stop:
            return None
        sib = step(sib)
    return sib


def is_title(el: Any) -> bool:
    return tag_of(el) == "summary" or any(c in classes(el) for c in _TITLE_BLOCK)


def anchor_up(el: Any, stop: Any) -> str | None:
    cur = el
    while cur is not None:
        if cur.get("id"):
            return "#" + cur.get("id")
        if cur is stop:
            break
        cur = cur.getparent()
    return None


def heading_anchor(h: Any) -> str | None:
    if h.get("id"):
        return "#" + h.get("id")
    parent = h.getparent()
    if parent is not None and parent.get("id") and tag_of(parent) in ("section", "div", "article"):
        return "#" + parent.get("id")
    prev = h.getprevious()
    if prev is not None and tag_of(prev) == "span" and prev.get("id"):
        return "#" + prev.get("id")
    return None


def own_wrapper(el: Any, stop: Any) -> Any:
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


def blocks_text(container: Any, skip: Any, limit: int = 500, after: Any = None) -> str:
    """The text of a container's first blocks, ``skip`` (the block holding a marker) and headings left out; with
    ``after`` (the container's heading), only the blocks after it (a sidebar before a page's title is not its text)."""
    parts: list[str] = []
    size = 0
    children = list(container)
    if after is not None and after in children:
        children = children[children.index(after) + 1:]
    for child in children:
        tag = tag_of(child)
        if not tag or tag in HEADINGS or tag in ("script", "style", "pre") or child is skip:
            continue
        if skip is not None and child in skip.iterancestors():
            continue
        text = md(child)
        if text:
            parts.append(text)
            size += len(text)
            if size >= limit:
                break
    return cap(" ".join(parts), limit)


def in_chrome(el: Any) -> bool:
    return next(el.iterancestors(*_CHROME), None) is not None


def heading_before(el: Any, stop: Any) -> Any:
    """The heading a node sits under: its own heading ancestor, else the nearest heading before it among the
    preceding siblings of it and its ancestors (sections and flat markdown alike)."""
    for anc in el.iterancestors(*HEADINGS):
        return anc
    cur = el
    while cur is not None and cur is not stop:
        for sib in cur.itersiblings(*HEADINGS, preceding=True):
            return sib
        cur = cur.getparent()
    return None


def doc_keys(stop: Any) -> Callable[[Any], tuple[int, ...]]:
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


def field_list(el: Any) -> bool:
    """A paragraph of a metadata field list (Sphinx ``:Release:`` / ``:Date:``, docutils docinfo)."""
    dd = el.getparent()
    dl = dd.getparent() if dd is not None and tag_of(dd) in ("dd", "td") else None
    return dl is not None and any(k in classes(dl) for k in ("field-list", "docinfo", "field-body"))


def inside(el: Any, group: set[Any], stop: Any) -> bool:
    if not group:
        return False
    cur = el
    while cur is not None and cur is not stop:
        if cur in group:
            return True
        cur = cur.getparent()
    return False


def pairs_of(container: Any) -> list[tuple[Any, Any]]:
    """A definition list's (dt, dd) or a table's (label cell, value cell) pairs."""
    pairs: list[tuple[Any, Any]] = []
    if tag_of(container) == "dl":
        for dt in container:
            if tag_of(dt) == "dt":
                dd = dd_of(dt)
                if dd is not None:
                    pairs.append((dt, dd))
            if len(pairs) >= 40:
                break
    else:
        for tr in container.iter("tr"):
            cells = [c for c in tr if tag_of(c) in ("td", "th")]
            if len(cells) == 2:
                pairs.append((cells[0], cells[1]))
            if len(pairs) >= 40:
                break
    return pairs
