"""Nothing stale presented as current, with a model too: a small fake internet where a 3.0 changelog (post-cutoff,
authoritative) says `Client.read()` no longer returns a list of chunks, while a pre-cutoff legacy page of the same
docs and a 2025 blog post still say it does.

`skill3 synth` runs against a loopback OpenAI-compatible model (the stub, which writes what a model might: the stale
lines with their citations, the fresh ones, a stale line from memory) and, when ``SKILL3_REAL_LLM_URL`` is set, the real
local model (scripts/real-llm.sh). Whatever the model writes: the bundle marks the pre-cutoff sources and never carries
their contradicted sentences, SKILL.md states none of them as current, and the footer says truthfully what the cited
sources were.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skill3.cli.app import app
from tests.mockserver import StubLLM
from tests.pipeline.corpus import make_item, write_jsonl

CHANGELOG = "http://docs.widgets.test/changelog.html"
LEGACY = "http://docs.widgets.test/legacy/read.html"
BLOG = "http://blog.example.test/2025/reading-widgets.html"
AUTH = ("docs.widgets.test",)


def world() -> list[dict]:
    kw = dict(topic="widgets", authoritative=AUTH)
    return [
        make_item(CHANGELOG, published="2026-03-01", title="Changelog — Widgets 3.0", **kw, excerpts=[
            "Widgets 3.0 was released on March 1, 2026.",
            "`Client.read()` now returns the whole body as `bytes`; it no longer returns a list of chunks.",
            "Use `Client.stream()` to iterate over a large body as it arrives."]),
        make_item(LEGACY, published="2024-05-01", title="Reading responses (legacy)", **kw, excerpts=[
            "`Client.read()` returns the response body as a list of chunks.",
            "Each chunk of a response is at most 64 KiB long."]),
        make_item(BLOG, published="2025-06-01", title="Reading widgets the easy way", topic="widgets", excerpts=[
            "In our tests `client.read()` returns it as a list of chunks, which we join ourselves."]),
    ]


def numbers(prompt: str) -> dict[str, int]:
    """url → source number, as the prompt fences them."""
    return {m.group(2): int(m.group(1)) for m in re.finditer(r"<<<SOURCE (\d+) \w+>>>\ntitle: [^\n]*\nurl: (\S+)", prompt)}


def stale_model(body: dict) -> str:
    """A model that repeats the old pages and its own memory next to the changelog, each line cited."""
    prompt = body["messages"][1]["content"]
    n = numbers(prompt)
    fresh, legacy, blog = n.get(CHANGELOG, 1), n.get(LEGACY, 2), n.get(BLOG, 3)
    return f"""---
name: widgets
description: What changed in Widgets 3.0 after the 2026-01 cutoff, for code that reads responses.
---
# Widgets after 2026-01

## Overview / When to use
Widgets 3.0 changed how responses are read [{fresh}].

## Instructions
- `Client.read()` returns the response body as a list of chunks [{legacy}].
- `client.read()` returns it as a list of chunks, which you join yourself [{blog}].
- `Client.read()` now returns the whole body as `bytes`; it no longer returns a list of chunks [{fresh}].
- Use `Client.stream()` to iterate over a large body as it arrives [{fresh}].
- Each chunk of a response is at most 64 KiB long [{legacy}].
- Remember that `Client.read()` returns a list of chunks.
"""


def synth(feed: Path, url: str, model: str, *extra: str):
    r = CliRunner().invoke(app, ["synth", str(feed), "--llm-provider", "openai", "--llm-endpoint", url, "--llm-model", model,
                                 "--cutoff-time", "2026-01", "--quiet", *extra])
    return r


def _stated_as_current(skill_md: str) -> list[str]:
    """Lines that state the superseded claim as current (the list of chunks, not negated)."""
    body = skill_md.split("\n## Sources", 1)[0]
    return [ln for ln in body.splitlines() if re.search(r"(?i)list of chunks", ln) and not re.search(r"(?i)no longer|not\b|n't", ln)]


def test_the_stub_models_stale_lines_are_dropped_and_the_footer_is_true(tmp_path):
    feed = write_jsonl(tmp_path / "run.jsonl", world())
    with StubLLM(stale_model) as stub:
        r = synth(feed, stub.url, "stub-model")
        assert r.exit_code == 0, r.stderr
        [req] = stub.chat_requests()
    prompt = req["body"]["messages"][1]["content"]
    # the bundle: the contradicted sentences of the older pages never reach the model; the pre-cutoff page is marked
    assert "returns the response body as a list of chunks" not in prompt
    assert "returns it as a list of chunks" not in prompt
    assert "no longer returns a list of chunks" in prompt
    assert "pre_cutoff: true" in prompt.split(LEGACY, 1)[1].split("<<<END SOURCE", 1)[0]
    man = json.loads((tmp_path / "run.json").read_text())
    skill_md = Path(man["skill"]["path"], "SKILL.md").read_text()
    assert _stated_as_current(skill_md) == []
    assert "it no longer returns a list of chunks" in skill_md and "`Client.stream()`" in skill_md
    assert "at most 64 KiB" in skill_md  # structure from the older page that nothing contradicts stays
    removed = man["postprocess"]["superseded"]
    assert len(removed) == 3 and all(x["contradicted_by"] == CHANGELOG for x in removed)
    assert any(d["advice"] == "superseded" and d["loser"] == LEGACY for d in man["conflicts"]["dropped"])
    # the footer says what the cited sources were: one fresh, one published before the cutoff
    footer = skill_md.rstrip().splitlines()[-1]
    assert "published before it" in footer and "1 published or documenting versions after the 2026-01 cutoff" in footer, footer


@pytest.mark.real_model
@pytest.mark.timeout(600)
@pytest.mark.skipif(not os.environ.get("SKILL3_REAL_LLM_URL"),
                    reason="SKILL3_REAL_LLM_URL is not set: start the model with `scripts/real-llm.sh` and export its URL")
def test_the_real_model_states_nothing_stale_as_current(tmp_path):
    feed = write_jsonl(tmp_path / "run.jsonl", world())
    r = synth(feed, os.environ["SKILL3_REAL_LLM_URL"], os.environ.get("SKILL3_REAL_LLM_MODEL", "gemma3-270m"),
              "--context-tokens", "4096")
    assert r.exit_code in (0, 1), r.stderr
    if r.exit_code == 0:
        man = json.loads((tmp_path / "run.json").read_text())
        skill_md = Path(man["skill"]["path"], "SKILL.md").read_text()
        assert _stated_as_current(skill_md) == []
        footer = skill_md.rstrip().splitlines()[-1]
        cited = {s["url"] for s in man["used_sources"]} if isinstance(man.get("used_sources"), list) and man["used_sources"] \
            and isinstance(man["used_sources"][0], dict) else set(man.get("used_sources") or [])
        if cited & {LEGACY, BLOG}:
            assert "published before" in footer, footer
