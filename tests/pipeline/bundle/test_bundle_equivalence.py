"""The bundle's selection and consensus results on a generated run, compared with a recorded snapshot.

The snapshot (tests/pipeline/bundle/fixtures/bundle_equivalence.json) was recorded with the straightforward
implementation (every snippet of every item shingled and voted) before the vote was made
proportional to what can change the selection; any difference here is a behaviour change.
"""

import json

from tests.pipeline.bundle.bundle_equivalence import FIXTURE, generate, snapshot


def test_bundle_results_match_the_recorded_snapshot(tmp_path):
    expected = json.loads(FIXTURE.read_text(encoding="utf-8"))
    got = snapshot(generate(tmp_path / "run.jsonl"))
    for mode in expected:
        exp, new = expected[mode], got[mode]
        # the most telling parts first, so a failure names what changed
        assert [c["url"] for c in new["candidates"]] == [c["url"] for c in exp["candidates"]], mode
        assert [c["consensus_count"] for c in new["candidates"]] == [c["consensus_count"] for c in exp["candidates"]], mode
        assert new["candidates"] == exp["candidates"], mode
        assert new == exp, mode


import re  # noqa: E402

import pytest  # noqa: E402

from synth.pipeline.bundle import Votes, fast_shingles, item_snippets  # noqa: E402

SIGMA = "ΟΔΥΣΣΕΥΣ ΚΑΙ ΣΙΣΥΦΟΣ ΜΑΖΙ ΣΤΟΝ ΔΡΟΜΟ ΤΗΣ ΙΘΑΚΗΣ."


@pytest.mark.parametrize("candidate, excerpt, code", [
    # code with newlines, quotes and backslashes: JSON escapes stand for non-word characters
    ("import quill\nserver = quill.Server('w')\nserver.run(path=\"C:\\\\tmp\\\\x\")", "", "import quill\nserver = quill.Server('w')\nserver.run(path=\"C:\\\\tmp\\\\x\")"),
    ("The literal \\n in a string is a backslash followed by n, not a newline at all.", "The literal \\n in a string is a backslash followed by n, not a newline at all.", ""),
    # non-ASCII, written escaped (\uXXXX) or raw; final sigma in a sentence of a paragraph
    ("Die Straße über dem Fluß führt zur Brücke am Ende des Tals.", "Intro text here. Die Straße über dem Fluß führt zur Brücke am Ende des Tals.", ""),
    (SIGMA, "ΠΡΩΤΑ ΕΔΩ. " + SIGMA + " ΤΕΛΟΣ ΕΔΩ.", ""),
    # snippets under three words are one 1- or 2-word shingle
    ("run()", "", "run()"),
    ("pip install", "", "pip install"),
])
@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_the_raw_line_test_never_skips_an_item_that_can_vote(candidate, excerpt, code, ensure_ascii):
    votes = Votes()
    votes.add_candidate_snippet(candidate, "a.example", 0.5)
    item = {"url": "https://b.example/p", "excerpts": [excerpt] if excerpt else [], "code_blocks": [{"text": code, "language": ""}] if code else []}
    # the case is meaningful: the exact path finds a shared shingle
    assert any(fast_shingles(t) & votes._all for _k, t in item_snippets(item["excerpts"], item["code_blocks"]))
    assert votes.may_vote(json.dumps(item, ensure_ascii=ensure_ascii).encode())


@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_the_raw_line_test_skips_an_unrelated_item(ensure_ascii):
    votes = Votes()
    votes.add_candidate_snippet("Servers may be stateless behind a load balancer since the June release.", "a.example", 0.5)
    votes.add_candidate_snippet("run()", "a.example", 0.5)
    item = {"url": "https://b.example/p", "excerpts": ["Nothing here matches: tomatoes, basil and olive oil are a salad."],
            "code_blocks": [{"text": "print('hello')\nexit()", "language": "python"}]}
    assert not votes.may_vote(json.dumps(item, ensure_ascii=ensure_ascii).encode())


from synth.evidence.item import _KINDS, MAX_LIST_ENTRIES, MAX_SHORT_CHARS, MAX_TEXT_CHARS, _check, check_fields  # noqa: E402


@pytest.mark.parametrize("field, value", [
    ("title", "t" * MAX_SHORT_CHARS), ("title", "t" * (MAX_SHORT_CHARS + 1)), ("title", None), ("published", None),
    ("final_url", None), ("final_url", "https://x.example/" + "p" * 9000), ("authority", 1), ("authority", 0.25),
    ("authority", float("nan")), ("authority", True), ("post_cutoff", False), ("post_cutoff", 0), ("consensus_count", 3),
    ("excerpts", ["a", "b"]), ("excerpts", ["a"] * (MAX_LIST_ENTRIES + 5)), ("excerpts", ["x" * (MAX_TEXT_CHARS + 1)]),
    ("excerpts", ["a", 1]), ("excerpts", "a"), ("agreeing_urls", ["https://a.example/"]), ("code_blocks", [{"text": "x", "language": None}]),
])
def test_field_check_fast_paths_equal_the_general_check(field, value):
    data = {"url": "https://x.example/p", field: value}
    try:
        expected = {k: _check(k, _KINDS[k], v) for k, v in data.items()}
    except ValueError as exc:
        with pytest.raises(ValueError, match=re.escape(str(exc))):
            check_fields(data)
        return
    got = check_fields(data)
    assert got == expected and all(type(got[k]) is type(expected[k]) for k in got)


