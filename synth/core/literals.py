"""The literal text a regular expression cannot match without, read from its parsed form: a substring test
(C speed, no backtracking) decides that most texts need no search at all.

Many of detect-secrets' patterns start with a group or ``\\b`` rather than a literal, so Python's engine tries
them at every position of a text (30–200 ms over 2 MB of documentation each, against ~1 ms for a pattern that
starts with its literal); ``"AKC" in text`` is a memchr-speed scan. The delta's cleaning patterns (issue numbers,
credit tails, "use X instead") are tried the same way on each change entry.

A pattern that ignores case is tested on the text lowercased, after the four non-ASCII characters that Python's
engine matches to an ASCII letter under ``IGNORECASE`` (:data:`ASCII_FOLDS`) are replaced by that letter, so the test
holds for any text; such a pattern is tested only when all its literals are ASCII.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Pattern

if TYPE_CHECKING:  # typeshed stubs re's parser only under its deprecated alias (importing that warns at run time)
    import sre_constants as _c
    import sre_parse as _p
else:
    from re import _constants as _c
    from re import _parser as _p

MIN_LITERAL = 3  # shorter literals occur nearly everywhere: no test is cheaper than a useless one


# The characters beyond ASCII that re.IGNORECASE matches to an ASCII letter: dotted and dotless i, long s, the
# Kelvin sign (tests/core/test_literals.py checks every code point against Python's engine).
ASCII_FOLDS = {0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"}
_FOLD_CHARS = tuple(chr(c) for c in ASCII_FOLDS)


@lru_cache(maxsize=512)
def required_literals(rx: Pattern[str], min_literal: int = MIN_LITERAL) -> tuple[tuple[str, ...], bool] | None:
    """``(alternatives, folded)``: every match of ``rx`` contains one of the alternatives (lowercased when
    ``folded``: the pattern ignores case); None when no such literals of ``min_literal`` characters are known,
    or the pattern ignores case and a literal is not ASCII."""
    try:
        parsed = _p.parse(rx.pattern, rx.flags & ~re.IGNORECASE)
    except (re.error, TypeError, AttributeError):  # a bytes pattern, another Python's parser
        return None
    need = _sequence(list(parsed.data), min_literal)
    if not need:
        return None
    folded = bool(rx.flags & re.IGNORECASE)
    if folded and not all(s.isascii() for s in need):
        return None
    return (tuple(sorted({s.lower() for s in need})) if folded else need), folded


def may_match(rx: Pattern[str], text: str, folded: str | None = None, *, min_literal: int = MIN_LITERAL) -> bool:
    """False only when ``rx`` cannot match in ``text`` (a required literal is absent); True when it may.
    ``folded``: :func:`folded_text` of ``text``, when the caller tests several patterns on one text;
    ``min_literal``: shorter literals are not tested (1 or 2 for a pattern whose only literals are short but rare)."""
    need = required_literals(rx, min_literal)
    if need is None:
        return True
    alternatives, ignores_case = need
    if ignores_case:
        text = folded_text(text) if folded is None else folded
    return any(s in text for s in alternatives)


def folded_text(text: str) -> str:
    """``text`` as a pattern that ignores case sees its ASCII letters: lowercased, with :data:`ASCII_FOLDS` applied."""
    if not text.isascii() and any(ch in text for ch in _FOLD_CHARS):
        text = text.translate(ASCII_FOLDS)
    return text.lower()


def search(rx: Pattern[str], text: str, *, min_literal: int = MIN_LITERAL) -> re.Match[str] | None:
    """``rx.search(text)``, skipped when a literal the pattern requires is absent."""
    return rx.search(text) if may_match(rx, text, min_literal=min_literal) else None


def sub(rx: Pattern[str], repl: str, text: str, *, min_literal: int = MIN_LITERAL) -> str:
    """``rx.sub(repl, text)``, skipped when a literal the pattern requires is absent."""
    return rx.sub(repl, text) if may_match(rx, text, min_literal=min_literal) else text


def _sequence(items: list, least: int) -> tuple[str, ...] | None:
    """The best set of alternatives a match of this sequence of parsed items must contain (each ``least`` long)."""
    best: tuple[str, ...] | None = None
    run = ""
    for op, av in items:
        if op is _c.LITERAL:
            run += chr(av)
            continue
        best = _better(best, (run,) if run else None, least)
        run = ""
        best = _better(best, _item(op, av, least), least)
    return _better(best, (run,) if run else None, least)


def _item(op: object, av: Any, least: int) -> tuple[str, ...] | None:
    if op is _c.SUBPATTERN:  # (group, add_flags, del_flags, body): a group that changes flags is not read
        return None if av[1] or av[2] else _sequence(list(av[3]), least)
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):  # (min, max, body): a body repeated at least once is required
        return _sequence(list(av[2]), least) if av[0] >= 1 else None
    if op is _c.BRANCH:  # (None, [alternatives]): each alternative's literals, or none if one has none
        out: set[str] = set()
        for branch in av[1]:
            need = _sequence(list(branch), least)
            if need is None:
                return None
            out.update(need)
        return tuple(sorted(out))
    return None


def _better(a: tuple[str, ...] | None, b: tuple[str, ...] | None, least: int) -> tuple[str, ...] | None:
    """Of two usable sets (every alternative at least ``least`` long), the one with the longer shortest
    alternative, then the fewer alternatives."""
    usable = [x for x in (a, b) if x and min(map(len, x)) >= least]
    if not usable:
        return None
    return max(usable, key=lambda x: (min(map(len, x)), -len(x)))
