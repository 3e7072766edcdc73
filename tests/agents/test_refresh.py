"""A synthesis into a folder holding a previous run is a refresh (synth.agents.refresh), run through `skill3 synth`."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from skill3.cli.app import app
from synth.agents.refresh import bump
from tests.pipeline.corpus import EXAMPLE, make_item, parse_sources, write_jsonl

NEW_URL = "https://github.com/modelcontextprotocol/typescript-sdk/sample/releases/tag/v2.1.0"
NEW_TEXT = ("The TypeScript SDK 2.1 adds the `registerResourceTemplate` method for parameterised resources; "
            "`server.resource()` is deprecated.")


@pytest.fixture(autouse=True)
def _no_model(monkeypatch):
    monkeypatch.delenv("SKILL3_DEBUG", raising=False)


def synth(feed, *args):
    r = CliRunner().invoke(app, ["synth", str(feed), "--llm-provider", "extractive", "--quiet", *args])
    return r.exit_code, r.stdout, r.stderr


def snapshot(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def replaced_corpus(items):
    """The example corpus with its TypeScript SDK 2.0 source replaced by a newer dated one."""
    kept = [i for i in items if "typescript-sdk" not in i["url"]]
    return kept + [make_item(NEW_URL, published="2026-09-01", title="typescript-sdk v2.1.0 release notes (sample)",
                             excerpts=[NEW_TEXT])]


@pytest.mark.parametrize("old, new", [(None, "1.0.0"), ("", "1.0.0"), ("1.0.0", "1.1.0"), ("1.9.3", "1.10.0"),
                                      ("2", "2.1.0"), ("2.3", "2.4.0"), ("v7", "1.1.0")])
def test_version_bump(old, new):
    assert bump(old) == new


def test_second_learn_of_the_same_corpus_changes_nothing(tmp_path):
    feed = write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE))
    assert synth(feed)[0] == 0
    before = snapshot(tmp_path / "mcp")
    first = json.loads((tmp_path / "run.json").read_text())
    assert first["refresh"]["status"] == "first" and first["refresh"]["version"] == "1.0.0"
    code, out, _ = synth(feed)
    assert code == 0
    assert snapshot(tmp_path / "mcp") == before  # SKILL.md byte-identical
    assert "unchanged" in out and "no change since 1.0.0" in out
    man = json.loads((tmp_path / "run.json").read_text())
    assert man["refresh"]["status"] == "unchanged" and man["refresh"]["version"] == "1.0.0"
    assert not (tmp_path / ".history").exists()
    assert "Since last learn" in (tmp_path / "index.html").read_text()


def test_a_replaced_source_is_a_refresh_with_a_diff_and_the_previous_skill_kept(tmp_path):
    items = parse_sources(EXAMPLE)
    feed = write_jsonl(tmp_path / "run.jsonl", items)
    assert synth(feed)[0] == 0
    old_skill = snapshot(tmp_path / "mcp")
    write_jsonl(tmp_path / "run.jsonl", replaced_corpus(items))
    code, out, err = synth(feed)
    assert code == 0, err
    assert "version: 1.1.0" in (tmp_path / "mcp" / "SKILL.md").read_text()
    assert snapshot(tmp_path / ".history" / "1.0.0" / "mcp") == old_skill  # the previous skill, still on disk
    assert (tmp_path / ".history" / "1.0.0" / "run.json").is_file()
    rec = json.loads((tmp_path / "run.json").read_text())["refresh"]
    assert rec["status"] == "refreshed" and (rec["previous_version"], rec["version"]) == ("1.0.0", "1.1.0")
    assert rec["history"] == ".history/1.0.0"
    d = rec["diff"]
    assert NEW_URL in d["sources"]["added"]
    assert any("typescript-sdk/sample/releases/tag/v2.0.0" in u for u in d["sources"]["removed"])
    assert any("registerResourceTemplate" in c["text"] for c in d["claims"]["added"])
    assert any("Zod 4" in c["text"] for c in d["claims"]["removed"])
    assert not any("Registry" in c["text"] for c in d["claims"]["added"] + d["claims"]["removed"])  # renumbered, same claims
    assert "claims +" in out and NEW_URL in out  # the printed summary
    page = (tmp_path / "index.html").read_text()
    assert "Since last learn" in page and "registerResourceTemplate" in page
    # the refreshed skill is diffable against its history with the CLI
    r = CliRunner().invoke(app, ["diff", str(tmp_path / ".history" / "1.0.0"), str(tmp_path), "--exit-code"])
    assert r.exit_code == 1 and NEW_URL in r.output


def test_a_hand_edited_skill_is_not_taken_for_unchanged(tmp_path):
    feed = write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE))
    assert synth(feed)[0] == 0
    good = (tmp_path / "mcp" / "SKILL.md").read_text()
    (tmp_path / "mcp" / "SKILL.md").write_text(good.replace("# MCP", "# edited MCP"))
    assert synth(feed)[0] == 0
    # same inputs, but the files on disk are not the ones skill3 wrote: synthesised again; the result equals
    # the original, so the edited copy is kept in the history and the skill restored under a new version
    text = (tmp_path / "mcp" / "SKILL.md").read_text()
    assert "# edited MCP" not in text and "version: 1.1.0" in text
    assert "# edited MCP" in (tmp_path / ".history" / "1.0.0" / "mcp" / "SKILL.md").read_text()


def test_fresh_ignores_the_previous_run_but_keeps_it(tmp_path):
    feed = write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE))
    assert synth(feed)[0] == 0
    code, out, _ = synth(feed, "--fresh")
    assert code == 0
    rec = json.loads((tmp_path / "run.json").read_text())["refresh"]
    assert rec["status"] == "fresh" and rec["diff"] is None and rec["version"] == "1.1.0"
    assert (tmp_path / ".history" / "1.0.0" / "mcp" / "SKILL.md").is_file()
    assert "--fresh" in out
    # a further refresh (same inputs) is unchanged again, against the fresh run
    assert "unchanged" in synth(feed)[1]


def test_a_history_path_that_is_not_a_folder_stops_before_anything_is_replaced(tmp_path):
    items = parse_sources(EXAMPLE)
    feed = write_jsonl(tmp_path / "run.jsonl", items)
    assert synth(feed)[0] == 0
    before = snapshot(tmp_path / "mcp")
    (tmp_path / ".history").write_text("mine")
    write_jsonl(tmp_path / "run.jsonl", replaced_corpus(items))
    code, _, err = synth(feed)
    assert code == 1 and "could not be kept" in err and "Traceback" not in err
    assert snapshot(tmp_path / "mcp") == before and (tmp_path / ".history").read_text() == "mine"


def test_a_refresh_with_a_model_reuses_its_answer_to_the_same_bundle(tmp_path):
    """With a model, learning again from the same evidence writes nothing new and bumps nothing, even when something
    outside the bundle changed (here a page's Last-Modified header, so the unchanged short cut does not apply): the
    same call to the same model gets the previous run's answer back instead of a new (different) one."""
    from tests.llm.test_openai_e2e import SKILL
    from tests.mockserver import StubLLM

    drafts = {"n": 0}

    def reply(body: dict) -> str:  # a model that never answers the same twice
        drafts["n"] += 1
        return SKILL.replace("Tasks became stable [3].", f"Tasks became stable [3]. (draft {drafts['n']})")

    items = parse_sources(EXAMPLE)
    feed = write_jsonl(tmp_path / "run.jsonl", items)
    with StubLLM(reply) as stub:
        args = ["synth", str(feed), "--llm-provider", "openai", "--llm-endpoint", stub.url, "--llm-model", "stub-model", "--quiet"]
        first = CliRunner().invoke(app, args)
        assert first.exit_code in (0, 3), first.output
        before, calls = snapshot(tmp_path / "mcp"), drafts["n"]
        items[0]["modified"] = "2026-11-20"  # the page was re-served with a new Last-Modified; its text is the same
        write_jsonl(feed, items)
        second = CliRunner().invoke(app, args)
    assert second.exit_code == first.exit_code, second.output
    man = json.loads((tmp_path / "run.json").read_text())
    assert man["refresh"]["status"] == "unchanged" and man["refresh"]["version"] == "1.0.0", man["refresh"]
    assert snapshot(tmp_path / "mcp") == before and not (tmp_path / ".history").exists()
    assert drafts["n"] == calls  # no model call answered anew
    assert "byte-identical" in man["refresh"]["reason"]


def test_an_answer_holding_a_secret_is_never_kept_for_reuse():
    from synth.pipeline.model_calls import CallLog

    log = CallLog(answers=[{"key": "a", "phase": "synthesize", "text": "Use the token ghp_R8s2Lk5Qw9Zt3Xv7Bn1Mc4Hd6Jf0Gp2Ya8Ue."},
                           {"key": "b", "phase": "verify", "text": "A clean answer."}])
    assert [a["key"] for a in log.answers_record()] == ["b"]
