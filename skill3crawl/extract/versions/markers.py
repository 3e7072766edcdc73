"""The marker passes: Sphinx directives, the marker phrases as text, badges, since labels and stability
attributes, "X+" badges, tabs labelled as markers."""

from __future__ import annotations

import re
from itertools import chain, islice
from typing import Any

from lxml import etree

from skill3crawl.extract.releases import label_marker, label_version, normalize_version, since_label
from skill3crawl.extract.versions.blocks import Block, annotated_block, api_block, api_name
from skill3crawl.extract.versions.bounds import MAX_CHANGES, MAX_TABS
from skill3crawl.extract.versions.found import ScanState
from skill3crawl.extract.versions.phrases import (
    MARKER_RE,
    MARKER_VER_RE,
    OPENER_RE,
    SELF_SUBJECT,
    SPHINX_KIND,
    VERB_KIND,
    marker_fields,
    removed_in,
)
from skill3crawl.extract.versions.quick import text_xp
from skill3crawl.extract.versions.tree import (
    BADGE_WORDS,
    HEADINGS,
    block_of,
    classes,
    clean,
    dt_of,
    in_chrome,
    inside,
    md,
    plain_text,
    tag_of,
)

# Cheap scans (libxml2 evaluates them; a union of paths or self:: chains would cost several ms a page).
_DIRECTIVE_XP = etree.XPath("descendant::div[contains(@class, 'version') or contains(@class, 'deprecated')]")
_MARK_XP = etree.XPath(
    "descendant::*[contains(@class, 'since') or contains(@class, 'badge') or @data-since or @data-version-added "
    "or @data-added or @data-added-in or @data-introduced]"
)
_TAB_XP = etree.XPath("descendant::*[@role='tab'][@id]")
_PLUS_XP = etree.XPath("descendant::text()[contains(., '+')]")
_MARK_ATTRS = ("data-since", "data-added", "data-added-in", "data-version-added", "data-introduced")


def directive_markers(scan: ScanState) -> list[Any]:
    node, directives = scan.node, []
    for d in _DIRECTIVE_XP(node):
        cls = classes(d)
        kind = next((k for k in SPHINX_KIND if f" {k} " in cls), None)
        if kind is None or (scan.body and in_chrome(d)):
            continue
        span = next((s for s in d.iter("span") if " versionmodified " in classes(s)), None)
        label = plain_text(span) if span is not None else plain_text(d)[:200]
        fields = marker_fields(label)
        if fields:
            ver, rem = fields[1], fields[2]
        else:  # a translated build: the first version in the note
            vm = MARKER_VER_RE.search(label)
            if not vm:
                continue
            ver, rem = normalize_version(vm.group(1)), removed_in(label)
        directives.append(d)
        if len(scan.found) >= MAX_CHANGES:
            continue
        note = md(d)
        own_body = len(note) - len(clean(label)) > 3
        head = scan.heading_of(d)
        block = annotated_block(d, note, own_body, node, head)
        scan.entry(d, SPHINX_KIND[kind], ver, rem or (removed_in(label) if kind.startswith("deprecated") else None),
                   block, head[0])
    return directives


# A sentence that announces what a later release will do ("… will be the default", "… is scheduled for …").
_ANNOUNCED = re.compile(r"(?i)\bdefault\s+will\b|\bwill\s+(?:be\s+(?:the\s+default|removed|dropped|required|changed|deprecated)|become|change|"
                        r"no\s+longer|fail|stop|require)|\b(?:scheduled|planned)\b")


def _sentence_at(text: str, start: int, end: int) -> str:
    """The whole sentence of the text that holds ``text[start:end]`` (a marker quoted with its sentence, never cut
    out of it: "This feature is available in Acme 3.7 and later.")."""
    left = max(text.rfind(". ", 0, start), text.rfind("! ", 0, start), text.rfind("? ", 0, start))
    left = 0 if left < 0 else left + 2
    stop = [i for i in (text.find(". ", end), text.find(".\n", end)) if i >= 0]
    right = min(stop) + 1 if stop else len(text)
    return " ".join(text[left:right].split())


