"""Corpus formats users already have, beside the ``=== SOURCE ===`` file (:mod:`skill3crawl.corpus`).

``--input-file`` (``-a input_file=``) takes any of them; :func:`open_corpus` tells them apart from
what the path is and its first bytes, never from its name, and each reader keeps the
:class:`~skill3crawl.corpus.Corpus` interface (checked whole first, then streamed; oversized
bodies and repeated URLs skipped and counted):

* **JSON Lines** (the first non-blank character is ``{``): one object per line,
  ``{"url": …, "title": …, "date": …, "body": …}`` — ``url`` and ``body`` (HTML, markdown or
  text) required, ``title`` and ``date`` optional, other keys ignored. A line that is not such an
  object is an error naming the line.
* **WARC** (``WARC/1.x``, optionally gzip-compressed; read with warcio): every ``response``
  record with HTTP status 200, and every ``resource`` record, whose content type is HTML,
  XHTML, markdown or plain text is a source; its URL is ``WARC-Target-URI``; its body is decoded
  as Scrapy decodes a fetched page (HTTP charset, BOM, ``<meta>``, detection); ``Last-Modified``
  goes to the date signals. The capture time (``WARC-Date``) is not a publication date. Other
  records (requests, metadata, revisits, redirects, images) are counted as skipped.
* **A folder** of ``.html``/``.htm``/``.xhtml`` and ``.md``/``.markdown`` files, read recursively in
  name order (hidden files and folders left out), or one HTML page (``<!doctype html`` / ``<html``). A page's URL is, in this order: the one its browser recorded when it
  was saved (``<!-- saved from url=(0042)https://… -->``, SingleFile's ``url:`` comment); the
  folder layout of a mirror (``docs.example.org/guide/intro.html`` →
  ``https://docs.example.org/guide/intro.html``, as ``wget --mirror`` saves it; the scheme is not
  recorded there, so it is ``https``); the page's own
  ``<link rel="canonical">`` / ``og:url``; for markdown, a YAML frontmatter ``url:`` (with
  ``title:`` and ``date:``). A file without any is skipped and counted (``no_url``).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
from pathlib import Path
from typing import IO, Any, Iterator

import yaml

from skill3crawl.corpus import MAX_BODY_BYTES, Corpus, CorpusError, CorpusSource
from skill3crawl.corpus_markers import MARKER

MAX_FOLDER_FILES = 100_000  # like the crawl's page limit
PAGE_SUFFIXES = {".html": "html", ".htm": "html", ".xhtml": "html", ".md": "markdown", ".markdown": "markdown"}
_PAGE_TYPES = {"text/html": "html", "application/xhtml+xml": "html", "text/markdown": "markdown", "text/x-markdown": "markdown",
               "text/plain": "markdown"}
_HEAD_BYTES = 64 * 1024
_MAX_LINE = MAX_BODY_BYTES * 2 + 64 * 1024  # a JSON line longer than this holds an oversized body: not parsed


def _open(path: Path, name: str) -> IO[bytes]:
    try:
        return path.open("rb")
    except FileNotFoundError:
        raise CorpusError(f"{name}: {str(path)!r} does not exist") from None
    except OSError as exc:
        raise CorpusError(f"{name}: cannot read {str(path)!r}: {exc.strerror}") from None


def detect_format(path: Path, name: str = "input_file") -> str:
    """``folder``, ``warc``, ``jsonl``, ``page`` (one HTML/markdown file) or ``sources``, from the path and its first bytes."""
    if path.is_dir():
        return "folder"
    with _open(path, name) as fh:
        head = fh.read(_HEAD_BYTES)
    if head[:2] == b"\x1f\x8b":
        try:
            inner = gzip.GzipFile(fileobj=io.BytesIO(head)).read(16)
        except (OSError, EOFError):
            inner = b""
        if inner.lstrip()[:5] == b"WARC/":
            return "warc"
        raise CorpusError(f"{name}: {str(path)!r} is gzip-compressed but not a WARC file; decompress it, or pass a .warc.gz")
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if text[:5] == b"WARC/":
        return "warc"
    if text[:1] == b"{":
        return "jsonl"
    if text.startswith(MARKER.encode()):
        return "sources"
    if re.match(rb"(?i)<(?:!doctype\s+html|html)\b", text):
        return "page"
    return "sources"  # its reader names what is wrong


def _regular_or_folder(path: Path, name: str) -> None:
    """CorpusError unless ``path`` is a regular file or a folder (after links): a FIFO would block the read, a
    device such as /dev/zero never end it (``skill3 synth`` refuses the same)."""
    import stat

    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise CorpusError(f"{name}: {str(path)!r} does not exist") from None
    except OSError as exc:
        raise CorpusError(f"{name}: cannot read {str(path)!r}: {exc.strerror}") from None
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise CorpusError(f"{name}: {str(path)!r} is not a regular file (a FIFO, a device or a socket); "
                          "pass a corpus file or a folder of pages")


def shown_name(rel: Path) -> str:
    """A file name as a message may print it: bytes that are not UTF-8 as ``\\xff`` escapes."""
    return os.fsencode(str(rel)).decode("utf-8", errors="backslashreplace")


def open_corpus(path: str | Path, name: str = "input_file", *, max_body: int = MAX_BODY_BYTES) -> Corpus:
    """The corpus at ``path`` in whichever format it is (see the module docstring), checked whole."""
    p = Path(path).expanduser()
    _regular_or_folder(p, name)
    kind = detect_format(p, name)
    cls = {"folder": FolderCorpus, "page": FolderCorpus, "warc": WarcCorpus, "jsonl": JsonLinesCorpus}.get(kind, Corpus)
    return cls(p, name, max_body=max_body)


# --------------------------------------------------------------------------- JSON Lines


def _http_url(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    from urllib.parse import urlsplit

    url = value.strip()
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a bad port raises here
    except ValueError:
        return None
    return url if parts.scheme in ("http", "https") and parts.hostname and not any(c.isspace() for c in url) else None


class JsonLinesCorpus(Corpus):
    format = "jsonl"
    FORMAT_NAME = "JSON Lines file"

    def _entries(self, *, keep_bodies: bool) -> Iterator[CorpusSource | tuple[str, int | str, str]]:
        name, path, found = self.name, str(self.path), False
        with _open(self.path, name) as fh:
            number = 0
            while True:
                line = fh.readline(_MAX_LINE)
                if not line:
                    break
                number += 1
                if number == 1:
                    line = line.removeprefix(b"\xef\xbb\xbf")
                if len(line) >= _MAX_LINE and not line.endswith(b"\n"):
                    while line and not line.endswith(b"\n"):  # skip the rest of a line too long to hold
                        line = fh.readline(_MAX_LINE)
                    found = True
                    yield ("oversized", number, f"{path} line {number}")
                elif line.strip():
                    found = True
                    yield self._source(line, number, keep_bodies)
        if not found:
            raise CorpusError(f"{name}: {path!r} holds no JSON object; write one {{\"url\": …, \"body\": …}} object per line")

    def _source(self, line: bytes, number: int, keep_bodies: bool) -> CorpusSource | tuple[str, int | str, str]:
        """One line: a source, ``("oversized", line, url)``, or CorpusError naming the line."""
        where = f"{self.name}: {str(self.path)!r} line {number}"
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):
            data = None
        if not isinstance(data, dict):
            raise CorpusError(f"{where} is not a JSON object; write one {{\"url\": …, \"body\": …}} object per line")
        url = _http_url(data.get("url"))
        if url is None:
            raise CorpusError(f"{where}: 'url' {str(data.get('url'))[:80]!r} is not an absolute http(s) URL")
        body = data.get("body")
        if not isinstance(body, str) or not body.strip():
            hint = " (this is a skill3 feed: pass it to `skill3 synth`)" if "excerpts" in data else "; add the page text as \"body\""
            raise CorpusError(f"{where} ({url}) has no 'body'{hint}")
        if len(body.encode("utf-8", "replace")) > self.max_body:
            return ("oversized", number, url)
        title, date = data.get("title"), data.get("date")
        return CorpusSource(url=url, title=title.strip() if isinstance(title, str) else "",
                            date=str(date).strip() if isinstance(date, (str, int)) and str(date).strip() else None,
                            body=body if keep_bodies else "", block=number)


# --------------------------------------------------------------------------- pages: decoding as the crawl does


def decode_page(body: bytes, url: str, content_type: str | None = None) -> str:
    """Bytes of a page → text as the crawl decodes a fetched page (Scrapy's TextResponse: the HTTP charset, a
    BOM, ``<meta>``, then detection)."""
    from scrapy.http import HtmlResponse

    headers = {"Content-Type": content_type} if content_type else {}
    return HtmlResponse(url=url, body=body, headers=headers).text


def _read_capped(stream: Any, cap: int) -> bytes | None:
    """At most ``cap`` bytes of ``stream``; None when there are more (the rest is left unread)."""
    data = stream.read(cap + 1)
    return data if len(data) <= cap else None


# --------------------------------------------------------------------------- WARC


class WarcCorpus(Corpus):
    format = "warc"
    FORMAT_NAME = "WARC file"

    def _entries(self, *, keep_bodies: bool) -> Iterator[CorpusSource | tuple[str, int | str, str]]:
        from warcio.archiveiterator import ArchiveIterator
        from warcio.exceptions import ArchiveLoadFailed

        name, path, pages = self.name, str(self.path), 0
        with _open(self.path, name) as fh:
            number = 0
            try:
                for record in ArchiveIterator(fh):
                    number += 1
                    entry = self._record(record, number, keep_bodies)
                    if isinstance(entry, CorpusSource) or entry[0] == "oversized":
                        pages += 1
                    yield entry
            except ArchiveLoadFailed as exc:
                raise CorpusError(f"{name}: {path!r} record {number + 1} is not a valid WARC record "
                                  f"({' '.join(str(exc).split())[:120]})") from None
            except (OSError, EOFError, ValueError) as exc:  # a truncated gzip member, a bad length
                raise CorpusError(f"{name}: cannot read {path!r} past record {number}: "
                                  f"{' '.join(str(exc).split())[:120]}") from None
            except Exception as exc:  # noqa: BLE001 - warcio on a malformed record (no URI, bad headers): one line, no traceback
                raise CorpusError(f"{name}: {path!r} record {number + 1} is not a valid WARC record "
                                  f"({type(exc).__name__}: {' '.join(str(exc).split())[:100]})") from None
        if not pages:
            raise CorpusError(f"{name}: {path!r} holds no page (no 'response' record with status 200 and an HTML, "
                              "markdown or text body)")

    def _record(self, record: Any, number: int, keep_bodies: bool) -> CorpusSource | tuple[str, int | str, str]:
        if record.rec_type not in ("response", "resource"):
            return ("skipped", number, f"{record.rec_type}_record")
        url = _http_url(record.rec_headers.get_header("WARC-Target-URI"))
        if url is None:
            return ("skipped", number, "no_http_url")
        headers: dict[str, str] = {}
        if record.rec_type == "response":
            if record.http_headers is None:
                return ("skipped", number, "not_http")
            status = record.http_headers.get_statuscode()
            if status != "200":
                return ("skipped", number, f"http_{status}")
            content_type = record.http_headers.get_header("Content-Type") or ""
            modified = record.http_headers.get_header("Last-Modified")
            if modified:
                headers["Last-Modified"] = modified
        else:
            content_type = record.rec_headers.get_header("Content-Type") or ""
        kind = _PAGE_TYPES.get(content_type.split(";")[0].strip().lower())
        if kind is None:
            return ("skipped", number, "not_a_page")
        raw = _read_capped(record.content_stream(), self.max_body)
        if raw is None:
            return ("oversized", number, url)
        if not raw.strip():
            return ("skipped", number, "empty")
        body = (decode_page(raw, url, content_type) if kind == "html" else _decode_text(raw, content_type)) if keep_bodies else ""
        return CorpusSource(url=url, title="", date=None, body=body, block=number, kind=kind, headers=headers)


def _decode_text(raw: bytes, content_type: str = "") -> str:
    m = re.search(r"charset=([\w.:-]+)", content_type or "", re.I)
    for encoding in ([m.group(1)] if m else []) + ["utf-8"]:
        try:
            return raw.decode(encoding).removeprefix("\ufeff")
        except (LookupError, UnicodeDecodeError):
            continue
    return raw.decode("windows-1252", "replace")


# --------------------------------------------------------------------------- a folder of pages

_SAVED_FROM = re.compile(rb"<!--\s*saved from url=\(\d+\)(\S+?)\s*-->", re.I)
_SINGLEFILE = re.compile(rb"<!--\s*Page saved with SingleFile\s*\n?\s*url:\s*(\S+)", re.I)
_CANONICAL = (re.compile(rb"<link\b[^>]*\brel=[\"']?canonical[\"']?[^>]*>", re.I), re.compile(rb"\bhref=[\"']([^\"'>\s]+)", re.I))
_OG_URL = (re.compile(rb"<meta\b[^>]*\bproperty=[\"']?og:url[\"']?[^>]*>", re.I), re.compile(rb"\bcontent=[\"']([^\"'>\s]+)", re.I))
_HOST = re.compile(r"^(?=.{4,253}$)(?:(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}|\d{1,3}(?:\.\d{1,3}){3})(?::\d{1,5})?$", re.I)
_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)


def _tag_url(head: bytes, pattern: tuple[re.Pattern[bytes], re.Pattern[bytes]]) -> str | None:
    tag = pattern[0].search(head)
    attr = pattern[1].search(tag.group(0)) if tag else None
    return _http_url(attr.group(1).decode("utf-8", "replace")) if attr else None


def _layout_url(rel: Path) -> str | None:
    """A mirror's layout: the first folder is the host (``docs.example.org/guide/intro.html``)."""
    parts = rel.parts
    if len(parts) < 2 or not _HOST.match(parts[0]):
        return None
    from urllib.parse import quote

    return _http_url(f"https://{parts[0].lower()}/" + quote("/".join(parts[1:]), safe="/-._~!$&'()*+,;=:@%"))


