"""Version sections: one pass in document order over the heading outline, each version section's entries and
release date; the same for a plain-text change log (one ``<pre>`` of version heading lines)."""

from __future__ import annotations

import re
from typing import Any

from skill3crawl.extract.dom import text_content
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
from skill3crawl.extract.versions.blocks import Block, annotated_block
from skill3crawl.extract.versions.bounds import MIN_ENTRY_CHARS, MIN_ITEM_WORDS
from skill3crawl.extract.versions.fields import dl_fields, table_markers
from skill3crawl.extract.versions.found import ScanState
from skill3crawl.extract.versions.page import HELP_FILE_TAG, HELP_TAGGED_HEADING, HELP_TAGS_LINE, PageView, help_tags_version
from skill3crawl.extract.versions.phrases import MARKER_VER, MARKER_VER_RE, removed_in, section_kind
from skill3crawl.extract.versions.quick import QUICK_DIGITS
from skill3crawl.extract.versions.tree import (
    HEADINGS,
    PSEUDO_LEVEL,
    TIME_TAGS,
    anchor_up,
    clean,
    field_list,
    heading_anchor,
    in_chrome,
    inside,
    md,
    plain_text,
    tag_of,
)
from synth.delta.model import ChangeRecord

_WAS_RELEASED = re.compile(
    r"(?i)(?<![\w.])(?P<ver>" + MARKER_VER + r")(?![\w-]|\.\d)\s+(?:was|is|has\s+been)\s+(?:officially\s+)?released\s+on\s+"
)
_RELEASE_CUE = re.compile(r"(?i)releas|publish|availab|ship|tagged|launch|\bout\b|\bdated?\b")


_WALK_TAGS = (*HEADINGS, "p", "li", "dt", "table", *TIME_TAGS)
# a theme's stamp of when the page was built or edited ("Last update:", "Last updated on", "Page last modified"): the
# date under it is the build's, never a release's
_UPDATE_STAMP = re.compile(
    r"(?i)^\W*(?:(?:page\s+)?last\s+(?:updated?|modified|edited|changed|built|generated|revised)\b"
    r"|page\s+(?:updated|modified|generated)\b|(?:updated|modified|built|generated|revised)(?:\s+(?:on|at))?\s*:"
    r"|(?:built|generated)\s+(?:on|at)\b)"
)
_LOOSE_TAGS = frozenset({"div", "span", "em", "i", "b", "strong", "small", "time"})
MAX_LOOSE_CHARS = 120


def is_update_stamp(text: str) -> bool:
    """A label stamping when the page was built or edited ("Last update:", "Last updated on Nov 11, 2026", "Page
    generated on …", "Modified: …") — not a change log's "Updated the frob command." """
    return bool(text) and bool(_UPDATE_STAMP.match(text))


def _loose_text(el: Any) -> str:
    """The text right after a heading that no block holds: its tail ("<h2>2.3.0</h2>Released: March 4, 2024<section>"),
    else a short wrapper of its own that is no walked block (``<div class="meta">released on …</div>``)."""
    tail = (el.tail or "").strip()
    if tail:
        return tail[:MAX_LOOSE_CHARS + 1]
    nxt = el.getnext()
    if nxt is not None and isinstance(nxt.tag, str) and nxt.tag in _LOOSE_TAGS and next(nxt.iter(*_WALK_TAGS), None) is None:
        text = " ".join(text_content(nxt).split())
        return text[:MAX_LOOSE_CHARS + 1]
    return ""



def walk(scan: ScanState, page: PageView, page_heading: tuple[str, Any], labels: bool) -> None:
    """One pass in document order: the heading outline, version sections and their entries and dates, History
    and version tables, labelled fields (``labels``: short blocks that are a label of their own too)."""
    _Walk(scan, page, page_heading, labels).run()


