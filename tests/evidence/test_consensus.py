import pytest

from synth.evidence.consensus import ConsensusIndex, ExactIndex, claim_sentences, independent_host, is_trusted

CODE = "from mcp.server import Server\nserver = Server('demo')\nserver.run(transport='streamable-http')"
CODE_NEAR = "from mcp.server import Server\nserver = Server('demo')\n\nserver.run(transport='streamable-http')  "
CODE_VARIANT = "from mcp.server import Server\nserver = Server('demo')\nserver.run(transport='sse', port=8080)"


@pytest.fixture(params=[ConsensusIndex, ExactIndex], ids=["minhash-lsh", "exact"])
def Index(request):
    """The crawl's index (MinHash LSH) and the bundle's (every Jaccard exact) cluster alike."""
    return request.param


@pytest.mark.parametrize(
    "host, expected",
    [("docs.python.org", "python.org"), ("peps.python.org", "python.org"), ("a.b.example.co.uk", "example.co.uk"),
     ("127.0.0.1", "127.0.0.1"), ("localhost", "localhost")],
)
def test_independent_host(host, expected):
    assert independent_host(host) == expected


def test_near_duplicates_agree_across_independent_hosts(Index):
    idx = Index()
    a = idx.add(CODE, "docs.example.org", 1.0)
    b = idx.add(CODE_NEAR, "blog.other.net", 0.2)
    c = idx.add(CODE, "www.example.org", 0.5)  # same publisher as a: not independent
    assert a.cluster == b.cluster == c.cluster
    assert idx.agreement(a.cluster) == 2


def test_low_authority_variant_of_authoritative_snippet_conflicts(Index):
    idx = Index()
    idx.add(CODE, "spec.example.org", 1.0)
    v = idx.add(CODE_VARIANT, "medium.com", 0.2)
    assert v.conflict


def test_variant_without_authoritative_version_does_not_conflict(Index):
    idx = Index()
    idx.add(CODE, "blog.a.net", 0.5)
    assert not idx.add(CODE_VARIANT, "blog.b.net", 0.2).conflict


def test_conflict_detected_when_authority_arrives_later(Index):
    idx = Index()
    v = idx.add(CODE_VARIANT, "medium.com", 0.2)
    idx.add(CODE, "spec.example.org", 1.0)
    from synth.evidence.consensus import shingles

    assert idx.conflicts_with_authority(v.cluster, 0.2, shingles(CODE_VARIANT))


def test_unrelated_snippets_do_not_cluster(Index):
    idx = Index()
    a = idx.add(CODE, "a.org", 0.5)
    b = idx.add("The quick brown fox jumps over the lazy dog near the river bank today.", "b.org", 0.5)
    assert a.cluster != b.cluster and len(idx) == 2


@pytest.mark.parametrize(
    "hosts, authority, trusted", [(1, 0.5, False), (2, 0.2, True), (1, 0.8, True), (1, 1.0, True)]
)
def test_is_trusted(hosts, authority, trusted):
    assert is_trusted(hosts, authority) is trusted


def test_claim_sentences_skip_headings_and_fragments():
    ex = ["# Title", "Short one. The server now supports streamable HTTP transport by default. Yes."]
    assert claim_sentences(ex) == ["The server now supports streamable HTTP transport by default."]