from datetime import date  # noqa: E402
from pathlib import Path  # noqa: E402

import synth.pipeline.bundle as bundle_module  # noqa: E402
from synth.pipeline.bundle import MAX_HOSTS_PER_CLUSTER, rank_sources  # noqa: E402

SHARED = "Servers started with the stateless flag keep no session between requests in this release."
VARIANT_OF_SHARED = "Servers started with the stateless flag keep no session between requests in the new release."


def _capped_run(path: Path, authoritative_variant_at: int) -> Path:
    """A snippet copied on more independent hosts than the cap, then (at line ``authoritative_variant_at``) an
    authoritative page publishing a variant of it: the low-authority copies kept as candidates must drop it."""
    lines = []
    for i in range(MAX_HOSTS_PER_CLUSTER * 2):
        host = f"www.site{i}-example.org"
        lines.append({"url": f"https://{host}/p", "host": host, "authority": 0.6, "published": "2026-05-01",
                      "excerpts": [f"Intro {i} words here for page {i}. {SHARED}"], "code_blocks": []})
    # a boilerplate page (damped): not a candidate itself, so only the run-wide vote sees its variant
    lines.insert(authoritative_variant_at, {"url": "https://docs.quill.example/copyright", "host": "docs.quill.example",
                                            "authority": 0.9, "published": "2025-05-01", "excerpts": [VARIANT_OF_SHARED]})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("variant_at", [0, MAX_HOSTS_PER_CLUSTER + 20])
def test_a_cluster_at_the_host_cap_stops_voting_without_changing_the_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                             variant_at: int) -> None:
    path = _capped_run(tmp_path / "run.jsonl", variant_at)
    kw = {"cutoff_start": date(2026, 1, 1), "today": date(2026, 11, 29), "max_candidates": 6}
    retired = []
    real = bundle_module.Votes._retire_if_decided

    def counting(self: bundle_module.Votes, cid: int) -> None:
        before = len(self._all)
        real(self, cid)
        retired.append(before - len(self._all))

    monkeypatch.setattr(bundle_module.Votes, "_retire_if_decided", counting)
    fast = rank_sources([str(path)], **kw)
    monkeypatch.setattr(bundle_module.Votes, "_retire_if_decided", lambda self, cid: None)
    slow = rank_sources([str(path)], **kw)
    assert any(retired)  # the cluster left the index (after the authoritative variant, wherever it is)
    assert [(c.url, c.consensus_count, c.excerpts, c.dropped_snippets) for c in fast.candidates] == \
        [(c.url, c.consensus_count, c.excerpts, c.dropped_snippets) for c in slow.candidates]
    assert "https://docs.quill.example/copyright" not in [c.url for c in fast.candidates]
    assert fast.candidates and all(c.dropped_snippets for c in fast.candidates)  # the authoritative variant counted


def test_a_page_below_the_worst_kept_is_refused_as_push_would() -> None:
    from synth.pipeline.bundle import Candidate, Heap, SourceItem

    heap = Heap(2)
    for i, score in enumerate((0.5, 0.3)):
        c = Candidate(item=SourceItem(url=f"https://a.example/{i}"), where="", authority=0.5, recency_weight=1.0,
                      post_cutoff=True, combined_score=score)
        c.rescore()
        heap.push(c)
    worst = min(c.rank_score for c in heap.ranked())
    assert heap.full() and "https://a.example/1" in heap and worst > 0
    assert heap.below_worst(worst * 0.99) and not heap.below_worst(worst) and not heap.below_worst(worst * 1.01)


from synth.pipeline.bundle import lower_words  # noqa: E402

_WORD = re.compile(r"\w+")
_ODD = list("ÀéßΣσςΑΒ ¶—–“”‘’…·\u00a0\u0085\u2028\u200b\u0301\u0345İıſ\u212aK٣²½ⅫＡ中文字\U0001f600\U0001d400_") + ["\ud800", "\udfff"]


@pytest.mark.parametrize("text", [
    "", "plain ASCII words, with_under_scores and CAPS", "Überall — “quoted” ¶", SIGMA, "ΑΣ.Β ΑΣ'Β", "x\u0301y",
    "K\u212aelvin İstanbul ıı ſs", "a\ud800b", "١٢٣ ٣rd ½ Ⅻ", "mixed\u00a0nbsp\u2028line", "tab\tand\x1cfile sep",
])
def test_lower_words_is_the_regex_split(text):
    assert _words(text) == _WORD.findall(text.lower())


def _words(text):
    return [w.decode("utf-8", "surrogatepass") for w in lower_words(text)]


