"""Word shingles at C speed, and the *snippet tokens* a crawl writes so that synthesis's consensus vote can skip a page
without reading its text.

The vote (:mod:`synth.pipeline.bundle.vote`) counts a page's snippet for a candidate's snippet when the Jaccard of
their word 3-shingle sets is at least :data:`~synth.evidence.consensus.VARIANT`. Two sets with a Jaccard of at least
``t`` share an element among their *prefixes* — the first ``n - ceil(t·n) + 1`` elements of a set of ``n`` under any
one total order of all shingles (the prefix filter of similarity joins: ``|A ∩ B| ≥ t·|A ∪ B| ≥ ceil(t·|A|)``,
``≥ ceil(t·|B|)``; two prefixes that long cannot both miss every shared element). So a crawl writes, per page, the
tokens of its snippets' prefixes (:func:`snippet_tokens`, the item's ``snippet_tokens`` field, snippet by snippet), and
a page none of whose tokens is a token of a candidate's prefix (:func:`prefix_tokens`) can vote for no candidate: it
is not parsed; of a page that is, only the snippets whose tokens met one vote.

The order is by a CRC-32 of the shingle, ties broken by the shingle itself (a total order: the prefix property holds
whatever collides); a token is the CRC-32. Equal shingles give equal tokens, so the test is one-sided: it may let a
page through that cannot vote (a CRC collision: the vote then reads it and finds nothing), never the reverse. The
field's tag names the threshold, the hash and the Unicode version (what a word and its lowercase are): tokens written
under another are not used. A page's tokens only decide whether the page itself is read for the vote: tokens that do
not match its text (a hand-edited run) can only lose that page's own votes.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import sys
import unicodedata
import zlib
from array import array
from functools import lru_cache
from typing import Iterable

from synth.evidence.consensus import VARIANT
from synth.evidence.limits import MAX_TOKENS_CHARS  # a page with more tokens writes none (the vote then reads its text)

TOKENS_TAG = f"p{round(VARIANT * 100)}crc32u{unicodedata.unidata_version}:"

_ASCII_NON_WORD = frozenset(i for i in range(128) if not (chr(i).isalnum() or chr(i) == "_"))
NON_WORD_BYTES = bytes(32 if i in _ASCII_NON_WORD else i for i in range(256))  # bytes of 128 and up are kept
LOWER_WORD_BYTES = NON_WORD_BYTES.translate(bytes.maketrans(bytes(range(65, 91)), bytes(range(97, 123))))
_ASCII_BYTES = bytes(range(128))


def lower_words(text: str) -> list[bytes]:
    """``re.findall(r"\\w+", text.lower())`` as UTF-8 (a word character: ``isalnum()`` or ``_``, as the engine
    defines it), at C speed: words as bytes split faster than as strings, and tuples of them hash alike.

    An ASCII text is lowercased and split in one byte translation (non-word characters to spaces). Beyond ASCII, the
    lowercased text's UTF-8 has its ASCII non-word bytes turned into spaces by the same translation and its
    non-word characters beyond ASCII (a dash, a quote, '¶': a handful a page) by one pattern; UTF-8 never holds one
    character's bytes inside another's, so the split gives the same words."""
    if text.isascii():
        return text.encode("ascii").translate(LOWER_WORD_BYTES).split()
    words = caseless_words(text.encode("utf-8", "surrogatepass"))
    return words_beyond_ascii(text.lower()) if words is None else words


def caseless_words(raw: bytes) -> list[bytes] | None:
    """The words of valid UTF-8 ``raw`` when lowercasing changes none of its characters beyond ASCII (most pages:
    they hold '¶', dashes, quotes, lowercase accented letters), so lowercasing is the ASCII translation and the text
    is neither decoded nor lowered; None otherwise (an uppercase letter beyond ASCII, a capital sigma)."""
    beyond = set(raw.translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass"))
    if any(ch.lower() != ch for ch in beyond):
        return None
    others = frozenset(ch for ch in beyond if not (ch.isalnum() or ch == "_"))
    spaced = raw.translate(LOWER_WORD_BYTES)
    return (_non_word_pattern(others).sub(b" ", spaced) if others else spaced).split()


def words_beyond_ascii(low: str) -> list[bytes]:
    """The words of a lowercased text that holds characters beyond ASCII."""
    raw = low.encode("utf-8", "surrogatepass")  # a lone surrogate (JSON allows one) is a non-word character too
    spaced = raw.translate(NON_WORD_BYTES)
    others = frozenset(ch for ch in raw.translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass")
                       if not (ch.isalnum() or ch == "_"))
    if others:
        spaced = _non_word_pattern(others).sub(b" ", spaced)
    return spaced.split()


@lru_cache(maxsize=4096)
def _non_word_pattern(chars: frozenset[str]) -> re.Pattern[bytes]:
    """One pattern for a text's non-word characters beyond ASCII (their UTF-8 is prefix-free: any order matches)."""
    return re.compile(b"|".join(re.escape(ch.encode("utf-8", "surrogatepass")) for ch in sorted(chars)))