def _in_listing(el: Any) -> bool:
    """``el`` is a line of a source listing built of elements, not ``<pre>``: a line (class ``line``) that holds a
    line-number element (class ``lineno``), or an element within three levels of one."""
    for cur in (el, *islice(el.iterancestors(), 3)):
        if " line " in classes(cur) and any(" lineno " in classes(c) for c in cur.iterchildren()):
            return True
    return False


def text_markers(scan: ScanState, verbs: frozenset[str], dset: set[Any]) -> None:
    node = scan.node
    for t in text_xp(verbs)(node):
        if len(scan.found) >= MAX_CHANGES:
            break
        owner = t.getparent()
        el = owner.getparent() if (owner is not None and t.is_tail) else owner
        if el is None or tag_of(el) in ("pre", "code", "script", "style") or next(el.iterancestors("pre", "code", "script", "style"), None) is not None:
            continue
        if _in_listing(el):
            continue  # a comment in a source listing of numbered lines is code, not the docs' marker
        if inside(el, dset, node) or (scan.body and in_chrome(el)):
            continue
        text = str(t)
        for m in chain(MARKER_RE.finditer(text) if "opener" not in verbs or len(verbs) > 1 else (),
                       OPENER_RE.finditer(text) if "opener" in verbs else ()):
            opener = m.re is OPENER_RE
            sentence = _sentence_at(text, m.start(), m.end())
            if opener:
                if len(re.findall(r"\w+", text[m.end():m.end() + 80])) < 2:
                    continue  # a label of its own ("Since Acme 4.8:"): the label passes read it
                whole = plain_text(block_of(el, node))
                at = whole.find(m.group(0))
                if _ANNOUNCED.search(_sentence_at(whole, at, at + len(m.group(0))) if at >= 0 else sentence):
                    continue  # "From 4.3.0 the default will be …": an announcement, not a release
            block = block_of(el, node)
            btext = plain_text(block) if tag_of(block) not in ("section", "article", "main", "body", "dd") else str(t)
            rest = MARKER_RE.sub("", btext).strip(" .:;,-–—()[]")
            own_body = (len(rest) > 15 and not SELF_SUBJECT.match(rest)) or tag_of(block) in HEADINGS
            head = scan.heading_of(el)
            kind = "changed" if opener else VERB_KIND[m.group("verb").lower()]
            rem = normalize_version(m.group("rem")) if m.group("rem") else None
            ver = normalize_version(m.group("ver"))
            # prose ("available in", an opener, a bare "This function was introduced in …"): its whole sentence
            self_subject = not own_body and bool(SELF_SUBJECT.match(MARKER_RE.sub("", sentence).strip(" .:;,-–—()[]")))
            quoted = sentence if opener or self_subject or m.group("verb").lower() == "available" else m.group(0)
            annotated = annotated_block(el, quoted, own_body, node, head)
            scan.mark(block, kind, ver)
            scan.entry(el, kind, ver, rem, annotated, head[0])
            if tag_of(block) in ("p", "li"):
                scan.emitted.add(block)


def _in_since_field(el: Any) -> bool:
    """``el`` is (in) a definition-list field labelled as a since field: the field pass reads it."""
    for cur in (el, *islice(el.iterancestors(), 3)):
        tag = tag_of(cur)
        if tag == "dt":
            return since_label(plain_text(cur).rstrip(": ")) is not None
        if tag == "dd":
            dt = dt_of(cur)
            return dt is not None and since_label(plain_text(dt).rstrip(": ")) is not None
    return False


def attribute_markers(scan: ScanState, dset: set[Any], plus: bool, page_heading: tuple[str, Any]) -> None:
    """Badges and labels whose text is a version label, ``data-since``-style attributes, "X+" badges."""
    candidates = _labelled_elements(scan, dset)  # (element, kind, version)
    if plus:
        candidates += _plus_badges(scan)
    for el, kind, ver in candidates:
        if len(scan.found) >= MAX_CHANGES:
            break
        if not _in_since_field(el):
            _attribute_entry(scan, el, kind, ver, page_heading)