class _Walk:
    """The state of :func:`walk`: the enclosing headings, the version section it is in, the version whose date is
    still to be read (``pending``) and the blocks read since its heading."""

    def __init__(self, scan: ScanState, page: PageView, page_heading: tuple[str, Any], labels: bool) -> None:
        self.scan, self.page, self.page_heading, self.labels = scan, page, page_heading, labels
        self.stack: list[tuple[int, str, str | None]] = []  # (level, text, anchor) of the enclosing headings
        self.version: tuple[int, str, Any] | None = None  # (heading level, version, scope: a dl for a dt heading)
        page_version = page.version
        self.pending: str | None = page_version if page_version and page_version not in scan.dates else None
        self.since_heading = 0
        self.section_entries: list[ChangeRecord] = []
        self.stamp_next = False  # the block after an update stamp's heading holds the build's date
        self.done: set[Any] = set()  # field lists and tables read
        self.n_entries = 0

    def date_for(self, ver: str | None, d: str | None, where: str) -> None:
        self.scan.add_date(ver, d, where)
        if ver == self.pending:
            self.pending = None

    def run(self) -> None:
        node, body = self.scan.node, self.scan.body
        for el in node.iter(*_WALK_TAGS):
            if body and in_chrome(el):
                continue
            version = self.version
            if version is not None and version[2] is not None and not inside(el, {version[2]}, node):
                self.version, self.pending = None, None  # a definition list of versions ended
                while self.stack and self.stack[-1][0] >= PSEUDO_LEVEL:
                    self.stack.pop()
            self.element(el)
        # a date printed after a section's first entries ("X was released on …" further down) reaches them too
        for change in self.section_entries:
            if change.date is None:
                change.date = self.scan.dates.get(change.version)

    def element(self, el: Any) -> None:
        """A heading, a ``<time>``, a table, a definition term, or a block of text."""
        scan, tag = self.scan, el.tag
        vh = self.page.vheads.get(id(el)) or self.page.pseudo.get(id(el))
        if tag in HEADINGS or (vh and id(el) in self.page.pseudo):
            self.heading(el, tag, vh)
        elif tag in TIME_TAGS:
            if self.pending and self.since_heading <= 3:
                self.date_for(self.pending, find_date((el.get("datetime") or "")[:10]), "time")
        elif tag == "table":
            if el not in self.done:
                self.done.add(el)
                table_markers(scan, el, self.stack, self.version[1] if self.version else None, self.pending, self.date_for,
                       self.page_heading)
        elif tag == "dt":
            dl = el.getparent()
            if dl is not None and dl not in self.done:
                self.done.add(dl)
                dl_fields(scan, dl, self.pending, self.date_for, self.page_heading, self.labels)
            if self.version is None and self.page.is_change and _bare_term(el) and el not in scan.emitted:
                self.block(el, "dt")  # a list of the release's new APIs: the terms are the content
        elif not (el in scan.emitted or inside(el.getparent(), scan.emitted, scan.node) or field_list(el)):
            self.block(el, tag)

    def heading(self, el: Any, tag: str, vh: tuple[Any, ...] | None) -> None:
        """A heading (or a paragraph that heads a version): the outline, a version section opened or closed, a date
        heading the pending version's section."""
        level = HEADINGS.get(tag, PSEUDO_LEVEL)
        stack = self.stack
        while stack and stack[-1][0] >= level:
            stack.pop()
        text = self.page.htext.get(id(el)) or plain_text(el)
        stack.append((level, text, heading_anchor(el) if tag in HEADINGS else anchor_up(el, self.scan.node)))
        self.stamp_next = is_update_stamp(text)
        if vh:
            scope = el.getparent() if tag == "dt" else None
            self.version = (level, vh[0], scope)
            self.scan.add_date(vh[0], vh[1], vh[2])
            self.pending, self.since_heading = (None if vh[0] in self.scan.dates else vh[0]), 0
            loose = _loose_text(el) if self.pending and tag in HEADINGS else ""
            if loose and len(loose) <= MAX_LOOSE_CHARS and not is_update_stamp(loose):
                when = label_date(loose)
                if when is None and re.match(r"(?i)^\W*(?:released|published|tagged|shipped)\b", loose):
                    when = find_date(loose)  # "released on 4 March 2024"
                if when:
                    self.date_for(self.pending, when, "field")
        elif self.pending and not self.stamp_next and (when := date_heading(text)):
            self.date_for(self.pending, when, "heading")  # "Jul 3, 2022" heading the release's section
        elif self.version and level <= self.version[0]:
            self.version, self.pending = None, None

    def block(self, el: Any, tag: str) -> None:
        """A paragraph, list item or term: the pending version's date, a release sentence, a label of its own, or an
        entry of the version section."""
        page = self.page
        ver = self.version[1] if self.version else page.version
        want = page.sections and bool(ver) and self.n_entries < self.scan.limit
        if self.pending or want or (page.is_change and not self.scan.dates):
            text = md(el)
        else:  # a short paragraph may be a label of its own ("Since: OTP 25.0")
            text = md(el) if self.labels and len(text_content(el)) <= 80 else ""
        if self.stamp_next:  # "Last update:" heading this block: its date is the build's
            self.stamp_next = False
            if text and len(text) <= MAX_LOOSE_CHARS and (label_date(text) or find_date(text)):
                return
        if text and len(text) <= MAX_LOOSE_CHARS and is_update_stamp(text) and (find_date(text) or label_date(text)):
            return  # "Last updated on Nov 11, 2026": the build's date, no release date and no entry
        if self.pending and self.pending_date(self.pending, text):
            return
        if text and page.is_change and "releas" in text:
            wm = _WAS_RELEASED.search(text)
            if wm:
                self.scan.add_date(normalize_version(wm.group("ver")), find_date(text[wm.end():wm.end() + 40]), "paragraph")
        if self.labels and text and len(text) <= 60 and not want and self.label(el, text):
            return
        if text and len(text) <= 120 and label_date(text):
            return  # a date line ("Published: March 4, 2024") is no entry
        if not want or not ver or (len(text) < MIN_ENTRY_CHARS and (tag != "li" or len(text.split()) < MIN_ITEM_WORDS)):
            return
        self.entry(el, tag, text, ver)

    def pending_date(self, pending: str, text: str) -> bool:
        """The pending version's date from a field ("Released: …", then nothing more of the block) or a sentence in
        the first blocks after its heading."""
        self.since_heading += 1
        if text and (when := label_date(text)):
            self.date_for(pending, when, "field" if re.search(r"[A-Za-z]{3}", without_dates(text)) else "paragraph")
            return True
        if text and (when := _sentence_date(text, pending)):
            self.date_for(pending, when, "paragraph")
        if self.since_heading > 3:
            self.pending = None
        return False

    def label(self, el: Any, text: str) -> bool:
        """A label as a paragraph of its own ("Since: OTP 25.0"): it marks its section."""
        hit = label_marker(text)
        if hit and self.scan.mark(el, hit[0], hit[1]):
            head = self.scan.heading_of(el)
            self.scan.entry(el, hit[0], hit[1], None, annotated_block(el, text, False, self.scan.node, head), head[0])
            return True
        return False

    def entry(self, el: Any, tag: str, text: str, ver: str) -> None:
        """An entry of the version section: its kind from the subsection headings, its heading path."""
        scan, stack = self.scan, self.stack
        if tag == "li":
            scan.emitted.add(el)
        kind = section_kind(stack)
        heading_texts = " ".join(t for _l, t, _a in stack)
        rem = removed_in(heading_texts) if kind == "deprecated" else None
        anchor = ("#" + el.get("id")) if el.get("id") else (stack[-1][2] if stack else None)
        change = scan.entry(el, kind, ver, rem, Block(text, anchor, None, el), stack[-1][1] if stack else "",
                            scan.dates.get(ver), path=[t for _l, t, _a in stack])
        if change is not None:
            self.section_entries.append(change)
        self.n_entries += 1


