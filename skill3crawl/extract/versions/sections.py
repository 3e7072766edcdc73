"""Version sections: one pass in document order over the heading outline, each version section's entries and
release date; the same for a plain-text change log (one ``<pre>`` of version heading lines)."""

from __future__ import annotations

import re
from typing import Any

from skill3crawl.extract.releases import (
    date_heading,
    find_date,
    find_dates,
    label_date,
    label_marker,
    normalize_version,
    version_heading,
    without_dates,
)
from skill3crawl.extract.versions.blocks import _annotated
from skill3crawl.extract.versions.bounds import MAX_CHANGES, MAX_TEXT_LINES, MIN_ENTRY_CHARS, MIN_ITEM_WORDS
from skill3crawl.extract.versions.fields import _dl_fields, _table
from skill3crawl.extract.versions.phrases import _VER, _VER_RE, _removed_in, _section_kind
from skill3crawl.extract.versions.quick import _QUICK_DIGITS
from skill3crawl.extract.versions.state import _Scan
from skill3crawl.extract.versions.tree import (
    _HEADINGS,
    _PSEUDO_LEVEL,
    _TIME_TAGS,
    _anchor_up,
    _clean,
    _field_list,
    _heading_anchor,
    _in_chrome,
    _inside,
    _md,
    _plain,
)

_WAS_RELEASED = re.compile(
    r"(?i)(?<![\w.])(?P<ver>" + _VER + r")(?![\w-]|\.\d)\s+(?:was|is|has\s+been)\s+(?:officially\s+)?released\s+on\s+"
)
_RELEASE_CUE = re.compile(r"(?i)releas|publish|availab|ship|tagged|launch|\bout\b|\bdated?\b")


_WALK_TAGS = (*_HEADINGS, "p", "li", "dt", "table", *_TIME_TAGS)


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
