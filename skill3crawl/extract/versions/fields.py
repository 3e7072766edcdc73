"""Tables and field lists: History tables (a version and a change column), tables of versions and dates,
two-column field tables and definition-list fields ("Version | 2.3.0", "Since: 17"), and the labelled fields
of a page without version sections."""

from __future__ import annotations

import re
from typing import Any, Callable

from lxml import etree

from skill3crawl.extract.releases import (
    find_date,
    free_date,
    heading_text,
    is_date_label,
    is_version_label,
    label_marker,
    label_version,
    normalize_version,
    since_label,
    since_value_version,
)
from skill3crawl.extract.versions.blocks import Block, annotated_block, api_block, api_name, dt_api, heading_api
from skill3crawl.extract.versions.bounds import MAX_CHANGES, MAX_TABLE_ROWS
from skill3crawl.extract.versions.found import ScanState
from skill3crawl.extract.versions.phrases import MARKER_VER_RE, kind_of_text, removed_in
from skill3crawl.extract.versions.tree import (
    block_of,
    definition_of,
    dt_of,
    heading_anchor,
    heading_before,
    in_chrome,
    inside,
    md,
    pairs_of,
    plain_text,
    tag_of,
)

# History / version tables: the header cells that name their columns
_VER_COL = re.compile(r"(?i)^\W*(?:versions?|releases?|since|added(?:\s+in)?|introduced(?:\s+in)?|tags?|v)\W*$")
_CHANGE_COL = re.compile(r"(?i)^\W*(?:changes?|change\s*log|description|notes?|details|what(?:[’']s|\s+is)?\s+(?:new|changed)|"
                         r"summary|highlights|history|comments?)\W*$")
_DATE_COL = re.compile(r"(?i)^\W*(?:(?:release|released|publish(?:ed)?|ga|availability)(?:\s+date|\s+on)?|date)\W*$")


def _cell_version(cell: Any) -> str | None:
    text = plain_text(cell)
    ver = label_version(text)
    if ver:
        return ver
    m = MARKER_VER_RE.search(text)
    return normalize_version(m.group(1)) if m else None


MAX_TRAILING_LABEL_TEXT = 1200  # a member's description, not a page
_TRAILING_LABEL = re.compile(r"[.;!?)]\s+((?:Since|Added|Available\s+since)\s*:\s*v?\d+(?:\.\d+)*)\s*\.?$")
_LABEL_TEXT_XP = etree.XPath("descendant::text()[contains(., 'ince') or contains(., '>=') or contains(., '≥') "
                             "or contains(., 'dded') or contains(., 'eprecated')]")


def label_markers(scan: ScanState, page_heading: tuple[str, Any], labels: bool) -> None:
    """A page without version sections: labelled fields of definition lists and two-column tables ("Since: 17"),
    short blocks that are a label of their own ("Since: OTP 25.0", "(Acme 8 >= 8.2.0)")."""
    node = scan.node
    for el in node.iter("dl", "table"):
        if scan.body and in_chrome(el) or el in scan.emitted:
            continue
        if tag_of(el) == "dl":
            dl_fields(scan, el, None, lambda *_a: None, page_heading, labels)
        else:
            table_markers(scan, el, [], None, None, lambda *_a: None, page_heading)
    if not labels:
        return
    seen: set[Any] = set()
    for t in _LABEL_TEXT_XP(node):
        owner = t.getparent()
        el = owner.getparent() if (owner is not None and t.is_tail) else owner
        block = block_of(el, node) if el is not None else None
        if block is None or block in seen or tag_of(block) not in ("p", "li", "div") or (scan.body and in_chrome(block)):
            continue
        seen.add(block)
        if inside(block, scan.emitted, node):
            continue
        text = plain_text(block)
        hit = label_marker(text) if len(text) <= 60 else None
        row = None
        if hit is None and len(text) <= MAX_TRAILING_LABEL_TEXT and (tail := _TRAILING_LABEL.search(text)):
            # "Default flags. Since: 2.74": a label ending a member's description in a table of members
            row = next((a for a in block.iterancestors() if tag_of(a) == "tr" or a is node), None)
            hit = label_marker(tail.group(1)) if row is not None and row is not node else None
        if hit and scan.mark(block, hit[0], hit[1]) and len(scan.found) < MAX_CHANGES:
            head = scan.heading_of(block)
            if row is not None and hit:
                cells = [c for c in row if tag_of(c) in ("td", "th")]
                name = plain_text(cells[0]) if cells else ""
                block_text = " — ".join(t for t in (plain_text(c) for c in cells) if t)
                anchor = next((("#" + a.get("name", a.get("id", ""))) for a in row.iter("a") if a.get("name") or a.get("id")),
                              head[1])
                scan.entry(block, hit[0], hit[1], None, Block(block_text, anchor, api_name(name), row), head[0])
                continue
            scan.entry(block, hit[0], hit[1], None, annotated_block(block, text, False, node, head), head[0])


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
    head_cells = [c for c in rows[0] if tag_of(c) in ("td", "th")]
    header = head_cells and (all(tag_of(c) == "th" for c in head_cells) or tag_of(rows[0].getparent()) == "thead")
    if not header or len(head_cells) < 2:
        return None
    labels = [plain_text(c) for c in head_cells]
    vcol = next((i for i, t in enumerate(labels) if _VER_COL.match(t)), None)
    ccol = next((i for i, t in enumerate(labels) if _CHANGE_COL.match(t) and i != vcol), None)
    dcol = next((i for i, t in enumerate(labels) if _DATE_COL.match(t) and i != vcol), None)
    if vcol is None or (ccol is None and dcol is None):
        return None
    return rows, vcol, ccol, dcol, labels[vcol]


