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

import importlib
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


# ------------------------------------------------------------------------------------------------ required runs
# Many secret patterns carry no literal of their own (``\b(gh[pousr]_[A-Za-z0-9_]{20,255})``: 'gh' and '_' are too
# short) or only common ones ('key', 'token'), but every match holds a long run of one character class: twenty
# ``[A-Za-z0-9_]`` in a row. Documentation has few such runs, and all of them lie inside the runs of one broad class
# (:data:`RUN_CLASS`), which one pass over the text finds; a pattern whose run is in none of them cannot match.
MIN_RUN = 16  # shorter runs are everywhere in prose and code
RUN_CLASS = r"[\w\-./+=~!@%^*\\]"  # every class a gated run may be of lies within it (checked per class)
_RUN = re.compile(RUN_CLASS + "{%d,}" % MIN_RUN)
_RUN_CHAR = re.compile(RUN_CLASS)
_RUN_BUCKETS = (16, 20, 24, 30, 40, 64)  # the text's runs grouped by length: a pattern tests the runs it could be in
_CATEGORIES = {_c.CATEGORY_DIGIT: r"\d", _c.CATEGORY_WORD: r"\w"}  # the categories whose characters are all in RUN_CLASS


def _class_source(op: object, av: Any) -> str | None:
    """A one-character item as a character class, when every character it matches is in :data:`RUN_CLASS`
    (also ignoring case: the other case of an ASCII letter and the characters of :data:`ASCII_FOLDS` are word
    characters); else None."""
    items = [(op, av)] if op is _c.LITERAL else list(av) if op is _c.IN else None
    if items is None:
        return None
    parts = []
    for iop, iav in items:
        if iop is _c.LITERAL:
            chars = [chr(iav)]
            parts.append(re.escape(chars[0]))
        elif iop is _c.RANGE and iav[1] < 128:
            chars = [chr(c) for c in range(iav[0], iav[1] + 1)]
            parts.append(f"{re.escape(chr(iav[0]))}-{re.escape(chr(iav[1]))}")
        elif iop is _c.CATEGORY and iav in _CATEGORIES:
            chars = []
            parts.append(_CATEGORIES[iav])
        else:  # a negated class, a wide range, spaces, non-word characters
            return None
        if not all(_RUN_CHAR.match(ch) for ch in chars):
            return None
    return "[" + "".join(parts) + "]"


_ZERO_WIDTH = (_c.AT, _c.ASSERT, _c.ASSERT_NOT)


def _chain(items: list) -> tuple[str, int] | None:
    """``(source, n)`` when the whole sequence is a chain: characters of :data:`RUN_CLASS` only (zero-width
    assertions left out), as a pattern that finds the part of any match it spans, at least ``n`` characters."""
    parts: list[str] = []
    total = 0
    for op, av in items:
        if op in _ZERO_WIDTH:
            continue
        piece = _piece(op, av)
        if piece is None:
            return None
        parts.append(piece[0])
        total += piece[1]
    return "".join(parts), total


def _piece(op: object, av: Any) -> tuple[str, int] | None:
    cls = _class_source(op, av)
    if cls is not None:
        return cls, 1
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
        body = list(av[2])
        inner = _class_source(*body[0]) if len(body) == 1 else None
        if inner is None:
            return None
        top = "" if av[1] is _c.MAXREPEAT else str(av[1])
        return f"{inner}{{{av[0]},{top}}}", av[0]
    if op is _c.SUBPATTERN and not av[1] and not av[2]:
        return _chain(list(av[3]))
    if op is _c.BRANCH:
        alternatives = [_chain(list(branch)) for branch in av[1]]
        if not all(a is not None for a in alternatives):
            return None
        return "(?:" + "|".join(a[0] for a in alternatives if a) + ")", min(a[1] for a in alternatives if a)
    return None


