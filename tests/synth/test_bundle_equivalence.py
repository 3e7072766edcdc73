"""The bundle's selection and consensus results on a generated run, compared with a recorded snapshot.

The snapshot (tests/synth/fixtures/bundle_equivalence.json) was recorded with the straightforward
implementation (every snippet of every item shingled and voted) before the vote was made
proportional to what can change the selection; any difference here is a behaviour change.
"""

import json

from tests.synth.bundle_equivalence import FIXTURE, generate, snapshot


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