def _markdown_frontmatter(text: str) -> tuple[dict, str]:
    m = _FRONTMATTER.match(text)
    if not m:
        return {}, text
    try:
        data = yaml.load(m.group(1), Loader=_NoAliasLoader)  # noqa: S506 - a safe loader without aliases
    except yaml.YAMLError:
        return {}, text
    return (data if isinstance(data, dict) else {}), text[m.end():]


class _NoAliasLoader(yaml.SafeLoader):
    """SafeLoader that refuses aliases (no billion-laughs expansion from a page's frontmatter)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise yaml.YAMLError("aliases are not accepted")
        return super().compose_node(parent, index)


class FolderCorpus(Corpus):
    format = "folder"
    FORMAT_NAME = "folder of pages"

    def files(self) -> Iterator[Path]:
        """The page files, in name order (one file: itself); at most :data:`MAX_FOLDER_FILES`."""
        if not self.path.is_dir():
            yield self.path
            return
        count = 0
        for root, dirs, names in os.walk(self.path):
            dirs.sort()
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for n in sorted(names):
                if Path(n).suffix.lower() in PAGE_SUFFIXES and not n.startswith("."):
                    count += 1
                    if count > MAX_FOLDER_FILES:
                        raise CorpusError(f"{self.name}: {str(self.path)!r} holds more than {MAX_FOLDER_FILES:,} pages; "
                                          "pass a smaller folder")
                    yield Path(root) / n

    def _entries(self, *, keep_bodies: bool) -> Iterator[CorpusSource | tuple[str, int | str, str]]:
        name, pages, number = self.name, 0, 0
        for number, file in enumerate(self.files(), 1):
            rel = file.relative_to(self.path) if self.path.is_dir() else Path(file.name)
            shown = str(rel)
            try:
                shown.encode("utf-8")
            except UnicodeEncodeError:  # a name that is not UTF-8: no URL can be made of it, and it is named, escaped
                yield ("skipped", shown_name(rel), "non_utf8_name")
                continue
            try:
                if not file.is_symlink() and not file.is_file():  # a FIFO or device named like a page
                    yield ("skipped", shown, "not_a_regular_file")
                    continue
                if file.is_symlink() and self.path.is_dir() and not file.resolve().is_relative_to(self.path.resolve()):
                    yield ("skipped", shown, "link_outside")
                    continue
                with file.open("rb") as fh:
                    raw = _read_capped(fh, self.max_body)
            except OSError as exc:
                raise CorpusError(f"{name}: cannot read {str(file)!r}: {exc.strerror}") from None
            kind = PAGE_SUFFIXES.get(file.suffix.lower(), "html")  # one file given: an HTML page (detect_format)
            if raw is None:
                pages += 1
                yield ("oversized", number, shown)
                continue
            entry: Any = self._page(raw, rel, kind, number, keep_bodies)
            if isinstance(entry, tuple):
                entry = ("skipped", shown, entry[2])  # named by its file
            if isinstance(entry, CorpusSource):
                pages += 1
            yield entry
        if not number:
            raise CorpusError(f"{name}: {str(self.path)!r} is a folder without .html, .htm, .xhtml, .md or .markdown files; "
                              "pass a folder of saved pages or a corpus file (docs/corpus.md)")
        if not pages:
            raise CorpusError(f"{name}: {str(self.path)!r} holds no page with a URL; name each page's URL (save it from a "
                              "browser, mirror it as host/path.html, or give a markdown page a 'url:' frontmatter line)")

    def _page(self, raw: bytes, rel: Path, kind: str, number: int, keep_bodies: bool) -> CorpusSource | tuple[str, int | str, str]:
        title, date = "", None
        if kind == "html":
            head = raw[:_HEAD_BYTES]
            url = None
            for rx in (_SAVED_FROM, _SINGLEFILE):
                m = rx.search(head)
                url = url or (_http_url(m.group(1).decode("utf-8", "replace")) if m else None)
            url = url or _layout_url(rel) or _tag_url(head, _CANONICAL) or _tag_url(head, _OG_URL)
            body = decode_page(raw, url or "https://invalid.example/", None) if keep_bodies and url else ""
        else:
            text = _decode_text(raw)
            meta, text = _markdown_frontmatter(text)
            url = _http_url(meta.get("url") or meta.get("source_url") or meta.get("canonical_url")) or _layout_url(rel)
            title = str(meta.get("title") or "").strip() if isinstance(meta.get("title"), (str, int, float)) else ""
            when = meta.get("date")
            date = str(when)[:10] if when and isinstance(when, (str, int)) or hasattr(when, "isoformat") else None
            body = text if keep_bodies else ""
            if not text.strip():
                return ("skipped", number, "empty")
        if url is None:
            return ("skipped", number, "no_url")
        return CorpusSource(url=url, title=title, date=date, body=body, block=number, kind=kind)


def read_corpus(path: str | Path, name: str = "input_file") -> Corpus:
    """Check a corpus and return it, ready to stream: an ``=== SOURCE ===`` file (:class:`Corpus`), JSON
    Lines, a WARC file or a folder of ``.html``/``.md`` files (:func:`open_corpus`
    tells them apart from the first bytes)."""
    return open_corpus(path, name)