def _bare_term(dt: Any) -> bool:
    """A definition term whose definition holds no text of its own (a list of names: "Member Acme::frob ()" and an
    empty definition)."""
    dd = dt.getnext()
    return dd is None or tag_of(dd) != "dd" or not text_content(dd).strip()


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
    for m in MARKER_VER_RE.finditer(text[:start]):
        other = normalize_version(m.group(1))
        if other != ver and not ver.startswith(other + ".") and not other.startswith(ver + "."):
            return None  # "2.2.0 was released on …": that date is 2.2.0's
    return when


_BULLET = re.compile(r"^(\s*)(?:[-*+•o]|\d{1,3}[.)])\s+(\S.*)$")
_UNDERLINE = re.compile(r"^\s*([=\-~^*#+`'\".:_])\1{2,}\s*$")


def text_sections(scan: ScanState, pre_lines: tuple[Any, list[str]], h1_text: str) -> None:
    """A plain-text change log: version heading lines (alone, or underlined), sub-heading lines ("Bug fixes:",
    underlined words), bullet items and paragraphs as entries, dates from the heading or a field line."""
    pre, lines = pre_lines
    lines = _help_structure(lines)
    version: str | None = None
    subs = _Subs()
    heading = ""
    pending = False
    item: list[str] = []

    def flush() -> None:
        if item and version:
            text = clean(" ".join(s.strip() for s in item))
            if len(text) >= MIN_ENTRY_CHARS or len(text.split()) >= MIN_ITEM_WORDS:
                sub = subs.sub
                path = [p for p in (h1_text, heading, sub) if p]
                kind = section_kind([(0, sub, None)]) if sub else "release"
                scan.entry(pre, kind, version, None, Block(text, None, None, None), sub or heading, scan.dates.get(version),
                           path=path)
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
        vh = _version_line(line, s, cand, underlined)
        if vh:
            flush()
            version, heading = vh[0], cand
            subs = _Subs()
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
            subs.heading(s.lstrip("#").strip().rstrip(":"), lead=not underlined and not s.startswith("#"))
            continue
        bullet = _BULLET.match(line)
        if bullet:
            flush()
            item.append(bullet.group(2))
            subs.bullet()
        else:
            subs.line(starts=not item)
            item.append(s)
        if scan.full():
            break
    flush()


