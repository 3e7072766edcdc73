"""A fetched page's text: the response's own decoding, unless the encoding it claims cannot be right.

Scrapy's :attr:`TextResponse.text` (w3lib) decodes with the HTTP header's
charset, else the BOM, else the ``<meta>`` declaration, else detection. A claim
of UTF-16/UTF-32 without a BOM is checked against the bytes: markup in those
encodings has NUL bytes (``<`` is ``3C 00``), so a body without them is not in
that encoding, whatever the header or ``<meta>`` says. It is then decoded as a
page without a claim: UTF-8 when it is valid UTF-8, else windows-1252 (the
encoding the HTML standard assumes for undeclared pages; latin-1 is a subset).
"""

from __future__ import annotations

import codecs
from typing import Any

_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def claim_is_impossible(body: bytes, encoding: str | None) -> bool:
    """True when ``body`` cannot be in ``encoding`` (a UTF-16/32 claim on bytes without a BOM and
    without the NUL bytes every ASCII character would carry)."""
    enc = (encoding or "").lower().replace("-", "_")
    if not enc.startswith(("utf_16", "utf_32", "utf16", "utf32")):
        return False
    if body.startswith(_BOMS):
        return False
    return b"\x00" not in body[:4096]


def decode_undeclared(body: bytes) -> str:
    """Bytes whose encoding nothing trustworthy names: UTF-8 if valid, else windows-1252."""
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return body.decode("cp1252", "replace")


def page_text(response: Any) -> str:
    """The text of a Scrapy :class:`TextResponse`: its own decoding unless the claimed encoding is impossible."""
    if claim_is_impossible(response.body, response.encoding):
        return decode_undeclared(response.body)
    return response.text
