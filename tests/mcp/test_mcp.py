"""skill3 mcp, driven by the MCP SDK's own client over stdio (the server is a real child process)."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client

from tests.agents.fixtures import FROB_CHANGES, FROB_WHATSNEW, ROOT, data, frob_entries, make_run, params

A, B = FROB_CHANGES, FROB_WHATSNEW


@pytest.fixture
def root(tmp_path):
    make_run(tmp_path / "frob", entries=frob_entries(),
        references={"references/streams.md": "# Streams\n\n`frob.stream()` details.\n"})
    return tmp_path


def test_the_sdk_client_lists_gets_and_searches(root):
    async def main():
        async with Client(params(root)) as c:
            tools = {t.name for t in (await c.list_tools()).tools}
            assert tools == {"resolve_skill", "search", "list_skills", "get_skill", "search_delta", "lint", "vet"}  # no learn without --allow-learn
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
            assert resources == ["skill://frob/SKILL.md", "skill://frob/references/streams.md"]
            read = await c.read_resource("skill://frob/references/streams.md")
            assert read.contents[0].text.startswith("# Streams")
            legacy = await c.read_resource("skill3://skills/frob/references/streams.md")  # the older URIs are still read
            assert legacy.contents[0].text == read.contents[0].text
            lint = data(await c.call_tool("lint", {"topic": "frob"}))
            assert lint["skill"].endswith("frob") and "findings" in lint
            vet = data(await c.call_tool("vet", {"topic": "frob"}))
            assert vet["scan"]["status"] == "not_run"  # no SkillSpector here: reported as not run, never as clean

    anyio.run(main)


def test_learn_only_with_allow_learn_and_its_input_file_inside_the_root(root):
    async def main():
        async with Client(params(root, "--allow-learn"), read_timeout_seconds=300) as c:
            assert {"learn", "job_status", "cancel_job"} <= {t.name for t in (await c.list_tools()).tools}
            table = [({"input_file": str(ROOT / "examples" / "mcp.sources")}, "inside the output root"),
                     ({"input_file": "../outside.sources"}, "inside the output root"),
                     ({"input_file": "a\x00b"}, "control character"),
                     ({"start_urls": ["file:///etc/passwd"]}, "not a plain http(s) URL"),
                     ({"llm_provider": "nope"}, "llm_provider must be")]
            for extra, message in table:
                r = await c.call_tool("learn", {"topic": "mcp", **extra})
                assert r.is_error and message in r.content[0].text, (extra, r.content[0].text)
            nul = await c.call_tool("learn", {"topic": "a\x00b"})
            assert nul.is_error

    anyio.run(main)
