"""The offline corpus (``-a input_file=PATH``): the ``=== SOURCE ===`` format (docs/corpus.md).

    === SOURCE ===
    url: https://example.org/page        (required)
    title: Optional title
    date: 2026-03-01                     (optional)

    body: text, markdown or HTML, up to the next source

A line ``=== SOURCE ===`` starts a new source only when all of these hold, so a
page cannot start a source (with a URL and date of its choosing) from inside
its own body:

* the line is exactly the marker (no indentation) and the next line is a
  header (``url:``, ``title:`` or ``date:``);
* the body so far is not inside a fenced code block (```` ``` ````/``~~~``),
  an HTML ``<pre>``, ``<code>``, ``<textarea>``, ``<script>``, ``<style>`` or
  ``<xmp>`` element, or an HTML comment;
* a body that is a whole HTML document (it begins with ``<!doctype`` or
  ``<html``) has reached its ``</html>``.

Any other marker line is body text. The file is read as a stream, one line at
a time (a UTF-8 BOM is skipped, NUL bytes dropped): :class:`Corpus` checks the
whole file before any source is used — a malformed file raises
:class:`CorpusError`, one line naming the block and the fix — keeping only
URLs, then yields the sources one by one. A body larger than
:data:`MAX_BODY_BYTES` (the crawl's ``DOWNLOAD_MAXSIZE`` for pages) is skipped
and counted, as is a second source with a URL already seen. What is open in a
body and the look-ahead past a marker inside one: :mod:`skill3crawl.corpus_markers`.
"""

from __future__ import annotations

import codecs
import html as html_lib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Iterable, Iterator
from urllib.parse import urlsplit

from markdown_it import MarkdownIt

from skill3crawl.corpus_markers import _HEADER, KNOWN_HEADERS, MARKER, _Body, _is_marker, _Lines, _shown_marker
from synth.core.errors import (
    CorpusError,  # noqa: F401 - defined with every error (synth.core.errors)
    )
from synth.evidence.urls import url_key

MAX_BODY_BYTES = 5 * 1024 * 1024  # like DOWNLOAD_MAXSIZE for fetched pages
MAX_LINE_BYTES = 1024 * 1024  # a longer line is read in pieces (its body is then oversized)


@dataclass(frozen=True)
class CorpusSource:
    url: str
    title: str
    date: str | None
    body: str
    block: int  # 1-based block number in the file (line of a JSON Lines file, record of a WARC, file of a folder)
    kind: str = ""  # "html" or "markdown" when the format says; "" to tell from the body (looks_like_html)
    headers: dict[str, str] = field(default_factory=dict)  # HTTP headers recorded with the page (a WARC's Last-Modified)


@dataclass
class _Block:
    number: int
    headers: dict[str, str] = field(default_factory=dict)
    in_headers: bool = True
    lines: list[str] = field(default_factory=list)
    size: int = 0
    has_text: bool = False
    oversized: bool = False
    state: _Body = field(default_factory=_Body)

    def header(self, line: str, name: str) -> None:
        """A line of the header block: ``key: value``; a blank line ends the headers."""
        if not line.strip():
            self.in_headers = False
            return
        m = _HEADER.match(line.strip())
        if not m:
            raise CorpusError(
                f"{name}: source block {self.number}: header line {line.strip()[:60]!r} is not 'key: value'; "
                "put a blank line between the headers and the body"
            )
        key = m.group(1).lower()
        if key not in KNOWN_HEADERS:
            raise CorpusError(f"{name}: source block {self.number}: unknown header {key!r}; use url:, title: or date:")
        self.headers[key] = m.group(2).strip()

    def body(self, line: str, max_body: int, keep: bool) -> None:
        """A line of the body: followed for markers, counted against ``max_body``, kept when ``keep``."""
        if line:
            self.state.feed(line)
        if self.oversized:
            return
        self.size += (len(line) if line.isascii() else len(line.encode("utf-8", "replace"))) + 1
        if not self.has_text and line.strip():
            self.has_text = True
        if self.size > max_body:
            self.oversized, self.lines = True, []
        elif keep:
            self.lines.append(line)

    def finish(self, name: str, keep: bool) -> CorpusSource | tuple[str, int | str, str]:
        """The block as a source (or ``("oversized", block, url)``); CorpusError for a bad one."""
        url = self.headers.get("url", "")
        if not url:
            raise CorpusError(f"{name}: source block {self.number} has no 'url:' header; add 'url: https://…' right after '{MARKER}'")
        parts = urlsplit(url)
        try:
            parts.port  # noqa: B018 - a bad port raises here
        except ValueError:
            parts = parts._replace(netloc="")
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise CorpusError(f"{name}: source block {self.number}: url {url[:80]!r} is not an absolute http(s) URL")
        if self.oversized:
            return ("oversized", self.number, url)
        if not self.has_text:
            raise CorpusError(f"{name}: source block {self.number} ({url}) has an empty body; add the page text after a blank line")
        return CorpusSource(url=url, title=self.headers.get("title", ""), date=self.headers.get("date") or None,
                            body="\n".join(self.lines).strip("\n") if keep else "", block=self.number)


