"""The skill is a function of the pages read, not of the order the crawl happened to fetch them in (16 concurrent
requests return pages in any order): the same items in another order give byte-identical SKILL.md and references."""

from __future__ import annotations

import random

import pytest
from rich.console import Console

from synth.pipeline.options import SynthOptions
from synth.pipeline.run import run_synth
from tests.delta.changes import change as _ch
from tests.pipeline.corpus import make_item, write_jsonl

HOST = "http://docs.acme.example"
BUILD = "2026-10-07"




def _site() -> list[dict]:
    """A build-dated docs site: a dated 3.0 release page, and more API pages with equal-scored 3.0 markers than
    SKILL.md can show (ties everywhere: same kind, section, score; one text stated on two pages; build-date
    stamps on every page)."""
    items = []
    notes = make_item(f"{HOST}/news/3.0.html", published="2026-03-04", topic="acme", cutoff="2026-01",
                      title="Acme 3.0 release notes", excerpts=["Acme 3.0 was released on March 4, 2026."])
    notes.update(page_kind="change", page_version="3.0", date_source="time", changes=[
        _ch("release", "3.0", f"The {w} option now defaults to true.", ["Acme 3.0 release notes", "Changes"])
        for w in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")])
    items.append(notes)
    for i in range(60):
        name = f"Widget{chr(65 + i % 26)}{i:02d}"
        it = make_item(f"{HOST}/api/{name.lower()}.html", published=BUILD, topic="acme", cutoff="2026-01",
                       title=f"{name} — Acme 3.0 documentation", excerpts=[f"The {name} class draws a widget."])
        text = (f"class acme.{name}(size) — Draws a widget of the given size." if i % 7 else
                "The shared drawing context is reused across widgets.")  # one statement on several pages
        it.update(page_kind="doc", changes=[_ch("added", "3.0", text, [f"{name}"], api=f"acme.{name}")])
        items.append(it)
    return items


def _synth(tmp_path, items: list[dict]) -> dict[str, bytes]:
    tmp_path.mkdir()
    feed = write_jsonl(tmp_path / "run.jsonl", items)
    err = Console(file=open(tmp_path / "err.txt", "w"), width=400)
    run = run_synth(SynthOptions(paths=(str(feed),), cutoff_time="2026-01", progress=False, llm_provider="extractive",
                                 topic="acme", output_dir=str(tmp_path / "out"), fail_on_findings=False), console=err)
    err.file.close()
    assert run.exit_code == 0, run.error
    skill = next((tmp_path / "out").rglob("SKILL.md")).parent
    return {str(p.relative_to(skill)): p.read_bytes() for p in sorted(skill.rglob("*.md"))}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_same_pages_in_another_order_give_the_same_skill(tmp_path, seed) -> None:
    items = _site()
    first = _synth(tmp_path / "a", items)
    shuffled = items[:]
    random.Random(seed).shuffle(shuffled)
    again = _synth(tmp_path / "b", shuffled)
    assert list(again) == list(first)
    for name, body in first.items():
        assert again[name] == body, name
    assert b"Added in 3.0" in first["SKILL.md"] or b"3.0" in first["SKILL.md"]
