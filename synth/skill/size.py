"""Offline size of a SKILL.md in tokens (the linter's budget check)."""

from __future__ import annotations

import math
import re

_TOKEN_PIECES = re.compile(r"\w+|[^\w\s]")


def estimate_tokens(text: str) -> int:
    """Offline token estimate: each word counts ceil(len/4) tokens, each punctuation mark one.

    BPE vocabularies keep common short words whole and split long ones into
    pieces of about four characters; punctuation is mostly a token of its own.
    On English prose this lands near the usual "4 characters per token" rule;
    on code (dense punctuation) it counts more, as real tokenizers do. It is a
    budget check, not a tokenizer: no vocabulary, no network.
    """
    return sum(math.ceil(len(p) / 4) if p[0].isalnum() or p[0] == "_" else 1 for p in _TOKEN_PIECES.findall(text))
