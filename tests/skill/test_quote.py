"""Quoting without rewriting (synth.skill.quote): shortened only by whole trailing sentences or blocks, "…" said."""

import re

import pytest

from synth.skill.quote import ELLIPSIS, drop_sentences, sentences, shorten

LONG = ("Starting in this release, there will be a concerted effort to begin cleaning up old import semantics. "
        "Specifically, `find_loader()` (superseded by `find_spec()`) will slowly be removed. "
        "`ImportWarning` will be raised as appropriate to help identify code which needs updating during this transition.")


def _verbatim(short: str, source: str) -> bool:
    """Every piece between "…" is a run of the source ending at a word boundary."""
    for piece in (p.strip() for p in short.split(ELLIPSIS)):
        if not piece:
            continue
        i = source.find(piece)
        if i < 0:
            return False
        end = i + len(piece)
        if end < len(source) and source[end].isalnum() and piece[-1].isalnum():
            return False  # cut inside a word
    return True


@pytest.mark.parametrize("text, want", [
    ("One sentence. Two sentences here.", ["One sentence.", "Two sentences here."]),
    ("Use e.g. `os.path` here. Then `x.y()` runs.", ["Use e.g. `os.path` here.", "Then `x.y()` runs."]),
    ("Calls `a. B` stay. Next one.", ["Calls `a. B` stay.", "Next one."]),
    ("Deprecated functions: - `a()` - `b()`", ["Deprecated functions:", "- `a()`", "- `b()`"]),
    ("f(x) — Wraps a future. Now an alias.", ["f(x)", "— Wraps a future.", "Now an alias."]),
    ("Version 3.11 is faster than 3.10. It is.", ["Version 3.11 is faster than 3.10.", "It is."]),
    ("Written by J. Smith for all.", ["Written by J. Smith for all."]),
])
def test_sentences(text, want):
    assert sentences(text) == want


@pytest.mark.parametrize("text, limit, must_end_with, must_not_contain", [
    (LONG, 200, "will slowly be removed. …", "transiti"),  # whole sentences kept, the rest left out and said
    (LONG, 120, "old import semantics. …", "Specifically"),
    (LONG, 2000, "transition.", ELLIPSIS),  # fits: unchanged
    # a first sentence longer than the limit is kept whole when it fits twice the limit
    ("A " + "very " * 40 + "long sentence. Second one.", 150, "long sentence. …", "Second"),
    # one sentence longer than that is cut at a word boundary, never inside inline code or a link's text
    ("Words " * 60 + "`some.code.span(with, args)` and [`Async` link](u) more words " * 8, 320, " …", "`some.code.span(with …"),
])
def test_shorten_leaves_out_whole_sentences(text, limit, must_end_with, must_not_contain):
    short = shorten(text, limit)
    assert short.endswith(must_end_with), short
    assert must_not_contain not in short
    assert _verbatim(short, text), short
    assert len(short) <= max(limit, 2 * limit)


def test_shorten_never_cuts_a_word_or_an_open_span():
    text = "alpha " * 10 + "`" + "x" * 30 + " y`" + " tail" * 50
    for limit in range(20, 200, 7):
        short = shorten(text, limit, hard=limit)
        assert _verbatim(short, text), (limit, short)
        assert short.count("`") % 2 == 0, (limit, short)


@pytest.mark.parametrize("text, want", [
    ("Old things were added in 3.9. New things come now. The end.", "… New things come now. The end."),
    ("New things come now. Old things were added in 3.9. The end.", "New things come now. … The end."),
    ("Old things were added in 3.9.", ""),
])
def test_drop_sentences_marks_the_gap(text, want):
    assert drop_sentences(text, re.compile(r"added in 3\.9")) == want
