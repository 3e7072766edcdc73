
import pytest

from synth.evidence.cutoff import resolve_cutoff
from synth.pipeline.bundle import (
    BundleError,
    estimate_tokens,
    rank_sources,
    select_evidence,
    source_tokens,
    to_bundle,
)
from tests.pipeline.corpus import EXAMPLE, TODAY, make_item, parse_sources, write_jsonl

START = resolve_cutoff(None, "2026-01").start
CODE = "from mcp.server.mcpserver import MCPServer\nserver = MCPServer('weather')\nserver.run(transport='streamable-http', stateless=True)"
CODE_VARIANT = "from mcp.server.mcpserver import MCPServer\nserver = MCPServer('weather')\nserver.run(transport='sse', port=8080, stateless=False)"
PARA = "The Streamable HTTP transport no longer requires a session and servers may be stateless behind a load balancer."


def rank(tmp_path, items, **kw):
    return rank_sources([str(write_jsonl(tmp_path / "run.jsonl", items))], cutoff_start=START, today=TODAY, **kw)


@pytest.mark.parametrize(
    "items, expected_order",
    [
        # authoritative post-cutoff beats a repository, which beats a blog; fresher wins among equals
        ([make_item("https://blog.medium.com/a", published="2026-10-01"),
          make_item("https://github.com/o/r", published="2026-03-01"),
          make_item("https://spec.example.org/x", published="2026-02-01", authoritative=["spec.example.org"])],
         ["https://spec.example.org/x", "https://github.com/o/r", "https://blog.medium.com/a"]),
        # post-cutoff beats pre-cutoff beats undated at equal authority
        ([make_item("https://a.example/undated", published=None),
          make_item("https://b.example/old", published="2025-06-01"),
          make_item("https://c.example/new", published="2026-02-01")],
         ["https://c.example/new", "https://b.example/old", "https://a.example/undated"]),
        # ties broken deterministically by URL
        ([make_item("https://z.example/p", published="2026-05-01"), make_item("https://a.example/p", published="2026-05-01")],
         ["https://a.example/p", "https://z.example/p"]),
    ],
)
def test_ranking(tmp_path, items, expected_order):
    assert [c.url for c in rank(tmp_path, items).candidates] == expected_order


@pytest.mark.parametrize(
    "published, strict, kept, reason",
    [("2027-01-01", False, False, "future_dated"), ("2025-06-01", True, False, "pre_cutoff_strict"),
     (None, True, False, "undated_strict"), ("2025-06-01", False, True, None), ("2026-06-01", True, True, None)],
)
def test_drop_rules(tmp_path, published, strict, kept, reason):
    items = [make_item("https://x.example/p", published=published), make_item("https://keep.example/q", published="2026-02-02")]
    r = rank(tmp_path, items, strict=strict)
    assert ("https://x.example/p" in [c.url for c in r.candidates]) is kept
    if reason:
        assert r.report.dropped[reason] == 1


def test_duplicate_urls_from_several_workers_are_kept_once(tmp_path):
    a = make_item("https://x.example/p", published="2026-06-01")
    p1 = write_jsonl(tmp_path / "w1.jsonl", [a])
    p2 = write_jsonl(tmp_path / "w2.jsonl", [a, make_item("https://y.example/q")])
    r = rank_sources([str(p1), str(p2)], cutoff_start=START, today=TODAY)
    assert sorted(c.url for c in r.candidates) == ["https://x.example/p", "https://y.example/q"]


def test_malformed_lines_counted_with_locations(tmp_path):
    p = write_jsonl(tmp_path / "run.jsonl", [make_item("https://x.example/p")], ["{not json", '{"title": "no url"}', "[1, 2]"])
    r = rank_sources([str(p)], cutoff_start=START, today=TODAY)
    assert r.report.malformed == 3
    assert r.report.malformed_at[0].startswith(f"{p}:2:")
    assert r.report.malformed_at[1].startswith(f"{p}:3:")


def test_no_valid_item_is_a_bundle_error(tmp_path):
    p = write_jsonl(tmp_path / "run.jsonl", [], ["{oops", ""])
    with pytest.raises(BundleError, match=r"no valid source item.*run.jsonl:1"):
        rank_sources([str(p)], cutoff_start=START, today=TODAY)


def test_consensus_recomputed_across_the_whole_run(tmp_path):
    items = [make_item("https://github.com/o/r", code=[("python", CODE)], excerpts=[PARA])]
    # 30 low-ranked copies on independent hosts: they fall out of the candidate heap but still vote
    items += [make_item(f"https://h{i}.medium.com/p", published=None, code=[("python", CODE)]) for i in range(3)]
    items += [make_item(f"https://blog{i}.example{i}.net/p", published="2025-01-01", excerpts=[PARA]) for i in range(30)]
    r = rank_sources([str(write_jsonl(tmp_path / "run.jsonl", items))], cutoff_start=START, today=TODAY, max_candidates=2)
    top = r.candidates[0]
    assert top.url == "https://github.com/o/r"
    assert top.code_blocks[0]["consensus"] == 2  # github.com + medium.com (one publisher)
    assert top.consensus_count == 31  # the claim: github + 30 blogs


def test_low_authority_variant_of_authoritative_snippet_is_dropped(tmp_path):
    items = [
        make_item("https://spec.example.org/a", code=[("python", CODE)], authoritative=["spec.example.org"]),
        make_item("https://dev.to/u/post", code=[("python", CODE_VARIANT)], published="2026-10-01"),
        make_item("https://other.example/p", code=[("python", CODE_VARIANT)], published="2026-10-01"),
    ]
    r = rank(tmp_path, items)
    by = {c.url: c for c in r.candidates}
    assert by["https://spec.example.org/a"].code_blocks
    assert by["https://dev.to/u/post"].code_blocks == []
    assert by["https://other.example/p"].code_blocks == []
    assert by["https://other.example/p"].dropped_snippets[0]["reason"] == "conflicts with the authoritative version"