def _run_of(items: list, least: int) -> tuple[int, tuple[str, ...]] | None:
    """``(n, sources)``: every match of this sequence holds, within characters of :data:`RUN_CLASS` only, a match
    of one of the sources, at least ``n`` characters long (n ≥ ``least``); None when no such part is known."""
    best: tuple[int, tuple[str, ...]] | None = None

    def keep(found: tuple[int, tuple[str, ...]] | None) -> None:
        nonlocal best
        if found is not None and found[0] >= least and (best is None or found[0] > best[0]):
            best = found

    parts: list[str] = []
    total = 0
    for op, av in [*items, (None, None)]:  # the sentinel ends the last chain
        if op in _ZERO_WIDTH:
            continue
        piece = _piece(op, av) if op is not None else None
        if piece is not None:
            parts.append(piece[0])
            total += piece[1]
            continue
        if parts:
            keep((total, ("".join(parts),)))
        parts, total = [], 0
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT) and av[0] >= 1:
            keep(_run_of(list(av[2]), least))
        elif op is _c.SUBPATTERN and not av[1] and not av[2]:
            keep(_run_of(list(av[3]), least))
        elif op is _c.BRANCH:
            alternatives = [_run_of(list(branch), least) for branch in av[1]]
            if all(alternatives):
                keep((min(a[0] for a in alternatives if a), tuple(sorted({c for a in alternatives if a for c in a[1]}))))
    return best


@lru_cache(maxsize=512)
def required_run(rx: Pattern[str]) -> tuple[int, Pattern[str]] | None:
    """``(bucket, run)``: every match of ``rx`` holds a match of ``run`` (a part of ``rx`` made of characters of
    :data:`RUN_CLASS` only, at least n ≥ :data:`MIN_RUN` long — a prefix and a token's body, ``gh[pousr]_[A-Za-z0-9_]{20,}``
    — with ``rx``'s flags), which is in a run of the text of at least ``bucket`` characters; None when no such part is
    known."""
    try:
        parsed = _p.parse(rx.pattern, rx.flags & ~re.IGNORECASE)
    except (re.error, TypeError, AttributeError):
        return None
    need = _run_of(list(parsed.data), MIN_RUN)
    if need is None:
        return None
    n, sources = need
    bucket = max(b for b in _RUN_BUCKETS if b <= n)
    return bucket, re.compile("|".join(sources), rx.flags & (re.IGNORECASE | re.ASCII | re.UNICODE))


class Runs:
    """The long runs of a text (one pass), to ask of a pattern whether the run it requires is among them."""

    __slots__ = ("_buckets",)

    def __init__(self, text: str) -> None:
        runs = _RUN.findall(text)
        self._buckets = {b: "\n".join(r for r in runs if len(r) >= b) for b in _RUN_BUCKETS} if runs else None

    def may_match(self, rx: Pattern[str]) -> bool:
        """False only when ``rx`` cannot match in the text: a run every match of it holds is not there."""
        need = required_run(rx)
        if need is None:
            return True
        if self._buckets is None:
            return False
        bucket, run = need
        return run.search(self._buckets[bucket]) is not None


@lru_cache(maxsize=8)
def lowercase_gate(gate: Pattern[str]) -> Pattern[str] | None:
    """The gate without IGNORECASE, for the folded text; None unless it ignores case, is all lower-case ASCII and
    has no escapes or classes (whose meaning lower-casing could change)."""
    p = gate.pattern
    if not gate.flags & re.IGNORECASE or p != p.lower() or "\\" in p or "[" in p:
        return None
    if not all(folds_to(ch) for ch in set(p) if not ch.isascii()):
        return None
    return re.compile(p, gate.flags & ~re.IGNORECASE)


@lru_cache(maxsize=64)
def folds_to(ch: str) -> bool:
    """Whether the characters the engine matches to ``ch`` ignoring case are those ``folded_text`` turns into it:
    for a lower-case character with a one-character upper case outside the engine's extra case equivalences
    (``re._compiler._EXTRA_CASES``: a final sigma, the dotless i, the micro sign …) the engine compares lower-cased
    characters, as ``folded_text`` does (``ñ``, ``Ñ``)."""
    try:
        extra = importlib.import_module("re._compiler")._EXTRA_CASES
    except (ImportError, AttributeError):  # another Python: the gate is searched ignoring case
        return False
    code = ord(ch)
    return (ch == ch.lower() and len(ch.upper()) == 1 and ch.upper().lower() == ch and code not in extra
            and not any(code in others for others in extra.values()))