def history_tables(scan: ScanState) -> set[Any]:
    """History tables (a version column and a change column: one marker per row, on the API the table
    belongs to) and tables of versions and dates (release dates); → the tables read."""
    node, done = scan.node, set()
    for table in node.iter("table"):
        if scan.body and in_chrome(table):
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
        ncol = next((i for i in range(len([c for c in rows[0] if tag_of(c) in ("td", "th")])) if i not in (vcol, ccol, dcol)), None)
        default = "release" if dcol is not None else "added" if since_label(vlabel) == "added" else "changed"
        for tr in rows[1:]:
            cells = [c for c in tr if tag_of(c) in ("td", "th")]
            if len(cells) <= max(c for c in (vcol, ccol, dcol) if c is not None):
                continue
            ver = _cell_version(cells[vcol])
            if not ver:
                continue
            when = find_date(plain_text(cells[dcol])) if dcol is not None else None
            if when:
                scan.add_date(ver, when, "table")
            change = md(cells[ccol]) if ccol is not None else ""
            if not change:
                continue
            kind = kind_of_text(change, default)
            row_api, row_text = api, api_text
            if ncol is not None and ncol < len(cells) and dcol is None:
                row_text = md(cells[ncol])
                row_api = api_name(plain_text(cells[ncol]), signature=True)
            if scan.mark(tr, kind, ver):
                scan.entry(tr, kind, ver, removed_in(change) if kind == "deprecated" else None,
                           Block(f"{row_text} — {change}" if row_text else change, anchor, row_api, None), head[0], when)
    return done


def table_markers(scan: ScanState, table: Any, stack: list[tuple[int, str, str | None]], section_version: str | None,
           pending: str | None, date_for: Callable[[str | None, str | None, str], None], page_heading: tuple[str, Any]) -> None:
    """A two-column field table in a section: ``Version | 2.3.0``, ``Release date | …``, ``Since | 17``."""
    if table in scan.emitted:
        return  # a History table or a table of versions and dates, read already
    fields_ver, fields_date = None, None
    for label_el, value_el in pairs_of(table):
        label = plain_text(label_el).rstrip(": ")
        value = plain_text(value_el)
        since_kind = since_label(label)
        if since_kind is not None:
            ver = since_value_version(value)
            if ver and scan.mark(table, since_kind, ver):
                scan.entry(table, since_kind, ver, None, api_block(table, scan.node, page_heading), stack[-1][1] if stack else "")
        elif fields_ver is None and is_version_label(label):
            fields_ver = label_version(value)
        elif fields_date is None and is_date_label(label):
            fields_date = find_date(value) or free_date(value)
    if fields_date:
        target = fields_ver or pending or (section_version if section_version not in scan.dates else None)
        date_for(target, fields_date, "table")


def _table_api(scan: ScanState, table: Any) -> tuple[str, str | None, str | None, Any]:
    """(signature text, anchor, api, element) of the API a History table belongs to: the definition it sits in,
    else the heading it sits under."""
    dd = definition_of(table, scan.node)
    if dd is not None:
        dt = dt_of(dd)
        if dt is not None:
            return md(dt), ("#" + dt.get("id")) if dt.get("id") else None, dt_api(dt), dd
    h = heading_before(table, scan.node)
    if h is None:
        return "", None, None, None
    text = heading_text(h)
    api = heading_api(h, text)
    return (text if api else ""), heading_anchor(h), api, h  # a heading that names no API is no signature


def dl_fields(scan: ScanState, dl: Any, pending: str | None, date_for: Callable[[str | None, str | None, str], None],
               page_heading: tuple[str, Any], labels: bool) -> None:
    """A definition list of fields: "Release: 3.11.2" + "Date: …" (that version's date), a date alone (the
    pending version's), "Since: 17" (a marker on the API block the list sits in)."""
    ver = when = None
    for dt, dd in pairs_of(dl):
        label = plain_text(dt).rstrip(": ")
        if len(label) > 40:
            continue
        kind = since_label(label) if labels else None
        if kind is not None:
            sver = since_value_version(plain_text(dd))
            if sver and scan.mark(dl, kind, sver) and len(scan.found) < MAX_CHANGES:
                block = api_block(dl, scan.node, page_heading)
                head = scan.heading_of(dl)
                scan.entry(dt, kind, sver, None, block, head[0])
        elif ver is None and is_version_label(label):
            ver = label_version(plain_text(dd))
        elif when is None and is_date_label(label):
            value = plain_text(dd)
            when = find_date(value) or free_date(value)
    if when:
        date_for(ver or pending, when, "field")
