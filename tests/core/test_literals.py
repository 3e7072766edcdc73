"""The literal pre-test of a pattern (synth.core.literals) never rejects a text the pattern matches."""

import re

import pytest

from synth.core.literals import ASCII_FOLDS, Runs, folded_text, may_match, required_literals, required_run, search, sub
from tests.vet.test_redact import CASES, KEEP


@pytest.mark.parametrize("pattern, flags, expected", [
    (r"AKC[a-z]{10,}", 0, (("AKC",), False)),
    (r"(?:\s|^)AKC\d+", 0, (("AKC",), False)),  # after a group of alternatives
    (r"(?:ghp|gho)_[A-Za-z0-9]{36}", 0, None),  # the parser factors 'gh' out: 'gh', 'p'/'o' and '_' are too short
    (r"(?:token|secret)\s*=", re.I, (("secret", "token"), True)),  # one of the alternatives, lowercased
    (r"(?:token|pw)\s*=", 0, None),  # an alternative too short to test
    (r"(?:abc)?xyz", 0, (("xyz",), False)),  # an optional group is not required
    (r"(?:abcd){0,3}xy", 0, None),
    (r"(?:abcd)+xy", 0, (("abcd",), False)),  # a group repeated at least once is
    (r"(?i:secret)_key", 0, (("_key",), False)),  # a group that changes the flags is not read
    (r"(?i)aws_secret", 0, (("aws_secret",), True)),  # inline flags of the whole pattern
    (r"\bAIza[0-9A-Za-z_-]{35}", 0, (("AIza",), False)),
    (r"[MNO][a-z]{23}\.[a-z]{6}", 0, None),
    (r"(?i)straße", 0, None),  # ignoring case, a literal beyond ASCII is not tested
    (r"straße", 0, (("straße",), False)),
])
def test_required_literals(pattern, flags, expected):
    assert required_literals(re.compile(pattern, flags)) == expected


def _patterns():
    from synth.vet.redact import _EXTRA, _detectors, _multiline

    detectors_ml, extra_ml = _multiline()
    for kind, pairs in detectors_ml:
        for rx, ml in pairs:
            yield rx
            yield ml
    for entry, ml in extra_ml:
        yield entry[1]
        yield ml
    assert _EXTRA and _detectors()[0]


def _texts():
    base = [c[0] for c in CASES] + KEEP
    out = []
    for t in base:
        out += [t, t.upper(), t.lower(), t.swapcase(), "Prefix ß " + t, t + " Straße", "x" * 5 + t]
    return out + ["\n".join(base), "\n".join(base).upper()]


def test_never_rejects_a_text_the_pattern_matches():
    texts = _texts()
    matched = 0
    for rx in _patterns():
        for text in texts:
            if rx.search(text):
                matched += 1
                assert may_match(rx, text, folded_text(text)) and may_match(rx, text), (rx.pattern[:60], text[:80])
    assert matched > 100  # the tables really exercise the patterns


def test_a_text_without_the_literal_is_rejected():
    rx = re.compile(r"\b(AIza[0-9A-Za-z_-]{35})")
    assert not may_match(rx, "plain documentation text")
    assert may_match(re.compile("(?i)secret_key"), "SECRET_KEY=…")
    assert not may_match(re.compile("(?i)secret_key"), "no key here — none")  # beyond ASCII, tested too


def test_ascii_folds_are_every_character_ignorecase_matches_to_an_ascii_letter():
    letter = re.compile("[a-z]", re.IGNORECASE)
    found = {c: chr(c).lower() if chr(c).lower().isascii() else next(a for a in "abcdefghijklmnopqrstuvwxyz"
                                                                         if re.fullmatch(a, chr(c), re.I))
             for c in range(128, 0x110000) if letter.fullmatch(chr(c))}
    assert found == ASCII_FOLDS


@pytest.mark.parametrize("pattern, text", [
    (r"(?i)patch\s+by", "Fix — PATCH BY someone"),
    (r"(?i)patch\s+by", "Fix — PATCH BY someone".replace("A", "a")),
    (r"(?i)kelvin", "\u212aELVIN scale — ok"),  # the Kelvin sign is a k to the engine
    (r"(?i)dismiss", "DI\u017fMI\u017f\u017f ¶"),  # long s
    (r"(?i)bit\b", "B\u0130T ¶"),  # dotted capital I
    (r"(?i)bit\b", "B\u0131T ¶"),  # dotless i
    (r"instead", "Use ``x()`` instead — of y"),
])
def test_non_ascii_texts_the_pattern_matches_are_kept(pattern, text):
    rx = re.compile(pattern)
    assert rx.search(text)
    assert may_match(rx, text) and search(rx, text) and sub(rx, "", text) != text


def test_search_and_sub_skip_a_text_without_the_literal():
    rx = re.compile(r"(?i)\bpatch\s+by\s+\w+")
    assert search(rx, "Nothing — here") is None and sub(rx, "", "Nothing — here") == "Nothing — here"
    assert sub(rx, "", "ok, Patch by Ann") == "ok, "


