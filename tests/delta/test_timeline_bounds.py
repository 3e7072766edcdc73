"""The version timeline is bounded and absurd version strings are rejected with a warning: a registry answering
100,000 releases, a 10,000-digit version, in the registry reader, the timeline and a whole `skill3 synth` run."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest
from typer.testing import CliRunner

from skill3.cli.app import app
from skill3crawl.discovery import registries as reg
from synth.delta.timeline import ABSURD_VERSION, MAX_VERSIONS, TIMELINE_FULL, Timeline
from synth.delta.versions import parse_version, plausible_version
from tests.pipeline.corpus import EXAMPLE, parse_sources, write_jsonl

HUGE = "1" * 10_000


@pytest.mark.parametrize("text, ok", [
    ("3.11", True), ("3.11.0 release candidate 2", True), ("v2.0.0", True), ("20240115", True), ("2024.1.15", True),
    ("1.2.3+build.123456789012", True), (HUGE, False), ("1." + "9" * 13, False), ("x" * 65, False), ("", False),
    ("3.11 " + "and so on " * 10, False),
])
def test_plausible_version(text, ok):
    assert plausible_version(text) is ok
    if not ok:
        assert parse_version(text) is None  # never parsed: int() of 10,000 digits raises ValueError


def test_the_timeline_rejects_absurd_versions_and_holds_at_most_max_versions():
    t = Timeline(date(2026, 12, 1))
    assert t.add(HUGE, "2026-01-01", "pypi") is False
    assert t.rejected[0]["reason"] == ABSURD_VERSION and len(t.rejected[0]["version"]) <= 41
    start = date(2000, 1, 1)
    for i in range(MAX_VERSIONS + 1000):
        t.add(f"1.{i}.0", (start + timedelta(days=i % 9000)).isoformat(), "pypi")
    assert len(t.claims) == MAX_VERSIONS and t.overflow == 1000
    assert "1.0.0" not in t.claims and f"1.{MAX_VERSIONS + 999}.0" in t.claims  # the oldest made room
    assert [r["reason"] for r in t.rejected].count(TIMELINE_FULL) == 1
    assert t.status(HUGE, date(2026, 1, 1)).how == "not a version"
    newest = f"1.{MAX_VERSIONS + 999}.0"
    for n in range(40):  # claims per version are bounded too
        t.add(newest, "2024-01-01", f"source-{n}")
    assert len(t.claims[newest]) == 16


def test_a_registry_answering_100k_releases_keeps_the_newest_thousand():
    start = date(1990, 1, 1)
    releases = {f"0.{i}.0": [{"upload_time_iso_8601": (start + timedelta(hours=6 * i)).isoformat() + "T00:00:00Z"}]
                for i in range(100_000)}
    releases[HUGE] = [{"upload_time_iso_8601": "2026-06-01T00:00:00Z"}]
    doc = {"info": {"name": "huge", "project_urls": {}}, "releases": releases}
    pkg = reg.parse_pypi(json.dumps(doc), "https://pypi.org/pypi/huge/json")
    assert len(pkg.releases) == reg.MAX_RELEASES and pkg.dropped_releases == 99_000 and pkg.absurd_versions == 1
    assert pkg.releases[-1].version == "0.99999.0"  # the newest kept, in date order
    assert pkg.release_warning() == ("pypi:huge: kept the newest 1,000 of 100,000 releases; skipped 1 release(s) whose "
                                     "version string is no version (over 64 characters or a number of more than 12 digits)")
    merged = reg.merge_timeline([{"version": f"9.{i}", "date": f"2001-01-{1 + i % 28:02d}", "source": "changelog"}
                                 for i in range(5_000)], [r.as_dict() for r in pkg.releases])
    assert len(merged) == reg.MAX_TIMELINE and merged[-1]["version"] == "0.99999.0"


def test_synth_of_a_run_with_a_100k_timeline_and_a_10000_digit_version(tmp_path):
    items = parse_sources(EXAMPLE)
    items[0]["changes"] = [{"kind": "added", "version": "9" * 4_000, "removed_in": None, "date": "2026-03-01",
                            "text": "Added the thing.", "anchor": None, "heading": "What's new"}]
    feed = write_jsonl(tmp_path / "run.jsonl", items)
    start = date(1980, 1, 1)
    timeline = [{"version": f"0.{i}.0", "date": (start + timedelta(days=i // 6)).isoformat(), "source": "pypi",
                 "url": f"https://pypi.org/project/x/0.{i}.0/"} for i in range(100_000)]
    timeline += [{"version": HUGE, "date": "2026-02-01", "source": "pypi", "url": None}] * 3
    (tmp_path / "crawl.json").write_text(json.dumps({"topic": "mcp", "cutoff": "2026-01", "timeline": timeline}), encoding="utf-8")
    r = CliRunner().invoke(app, ["synth", str(feed), "--llm-provider", "extractive", "--quiet"])
    assert r.exit_code == 0, r.stderr  # before: "internal error (ValueError: Exceeds the limit (4300 digits) …)"
    assert "version string(s) rejected as implausible" in r.stderr and TIMELINE_FULL in r.stderr
    size = (tmp_path / "run.json").stat().st_size
    assert size < 5 * 2**20, size  # before: 51 MB
    man = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    kept = man["delta"]["timeline"]
    assert len(kept) == MAX_VERSIONS and kept[-1]["version"] == "0.99999.0"  # the newest are kept
    assert HUGE not in json.dumps(man) and "9" * 100 not in json.dumps(man)
    assert len(man["crawl"]["timeline"]) == 3_000 and man["crawl"]["timeline_entries"] == 100_003
