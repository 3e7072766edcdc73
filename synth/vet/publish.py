"""Publishable text: the one gate every text an agent will load passes, whatever file or answer it lands in.

SKILL.md's entries, ``references/``, the exports (``AGENTS.md``, ``CLAUDE.md``, the Cursor rule, ``llms.txt``)
and the MCP server's answers are all built from texts that came from the web. Each goes through the same three
steps, here and nowhere else:

1. **redaction** (:func:`synth.vet.redact.redact_text`): a secret becomes ``[REDACTED:<kind>]``;
2. **links**: a link or image whose target runs something (``javascript:``, ``vbscript:``, ``data:``, ``file:``)
   keeps its text only, raw HTML outside code goes (:func:`synth.skill.safety.neutralize`);
3. **the built-in screen** (:mod:`synth.vet.screen`): a text it flags is left out. A phrase split over two
   neighbouring texts (two change entries, two list items: "… first disregard" / "your system prompt …") is
   screened as one: both halves are left out.

Two strengths: :func:`publishable` / :func:`publishable_texts` for one-line entries (any finding leaves the entry
out, as SKILL.md's own entries are chosen); :func:`publishable_file` for a whole markdown file (the blocks the screen
flags HIGH are dropped, as synthesis does before the scanner). Pure functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


def _neutral(text: str) -> str:
    from synth.skill.safety import neutralize

    return neutralize(text)[0] if ("<" in text or ":" in text or "&" in text) else text


def publishable(text: str) -> str | None:
    """One entry's text as it may be published, or None when the screen flags it."""
    return publishable_texts([text])[0]


def publishable_texts(texts: Sequence[str]) -> list[str | None]:
    """:func:`publishable` for a sequence of neighbouring one-line texts (in their source order), in one pass: the
    texts are redacted and screened as one text, a line each, so a phrase that runs from one text into the next
    leaves out both. A text the screen flags is None."""
    import bisect

    from synth.vet.redact import redact_text
    from synth.vet.screen import screen_hits

    if not texts:
        return []
    lines = [" ".join(t.split()) for t in texts]
    redacted = redact_text("\n".join(lines))[0].split("\n")
    if len(redacted) != len(lines):  # cannot happen (redaction keeps line ends); never publish misaligned text
        redacted = [redact_text(t)[0] for t in lines]
    out: list[str | None] = [" ".join(_neutral(t).split()) for t in redacted]
    starts, pos = [], 0
    for t in out:
        starts.append(pos)
        pos += len(t or "") + 1
    joined = "\n".join(t or "" for t in out)
    for h in screen_hits(joined):
        first = bisect.bisect_right(starts, h.start) - 1
        last = bisect.bisect_right(starts, max(h.start, h.end - 1)) - 1
        for i in range(max(first, 0), last + 1):
            out[i] = None
    return out


@dataclass
class Published:
    text: str
    dropped_lines: int
    redactions: int


def publishable_file(text: str, rel: str = "SKILL.md") -> Published:
    """A whole markdown file as it may be served: secrets redacted, dangerous links neutralised, and the blocks
    holding what the screen flags HIGH dropped (both lines of a phrase split over two)."""
    from synth.skill.frontmatter import split_frontmatter
    from synth.vet.correct import drop_lines, droppable_lines
    from synth.vet.redact import redact_text
    from synth.vet.screen import screen_markdown

    redacted, n = redact_text(text)
    body = split_frontmatter(redacted).body
    head = redacted[: len(redacted) - len(body)] if body and redacted.endswith(body) else ""
    out = head + _neutral(redacted[len(head):])
    lines = {f.line for f in screen_markdown(out, rel) if f.blocking and f.line}
    drop = droppable_lines(out, lines) if lines else set()
    # a flagged line the block rule leaves (frontmatter, heading, code) goes alone: nothing flagged is served
    drop |= lines
    return Published(drop_lines(out, drop) if drop else out, len(drop), n)
