"""`skill3 synth` against a real loopback OpenAI-compatible server (the stub), streaming and not."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skill3.cli.app import app
from tests.mockserver import StubLLM
from tests.pipeline.corpus import EXAMPLE, make_item, parse_sources, write_jsonl

SKILL = """Here is the skill:

```markdown
---
name: Claude MCP!!
description: <b>MCP</b> after the cutoff
allowed-tools: Bash
---
# MCP since 2026-01

## Overview / When to use
The Python SDK 2.0 renamed FastMCP to MCPServer [2]. Tasks became stable [3].

## Instructions
1. Use `MCPServer` [2] and stateless Streamable HTTP [3].

## Examples
```python
server.run(transport="streamable-http", stateless=True)
```
"""


def skill_reply(body: dict) -> str:
    system = body["messages"][0]["content"]
    if "condense one web page" in system:
        return "Notes: the SDK renamed FastMCP to MCPServer; tasks are stable."
    if "check a SKILL.md draft" in system:
        return "---\nname: mcp\ndescription: Verified changes to MCP after January 2026, for building MCP servers.\n---\n# MCP\n\n## Overview / When to use\nThe Python SDK 2.0 renamed FastMCP to MCPServer [2]. Tasks are announced, not shipped [3]. Servers may run stateless behind a load balancer when they return no session header [3].\n"
    return SKILL


@pytest.fixture
def feed(tmp_path):
    return write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE))


def synth(feed, stub, *extra, quiet=True):
    args = ["synth", str(feed), "--llm-provider", "openai", "--llm-endpoint", stub.url, "--llm-model", "stub-model", *extra]
    if quiet:
        args.append("--quiet")
    r = CliRunner().invoke(app, args)
    return r.exit_code, r.stdout, r.stderr


def agentskills_validate(path: Path) -> None:
    exe = shutil.which("agentskills") or str(Path(sys.executable).with_name("agentskills"))
    r = subprocess.run([exe, "validate", str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("quiet, streamed", [(True, False), (False, True)])
def test_model_path_streaming_and_not(feed, tmp_path, monkeypatch, quiet, streamed):
    monkeypatch.setenv("LLM_API_KEY", "sk-test-SECRET-123")
    with StubLLM(skill_reply) as stub:
        code, out, err = synth(feed, stub, quiet=quiet)
        assert code == 0, err
        [req] = stub.chat_requests()
    body = req["body"]
    assert body["model"] == "stub-model" and bool(body.get("stream")) is streamed
    headers = {k.lower(): v for k, v in req["headers"].items()}
    assert headers["authorization"] == "Bearer sk-test-SECRET-123"
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    assert "untrusted data" in system and "write only the delta" in system.lower()
    nonce = re.search(r"<<<SOURCE 1 (\w+)>>>", user).group(1)
    # the blog's injected page is quarantined by the built-in screen; source text is inside a fence, never outside one
    assert "Ignore all previous instructions" not in user
    inj = user.index("MCPServer")
    opened = user.rfind("<<<SOURCE", 0, inj)
    closed = user.rfind("<<<END SOURCE", 0, inj)
    assert opened > closed and user.find("<<<END SOURCE", inj) > inj and nonce in user[opened:inj]
    skill_dir = tmp_path / "mcp"
    agentskills_validate(skill_dir)
    text = (skill_dir / "SKILL.md").read_text()
    assert "allowed-tools" not in text and "Here is the skill" not in text
    assert "- [2]" in text and "- [3]" in text and "- [1]" not in text
    man_text = (tmp_path / "run.json").read_text()
    assert "SECRET" not in man_text and "SECRET" not in out + err
    man = json.loads(man_text)
    assert man["model"]["used"] == "openai" and man["model"]["model"] == "stub-model"
    assert man["prompts"]["calls"][0]["prompt_hash"].startswith("sha256:")
    assert "name 'Claude MCP!!' → 'mcp'" in man["postprocess"]["fixes"]


def test_retries_429_and_500_then_succeeds(feed, tmp_path):
    with StubLLM(skill_reply) as stub:
        stub.script = [{"status": 429, "message": "slow down"}, {"status": 500, "message": "boom"}]
        code, _, err = synth(feed, stub)
        assert code == 0, err
        assert len(stub.chat_requests()) == 3


@pytest.mark.parametrize(
    "reply, message",
    [({"status": 404, "message": "model 'stub-model' not found"}, "not found"),
     ({"status": 503, "message": "overloaded"}, "HTTP 503"),
     ({"status": 401, "message": "bad key"}, "LLM_API_KEY")],
)
def test_model_errors_are_one_line_exit_1(feed, tmp_path, reply, message):
    with StubLLM(reply) as stub:
        code, _, err = synth(feed, stub)
    assert code == 1
    errors = [l for l in err.splitlines() if "error:" in l]
    assert len(errors) == 1 and message in errors[0] and "Traceback" not in err
    assert not (tmp_path / "mcp").exists()


def test_context_length_exceeded_shrinks_the_bundle_and_retries_once(feed, tmp_path):
    with StubLLM(skill_reply) as stub:
        stub.script = [{"status": 400, "message": "Requested tokens (9000) exceed context window of 4096"}]
        code, _, err = synth(feed, stub)
        assert code == 0, err
        first, second = (len(r["body"]["messages"][1]["content"]) for r in stub.chat_requests()[:2])
    man = json.loads((tmp_path / "run.json").read_text())
    shrunk = man["bundle"]["shrunk_after_context_error"]
    assert shrunk["to"] < shrunk["from"] and "context window" in shrunk["reason"]
    assert second < first


def test_context_length_twice_fails_cleanly(feed, tmp_path):
    ctx = {"status": 400, "message": "This model's maximum context length is 2048 tokens"}
    with StubLLM(ctx) as stub:
        code, _, err = synth(feed, stub)
        assert len(stub.chat_requests()) == 2
    assert code == 1 and "context" in err and not (tmp_path / "mcp").exists()


def test_unfixable_draft_is_reprompted_once(feed, tmp_path):
    with StubLLM(skill_reply) as stub:
        stub.script = ["Sorry, I cannot do that."]
        code, _, err = synth(feed, stub)
        reqs = stub.chat_requests()
    assert code == 0, err
    assert len(reqs) == 2 and "could not be turned into a valid SKILL.md" in reqs[1]["body"]["messages"][-1]["content"]
    assert json.loads((tmp_path / "run.json").read_text())["postprocess"]["reprompted"] is True


def test_unfixable_twice_fails_loudly_and_writes_nothing(feed, tmp_path):
    with StubLLM("Sorry.") as stub:
        code, _, err = synth(feed, stub)
        assert len(stub.chat_requests()) == 2
    assert code == 1 and "after one re-prompt" in err
    assert not (tmp_path / "mcp").exists() and not (tmp_path / "run.json").exists()


def test_map_reduce_when_evidence_exceeds_the_budget(tmp_path):
    big = [make_item(f"https://s{i}.example/p", excerpts=[f"Fact {i} about the new transport. " * 120]) for i in range(5)]
    feed = write_jsonl(tmp_path / "run.jsonl", big)
    with StubLLM(skill_reply) as stub:
        code, _, err = synth(feed, stub, "--context-tokens", "2048", "--topic", "mcp")
        reqs = stub.chat_requests()
    assert code == 0, err
    systems = [r["body"]["messages"][0]["content"] for r in reqs]
    assert sum("condense one web page" in s for s in systems) == 5 and "Agent Skill" in systems[-1]
    assert "condensed notes" in reqs[-1]["body"]["messages"][1]["content"]
    man = json.loads((tmp_path / "run.json").read_text())
    assert man["bundle"]["mode"] == "map-reduce" and "condensed" in man["bundle"]["note"]
    assert [c["phase"] for c in man["prompts"]["calls"]][:5] == [f"condense[{i}]" for i in range(1, 6)]


def test_verify_regrounds_and_is_post_processed(feed, tmp_path):
    with StubLLM(skill_reply) as stub:
        code, _, err = synth(feed, stub, "--verify")
        reqs = stub.chat_requests()
    assert code == 0, err
    assert len(reqs) == 2 and "<<<DRAFT" in reqs[1]["body"]["messages"][1]["content"]
    text = (tmp_path / "mcp" / "SKILL.md").read_text()
    assert "announced, not shipped" in text
    assert json.loads((tmp_path / "run.json").read_text())["verify"]["status"] == "done"
    agentskills_validate(tmp_path / "mcp")


def test_verify_output_that_cannot_be_fixed_keeps_the_draft(feed, tmp_path):
    with StubLLM(skill_reply) as stub:
        stub.script = [SKILL, "I checked it, looks fine!"]
        code, _, err = synth(feed, stub, "--verify")
    assert code == 0, err
    assert "kept the unverified skill" in err
    assert json.loads((tmp_path / "run.json").read_text())["verify"]["status"] == "rejected"
    assert "renamed FastMCP to MCPServer" in (tmp_path / "mcp" / "SKILL.md").read_text()


def test_auto_uses_the_endpoint_when_it_answers_else_extractive(feed, tmp_path):
    with StubLLM(skill_reply) as stub:
        r = CliRunner().invoke(app, ["synth", str(feed), "--llm-endpoint", stub.url, "--quiet"])
        assert r.exit_code == 0, r.stderr
        assert len(stub.chat_requests()) == 1
    assert json.loads((tmp_path / "run.json").read_text())["model"]["used"] == "openai"
    r = CliRunner().invoke(app, ["synth", str(feed), "--llm-endpoint", "http://127.0.0.1:9/v1", "--quiet"])
    assert r.exit_code == 0 and "WARNING" in r.stderr and "extractive" in r.stderr
    man = json.loads((tmp_path / "run.json").read_text())
    assert man["model"]["used"] == "extractive" and man["model"]["auto_fallback_reason"]


def test_verify_that_does_not_fit_is_skipped_with_a_warning(feed, tmp_path):
    with StubLLM(skill_reply) as stub:
        stub.script = [SKILL, {"status": 400, "message": "maximum context length is 2048 tokens"}]
        code, _, err = synth(feed, stub, "--verify")
    assert code == 0, err
    assert "--verify skipped" in err
    man = json.loads((tmp_path / "run.json").read_text())
    assert man["verify"]["status"] == "skipped" and man["warnings"]


@pytest.mark.parametrize(
    "requested, served, expected",
    [("m", ["a"], "m"), (None, ["llama3", "qwen2.5-coder:latest"], "qwen2.5-coder:latest"), (None, ["gemma3-270m"], "gemma3-270m"),
     (None, [], None)],
)
def test_pick_model(requested, served, expected):
    from synth.llm.registry import pick_model

    assert pick_model(requested, served) == expected


def test_auto_asks_for_a_model_the_server_lists(feed, tmp_path):
    with StubLLM(skill_reply) as stub:
        r = CliRunner().invoke(app, ["synth", str(feed), "--llm-endpoint", stub.url, "--quiet"])
        assert r.exit_code == 0, r.stderr
        assert stub.chat_requests()[0]["body"]["model"] == "stub-model"


def test_an_uncited_model_skill_is_reprompted_for_its_sources(feed, tmp_path):
    """A draft that cites nothing (and no source holds its lines word for word) carries no provenance: lint P4 blocks
    it and the model is asked once more; its cited answer is what is written."""
    uncited = re.sub(r" ?\[\d\]", "", SKILL)
    with StubLLM() as stub:
        stub.script = [uncited, SKILL]
        code, _, err = synth(feed, stub)
        assert len(stub.chat_requests()) == 2
    assert code == 0 and "P4" in err, err
    text = (tmp_path / "mcp" / "SKILL.md").read_text()
    assert "[2]" in text and "https://" in text.split("## Sources", 1)[1]


SCAFFOLD_ECHO = """---
name: mcp
description: {description}
---
# <title>

## Overview / When to use
What changed in the Model Context Protocol after the January 2026 cutoff.

## Instructions
- ## Modern vs deprecated (only if a source…)
- Tasks are now a stable part of the protocol: a client may attach a task field to tools/call and poll the result with tasks/get and tasks/result.
- The Streamable HTTP transport no longer requires a session: servers that do not return an Mcp-Session-Id header are stateless.

## Examples   (code copied verbatim from the sources, in fenced blocks)
```python
server.run(transport="streamable-http", stateless=True)
```

## Sources
No statement in this skill cites a source; the sources it was built from are listed in run.json.
"""


@pytest.mark.parametrize("description", [
    "What changed in MCP after January 2026; use when building MCP servers.",
    "MCP servers can run stateless behind a load balancer now. " * 6 + "Use when building MCP servers.",  # the "messy" model
    "<one or two sentences: what changed and when to use this skill>",
], ids=["good", "repeating", "placeholder"])
def test_model_output_that_passes_but_should_not_is_fixed_before_it_is_written(feed, tmp_path, description):
    """A model that echoes the prompt's section template, replaces Sources with prose (no URL in the skill) and repeats
    one sentence in its description: the written skill has none of it, and lint reports nothing left."""
    with StubLLM(SCAFFOLD_ECHO.format(description=description)) as stub:
        code, _out, err = synth(feed, stub)
    assert code == 0, err
    text = (tmp_path / "mcp" / "SKILL.md").read_text()
    assert "only if a source" not in text and "<title>" not in text and "- ## " not in text and "copied verbatim" not in text
    assert "## Examples\n" in text
    sources = text.split("## Sources", 1)[1]
    assert "https://" in sources and "No statement in this skill cites a source" not in sources
    assert re.search(r"tasks/result\.? \[\d\]", text) and re.search(r"stateless\.? \[\d\]", text)
    man = json.loads((tmp_path / "run.json").read_text())
    desc = man["skill"]["description"] if "description" in man["skill"] else text.split("description: ", 1)[1].split("\n", 1)[0]
    assert desc.count("stateless behind a load balancer") <= 1 and "one or two sentences" not in desc
    assert not [f for f in man["lint"]["findings"] if f["rule"] in ("M1", "P4", "N7")], man["lint"]["findings"]


def test_a_draft_no_source_supports_is_reprompted_then_fails_loudly(feed, tmp_path):
    """Nothing cited, nothing a source holds: lint P4 (the skill would carry no provenance) blocks it; one re-prompt,
    then nothing is written."""
    draft = SCAFFOLD_ECHO.format(description="Invented notes. Use when guessing.")
    lines = [line for line in draft.splitlines() if line.startswith("- Tasks") or line.startswith("- The Streamable")]
    invented = draft.replace(lines[0], "- Quantum gravity wells bend every zebra crossing northwards during winter storms.").replace(
        lines[1], "- Purple elephants negotiate tariffs with migrating lighthouses on alternate Tuesdays.").replace(
        "server.run(transport=\"streamable-http\", stateless=True)", "print('zebra')")
    with StubLLM(invented) as stub:
        code, _out, err = synth(feed, stub)
        assert len(stub.chat_requests()) == 2  # the draft, then one re-prompt
    assert code == 1 and "P4" in err and "nothing was written" in err
    assert not (tmp_path / "mcp").exists() and not (tmp_path / "run.json").exists()


def _conflicting_feed(tmp_path):
    official = make_item("https://modelcontextprotocol.io/docs/sdk-2", published="2026-06-30", title="Python SDK 2.0",
                         authoritative=("modelcontextprotocol.io",), excerpts=[
                             "# Python SDK 2.0",
                             "The Python SDK 2.0 renames the server class: `FastMCP` is deprecated; use `MCPServer` instead.",
                             "Servers can now run stateless behind a load balancer when they return no session header."],
                         code=[("python", "from mcp.server import MCPServer\nserver = MCPServer('weather')")])
    blog = make_item("https://someone.medium.com/fastmcp-in-five-minutes", published="2025-03-01", title="FastMCP in five minutes",
                     excerpts=["# FastMCP in five minutes",
                               "The `FastMCP` class is the recommended way to build servers, and it takes one line.",
                               "Decorate plain functions to expose them as tools to every client."],
                     code=[("python", "from mcp.server.fastmcp import FastMCP\nserver = FastMCP('weather')")])
    return write_jsonl(tmp_path / "run.jsonl", [official, blog])


def test_opposite_advice_is_settled_before_the_bundle_and_d1_runs(tmp_path):
    """A low-authority pre-cutoff page recommends what the official post-cutoff page deprecates: the blog's claim and
    its code never reach the model; lint's D1 runs on the result (its facts come from the fresh source)."""
    feed = _conflicting_feed(tmp_path)
    recommends_old = SKILL.replace("1. Use `MCPServer` [2] and stateless Streamable HTTP [3].",
                                   "1. Build every server with `FastMCP` [1].")
    with StubLLM(recommends_old) as stub:
        code, _out, err = synth(feed, stub)
        [req] = stub.chat_requests()
    assert code == 0, err
    prompt = req["body"]["messages"][1]["content"]
    assert "deprecated; use `MCPServer`" in prompt  # the winner's claim
    assert "recommended way to build servers" not in prompt and "from mcp.server.fastmcp import FastMCP" not in prompt
    assert "Decorate plain functions" in prompt  # the rest of the losing page still counts
    man = json.loads((tmp_path / "run.json").read_text())
    [dropped] = [d for d in man["conflicts"]["dropped"] if d["dropped"] != "code block"]
    assert dropped["api"] == "FastMCP" and dropped["winner"].startswith("https://modelcontextprotocol.io")
    assert dropped["loser"].startswith("https://someone.medium.com") and "recommended way" in dropped["dropped"]
    d1 = [f for f in man["lint"]["findings"] if f["rule"] == "D1"]
    assert d1 and "`FastMCP` is deprecated or removed — use `MCPServer`" in d1[0]["message"]
    assert not [f for f in man["lint"]["findings"] if f["rule"] == "X1" and "D1" in f["message"]]


def test_d1_runs_on_an_extractive_synthesis_with_fresh_sources(tmp_path):
    feed = _conflicting_feed(tmp_path)
    r = CliRunner().invoke(app, ["synth", str(feed), "--llm-provider", "extractive", "--quiet"])
    assert r.exit_code == 0, r.stderr
    man = json.loads((tmp_path / "run.json").read_text())
    skipped = [f for f in man["lint"]["findings"] if f["rule"] == "X1"]
    assert not [f for f in skipped if "D1" in f["message"]], skipped
    text = (tmp_path / "mcp" / "SKILL.md").read_text()
    assert "recommended way to build servers" not in text and "fastmcp import FastMCP" not in text
