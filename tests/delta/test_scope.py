"""The cutoff and the since-version, resolved in one function (synth.delta.scope.resolve_scope): given values win,
then what the crawl recorded, then the cutoff table's default; the crawl's record reads back as it was written."""

from __future__ import annotations

from datetime import date

import pytest

from synth.core.errors import CutoffError
from synth.delta.scope import Scope, resolve_scope
from synth.evidence.cutoff import default_model, resolve_cutoff

TODAY = date(2026, 11, 29)
DEFAULT = resolve_cutoff(None, None)
SONNET = resolve_cutoff("claude-sonnet-4-6", None)

# (case, given (target_model, cutoff_time, since_version), recorded, expected (month, source start, model, since))
CASES = [
    ("nothing anywhere: the default model", (None, None, None), None,
     (DEFAULT.month, "default target_model", default_model(), None)),
    ("cutoff_time given", (None, "2025-03", None), None, ("2025-03", "cutoff_time", default_model(), None)),
    ("target_model given", ("claude-sonnet-4-6", None, None), None,
     (SONNET.month, "target_model claude-sonnet-4-6", "claude-sonnet-4-6", None)),
    ("cutoff_time wins over target_model", ("claude-sonnet-4-6", "2024-01", None), None,
     ("2024-01", "cutoff_time", "claude-sonnet-4-6", None)),
    ("recorded cutoff, labelled", (None, None, None), {"cutoff": "2022-11", "target_model": "m"},
     ("2022-11", "crawl.json here", "m", None)),
    ("a given cutoff wins over the recorded one", (None, "2025-01", None), {"cutoff": "2022-11"},
     ("2025-01", "cutoff_time", default_model(), None)),
    ("a given target_model wins over the recorded cutoff", ("claude-sonnet-4-6", None, None), {"cutoff": "2022-11"},
     (SONNET.month, "target_model", "claude-sonnet-4-6", None)),
    ("since_version given, stripped", (None, "2025-01", " 3.24 "), {"since_version": "2.0"},
     ("2025-01", "cutoff_time", default_model(), "3.24")),
    ("since_version recorded", (None, None, None), {"cutoff": "2022-11", "since_version": "OTP 24"},
     ("2022-11", "crawl.json here", default_model(), "OTP 24")),
    ("a malformed recorded since_version is ignored", (None, None, None), {"cutoff": "2022-11", "since_version": "latest"},
     ("2022-11", "crawl.json here", default_model(), None)),
]


@pytest.mark.parametrize("given, recorded, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_resolve_scope(given, recorded, expected) -> None:
    scope = resolve_scope(*given, today=TODAY, recorded=recorded, recorded_from="crawl.json here")
    month, source, model, since = expected
    assert (scope.cutoff.month, scope.target_model, scope.since_version) == (month, model, since)
    assert scope.cutoff.source.startswith(source)


# (case, given, the error's type, a part of its message)
BAD = [
    ("a given since_version that is no version", (None, "2025-01", "latest"), ValueError, "is not a version"),
    ("a cutoff after this month", (None, "2027-01", None), CutoffError, "after this month"),
    ("an unknown target model", ("no-such-model-9", None, None), CutoffError, "unknown target_model"),
]


@pytest.mark.parametrize("given, error, message", [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_bad_values_raise_one_line(given, error, message) -> None:
    with pytest.raises(error, match=message):
        resolve_scope(*given, today=TODAY)


def test_the_crawl_record_reads_back_as_written() -> None:
    scope = resolve_scope("claude-sonnet-4-6", "2024-05", "1.62", today=TODAY)
    record = scope.crawl_json()
    assert record == {"cutoff": "2024-05", "cutoff_source": "cutoff_time", "target_model": "claude-sonnet-4-6",
                      "since_version": "1.62"}
    again = resolve_scope(None, None, None, recorded=record, recorded_from="crawl.json")
    assert (again.cutoff.month, again.target_model, again.since_version) == ("2024-05", "claude-sonnet-4-6", "1.62")
    assert isinstance(again, Scope)