def iter_corpus(
    lines: Iterable[str], name: str = "input_file", *, keep_bodies: bool = True, max_body: int = MAX_BODY_BYTES
) -> Iterator[CorpusSource | tuple[str, int | str, str]]:
    """Sources of a corpus given as lines (without line ends), in file order.

    Yields :class:`CorpusSource` for each good source, ``("oversized", block, url)`` for a body
    over ``max_body`` bytes, and ``("hidden", block, line)`` for a marker line followed by a header
    that was read as body text (inside a fence, ``<pre>``, comment or document). ``keep_bodies=False`` checks the file without keeping any body (the
    sources then have an empty body). Raises :class:`CorpusError` on the first malformed block."""
    block: _Block | None = None
    seen_text = False
    src = _Lines(lines)
    shown_until = 0  # markers before this line number are shown by the page they are in
    line = src.next()
    while line is not None:
        following = next(src.peek(), None)
        boundary = line.startswith(MARKER) and _is_marker(line, following)
        if boundary and block is not None and block.state.open:  # inside a code block, comment, document…
            if src.consumed >= shown_until:  # no earlier look-ahead covers this marker
                shown = _shown_marker(block.state, src.peek())
                shown_until = src.consumed + shown if shown is not None else 0
            if src.consumed < shown_until:  # the page shows it: body text
                boundary = False
                yield ("hidden", block.number, following or "")
        if boundary:
            if block is not None:
                yield block.finish(name, keep_bodies)
            elif seen_text:
                raise CorpusError(f"{name}: text before the first '{MARKER}' line; start the file with '{MARKER}'")
            block = _Block((block.number if block else 0) + 1)
        elif block is None:
            seen_text = seen_text or bool(line.strip())
        elif block.in_headers:
            block.header(line, name)
        else:
            block.body(line, max_body, keep_bodies)
        line = src.next()
    if block is None:
        raise CorpusError(f"{name}: no '{MARKER}' blocks found; start each source with a line '{MARKER}' followed by 'url: …' "
                          "(or pass JSON Lines, a WARC file or a folder of .html/.md pages: docs/corpus.md)")
    yield block.finish(name, keep_bodies)


def parse_corpus(text: str, name: str = "input_file") -> list[CorpusSource]:
    """A whole corpus text → its sources (small files and tests; files go through :class:`Corpus`)."""
    lines = text.lstrip("\ufeff").replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return [s for s in iter_corpus(lines, name) if isinstance(s, CorpusSource)]


_READ_BYTES = 1 << 20


def _file_lines(fh: IO[bytes], path: str, name: str) -> Iterator[str]:
    """Decoded lines of a UTF-8 file, read a block at a time (a BOM skipped, NULs dropped, line ends
    removed); a line over :data:`MAX_LINE_BYTES` comes in pieces of that size."""
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    number, first, rest = 0, True, ""
    while True:
        block = fh.read(_READ_BYTES)
        if first:
            block, first = block.removeprefix(codecs.BOM_UTF8), False
        try:
            text = rest + decoder.decode(block, final=not block)
        except UnicodeDecodeError as exc:
            line_no = number + (rest + block[: exc.start].decode("utf-8", "replace")).count("\n") + 1
            raise CorpusError(f"{name}: {path!r} is not UTF-8 text (line {line_no}); save it as UTF-8") from None
        if "\x00" in text:
            text = text.replace("\x00", "")
        lines = text.replace("\r\n", "\n").split("\n")
        rest = lines.pop() if block else ""
        while len(rest) > MAX_LINE_BYTES:  # a very long line: hand it on in pieces
            lines.append(rest[:MAX_LINE_BYTES])
            rest = rest[MAX_LINE_BYTES:]
        number += len(lines)
        for line in lines:
            yield line.removesuffix("\r")
        if not block:
            if rest:
                yield rest
            return


