"""Where a ``=== SOURCE ===`` line starts a source of the offline corpus and where it is a page's own text
(:mod:`skill3crawl.corpus` has the rules): the constructs open in a body (a fence, a raw-text element, a comment, an
unfinished HTML document), the marker line and its header, and the bounded look-ahead that decides a marker met
inside an open body (:func:`shown_marker`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from synth.skill.markdown import FenceTracker

MARKER = "=== SOURCE ==="
HEADER = re.compile(r"^([A-Za-z][A-Za-z_-]*)\s*:\s*(.*)$")
KNOWN_HEADERS = ("url", "title", "date")
_RAW_TAGS = ("pre", "code", "textarea", "script", "style", "xmp")
_LITERAL_TAGS = frozenset({"textarea", "script", "style", "xmp"})  # their text is never markup: "<html>" there is literal
_RAW_TAG = re.compile(r"<(/?)(" + "|".join(_RAW_TAGS) + r")\b[^>]*?(/?)>", re.I)
_INLINE_CODE = re.compile(r"(`+)[^`].*?\1")  # markdown inline code: `<pre>` there is a mention, not an element
_DOCUMENT_START = re.compile(r"^\s*<(?:!doctype\b|html\b)", re.I)
_DOCUMENT_END = re.compile(r"</html\s*>", re.I)


@dataclass
class MarkerBody:
    """Where a source's body is: inside a fence, a raw-text element, a comment, an unfinished document."""

    fences: FenceTracker = field(default_factory=FenceTracker)
    raw_depth: int = 0
    in_comment: bool = False
    document: bool | None = None  # None until the first non-blank line
    document_closed: bool = False
    literal_depth: int = 0  # of raw_depth, the elements whose text is literal (textarea, script, style, xmp)

    def feed(self, line: str) -> None:
        if self.document is None and line.strip():
            self.document = bool(_DOCUMENT_START.match(line))
        if self.document and "</" in line and _DOCUMENT_END.search(line):
            self.document_closed = True  # also inside a comment a saved page never closed: its own end
        if self.fences.open:
            self.fences.feed(line)
            return
        if not self.raw_depth and not self.in_comment and not self.document and self.fences.feed(line):
            return
        if "<" not in line and not self.in_comment:
            return
        if "`" in line and not self.document:
            line = _INLINE_CODE.sub("", line)
        self._scan_tags(line)

    def _scan_tags(self, line: str) -> bool:
        """Follow comments and raw-text elements opened and closed on ``line``; False when the line ends
        inside a comment."""
        pos = 0
        while pos < len(line):
            if self.in_comment:
                end = line.find("-->", pos)
                if end < 0:
                    return False
                self.in_comment, pos = False, end + 3
                continue
            m = _RAW_TAG.search(line, pos)
            c = line.find("<!--", pos)
            if c >= 0 and (m is None or c < m.start()):
                self.in_comment, pos = True, c + 4
                continue
            if m is None:
                break
            literal = m.group(2).lower() in _LITERAL_TAGS
            if m.group(1):
                self.raw_depth = max(0, self.raw_depth - 1)
                self.literal_depth = max(0, self.literal_depth - literal)
            elif not m.group(3):
                self.raw_depth += 1
                self.literal_depth += literal
            pos = m.end()
        return True

    @property
    def open(self) -> bool:
        """A marker here would be inside the body's own text."""
        return self.fences.open or self.raw_depth > 0 or self.in_comment or bool(self.document and not self.document_closed)

    def kinds(self) -> frozenset[str]:
        """What is open: ``fence``, ``raw`` (a ``<pre>``-like element), ``literal`` (one whose text is literal,
        ``<textarea>``, ``<script>``…), ``comment``, ``document``."""
        out = set()
        if self.fences.fence is not None:
            out.add("fence")
        if self.raw_depth:
            out.add("raw")
            if self.literal_depth:
                out.add("literal")
        if self.in_comment:
            out.add("comment")
        if self.document and not self.document_closed:
            out.add("document")
        return frozenset(out)

    def snapshot(self) -> tuple:
        """A cheap value that changes when :meth:`kinds` may."""
        return (self.fences.fence is not None, self.raw_depth > 0, self.literal_depth > 0, self.in_comment,
                bool(self.document and not self.document_closed))

    def copy(self) -> "MarkerBody":
        twin = MarkerBody(FenceTracker(), self.raw_depth, self.in_comment, self.document, self.document_closed, self.literal_depth)
        twin.fences.fence = self.fences.fence
        return twin


def is_marker(line: str, following: str | None) -> bool:
    """A marker line (exactly ``=== SOURCE ===``) followed by a header: a boundary unless it is inside a body."""
    if not line.startswith(MARKER) or line.rstrip() != MARKER or following is None:
        return False
    m = HEADER.match(following.strip())
    return bool(m and m.group(1).lower() in KNOWN_HEADERS)


def _is_boundary(line: str, following: str | None, body: MarkerBody) -> bool:
    return not body.open and is_marker(line, following)