def _labelled_elements(scan: ScanState, dset: set[Any]) -> list[tuple[Any, str, str]]:
    """(element, kind, version) of each element with a ``data-since``-style attribute, or classed as a since label or
    badge, that gives a version (not inside ``dset``, the directives)."""
    node = scan.node
    candidates: list[tuple[Any, str, str]] = []
    for el in _MARK_XP(node):
        if scan.body and in_chrome(el) or inside(el, dset, node):
            continue
        attr = next((el.get(a) for a in _MARK_ATTRS if el.get(a)), None)
        if attr:
            ver = label_version(attr)
            if ver:
                candidates.append((el, "deprecated" if "deprecat" in classes(el) else "added", ver))
            continue
        hit = _label_hit(el)
        if hit is not None:
            candidates.append((el, hit[0], hit[1]))
    return candidates


def _label_hit(el: Any) -> tuple[str, str] | None:
    """(kind, version) the text of an element classed as a since label or a badge states."""
    cls = classes(el)
    label = plain_text(el)
    if not label or len(label) > 60:
        return None
    hit = label_marker(label)
    if hit is None and "since" in cls:
        ver = label_version(label)  # <span class="since">OTP 25.0</span>
        hit = ("added", ver) if ver else None
    if hit is None and any(w in cls for w in BADGE_WORDS):
        hint = " ".join((e.get("title") or "") + " " + (e.get("aria-label") or "") for e in el.iter()).lower()
        ver = label_version(label) if ("version" in hint or "since" in hint) else None
        hit = ("added", ver) if ver else None  # a version badge titled "Minimum version"
    return hit


def _plus_badges(scan: ScanState) -> list[tuple[Any, str, str]]:
    """(element, kind, version) of each "X+" badge: a text of its own in a heading, term, header cell or summary, or
    classed as a badge."""
    candidates: list[tuple[Any, str, str]] = []
    for t in _PLUS_XP(scan.node):
        owner = t.getparent()
        el = owner.getparent() if (owner is not None and t.is_tail) else owner
        if el is None or scan.body and in_chrome(el):
            continue
        s = str(t).strip()
        if not s.endswith("+") or len(s) > 20 or plain_text(el) != s:
            continue
        hit = label_marker(s)
        context = el.iterancestors(*HEADINGS, "dt", "th", "summary")
        if hit and (next(context, None) is not None or any(w in classes(el) for w in BADGE_WORDS)):
            candidates.append((el, hit[0], hit[1]))
    return candidates


def _attribute_entry(scan: ScanState, el: Any, kind: str, ver: str, page_heading: tuple[str, Any]) -> None:
    """The entry of a badge or label: the API block it sits in, or the block it annotates; one per block."""
    node = scan.node
    block = block_of(el, node)
    if not scan.mark(block, kind, ver):
        return  # a badge inside a since label: one marker
    head = scan.heading_of(el)
    if tag_of(block) in ("section", "article", "main", "body") and tag_of(el) not in HEADINGS and \
            next(el.iterancestors(*HEADINGS), None) is None:  # a label block of its own inside an API's section
        scan.entry(el, kind, ver, None, api_block(el, node, page_heading), head[0])
        return
    own_body = tag_of(block) not in ("section", "article", "main", "body") and len(plain_text(block)) - len(plain_text(el)) > 15
    unit = el if own_body else _badge_unit(el, node)  # a badge alone in its list or paragraph: the section's
    scan.entry(el, kind, ver, None, annotated_block(unit, "" if unit is el else plain_text(el), own_body, node, head), head[0])


def _badge_unit(el: Any, stop: Any) -> Any:
    """The outermost element around a badge that holds nothing but the badge (its list, its paragraph)."""
    text, cur = plain_text(el), el
    parent = cur.getparent()
    while parent is not None and parent is not stop and tag_of(parent) not in HEADINGS and plain_text(parent) == text:
        cur, parent = parent, parent.getparent()
    return cur


