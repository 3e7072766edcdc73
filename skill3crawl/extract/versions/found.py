"""What one page's scan has found so far (:class:`ScanState`): the change entries (the delta model's
:class:`~synth.delta.model.ChangeRecord`), the release dates (:class:`~synth.delta.model.ReleaseDate`), the blocks
already taken."""

from __future__ import annotations

from typing import Any

from skill3crawl.extract.releases import heading_text
from skill3crawl.extract.versions.blocks import Block
from skill3crawl.extract.versions.bounds import MAX_API_CHARS, MAX_CHANGES, MAX_RELEASE_DATES
from skill3crawl.extract.versions.tree import cap, clean, heading_anchor, heading_before
from synth.delta.model import ChangeRecord, ReleaseDate


class ScanState:
    """One page's scan state: the entries found, the release dates, the blocks already taken."""

    def __init__(self, node: Any, body: bool, source: str, htext: dict[int, str], code_of: dict[Any, dict[str, str]] | None
                 ) -> None:
        self.node = node
        self.htext = htext  # heading element id → its text (the headings stay referenced by the caller)
        self.code_of = code_of  # <pre> → its code block, when the caller has them
        self.body = body
        self.source = source
        self.found: list[tuple[Any, ChangeRecord, Any]] = []  # (element, change, code element)
        self.no_path: set[int] = set()  # ids of the changes whose heading path the outline gives (scan.py)
        self.emitted: set[Any] = set()  # blocks a marker already stands for
        self.marked: set[tuple[Any, str, str]] = set()  # (annotated block, kind, version): one marker each
        self.dates: dict[str, str] = {}
        self.release_dates: list[ReleaseDate] = []  # read on this page: no url (the item is the page's)

    def entry(self, el: Any, kind: str, ver: str | None, removed_in: str | None, block: Block, heading: str,
              date: str | None = None, *, path: list[str] | None = None) -> ChangeRecord | None:
        """A change entry of ``el``: what it says (kind, version, removal), the block it annotates (text, anchor, API,
        code element), the heading it sits under; None when it has no version or text, or the page has enough."""
        text, anchor, api, code_el = block
        text = cap(clean(text))
        if not (ver and text) or len(self.found) >= MAX_CHANGES:
            return None
        change = ChangeRecord(kind=kind, version=ver, removed_in=removed_in, date=date, text=text, anchor=anchor,
                              heading=heading, api=api[:MAX_API_CHARS] if api else None, path=tuple(path or ()))
        if path is None:  # the outline gives it once the scan has read the page's headings (scan.py)
            self.no_path.add(id(change))
        self.found.append((el, change, code_el))
        return change

    def mark(self, block: Any, kind: str, ver: str) -> bool:
        """True the first time a block gets a marker of this kind and version."""
        key = (block, kind, ver)
        if key in self.marked:
            return False
        self.marked.add(key)
        return True

    def add_date(self, ver: str | None, date: str | None, where: str) -> None:
        if ver and date and ver not in self.dates and len(self.release_dates) < MAX_RELEASE_DATES:
            self.dates[ver] = date
            self.release_dates.append(ReleaseDate(version=ver, date=date, source=self.source, where=where))

    def heading_of(self, el: Any) -> tuple[str, str | None, Any]:
        """(text, anchor, element) of the heading ``el`` sits under."""
        h = heading_before(el, self.node)
        if h is None:
            return "", None, None
        text = self.htext.get(id(h))
        return (heading_text(h) if text is None else text), heading_anchor(h), h