def test_low_authority_code_without_consensus_is_structure_only(tmp_path):
    r = rank(tmp_path, [make_item("https://dev.to/u/p", code=[("python", "print('only here, nowhere else, a lonely snippet')")])])
    assert r.candidates[0].code_blocks == []


def _cands(tmp_path, n_auth, n_other, size):
    text = "word " * size
    items = [make_item(f"https://spec.example.org/{i}", excerpts=[text + str(i)], authoritative=["spec.example.org"]) for i in range(n_auth)]
    items += [make_item(f"https://other{i}.example/p", excerpts=[text + str(i)], published="2026-11-01") for i in range(n_other)]
    return rank(tmp_path, items).candidates


@pytest.mark.parametrize(
    "n_auth, n_other, size, budget, can_condense, mode",
    [(2, 2, 50, 5000, True, "direct"), (2, 2, 50, 5000, False, "direct"),
     (3, 6, 800, 1500, True, "map-reduce"), (3, 6, 800, 1500, False, "trimmed"), (8, 2, 800, 1500, False, "trimmed")],
)
def test_selection_modes_and_budget(tmp_path, n_auth, n_other, size, budget, can_condense, mode):
    cands = _cands(tmp_path, n_auth, n_other, size)
    sel = select_evidence(cands, budget, can_condense=can_condense)
    assert sel.mode == mode
    urls = [c.url for c in sel.sources]
    # the authoritative post-cutoff sources always make it in
    assert all(f"https://spec.example.org/{i}" in urls for i in range(n_auth))
    if mode == "trimmed":
        assert sum(source_tokens(c) for c in sel.sources) <= budget
        assert sel.note and (sel.trimmed or sel.excluded)
    if mode == "map-reduce":
        assert "condensed" in sel.note


def test_bundle_shape_follows_spec(tmp_path):
    r = rank(tmp_path, parse_sources(EXAMPLE))
    b = to_bundle(select_evidence(r.candidates, 100000), skill_name="mcp", target_model="claude-opus-4-8", cutoff="2026-01")
    assert set(b) == {"skill_name", "target_model", "cutoff", "sources"}
    s = b["sources"][0]
    for key in ("url", "authority", "published", "post_cutoff", "recency_weight", "combined_score", "consensus_count", "excerpts", "code_blocks"):
        assert key in s
    assert all(isinstance(c, str) for c in s["code_blocks"])
    # ranked by the rank score (combined score × delta × relevance × boilerplate prior × consensus)
    assert [x["rank_score"] for x in b["sources"]] == sorted((x["rank_score"] for x in b["sources"]), reverse=True)


@pytest.mark.parametrize("text, tokens", [("", 0), ("abcdefg", 2), ("x" * 3500, 1000)])
def test_token_heuristic(text, tokens):
    assert estimate_tokens(text) == tokens


def test_memory_does_not_grow_with_the_crawl(tmp_path):
    import random
    import tracemalloc

    def feed(n):
        rng = random.Random(n)
        words = [f"w{i}" for i in range(3000)]
        items = [make_item(f"https://h{i % 700}.example/p{i}", published=f"2026-0{1 + i % 9}-1{i % 9}",
                           excerpts=[" ".join(rng.choice(words) for _ in range(60)) + "."] * 2) for i in range(n)]
        return write_jsonl(tmp_path / f"r{n}.jsonl", items)

    peaks = {}
    for n in (300, 2400):
        path = feed(n)
        tracemalloc.start()
        rank_sources([str(path)], cutoff_start=START, today=TODAY)
        peaks[n] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peaks[2400] < peaks[300] * 1.5, peaks  # 8x the items, about the same peak


def test_candidate_item_round_trip_for_vetting(tmp_path):
    items = [make_item("https://github.com/o/r", excerpts=[PARA + " key sk-live-123456"], code=[("python", CODE)]),
             make_item("https://mirror.example/r", code=[("python", CODE)])]
    c = rank(tmp_path, items).candidates[0]
    item = c.to_item()
    assert item.excerpts == c.excerpts and item.code_blocks[0]["text"] == CODE
    item.excerpts = [e.replace("sk-live-123456", "[REDACTED]") for e in item.excerpts]
    item.code_blocks[0]["text"] = CODE.replace("weather", "[REDACTED]")
    item.redactions = 2
    c.update_from_item(item)
    assert "[REDACTED]" in c.excerpts[0] and c.code_blocks[0]["consensus"] == 2 and "[REDACTED]" in c.code_blocks[0]["text"]
    assert c.item.redactions == 2


def test_code_holding_a_fence_stays_one_block_in_the_bundle():
    from synth.evidence.item import SourceItem
    from synth.pipeline.bundle import Candidate, render_source
    from synth.skill.markdown import code_block_texts

    code = "print('''\n```\nnot the end\n```\n''')"
    item = SourceItem(url="https://docs.example.org/a", title="A")
    cand = Candidate(item=item, where="docs", authority=1.0, recency_weight=1.0, post_cutoff=True, combined_score=1.0,
                     excerpts=["x"], code_blocks=[{"language": "python", "text": code}])
    assert [t.rstrip("\n") for t in code_block_texts(render_source(1, cand))] == [code]
