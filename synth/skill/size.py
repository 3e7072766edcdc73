"""Offline size of a text in tokens: one estimate for the bundle's context budget, the prompts and lint's budget."""

from __future__ import annotations

import math

CHARS_PER_TOKEN = 3.5


def estimate_tokens(text: str) -> int:
    """Conservative token count without a tokenizer: ``ceil(chars / 3.5)``.

    Real BPE tokenizers give about 4 characters per token on English prose and fewer on
    code, so 3.5 over-counts prose a little and keeps a context budget safe; it costs
    nothing per call (the bundle calls it in its selection loop) and its inverse is the
    character room the bundle trims a source to. No vocabulary, no network.
    """
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0
