"""The preview explains every source, in the ranking's score order, with the same scores `--dry-run` prints: kept,
left out, quarantined (the rule and the text it matched), dropped (future-dated …), a stale page said to be stale.
Checked in a real headless Chromium: the page's DOM, and a screenshot at 1280 px."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from synth.output.preview import source_rows
from synth.pipeline.options import SynthOptions
from synth.pipeline.run import run_synth
from tests.pipeline.corpus import EXAMPLE

FUTURE = "https://news.example.com/mcp-3-preview"
STALE = "https://blog.example.com/mcp-in-2025"
INJECTION = "https://dev.to/sample-author/mcp-python-2-in-five-minutes"  # the example corpus's injection page


EXTRA = f"""
=== SOURCE ===
url: {FUTURE}
title: MCP 3 preview
date: 2099-03-01

MCP 3 adds streaming tool results to the protocol, so a long-running tool can report partial output to the client.

Servers announce the new capability at initialisation, and clients that do not ask for streaming keep receiving one
final result as before. The draft also changes how progress notifications relate to the streamed chunks.

Implementers should read the migration notes before switching a production server to the new revision.

=== SOURCE ===
url: {STALE}
title: MCP in 2025
date: 2025-03-01

Model Context Protocol servers expose tools and resources over stdio; the SSE transport is the way to reach a remote
server, and most clients in 2025 still speak it.

This post walks through writing a small weather server, registering two tools and one resource, and connecting it to
a desktop client. It was written for the protocol revision that was current in early 2025.

Later posts will cover authorization and deployment behind a reverse proxy.
"""


def run_folder(tmp_path: Path) -> Path:
    """A real `skill3 learn` of the example corpus plus a future-dated and a stale page (crawl and synthesis)."""
    from tests.harness import skill3

    corpus = tmp_path / "mcp.sources"
    corpus.write_text(EXAMPLE.read_text(encoding="utf-8") + EXTRA, encoding="utf-8")
    out = tmp_path / "out"
    r = skill3("learn", "mcp", "--input-file", str(corpus), "--output-dir", str(out), "--llm-provider", "extractive",
               "--cutoff-time", "2026-01", "-s", "SKILL3_TODAY=2026-11-29", timeout=240)
    assert r.returncode in (0, 3), r.stderr[-2000:]
    return out


def test_every_source_with_its_decision_and_reason_in_score_order(tmp_path: Path) -> None:
    out = run_folder(tmp_path)
    man = json.loads((out / "run.json").read_text())
    rows = source_rows(man)
    by_url = {r["url"]: r for r in rows}
    assert by_url[INJECTION]["status"] == "quarantined"
    assert "SKILL3-INJECT-OVERRIDE" in by_url[INJECTION]["why"] and "Ignore all previous instructions" in by_url[INJECTION]["why"]
    assert by_url[FUTURE]["status"] == "dropped" and "future-dated" in by_url[FUTURE]["why"]
    assert "not after the 2026-01 cutoff" in by_url[STALE]["why"]
    scored = [r["score"] for r in rows if r["score"] is not None]
    assert scored == sorted(scored, reverse=True) and len(scored) == len(man["sources"])
    assert {r["url"] for r in rows if r["score"] is not None} == {s["url"] for s in man["sources"]}


def test_dry_run_and_the_run_show_the_same_scores_and_decisions(tmp_path: Path) -> None:
    out = run_folder(tmp_path)
    man = json.loads((out / "run.json").read_text())
    report = run_synth(SynthOptions(paths=(str(out / "run.jsonl"),), llm_provider="extractive", dry_run=True,
                                    cutoff_time="2026-01", today="2026-11-29", progress=False)).dry_run
    assert report is not None
    dry = {url: (round(score, 6), decision) for url, score, decision in report.rows()}
    words = {"kept": "in bundle", "left-out": "not in bundle", "quarantined": "quarantined"}
    run = {r["url"]: (round(r["score"], 6), words[r["status"]]) for r in source_rows(man) if r["score"] is not None}
    assert dry == run
    assert dry[INJECTION][1] == "quarantined"  # never "in bundle: yes"


class _Rows(HTMLParser):
    """The rows of the preview's sources table as the browser serialised them."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag == "tr" and "src" in (a.get("class") or "").split():
            self.rows.append({"status": a.get("data-status"), "cells": []})
        elif tag == "td" and self.rows and self.cell is None:
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self.cell is not None:
            self.rows[-1]["cells"].append("".join(self.cell).strip())
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def chromium(*args: str, tmp_path: Path) -> subprocess.CompletedProcess:
    exe = os.environ.get("SKILL3_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(exe).exists():
        pytest.skip("chromium not installed (set SKILL3_CHROMIUM)")
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    return subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                           "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
                           *args], capture_output=True, text=True, timeout=120)