def fast_shingles(text: str, k: int = 3) -> frozenset[tuple]:
    """The same word 3-shingles as ``consensus.shingles``, as tuples of UTF-8 words (no joins): the hot path of the
    vote. A text of fewer than ``k`` words is one shingle of its words."""
    words = lower_words(text)
    if len(words) < k:
        return frozenset([tuple(words)]) if words else frozenset()
    return frozenset(zip(words, words[1:], words[2:]))


def prefix_tokens(shingles: frozenset[tuple], threshold: float = VARIANT) -> list[int]:
    """The tokens of the prefix of a shingle set for Jaccard ``threshold`` (see the module docstring)."""
    n = len(shingles)
    if not n:
        return []
    keep = n - math.ceil(threshold * n) + 1
    keyed = sorted((zlib.crc32(joined), joined) for joined in map(b" ".join, shingles))
    return [crc for crc, _joined in keyed[:keep]]


def snippet_tokens(snippets: Iterable[tuple[str, str]]) -> str:
    """The ``snippet_tokens`` field of a page whose ``(kind, text)`` snippets are ``snippets`` (what the vote reads:
    :func:`~synth.evidence.consensus.item_snippets` of the excerpts and code blocks as written): the tokens of the
    prefixes of their shingle sets, snippet by snippet, as :data:`TOKENS_TAG` + the base64 of 32-bit little-endian
    values: the number of snippets, each one's number of tokens, then their tokens (:func:`snippet_groups`); ""
    when that would be longer than :data:`MAX_TOKENS_CHARS`."""
    groups = [sorted(set(prefix_tokens(fast_shingles(text)))) for _kind, text in snippets]
    values = array(_U32, [len(groups), *map(len, groups), *(t for g in groups for t in g)])
    if sys.byteorder == "big":
        values.byteswap()
    out = TOKENS_TAG + base64.b64encode(values.tobytes()).decode("ascii")
    return out if len(out) <= MAX_TOKENS_CHARS else ""


_U32 = next(code for code in "IL" if array(code).itemsize == 4)
TOKENS_KEY = b'"snippet_tokens"'
_MARK = b", " + TOKENS_KEY + b': "' + TOKENS_TAG.encode("ascii")


def line_tokens(raw: bytes) -> bytes | None:
    """The tokens a raw run.jsonl line carries (their 32-bit little-endian values, packed), when it ends with a
    ``snippet_tokens`` member under this :data:`TOKENS_TAG`, written as the crawl writes it (the last member, JSON's
    default separators); None otherwise (the vote then reads the line's words). No parsing: found from the end.

    That member is the top-level object's: the value holds no quote or backslash (base64 is checked), so the quotes
    around it are JSON's own and the ``}`` after it closes the object (the caller knows the line is one JSON
    object); the quote before the key follows a space, so it is JSON's own too, and the key is exactly this one."""
    end = len(raw)
    if raw.endswith(b"\n"):
        end -= 2 if raw.endswith(b"\r\n") else 1
    if not raw.endswith(b'"}', 0, end):
        return None
    at = raw.rfind(_MARK, max(0, end - MAX_TOKENS_CHARS - len(_MARK) - 2), end)
    if at < 0:
        return None
    try:
        packed = binascii.a2b_base64(memoryview(raw)[at + len(_MARK):end - 2], strict_mode=True)
    except binascii.Error:
        return None
    return None if len(packed) % 4 else packed


def unpack_tokens(packed: bytes) -> array:
    """:func:`line_tokens`' bytes as integers (the counts first: a test of all of them against the candidates'
    tokens is one-sided still, and :func:`snippet_groups` tells the tokens apart)."""
    values = array(_U32)
    values.frombytes(packed)
    if sys.byteorder == "big":
        values.byteswap()
    return values


def snippet_groups(packed: bytes) -> list[array] | None:
    """:func:`line_tokens`' bytes as each snippet's tokens, in the snippets' order; None when the counts do not add
    up (then nothing tells which snippet a token is of)."""
    values = unpack_tokens(packed)
    n = values[0] if values else -1
    if n < 0 or len(values) < 1 + n or 1 + n + sum(values[1:1 + n]) != len(values):
        return None
    groups, at = [], 1 + n
    for count in values[1:1 + n]:
        groups.append(values[at:at + count])
        at += count
    return groups
