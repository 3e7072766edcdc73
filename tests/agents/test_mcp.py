"""skill3 mcp, driven by the MCP SDK's own client over stdio (the server is a real child process)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.agents.fixtures import entry, make_run

ROOT = Path(__file__).resolve().parents[2]
A, B = "https://frob.example/changes", "https://frob.example/whatsnew/3.0"


@pytest.fixture
def root(tmp_path):
    make_run(tmp_path / "frob", entries=[
        entry("3.0", "added", "`frob.stream()` streams frames from a channel as an asynchronous iterator.", A, area="streams",
              file="references/streams.md"),
        entry("3.0", "removed", "The `frob.legacy` module is gone.", A),
        entry("2.9", "deprecated", "`frob.open()` is deprecated in favour of `frob.connect()`.", B,
              use="`frob.connect()`", instead_of="`frob.open()`")],
        references={"references/streams.md": "# Streams\n\n`frob.stream()` details.\n"})
    return tmp_path


def params(root: Path, *extra: str, env: dict | None = None) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "skill3", "mcp", "--root", str(root), *extra],
                                 env={"SKILL3_HOME": str(root / ".skill3-home"), **(env or {})}, cwd=str(ROOT))


def data(result) -> dict | list:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


def test_the_sdk_client_lists_gets_and_searches(root):
    async def main():
        async with Client(params(root)) as c:
            tools = {t.name for t in (await c.list_tools()).tools}
            assert tools == {"list_skills", "get_skill", "search_delta", "lint", "vet"}  # no learn without --allow-learn
            skills = data(await c.call_tool("list_skills", {}))["skills"]
            assert [(s["name"], s["version"], s["cutoff"], s["entries"]) for s in skills] == [("frob", "1.0.0", "2026-01", 3)]
            got = data(await c.call_tool("get_skill", {"topic": "frob"}))
            assert got["text"].startswith("---\nname: frob\n")
            ref = data(await c.call_tool("get_skill", {"topic": "frob", "file": "references/streams.md"}))
            assert "details" in ref["text"]
            found = data(await c.call_tool("search_delta", {"topic": "frob", "query": "deprecated open connect"}))
            first = found["results"][0]
            assert "frob.open()" in first["snippet"] and first["url"] == B and first["citation"] == 1
            assert found["sources"][0] == {"n": 1, "url": B} and found["entries_from"] == "run.json delta.entries"
            versions = data(await c.call_tool("search_delta", {"topic": "frob", "query": "3.0"}))
            assert {r["version"] for r in versions["results"]} == {"3.0"}
            miss = await c.call_tool("get_skill", {"topic": "nope"})
            assert miss.is_error and "no skill for 'nope'" in miss.content[0].text
            learn = await c.call_tool("learn", {"topic": "x"})
            assert learn.is_error
            resources = sorted(str(r.uri) for r in (await c.list_resources()).resources)
            assert resources == ["skill3://skills/frob/SKILL.md", "skill3://skills/frob/references/streams.md"]
            read = await c.read_resource("skill3://skills/frob/references/streams.md")
            assert read.contents[0].text.startswith("# Streams")
            lint = data(await c.call_tool("lint", {"topic": "frob"}))
            assert lint["skill"].endswith("frob") and "findings" in lint
            vet = data(await c.call_tool("vet", {"topic": "frob"}))
            assert vet["scan"]["status"] == "not_run"  # no SkillSpector here: reported as not run, never as clean

    anyio.run(main)


def test_learn_only_with_allow_learn_and_it_reports_progress(root):
    shutil.copy(ROOT / "examples" / "mcp.sources", root / "mcp.sources")
    progress: list[str] = []

    async def on_progress(value, total, message):
        progress.append(message or "")

    async def main():
        async with Client(params(root, "--allow-learn"), read_timeout_seconds=300) as c:
            assert "learn" in {t.name for t in (await c.list_tools()).tools}
            outside = await c.call_tool("learn", {"topic": "mcp", "input_file": str(ROOT / "examples" / "mcp.sources")})
            assert outside.is_error and "inside the output root" in outside.content[0].text
            r = await c.call_tool("learn", {"topic": "mcp", "input_file": "mcp.sources", "llm_provider": "extractive",
                                            "cutoff_time": "2026-01"}, progress_callback=on_progress)
            out = data(r)
            assert out["exit_code"] in (0, 3), out["log"]
            names = [s["name"] for s in data(await c.call_tool("list_skills", {}))["skills"]]
            assert names == ["frob", "mcp"]  # the new skill is served without a restart

    anyio.run(main)
    assert (root / "mcp" / "mcp" / "SKILL.md").is_file()
    assert any("skill3: wrote" in m for m in progress), progress