@pytest.mark.parametrize("pattern, least, expected", [
    (r"\[\s*\]\(", 2, (("](",), False)),  # "](" is rare in prose though short
    (r"\[\s*\]\(", 3, None),
    (r"(?i)(?:patch|pr)\s+(?:by|from)\b|thanks\s+to", 2, (("by", "from", "thanks"), True)),
    (r"\s*:\s*x", 1, ((":",), False)),
])
def test_shorter_literals_on_request(pattern, least, expected):
    assert required_literals(re.compile(pattern), least) == expected


def test_cleaning_patterns_never_skip_a_text_they_match():
    from synth.delta import cleaning

    texts = ["Fixed the parser (patch by Ann Lee).", "See [gh-12](https://x/12) for more", "[](#a) Added `x`",
             "New API. Own Id: OTP-18032 Aux Id: PR-5790", "Thanks to @bob", "Contributed by Ann — thanks",
             "PATCH BY ANN", "Implemented b\u0131 Ann"]
    for name in ("_CREDIT_TAIL", "_ISSUE_LINK", "_EMPTY_LINK", "_TRACKER_TAIL"):
        rx = getattr(cleaning, name)
        hits = [t for t in texts if rx.search(t)]
        assert hits, name
        assert all(may_match(rx, t, min_literal=2) for t in hits), name


# ------------------------------------------------------------------------------------------- required runs
@pytest.mark.parametrize("pattern, flags, bucket, run", [
    (r"\b(gh[pousr]_[A-Za-z0-9_]{20,255})\b", 0, 24, "[g][h][pousr][_][A-Za-z0-9_]{20,255}"),  # prefix + body
    (r"(?:\s|^)AKC[a-zA-Z0-9]{10,}(?:\s|$)", 0, None, None),  # 13 characters: shorter than MIN_RUN
    (r"key\s*=\s*([0-9a-f]{64})", 0, 64, "[0-9a-f]{64,64}"),  # the space breaks the chain
    (r"(?:abc|de)[0-9]{16}", 0, 16, "(?:[a][b][c]|[d][e])[0-9]{16,16}"),  # alternatives: the shortest counts
    (r"[^ ]{40}", 0, None, None),  # a negated class may hold characters beyond the run class
    (r"\s{20}", 0, None, None),
    (r"(?i)[a-z]{24}", 0, 24, "[a-z]{24,24}"),  # with the pattern's flags
    (r"x(?i:[a-z]{30})", 0, None, None),  # a group that changes the flags is not read
    (r"a{0,40}b", 0, None, None),  # an optional run is not required
])
def test_required_run(pattern, flags, bucket, run):
    need = required_run(re.compile(pattern, flags))
    if bucket is None:
        assert need is None
    else:
        assert need is not None and need[0] == bucket and need[1].pattern == run
        assert need[1].flags & re.IGNORECASE == re.compile(pattern, flags).flags & re.IGNORECASE


def test_runs_never_reject_a_text_the_pattern_matches():
    texts = _texts()
    texts += [t.replace(" ", "\u00a0") for t in texts[:50]] + ["\u212a" * 30 + " " + t for t in texts[:20]]
    matched = gated = 0
    for rx in _patterns():
        gated += required_run(rx) is not None
        for text in texts:
            if rx.search(text):
                matched += 1
                assert Runs(text).may_match(rx), (rx.pattern[:60], text[:80])
    assert matched > 100 and gated > 40  # the tables exercise the patterns, most of which have a run


@pytest.mark.parametrize("text, expected", [
    ("plain documentation text, os.path.join(a, b) and a_long_identifier_name", False),
    ("token ghp_" + "a1B2" * 9, True),
    ("x ghp_" + "a1B2" * 4 + " — too short", False),
    ("in a path: /ghp_" + "a1B2" * 9 + "/x", True),
    ("\u212a" * 30, False),
])
def test_runs_reject_a_text_without_the_run(text, expected):
    rx = re.compile(r"(?<![A-Za-z0-9_])(gh[pousr]_[A-Za-z0-9_]{36})(?![A-Za-z0-9_])")
    assert Runs(text).may_match(rx) is expected
    if expected is False:
        assert not rx.search(text)


def test_run_class_holds_every_gated_class():
    """Each class a run is read from lies within the one-pass class: checked on every code point."""
    from synth.core.literals import RUN_CLASS

    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    classes = set()
    for rx in _patterns():
        need = required_run(rx)
        if need is not None:
            flags = need[1].flags & (re.IGNORECASE | re.ASCII)
            classes.update((cls, flags) for cls in re.findall(r"\[(?:\\.|[^\]])+\]", need[1].pattern))
    assert len(classes) > 10
    broad = re.compile(RUN_CLASS)
    for cls, flags in classes:
        members = set(re.findall(cls, every, flags))
        assert members and all(broad.fullmatch(ch) for ch in members), cls