_FENCE_FIRST = frozenset(" `~\t")
LOOKAHEAD_BYTES = 256 * 1024  # how far past a marker inside an open body the reader looks for that body's close
# Elements whose text is raw (a literal "<!doctype html>" can be shown there), comments too: a document
# starting after a marker inside one of them does not end the body by itself.
_LITERAL_KINDS = frozenset({"comment", "literal"})


class MarkerLines:
    """Lines with a bounded look-ahead: ``peek()`` reads ahead without consuming, ``next()`` consumes."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._it = iter(lines)
        self._buf: list[str] = []
        self._head = 0
        self.consumed = 0  # lines consumed so far

    def next(self) -> str | None:
        line: str | None
        if self._head < len(self._buf):
            line = self._buf[self._head]
            self._head += 1
            if self._head > 4096 and self._head * 2 > len(self._buf):
                del self._buf[: self._head]
                self._head = 0
        else:
            line = next(self._it, None)
        if line is not None:
            self.consumed += 1
        return line

    def peek(self) -> Iterator[str]:
        i = self._head
        while True:
            if i < len(self._buf):
                yield self._buf[i]
            else:
                line = next(self._it, None)
                if line is None:
                    return
                self._buf.append(line)
                yield line
            i += 1


_UNDECIDED = -1


class _ShownMarker:
    """Whether a marker line met while the body is open (``carried``) is text the page shows.

    The lines after the marker (its header, then what follows) are read both as the continuation of
    the open body and, segment by segment (a segment runs to the next marker), as a new source. The
    page shows the marker when a construct open at the marker closes by a closer the new source did
    not open itself (a ``</pre>``, ``-->``, closing fence or ``</html>`` of the page's own code):
    :meth:`decide` returns the number of lines read until that closer (markers before it are shown
    too). It is a boundary — the page before it is unclosed, as saved pages often are — when such a
    construct closes by the new source's own closer, when a segment starts a new HTML document
    (unless the open construct is a comment or an element whose text is literal, where a document
    can be shown), or when it stays open to the end of the file or for :data:`LOOKAHEAD_BYTES`: None.
    In markdown a fence line is both closer and opener: it shows the marker when, read alone, the
    segment's fences do not pair up (in an HTML document it is text)."""

    def __init__(self, carried: MarkerBody) -> None:
        self.watched = set(carried.kinds())  # the constructs the marker is inside, until each closes
        self.literal = bool(self.watched & _LITERAL_KINDS)
        self.state = carried.copy()
        self.fresh: MarkerBody | None = None  # the new source's own reading (None in its header)
        self.fence_closed: int | None = None  # a fence closed at this line; decided at the segment's end

    def segment_end(self) -> int | None:
        """At a segment's end: the decision, or :data:`_UNDECIDED` to read on."""
        fresh = self.fresh
        if self.fence_closed is not None:
            return self.fence_closed if fresh is not None and fresh.fences.open else None
        if fresh is not None and fresh.document and not self.literal:
            return None  # the segment was a new document: the open page never closed
        return _UNDECIDED

    def _plain(self, line: str) -> bool:
        """No construct opens or closes on ``line``."""
        return not line or ("<" not in line and ">" not in line and line[0] not in _FENCE_FIRST
                            and (self.fresh is None or self.fresh.document is not None) and self.state.document is not None)

    def line(self, n: int, line: str) -> int | None:
        """Read body line ``n``: the decision, or :data:`_UNDECIDED`."""
        if self._plain(line):
            return _UNDECIDED
        fresh, before = self.fresh, self.state.snapshot()
        own = fresh.kinds() if fresh is not None and fresh.open else frozenset()
        self.state.feed(line)
        if fresh is not None:
            fresh.feed(line)
        if self.state.snapshot() == before:
            return _UNDECIDED
        for kind in self.watched - self.state.kinds():
            self.watched.discard(kind)
            if kind == "fence" and "fence" not in own and not (fresh is not None and fresh.document):
                self.fence_closed = n if self.fence_closed is None else self.fence_closed  # does it open one of its own?
            elif self.fence_closed is None:
                return None if kind in own else n
        return None if not self.watched and self.fence_closed is None else _UNDECIDED

    def decide(self, ahead: Iterator[str]) -> int | None:
        in_headers, size, pending = True, 0, None
        for n, line in enumerate(ahead, 1):
            size += len(line) + 1
            if size > LOOKAHEAD_BYTES:
                return None
            if pending is not None and is_marker(pending, line):  # the next segment starts
                if (decided := self.segment_end()) != _UNDECIDED:
                    return decided
                self.fresh, in_headers = None, True
            pending = line if line.startswith(MARKER) else None
            if in_headers and not line.strip():
                in_headers, self.fresh = False, MarkerBody()
            elif (decided := self.line(n, line)) != _UNDECIDED:
                return decided
        decided = self.segment_end()
        return None if decided == _UNDECIDED else decided


def shown_marker(carried: MarkerBody, ahead: Iterator[str]) -> int | None:
    """See :class:`_ShownMarker`: lines until the closer that shows the marker is the page's text, or None."""
    return _ShownMarker(carried).decide(ahead)