@pytest.mark.chromium
def test_the_preview_in_headless_chromium_lists_every_source_and_renders_at_1280px(tmp_path: Path) -> None:
    out = run_folder(tmp_path)
    index = (out / "index.html").as_uri()
    dom = chromium("--dump-dom", index, tmp_path=tmp_path)
    assert dom.returncode == 0, dom.stderr[-2000:]
    parser = _Rows()
    parser.feed(dom.stdout)
    rows = parser.rows
    man = json.loads((out / "run.json").read_text())
    assert len(rows) == len(source_rows(man)) >= len(man["sources"]) + 1
    statuses = [r["status"] for r in rows]
    assert {"kept", "quarantined", "dropped"} <= set(statuses)
    scores = [float(r["cells"][1]) for r in rows if r["cells"][1]]
    assert scores == sorted(scores, reverse=True)
    quarantined = next(r for r in rows if r["status"] == "quarantined")
    assert quarantined["cells"][3] == "quarantined" and "Ignore all previous instructions" in quarantined["cells"][4]
    assert quarantined["cells"][5] == INJECTION
    future = next(r for r in rows if r["cells"][5] == FUTURE)
    assert future["status"] == "dropped" and "future-dated" in future["cells"][4]
    assert re.search(r"Delta recall", dom.stdout)  # the recall card
    png = tmp_path / "preview.png"
    shot = chromium(f"--screenshot={png}", "--window-size=1280,2400", "--hide-scrollbars", index, tmp_path=tmp_path)
    assert png.is_file(), shot.stderr[-2000:]
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(data[16:20], "big") == 1280 and len(data) > 20_000


def test_each_kind_of_decision_is_explained() -> None:
    """A manifest as the run writes it: every reason the preview gives, one row each (pure)."""
    man = {
        "cutoff": {"month": "2026-01"},
        "sources": [
            {"rank": 1, "url": "https://a.test/kept", "rank_score": 0.9, "selected": True, "post_cutoff": True,
             "published": "2026-05-01", "reasons": ["authority 1.00 (official)"]},
            {"rank": 2, "url": "https://b.test/lost", "rank_score": 0.5, "selected": True, "post_cutoff": True,
             "published": "2026-04-01", "reasons": []},
            {"rank": 3, "url": "https://c.test/cut", "rank_score": 0.2, "selected": False, "post_cutoff": False,
             "published": "2025-02-01", "reasons": []},
        ],
        "conflicts": {"dropped": [{"api": "frob.open()", "loser": "https://b.test/lost", "winner": "https://a.test/kept",
                                   "advice": "avoid", "dropped": "Use frob.open() for every connection."}]},
        "inputs": {"read": {"dropped_items": [{"url": "https://d.test/old", "reason": "pre_cutoff", "published": "2025-01-01"}]}},
        "crawl": {"dropped_items": [{"url": "https://e.test/private", "reason": "robots"},
                                    {"url": "https://e.test/huge", "reason": "oversized"}],
                  "duplicates": {"https://a.test/kept": ["https://mirror.test/kept"]},
                  "summary": {"robots_denied": 1, "dropped": {"oversized": 1}}},
    }
    why = {r["url"]: (r["status"], r["why"]) for r in source_rows(man)}
    assert why["https://a.test/kept"] == ("kept", "authority 1.00 (official)")
    assert why["https://b.test/lost"][0] == "kept" and "contradicted on frob.open()" in why["https://b.test/lost"][1]
    assert why["https://c.test/cut"][0] == "left-out" and "below the bundle's cut" in why["https://c.test/cut"][1]
    assert "published 2025-02-01, not after the 2026-01 cutoff" in why["https://c.test/cut"][1]
    assert why["https://d.test/old"] == ("dropped", "pre-cutoff: published before the training cutoff (--strict-cutoff)")
    assert why["https://e.test/private"] == ("dropped", "by the crawl: robots.txt forbids it")
    assert why["https://e.test/huge"][1].startswith("by the crawl: oversized")
    assert why["https://mirror.test/kept"] == ("dropped", "duplicate of https://a.test/kept")
    assert [r["url"] for r in source_rows(man)][:3] == ["https://a.test/kept", "https://b.test/lost", "https://c.test/cut"]
