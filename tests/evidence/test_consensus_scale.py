"""Large docs crawls feed the consensus index thousands of templated near-variants: its work must stay linear."""

import synth.evidence.consensus as consensus


def test_near_variant_families_are_checked_against_a_bounded_candidate_set(monkeypatch):
    calls = []
    real = consensus.jaccard
    monkeypatch.setattr(consensus, "jaccard", lambda a, b: calls.append(1) or real(a, b))
    idx = consensus.ConsensusIndex()
    n = 1500
    for i in range(n):
        idx.add(f"Paragraph {i % 7} of page {i}: the widget API call number {i * 31} configures the frobnicator "
                f"for release {i % 17}.{i % 5} and explains how settings interact with the scheduler.", "docs.example.org", 1.0)
    assert len(calls) <= n * consensus.MAX_CANDIDATES
    assert len(calls) < n * n / 8  # unbounded, every snippet is checked against every earlier variant
    # the same snippet again still lands in an existing cluster
    before = len(idx)
    v = idx.add("Paragraph 3 of page 10: the widget API call number 310 configures the frobnicator "
                "for release 10.0 and explains how settings interact with the scheduler.", "other.example.net", 0.5)
    assert len(idx) == before and idx.agreement(v.cluster) == 2