class Corpus:
    """A corpus, checked whole on creation (nothing kept but counts and URLs), then streamed:
    iterating yields each source once, in file order, skipping oversized bodies and repeated URLs.

    This class reads the ``=== SOURCE ===`` format; :mod:`skill3crawl.corpus_formats` reads JSON
    Lines, WARC files and folders of pages through the same interface (:func:`skill3crawl.corpus_formats.read_corpus` tells
    them apart). ``_entries`` yields :class:`CorpusSource`, ``("oversized", block, url)``,
    ``("hidden", block, line)`` and ``("skipped", block, reason)`` (a record or file that is no
    page: counted in ``skipped``)."""

    format = "sources"
    FORMAT_NAME = "=== SOURCE === file"

    def __init__(self, path: str | Path, name: str = "input_file", *, max_body: int = MAX_BODY_BYTES) -> None:
        self.path = Path(path).expanduser()
        self.name = name
        self.max_body = max_body
        self.sources = 0  # sources that will be yielded
        self.oversized: list[str] = []  # URLs whose body is over max_body
        self.duplicates: list[str] = []  # URLs of later blocks with a URL already seen
        self.hidden: list[int] = []  # blocks holding a marker line read as their text (inside <pre>, a fence...)
        self.skipped: dict[str, list[str]] = {}  # reason → what was skipped (record/file names), not pages
        seen: set[str] = set()
        for entry in self._entries(keep_bodies=False):
            if isinstance(entry, tuple) and entry[0] == "hidden":
                self.hidden.append(int(entry[1]))
            elif isinstance(entry, tuple) and entry[0] == "skipped":
                self.skipped.setdefault(entry[2], []).append(str(entry[1]))
            elif isinstance(entry, tuple):
                self.oversized.append(entry[2])
            elif (key := url_key(entry.url)) in seen:
                self.duplicates.append(entry.url)
            else:
                seen.add(key)
                self.sources += 1

    def __len__(self) -> int:
        """The number of sources iteration yields."""
        return self.sources

    def _entries(self, *, keep_bodies: bool) -> Iterator[CorpusSource | tuple[str, int | str, str]]:
        path, name = str(self.path), self.name
        try:
            fh = self.path.open("rb")
        except FileNotFoundError:
            raise CorpusError(f"{name}: {path!r} does not exist") from None
        except IsADirectoryError:
            raise CorpusError(f"{name}: {path!r} is a directory, not a file") from None
        except OSError as exc:
            raise CorpusError(f"{name}: cannot read {path!r}: {exc.strerror}") from None
        with fh:
            try:
                yield from iter_corpus(_file_lines(fh, path, name), name, keep_bodies=keep_bodies, max_body=self.max_body)
            except IsADirectoryError:
                raise CorpusError(f"{name}: {path!r} is a directory, not a file") from None
            except OSError as exc:
                raise CorpusError(f"{name}: cannot read {path!r}: {exc.strerror}") from None

    def __iter__(self) -> Iterator[CorpusSource]:
        """The sources in file order, each page (:func:`synth.evidence.urls.url_key`) once."""
        seen: set[str] = set()
        for entry in self._entries(keep_bodies=True):
            if isinstance(entry, CorpusSource) and url_key(entry.url) not in seen:
                seen.add(url_key(entry.url))
                yield entry


_HTML_HINT = re.compile(r"<(html|body|article|main|div|p|h[1-6]|pre|section)\b", re.I)
_MARKDOWN = MarkdownIt("commonmark", {"html": False})


def looks_like_html(body: str) -> bool:
    return bool(_HTML_HINT.search(body[:4000]))


def markdown_to_html(body: str, title: str = "") -> str:
    """Plain text or markdown → HTML with markdown-it-py (CommonMark; raw HTML in the markdown is escaped).

    Fenced code keeps its text byte-exact and its language as ``class="language-x"``,
    inline code becomes ``<code>``, so the extractor recovers both.
    """
    head = f"<title>{html_lib.escape(title)}</title>" if title else ""
    return f"<html><head>{head}</head><body><main>{_MARKDOWN.render(body)}</main></body></html>"


def source_html(src: CorpusSource) -> str:
    """The body as HTML (HTML bodies pass through unchanged; a body of unknown kind is told by :func:`looks_like_html`)."""
    if src.kind == "html" or (not src.kind and looks_like_html(src.body)):
        return src.body
    return markdown_to_html(src.body, src.title)