class _Subs:
    """A plain-text release section's sub-heading: a title (underlined, '#', a help title) holds until the next one; a
    lead-in line ("Terminal improvements:") heads its list only — the paragraph after the list is the title's again."""

    def __init__(self) -> None:
        self.sub: str | None = None
        self.titled: str | None = None  # the last sub-heading that is a title, not a lead-in
        self.lead_items = -1  # bullets read under an open lead-in; -1: none open

    def heading(self, text: str, lead: bool) -> None:
        self.sub = text
        if lead:
            self.lead_items = 0
        else:
            self.titled, self.lead_items = text, -1

    def bullet(self) -> None:
        if self.lead_items >= 0:
            self.lead_items += 1

    def line(self, starts: bool) -> None:
        """A line of text (``starts``: the first of its paragraph)."""
        if starts and self.lead_items > 0:  # a paragraph after a lead-in's list: the lead-in's scope ended
            self.sub, self.lead_items = self.titled, -1


def _help_structure(lines: list[str]) -> list[str]:
    """A help file's structure lines as the plain-text scan reads them: a line of tags naming a release → that
    release's heading ("Release 9.0"), a title followed by its tags → a sub-heading ("# NEW FEATURES"), its own header
    line and a line of other tags → a blank line; every other line as it is."""
    out = []
    for line in lines:
        s = line.strip()
        got = _help_line(line, s) if "*" in s else None
        if got is None:
            out.append(line)
        elif got[0] == "version":
            out.append(f"Release {got[1]}")
        elif got[0] == "sub":
            out.append(f"# {got[1]}")
        else:
            out.append("")
    return out


def _help_line(line: str, s: str) -> tuple[str, str | None] | None:
    """A help file's structure line: ``("skip", None)`` for its own header line (its name, the version it documents,
    its last change) or a line of tags that names no release, ``("version", v)`` for a line of tags naming release v,
    ``("sub", title)`` for a title followed by its tags; None for any other line."""
    if HELP_FILE_TAG.match(s):
        return "skip", None
    if not s.endswith("*"):
        return None
    if HELP_TAGS_LINE.match(s):
        v = help_tags_version(s)
        return ("version", v) if v else ("skip", None)
    tagged = HELP_TAGGED_HEADING.match(s)
    if tagged and not _BULLET.match(line):
        return "sub", tagged.group("title").strip().rstrip(":")
    return None


def _version_line(line: str, s: str, cand: str, underlined: bool) -> tuple[str, str | None] | None:
    """(version, date) when a plain-text line (``s`` stripped, ``cand`` without its '#'s) is a version heading: not
    indented unless underlined or '#'-marked, no bullet."""
    if len(cand) <= 120 and (underlined or not line[:1].isspace() or s.startswith("#")) and not _BULLET.match(line):
        return version_heading(cand) if QUICK_DIGITS.search(cand) else None
    return None
