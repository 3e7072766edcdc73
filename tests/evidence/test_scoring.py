from datetime import date

import pytest

from synth.evidence.cutoff import CutoffError, resolve_cutoff
from synth.evidence.scoring import authority, combined_score, freshness

TODAY = date(2026, 11, 29)
CUT = date(2026, 1, 1)


@pytest.mark.parametrize(
    "host, authoritative, weight, reason_part",
    [
        ("modelcontextprotocol.io", ["modelcontextprotocol.io"], 1.0, "authoritative"),
        ("docs.modelcontextprotocol.io", ["modelcontextprotocol.io"], 1.0, "authoritative"),
        ("www.modelcontextprotocol.io", ["modelcontextprotocol.io"], 1.0, "authoritative"),
        ("github.com", [], 0.7, "repository"),
        ("gist.github.com", [], 0.2, "gist"),
        ("medium.com", [], 0.2, "blog"),
        ("someone.medium.com", [], 0.2, "blog"),
        ("notmedium.com", [], 0.5, "default"),
        ("example.org", [], 0.5, "default"),
    ],
)
def test_authority(host, authoritative, weight, reason_part):
    w, reason = authority(host, authoritative)
    assert w == weight
    assert reason_part in reason


@pytest.mark.parametrize(
    "published, strict, weight, post, drop",
    [
        (TODAY, False, 1.0, True, None),
        (CUT, False, 0.6, True, None),
        (date(2025, 12, 31), False, 0.5, False, None),
        (date(2025, 12, 31), True, 0.5, False, "pre_cutoff_strict"),
        (None, False, 0.3, False, None),
        (None, True, 0.3, False, "undated_strict"),
        (date(2026, 12, 1), False, 0.0, False, "future_dated"),
    ],
)
def test_freshness(published, strict, weight, post, drop):
    f = freshness(published, CUT, TODAY, strict)
    assert (f.recency_weight, f.post_cutoff, f.drop_reason) == (weight, post, drop)


def test_freshness_decays_linearly():
    mid = date(2026, 6, 15)
    w = freshness(mid, CUT, TODAY).recency_weight
    assert 0.6 < w < 1.0
    assert combined_score(1.0, w) == pytest.approx(w, abs=1e-4)


@pytest.mark.parametrize(
    "model, cutoff_time, expected",
    [
        ("claude-opus-4-8", None, "2026-01"),
        ("claude-sonnet-4-6", None, "2025-08"),
        (None, None, "2026-01"),
        ("unknown-model", "2025-03", "2025-03"),
        ("claude-opus-4-8", "2024-07-15", "2024-07"),
    ],
)
def test_resolve_cutoff(model, cutoff_time, expected):
    assert resolve_cutoff(model, cutoff_time).month == expected


@pytest.mark.parametrize(
    "model, cutoff_time, message_part",
    [("gpt-unknown", None, "cutoff_time"), (None, "2026-13", "2026-13"), (None, "Jan 2026", "cutoff_time")],
)
def test_resolve_cutoff_errors(model, cutoff_time, message_part):
    with pytest.raises(CutoffError, match=message_part):
        resolve_cutoff(model, cutoff_time)
