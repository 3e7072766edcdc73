"""Plain-text pages whatever their content type: a ``NEWS`` or ``CHANGES`` file served as
``application/octet-stream`` (no extension to guess from), ``text/x-rst``, ``text/x-log`` … is read as text when
its bytes are text.

Pure: :func:`plain_text` decides from the body, the Content-Type and the URL path, never from the site.
"""

from __future__ import annotations

from posixpath import splitext

from skill3crawl.sitecrawl.order import change_candidate

SNIFF_BYTES = 65536  # the bytes looked at for NULs and control characters
# Content types a text file may be served with besides text/*: no type, or a generic binary one a server gives a file
# it cannot name (no extension, an unknown one).
_GENERIC = ("", "application/octet-stream", "application/x-unknown", "binary/octet-stream", "application/unknown")
# Text types that hold prose (a source file, text/x-csrc or text/x-python, is an example, not a page; any text type
# is read when the file is named as a change log).
PROSE_TYPES = frozenset("text/plain text/markdown text/x-markdown text/x-rst text/prs.fallenstein.rst text/x-log "
                        "text/asciidoc text/x-asciidoc text/x-org text/org text/x-textile".split())
# Extensions of text files a documentation site links (beyond .txt/.md, which the crawl reads already).
TEXT_EXTENSIONS = frozenset(".rst .text .news .changes .log .asciidoc .adoc .textile .org .pod .1 .5 .8".split())


def _looks_like_text(head: bytes) -> bool:
    if b"\x00" in head:
        return False
    controls = sum(1 for b in head if b < 9 or 13 < b < 32)
    return controls <= len(head) // 100


def plain_text(body: bytes, content_type: str, url_path: str, url: str = "") -> str | None:
    """The body as text when the response is a plain-text page served as something else, else None.

    Taken: a text type that holds prose (``text/x-rst``, ``text/x-log`` …; any text type for a file named as a change
    log), or a generic type (none,
    ``application/octet-stream``) for a file without an extension, with a text extension (``.rst``), or named as a
    change log (``NEWS``, ``CHANGES.txt``, ``version9.txt``) — and only when the bytes are text (no NUL, almost no
    control characters, UTF-8 or else Latin-1)."""
    ctype = content_type.split(";", 1)[0].strip().lower()
    name = url_path.rsplit("/", 1)[-1]
    ext = splitext(name)[1].lower()
    if ctype.startswith("text/"):
        if ctype not in PROSE_TYPES and not change_candidate(url or url_path):
            return None  # source code (text/x-csrc, text/x-python), data, stylesheets: not a page to read
    elif ctype in _GENERIC:
        if not (ext == "" or ext in TEXT_EXTENSIONS or ext in (".txt", ".md") or change_candidate(url or url_path)):
            return None
    else:
        return None
    if not body or not _looks_like_text(body[:SNIFF_BYTES]):
        return None
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return body.decode("latin-1")