def test_lower_words_is_the_regex_split_on_random_texts():
    import random

    rng = random.Random(5)
    pool = [chr(c) for c in range(32, 127)] + _ODD
    texts = ["".join(rng.choice(pool) for _ in range(rng.randint(0, 40))) for _ in range(20_000)]
    assert sum(not t.isascii() for t in texts) > 15_000
    assert [_words(t) for t in texts] == [_WORD.findall(t.lower()) for t in texts]


def test_the_raw_line_test_reads_a_line_that_is_not_utf8_as_the_parser_does():
    """An invalid byte is read as a replacement character, which is not a word character: "caf\\xff bar" is the
    words "caf", "bar" to the parser, so the raw-line test must see them too."""
    votes = Votes()
    votes.add_candidate_snippet("caf bar baz", "a.example", 0.5)
    line = json.dumps({"url": "https://b.example/p", "excerpts": ["Über caf\x00 bar baz."]}, ensure_ascii=False)
    raw = line.encode().replace(b"\\u0000", b"\xff")
    assert votes.may_vote(raw)
    assert not votes.may_vote(raw.replace(b"caf\xff", b"cafe"))


import random  # noqa: E402

import synth.pipeline.bundle.vote as vote_module  # noqa: E402


def test_snippet_tokens_give_the_recorded_snapshot(tmp_path, monkeypatch):
    """The same run with each line's snippet tokens at its end: the vote decides from them which lines to parse,
    and every result is the recorded one."""
    decided = []
    real = vote_module.line_tokens

    def counting(raw):
        found = real(raw)
        decided.append(found is not None)
        return found

    monkeypatch.setattr(vote_module, "line_tokens", counting)
    expected = json.loads(FIXTURE.read_text(encoding="utf-8"))
    got = snapshot(generate(tmp_path / "run.jsonl", tokens=True))
    assert sum(decided) > 0.9 * len(decided)  # the tokens decided (the line that is not UTF-8 is read on its words)
    for mode in expected:
        assert [c["consensus_count"] for c in got[mode]["candidates"]] == [c["consensus_count"] for c in expected[mode]["candidates"]], mode
        assert got[mode] == expected[mode], mode


_UNRELATED = ("claim", "Tomatoes, basil and olive oil make a salad on any summer day at all.")


def _tokens_run(path: Path, lying: bytes, snippets: list) -> Path:
    """A candidate's snippet copied by a second host whose line carries the tokens of ``snippets``."""
    from synth.evidence.shingles import snippet_tokens

    a = {"url": "https://a.example/p", "host": "a.example", "authority": 0.6, "published": "2026-05-01", "excerpts": [SHARED]}
    b = {"url": "https://b.example/p", "host": "b.example", "authority": 0.6, "published": "2020-05-01", "title": "B",
         "excerpts": [SHARED], "snippet_tokens": snippet_tokens(snippets)}
    path.write_bytes((json.dumps(a) + "\n").encode() + json.dumps(b).encode().replace(b'"title": "B', b'"title": "' + lying + b"B") + b"\n")
    return path


@pytest.mark.parametrize("lying, snippets, agreement", [
    (b"", [("claim", SHARED)], 2),  # its own tokens: it votes
    (b"", [_UNRELATED], 1),  # read as it is, its tokens decide, and they meet no candidate's (a hand-edited line loses its vote)
    (b"\xff", [_UNRELATED], 2),  # not UTF-8: read with a replacement character, so its tokens are not used: its words vote
    (b"", [("claim", SHARED), _UNRELATED], 2),  # tokens of two snippets on a page of one: every snippet votes on its words
])
def test_tokens_decide_only_for_lines_read_as_they_are(tmp_path: Path, lying: bytes, snippets: list, agreement: int) -> None:
    path = _tokens_run(tmp_path / "run.jsonl", lying, snippets)
    r = rank_sources([str(path)], cutoff_start=date(2026, 1, 1), today=date(2026, 11, 29))
    [c] = [c for c in r.candidates if c.url == "https://a.example/p"]
    assert c.consensus_count == agreement


def test_the_vectorised_token_test_is_the_line_by_line_one(monkeypatch):
    from array import array

    rng = random.Random(3)
    votes = Votes()
    for i in range(300):
        votes.add_candidate_snippet(" ".join(f"w{rng.randrange(5000)}" for _ in range(12)), f"h{i}.example", 0.5)
    prefix = sorted(votes._prefix)
    packed = []
    for _ in range(3000):  # unrelated tokens, a few with one of the prefix's, some with none at all
        tokens = [rng.getrandbits(32) for _ in range(rng.randrange(0, 40))]
        if rng.random() < 0.05:
            tokens.append(rng.choice(prefix))
        packed.append(array("I", tokens).tobytes())
    vectorised = votes.meeting(packed)
    monkeypatch.setattr(vote_module, "NUMPY_LINES", 10**9)
    assert vectorised == votes.meeting(packed) and 50 < len(vectorised) < 300