_SAFE_ID = re.compile(r"^[\w-]{1,100}$")


_PANEL_XP = etree.XPath("descendant::*[@role='tabpanel']")
_CLASSED_XP = etree.XPath("descendant::*[@class]")


def tab_markers(scan: ScanState) -> None:
    """Tabs labelled as markers ("Added in 17", "Deprecated in 16"): each row the tab selects (an element
    classed with the tab's id inside the panel the tab controls, or the rows of the tab panel it labels) is one
    marker. One pass over the page's tab panels and classed elements, however many tabs."""
    node = scan.node
    tabs = _marker_tabs(node)
    if not tabs:
        return
    panels = _tab_panels(node)
    with_class = _ClassIndex()
    for tab, (kind, ver) in tabs:
        for row in _tab_rows(tab, panels, with_class, node)[:MAX_CHANGES]:
            if len(scan.found) >= MAX_CHANGES:
                return
            _tab_row_entry(scan, row, kind, ver)


def _marker_tabs(node: Any) -> list[tuple[Any, tuple[str, str]]]:
    """(tab, (kind, version)) of the first :data:`MAX_TABS` tabs labelled as a marker (with a plain id)."""
    tabs = []
    for tab in _TAB_XP(node):
        hit = label_marker(plain_text(tab))
        if hit is not None and _SAFE_ID.match(tab.get("id") or ""):
            tabs.append((tab, hit))
            if len(tabs) >= MAX_TABS:
                break
    return tabs


def _tab_panels(node: Any) -> dict[str, Any]:
    """id / aria-labelledby → the tab panel."""
    panels: dict[str, Any] = {}
    for panel in _PANEL_XP(node):
        for key in (panel.get("id"), panel.get("aria-labelledby")):
            if key:
                panels.setdefault(key, panel)
    return panels


class _ClassIndex:
    """The elements under a scope that carry a class token: scope → class token → elements, read once per scope."""

    def __init__(self) -> None:
        self.classed: dict[Any, dict[str, list[Any]]] = {}

    def __call__(self, scope: Any, token: str) -> list[Any]:
        classed = self.classed
        if scope not in classed:
            index: dict[str, list[Any]] = {}
            for el in _CLASSED_XP(scope):
                for c in (el.get("class") or "").split():
                    index.setdefault(c, []).append(el)
            classed[scope] = index
        return classed[scope].get(token, [])


def _tab_rows(tab: Any, panels: dict[str, Any], with_class: _ClassIndex, node: Any) -> list[list[Any]]:
    """The rows a tab selects: the rows of the panel it labels, else the elements classed with its id in the panel
    it controls (a row starts at a short element with a link or code; the elements after it until the next are
    its own)."""
    tid = tab.get("id")
    labelled = panels.get(tid) if panels.get(tid) is not None and panels[tid].get("aria-labelledby") == tid else None
    if labelled is not None:
        return [[el] for el in labelled.iter("li", "tr", "dt")]
    rows: list[list[Any]] = []
    scope = panels.get(tab.get("aria-controls") or "")
    for el in with_class(scope if scope is not None else node, tid):
        starts = len(plain_text(el)) <= 200 and next(el.iter("a", "code"), None) is not None
        if starts or not rows:
            rows.append([el])
        else:
            rows[-1].append(el)
    return rows


def _tab_row_entry(scan: ScanState, row: list[Any], kind: str, ver: str) -> None:
    """One marker per row a tab selects: its text, its in-page link, the API its first element names."""
    name = plain_text(row[0])
    text = " — ".join(t for t in (md(el) for el in row) if t)
    head = scan.heading_of(row[0])
    link = next(row[0].iter("a"), None)
    anchor = link.get("href") if link is not None and (link.get("href") or "").startswith("#") else None
    if scan.mark(row[0], kind, ver):
        scan.entry(row[0], kind, ver, removed_in(text) if kind == "deprecated" else None,
                   Block(text, anchor, api_name(name, signature=True), None), head[0])
