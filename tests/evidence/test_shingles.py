"""Snippet tokens: the prefix filter never misses a pair the vote counts, and a line's tokens are found at its end
only when it was written as the crawl writes it."""

import json
import random
from array import array
from fractions import Fraction

import pytest

from synth.evidence.consensus import VARIANT, item_snippets
from synth.evidence.item import MAX_TOKENS_CHARS, check_fields, fields_from_json
from synth.evidence.shingles import TOKENS_TAG, fast_shingles, line_tokens, prefix_tokens, snippet_groups, snippet_tokens


def _jaccard(a: frozenset, b: frozenset) -> Fraction:
    return Fraction(len(a & b), len(a | b))


def test_sets_as_similar_as_the_vote_needs_share_a_prefix_token():
    rng = random.Random(5)
    universe = [(f"w{i}".encode(),) * 3 for i in range(40)]
    met = at_threshold = 0
    for _ in range(20000):
        a = frozenset(rng.sample(universe, rng.randint(1, 14)))
        b = set(a)
        for _ in range(rng.randint(0, len(a))):  # replace, drop or add a few shingles
            op = rng.random()
            if op < 0.4 and b:
                b.discard(rng.choice(sorted(b)))
            if op > 0.3:
                b.add(rng.choice(universe))
        b = frozenset(b)
        if not b or _jaccard(a, b) < VARIANT:
            continue
        met += 1
        at_threshold += _jaccard(a, b) == VARIANT
        assert set(prefix_tokens(a)) & set(prefix_tokens(b)), (sorted(a), sorted(b))
    assert met > 3000 and at_threshold > 300  # the table holds many pairs, many exactly at the threshold


@pytest.mark.parametrize("n, kept", [(0, 0), (1, 1), (2, 2), (3, 2), (4, 3), (10, 6), (101, 51)])
def test_prefix_length(n, kept):
    shingles = frozenset((f"a{i}".encode(), b"b", b"c") for i in range(n))
    assert len(prefix_tokens(shingles)) == kept


def test_snippet_tokens_are_each_snippets_prefix():
    excerpts = ["## Heading", "Servers may be stateless behind a load balancer since the June release. Short."]
    blocks = [{"text": "run()", "language": "python"}, {"text": "x = 1\nprint(x)", "language": "python"}]
    snippets = item_snippets(excerpts, blocks)
    field = snippet_tokens(snippets)
    assert field.startswith(TOKENS_TAG) and len(snippets) == 3
    expected = [sorted(set(prefix_tokens(fast_shingles(text)))) for _kind, text in snippets]
    packed = line_tokens(json.dumps({"url": "https://a.example/", "snippet_tokens": field}).encode() + b"\n")
    assert packed is not None and [list(g) for g in snippet_groups(packed)] == expected


@pytest.mark.parametrize("values, groups", [
    ([0], []), ([2, 1, 2, 7, 8, 9], [[7], [8, 9]]), ([2, 0, 1, 5], [[], [5]]),
    ([], None), ([2, 1], None), ([1, 2, 7], None), ([1, 1, 7, 8], None), ([4294967295, 1], None),
])
def test_snippet_groups(values, groups):
    got = snippet_groups(array("I", values).tobytes())
    assert (None if got is None else [list(g) for g in got]) == groups


_FIELD = snippet_tokens([("claim", "Servers may be stateless behind a load balancer since the June release.")])
_LINE = json.dumps({"url": "https://a.example/", "excerpts": ["x"], "snippet_tokens": _FIELD})


@pytest.mark.parametrize("line, found", [
    (_LINE + "\n", True),
    (_LINE, True),  # the last line of a file
    (_LINE + "\r\n", True),
    (_LINE + "  \n", False),  # not as the crawl writes it: read on its words
    (json.dumps({"url": "u", "snippet_tokens": _FIELD}, separators=(",", ":")), False),
    (json.dumps({"url": "u", "snippet_tokens": _FIELD, "title": "t"}), False),  # not the last member
    (json.dumps({"url": "u", "nested": {"snippet_tokens": _FIELD}}), False),  # not the top level's
    (json.dumps({"url": "u", "title": f'x", "snippet_tokens": "{_FIELD}'}), False),  # inside a string
    (json.dumps({"url": "u", "snippet_tokens": _FIELD.replace(TOKENS_TAG, "p50crc32u1.0.0:")}), False),  # another tag
    (json.dumps({"url": "u", "snippet_tokens": _FIELD[:-3]}), False),  # not base64 of whole tokens
    (json.dumps({"url": "u", "snippet_tokens": _FIELD + '\\"'}), False),
    (json.dumps({"url": "u", "snippet_tokens": TOKENS_TAG}), True),  # a page without snippets: no tokens at all
])
def test_line_tokens_are_found_only_as_the_crawl_writes_them(line, found):
    assert (line_tokens(line.encode()) is not None) is found


@pytest.mark.parametrize("value, kept", [(_FIELD, True), (7, False), (None, False), ("x" * (MAX_TOKENS_CHARS + 1), False)])
def test_bad_snippet_tokens_are_no_tokens_not_a_bad_line(value, kept):
    got = check_fields({"url": "https://a.example/", "snippet_tokens": value})
    assert got["snippet_tokens"] == (value if kept else "")
    strict = fields_from_json(json.dumps({"url": "https://a.example/", "snippet_tokens": value}))
    assert (strict is not None) is kept  # the one-call check accepts only a good value; the long way reads the rest
