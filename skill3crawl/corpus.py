"""The offline corpus (``-a input_file=PATH``): the seed's ``=== SOURCE ===`` format.

    === SOURCE ===
    url: https://example.org/page        (required)
    title: Optional title
    date: 2026-03-01                     (optional)

    body: text, markdown or HTML, up to the next === SOURCE ===

Parsed and validated before any request; a malformed file raises
:class:`CorpusError` with a one-line message naming the block and the fix.
"""

from __future__ import annotations

import html as html_lib
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

MARKER = "=== SOURCE ==="
_HEADER = re.compile(r"^([A-Za-z][A-Za-z_-]*)\s*:\s*(.*)$")
KNOWN_HEADERS = ("url", "title", "date")


class CorpusError(ValueError):
    """The input file is unreadable or malformed; the message is one line naming the fix."""


@dataclass(frozen=True)
class CorpusSource:
    url: str
    title: str
    date: str | None
    body: str
    block: int  # 1-based block number in the file


def parse_corpus(text: str, name: str = "input_file") -> list[CorpusSource]:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    starts = [i for i, line in enumerate(lines) if line.strip() == MARKER]
    if not starts:
        raise CorpusError(f"{name}: no '{MARKER}' blocks found; start each source with a line '{MARKER}' followed by 'url: …'")
    if any(line.strip() for line in lines[: starts[0]]):
        raise CorpusError(f"{name}: text before the first '{MARKER}' line; start the file with '{MARKER}'")
    sources: list[CorpusSource] = []
    for n, start in enumerate(starts, 1):
        end = starts[n] if n < len(starts) else len(lines)
        block = lines[start + 1 : end]
        headers: dict[str, str] = {}
        i = 0
        while i < len(block) and block[i].strip():
            m = _HEADER.match(block[i].strip())
            if not m:
                raise CorpusError(
                    f"{name}: source block {n}: header line {block[i].strip()[:60]!r} is not 'key: value'; "
                    "put a blank line between the headers and the body"
                )
            key = m.group(1).lower()
            if key not in KNOWN_HEADERS:
                raise CorpusError(f"{name}: source block {n}: unknown header {key!r}; use url:, title: or date:")
            headers[key] = m.group(2).strip()
            i += 1
        url = headers.get("url", "")
        if not url:
            raise CorpusError(f"{name}: source block {n} has no 'url:' header; add 'url: https://…' right after '{MARKER}'")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise CorpusError(f"{name}: source block {n}: url {url[:80]!r} is not an absolute http(s) URL")
        body = "\n".join(block[i:]).strip("\n")
        if not body.strip():
            raise CorpusError(f"{name}: source block {n} ({url}) has an empty body; add the page text after a blank line")
        sources.append(CorpusSource(url=url, title=headers.get("title", ""), date=headers.get("date") or None, body=body, block=n))
    return sources


def read_corpus(path: str | Path, name: str = "input_file") -> list[CorpusSource]:
    p = Path(path).expanduser()
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CorpusError(f"{name}: {str(path)!r} does not exist") from None
    except IsADirectoryError:
        raise CorpusError(f"{name}: {str(path)!r} is a directory, not a file") from None
    except UnicodeDecodeError:
        raise CorpusError(f"{name}: {str(path)!r} is not UTF-8 text") from None
    except OSError as exc:
        raise CorpusError(f"{name}: cannot read {str(path)!r}: {exc.strerror}") from None
    return parse_corpus(text, name)


_HTML_HINT = re.compile(r"<(html|body|article|main|div|p|h[1-6]|pre|section)\b", re.I)
_FENCE = re.compile(r"^(```+|~~~+)\s*([\w+#.-]*)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")


def looks_like_html(body: str) -> bool:
    return bool(_HTML_HINT.search(body[:4000]))


def markdown_to_html(body: str, title: str = "") -> str:
    """Plain text or markdown → minimal HTML (headings, paragraphs, fenced code with language).

    Code is escaped, never reformatted, so the extractor recovers it byte-exact.
    """
    out: list[str] = []
    para: list[str] = []

    def flush() -> None:
        if para:
            out.append("<p>" + html_lib.escape(" ".join(s.strip() for s in para)) + "</p>")
            para.clear()

    lines = body.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line.strip())
        if fence:
            flush()
            mark, lang = fence.group(1), fence.group(2)
            code: list[str] = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(mark):
                code.append(lines[i])
                i += 1
            cls = f' class="language-{html_lib.escape(lang)}"' if lang else ""
            out.append(f"<pre><code{cls}>" + html_lib.escape("\n".join(code) + "\n") + "</code></pre>")
            i += 1
            continue
        heading = _HEADING.match(line.strip())
        if heading:
            flush()
            level = len(heading.group(1))
            out.append(f"<h{level}>{html_lib.escape(heading.group(2))}</h{level}>")
        elif not line.strip():
            flush()
        else:
            para.append(line)
        i += 1
    flush()
    head = f"<title>{html_lib.escape(title)}</title>" if title else ""
    return f"<html><head>{head}</head><body><main>{''.join(out)}</main></body></html>"


def source_html(src: CorpusSource) -> str:
    """The body as HTML (HTML bodies pass through unchanged)."""
    if looks_like_html(src.body):
        return src.body
    return markdown_to_html(src.body, src.title)
