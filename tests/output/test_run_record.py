"""run.json tells the truth: where the cutoff came from, and the draft's post-process fixes survive --verify."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from skill3.cli.app import app
from tests.llm.test_openai_e2e import skill_reply, synth
from tests.mockserver import StubLLM
from tests.pipeline.corpus import EXAMPLE, parse_sources, write_jsonl


def _run(tmp_path, *args, crawl: dict | None = None, item_cutoff: str | None = "2026-01"):
    items = parse_sources(EXAMPLE)
    for it in items:
        it["cutoff"] = item_cutoff
    feed = write_jsonl(tmp_path / "run.jsonl", items)
    if crawl is not None:
        (tmp_path / "crawl.json").write_text(json.dumps(crawl), encoding="utf-8")
    r = CliRunner().invoke(app, ["synth", str(feed), "--llm-provider", "extractive", "--quiet", *args])
    assert r.exit_code == 0, r.stderr
    return json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))["cutoff"]


@pytest.mark.parametrize("args, crawl, item_cutoff, month, source", [
    (["--cutoff-time", "2026-02"], None, "2026-01", "2026-02", "cutoff_time"),
    (["--target-model", "claude-sonnet-4-6"], None, "2026-01", "2025-08",
     "target_model claude-sonnet-4-6 in the cutoff table"),
    ([], {"topic": "mcp", "cutoff": "2026-03", "cutoff_source": "cutoff_time"}, "2026-01", "2026-03", "crawl.json "),
    ([], {"topic": "mcp", "cutoff": "2025-02", "cutoff_source": "target_model claude-haiku-4-5 in the cutoff table"},
     None, "2025-02", "crawl.json "),
    ([], None, "2026-04", "2026-04", "the cutoff recorded in the run.jsonl items"),
    ([], None, None, "2026-01", "default target_model claude-opus-4-8 in the cutoff table"),
])
def test_cutoff_source_names_the_input_that_gave_it(tmp_path, args, crawl, item_cutoff, month, source):
    cut = _run(tmp_path, *args, crawl=crawl, item_cutoff=item_cutoff)
    assert cut["month"] == month
    assert cut["source"].startswith(source)
    if not args or args[0] != "--cutoff-time":
        assert "cutoff_time" not in cut["source"].split(" (")[0]
    if crawl:
        assert str(tmp_path / "crawl.json") in cut["source"] and crawl["cutoff_source"] in cut["source"]


def test_verify_keeps_the_drafts_post_process_fixes(tmp_path):
    """The draft (name 'Claude MCP!!', HTML in its description, allowed-tools) is fixed by the post-processor;
    the verified text needs other fixes. run.json's postprocess.fixes keeps both."""
    feed = write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE))
    with StubLLM(skill_reply) as stub:
        code, _, err = synth(feed, stub)
        assert code == 0, err
        plain = json.loads((tmp_path / "run.json").read_text())["postprocess"]["fixes"]
        code, _, err = synth(feed, stub, "--verify")
        assert code == 0, err
    man = json.loads((tmp_path / "run.json").read_text())
    assert man["verify"]["status"] == "done"
    assert plain and set(plain) <= set(man["postprocess"]["fixes"]), (plain, man["postprocess"]["fixes"])
    assert set(man["verify"]["fixes"]) <= set(man["postprocess"]["fixes"])
