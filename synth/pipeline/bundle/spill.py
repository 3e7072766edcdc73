"""Pass 1's workers keep what pass 2 needs of a chunk in a small file of their own (a *spill*), so pass 2 does not
read and scan the whole chunk again: the snippet tokens of the lines that carry them, with where each line is, and
where every other line pass 2 must read is.

Pass 2 then tests the chunk's tokens in one vectorised pass and reads (``os.pread``) only the lines that meet a
candidate's, and the lines without usable tokens. A spill holds what pass 2 would have found in the chunk, so the
votes are the same (the tests check it); a spill that is missing or does not read back is not used, and the chunk
is read as before.

The file: :data:`MAGIC`, then four 64-bit little-endian counts — lines with tokens, other lines, token values, and
the byte length of the tokens — then per line with tokens its offset, size and the end of its tokens (cumulative
32-bit values), per other line its number within the range, offset and size, and the tokens (32-bit little-endian values, as
:func:`~synth.evidence.shingles.line_tokens` gives them, one line after another).
"""

from __future__ import annotations

import struct
import sys
from array import array
from pathlib import Path
from typing import NamedTuple

MAGIC = b"skill3-spill-1\n\0"
_COUNTS = struct.Struct("<4Q")
_U64 = next(code for code in "QL" if array(code).itemsize == 8)


class Spill(NamedTuple):
    """A chunk's spill, read back."""

    offsets: array  # per line with tokens: where it starts in the run
    sizes: array  # its size in bytes
    ends: array  # where its tokens end in ``tokens``, in 32-bit values (cumulative)
    tokens: bytes  # every such line's tokens, packed
    others: array  # per other line pass 2 reads: its number (1 = the range's first line), offset and size, flattened

    def packed(self, i: int) -> bytes:
        """The tokens of the ``i``-th line with tokens, packed."""
        start = self.ends[i - 1] if i else 0
        return self.tokens[4 * start:4 * self.ends[i]]


class SpillWriter:
    """Collects one chunk's spill while its lines are read."""

    def __init__(self) -> None:
        self.offsets, self.sizes, self.ends = array(_U64), array(_U64), array(_U64)
        self.others = array(_U64)
        self.tokens: list[bytes] = []
        self._values = 0

    def tokened(self, offset: int, size: int, packed: bytes) -> None:
        self.offsets.append(offset)
        self.sizes.append(size)
        self._values += len(packed) // 4
        self.ends.append(self._values)
        self.tokens.append(packed)

    def other(self, n: int, offset: int, size: int) -> None:
        self.others.extend((n, offset, size))

    def write(self, path: str) -> bool:
        """Writes the spill to ``path``; False when it could not be written (then pass 2 reads the chunk)."""
        arrays = [self.offsets, self.sizes, self.ends, self.others]
        if sys.byteorder == "big":
            for a in arrays:
                a.byteswap()
        tokens = b"".join(self.tokens)
        try:
            with open(path, "wb") as fh:
                fh.write(MAGIC + _COUNTS.pack(len(self.offsets), len(self.others) // 3, self._values, len(tokens)))
                for a in arrays:
                    fh.write(a.tobytes())
                fh.write(tokens)
        except OSError:
            return False
        return True


def read_spill(path: str) -> Spill | None:
    """The spill at ``path``, or None when it is missing or is not one whole spill."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    head = len(MAGIC) + _COUNTS.size
    if len(data) < head or not data.startswith(MAGIC):
        return None
    lines, others, values, token_bytes = _COUNTS.unpack_from(data, len(MAGIC))
    if token_bytes != 4 * values or len(data) != head + 8 * (3 * lines + 3 * others) + token_bytes:
        return None
    parts, at = [], head
    for count in (lines, lines, lines, 3 * others):
        a = array(_U64)
        a.frombytes(data[at:at + 8 * count])
        if sys.byteorder == "big":
            a.byteswap()
        parts.append(a)
        at += 8 * count
    offsets, sizes, ends, rest = parts
    if lines and ends[-1] != values:
        return None
    return Spill(offsets, sizes, ends, data[at:], rest)
