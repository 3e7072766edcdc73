"""skill3 mcp as an agent drives it, with the MCP SDK's own client over stdio and over streamable HTTP (the
server is a real child process): described tools, resolve_skill, search across skills, get_skill within a token
budget, prompts, resource templates, the default root, lint/vet with the run's facts, learn as a background job."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.agents.fixtures import FROB_CHANGES, FROB_WHATSNEW, ROOT, data, entry, frob_entries, make_run, params

A, B = FROB_CHANGES, FROB_WHATSNEW
W = "https://widget.example/releases/2.0"


def _big_reference(n: int) -> str:
    return "# Channels\n\n" + "\n\n".join(f"## Section {i}\n\n- Changed in 3.{i % 5}: channel option `opt{i}` now "
                                          f"defaults to {i} frames per second. ([notes]({A}#s{i}))" for i in range(n)) + "\n"


@pytest.fixture
def root(tmp_path):
    make_run(tmp_path / "frob", entries=frob_entries(),
        versions=[{"version": "3.0", "date": "2026-06-01", "state": "post", "how": "test"},
                  {"version": "2.9", "date": "2026-03-01", "state": "post", "how": "test"}],
        references={"references/streams.md": "# Streams\n\n## 3.0\n\n- Added in 3.0: `frob.stream()` yields frames "
                                             f"until the channel closes. ([What's new]({B}#stream))\n",
                    "references/channels.md": _big_reference(200)})
    make_run(tmp_path / "widget", name="widget", topic="widget toolkit", cutoff="2025-08", version="1.2.0", entries=[
        entry("2.0", "added", "`widget.Grid` lays widgets out in rows and columns.", W, area="layout")])
    return tmp_path


# --------------------------------------------------------------------------- the agent-facing surface, over stdio


def test_every_tool_and_parameter_is_described_and_prompts_and_templates_exist(root):
    async def main():
        async with Client(params(root, "--allow-learn")) as c:
            tools = (await c.list_tools()).tools
            assert {"resolve_skill", "search", "get_skill", "learn", "job_status", "cancel_job"} <= {t.name for t in tools}
            undescribed = [(t.name, p) for t in tools for p, schema in t.input_schema.get("properties", {}).items()
                           if len(schema.get("description") or "") < 10]
            assert undescribed == []
            assert all(len(t.description or "") > 40 for t in tools), [t.name for t in tools if len(t.description or "") <= 40]
            prompts = {p.name: p for p in (await c.list_prompts()).prompts}
            assert set(prompts) == {"what_changed", "upgrade_code"}
            assert all(a.description for p in prompts.values() for a in p.arguments or [])
            templates = {t.uri_template for t in (await c.list_resource_templates()).resource_templates}
            assert templates == {"skill://{name}/SKILL.md", "skill://{name}/references/{file}"}
            read = await c.read_resource("skill://frob/references/streams.md")
            assert read.contents[0].text.startswith("# Streams")
            with pytest.raises(Exception):
                await c.read_resource("skill://frob/references/..%2F..%2Frun.json")

    anyio.run(main)


def test_resolve_search_and_get_skill_within_a_token_budget(root):
    async def main():
        async with Client(params(root)) as c:
            table = [("frob", "frob"), ("frb", "frob"), ("Widget Toolkit", "widget"), ("widgets", "widget"), ("toolkit", "widget")]
            for query, want in table:
                got = data(await c.call_tool("resolve_skill", {"name": query}))["matches"]
                assert got and got[0]["id"] == want, (query, got)
            frob = data(await c.call_tool("resolve_skill", {"name": "frob"}))["matches"][0]
            assert (frob["version"], frob["cutoff"], frob["versions"], frob["score"]) == ("1.0.0", "2026-01", ["3.0", "2.9"], 1.0)
            assert data(await c.call_tool("resolve_skill", {"name": "kubernetes"}))["matches"] == []

            hits = data(await c.call_tool("search", {"query": "stream frames channel closes"}))
            first = hits["results"][0]
            assert hits["skills_searched"] == 2
            assert (first["skill"], first["file"], first["version"], first["uri"]) == (
                "frob", "references/streams.md", "3.0", "skill://frob/references/streams.md")
            assert first["citations"] == [{"n": None, "url": f"{B}#stream"}]
            cited = data(await c.call_tool("search", {"query": "deprecated open connect"}))["results"][0]
            assert cited["file"] == "SKILL.md" and cited["citations"] == [{"n": 2, "url": B}] and cited["skill_version"] == "1.0.0"
            grid = data(await c.call_tool("search", {"query": "grid rows", "topic": "widget"}))["results"]
            assert {r["skill"] for r in grid} == {"widget"} and grid[0]["citations"][0]["url"] == W

            small = data(await c.call_tool("get_skill", {"topic": "frob", "tokens": 500, "query": "stream"}))
            assert small["tokens"] <= 500 and small["truncated"]
            assert small["text"].startswith("---\nname: frob\n")
            # the query's file first, whole; the next cut to what is left
            assert [(i["file"], i["truncated"]) for i in small["included"]] == [
                ("SKILL.md", False), ("references/streams.md", False), ("references/channels.md", True)]
            tight = data(await c.call_tool("get_skill", {"topic": "frob", "tokens": 500, "query": "channel option opt7"}))
            assert [i["file"] for i in tight["included"]] == ["SKILL.md", "references/channels.md"]
            assert [o["uri"] for o in tight["omitted"]] == ["skill://frob/references/streams.md"]
            whole = data(await c.call_tool("get_skill", {"topic": "frob", "tokens": 100_000}))
            assert not whole["truncated"] and "Section 199" in whole["text"]
            one = data(await c.call_tool("get_skill", {"topic": "frob", "file": "references/channels.md", "tokens": 1000}))
            assert one["tokens"] <= 1000 and one["truncated"] and "Section 0" in one["text"]
            bad = await c.call_tool("get_skill", {"topic": "frob", "tokens": 10})
            assert bad.is_error

    anyio.run(main)


def test_prompts_what_changed_and_upgrade_code(root):
    async def main():
        async with Client(params(root)) as c:
            changed = (await c.get_prompt("what_changed", {"topic": "frob"})).messages[0].content.text
            assert "since my training cutoff (2026-01)" in changed
            assert changed.index("3.0 added") < changed.index("2.9 deprecated") and B in changed
            since = (await c.get_prompt("what_changed", {"topic": "frob", "since": "2.9"})).messages[0].content.text
            assert "2.9 deprecated" not in since and "3.0 removed" in since
            code = "import frob\nch = frob.open('tcp://x')\nfor f in ch.read():\n    print(f)\n"
            up = (await c.get_prompt("upgrade_code", {"topic": "frob", "code": code})).messages[0].content.text
            assert "Use `frob.connect()`, not `frob.open()`." in up and code in up

    anyio.run(main)


def test_default_root_is_the_users_skills_folder_printed_at_start(tmp_path):
    home = tmp_path / "home"
    elsewhere = tmp_path / "somewhere"
    elsewhere.mkdir()
    make_run(home / "skills" / "frob", entries=[entry("3.0", "added", "`frob.stream()` streams frames.", A)])
    done = subprocess.run([sys.executable, "-m", "skill3", "mcp"], cwd=elsewhere, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "SKILL3_HOME": str(home), "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert f"serving the skills under {home / 'skills'} on stdio" in done.stderr

    async def main():
        server = StdioServerParameters(command=sys.executable, args=["-m", "skill3", "mcp"], cwd=str(elsewhere),
                                       env={"SKILL3_HOME": str(home), "PYTHONPATH": str(ROOT)})
        async with Client(server) as c:
            listed = data(await c.call_tool("list_skills", {}))
            assert listed["root"] == str(home / "skills") and [s["name"] for s in listed["skills"]] == ["frob"]

    anyio.run(main)
    assert not (elsewhere / "output").exists()


@pytest.mark.parametrize("args, code, message", [
    (["--root", "."], 0, "serving the skills under {cwd} on stdio"),  # a relative root is printed absolute
    (["--root", "missing"], 2, "missing is not a folder; pass --root"),
    (["--transport", "ftp"], 2, "--transport 'ftp'; use stdio or http"),
])
def test_mcp_command_line_answers_in_one_line(tmp_path, args, code, message):
    done = subprocess.run([sys.executable, "-m", "skill3", "mcp", *args], cwd=tmp_path, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "SKILL3_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)})
    assert done.returncode == code, done.stderr
    assert message.format(cwd=tmp_path) in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_lint_and_vet_run_the_rules_whose_facts_the_run_recorded(root):
    man = json.loads((root / "frob" / "run.json").read_text())
    man["lint"] = {"status": "done", "facts": {"stale": [{"pattern": r"(?<![\w.])frob\.stream(?![\w])", "what": "`frob.stream`",
                                                          "instead": ""}]}}
    (root / "frob" / "run.json").write_text(json.dumps(man))
    # an older run (no lint.facts): the facts come from its feed, with the run's own function
    (root / "widget" / "run.jsonl").write_text(json.dumps({
        "url": W, "authority": 1.0, "post_cutoff": True, "published": "2026-02-01",
        "excerpts": ["`widget.pack()` is deprecated in favour of `widget.Grid`."], "code_blocks": []}) + "\n")

    async def main():
        async with Client(params(root)) as c:
            for skill in ("frob", "widget"):
                lint = data(await c.call_tool("lint", {"topic": skill}))
                assert "D1" not in {s["rule"] for s in lint["skipped"]}, lint["skipped"]
                assert "P3" not in {s["rule"] for s in lint["skipped"]}
            frob = data(await c.call_tool("lint", {"topic": "frob"}))
            assert any(f["rule"] == "D1" and "`frob.stream`" in f["message"] for f in frob["findings"]), frob["findings"]
            vet = data(await c.call_tool("vet", {"topic": "frob"}))
            messages = [f["message"] for f in vet["extra_findings"]] if "extra_findings" in vet else json.dumps(vet)
            assert "D1 did not run" not in json.dumps(messages)

    anyio.run(main)


# --------------------------------------------------------------------------- learn as a background job


class _Slow(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's name
        time.sleep(120)

    def log_message(self, *args):
        pass


@contextmanager
def slow_site():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Slow)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/docs/"
    finally:
        server.shutdown()
        server.server_close()


def _group_gone(pgid: int, within: float = 20.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def _learn_args(url: str) -> dict:
    return {"topic": "slowfrob", "start_urls": [url], "llm_provider": "extractive", "cutoff_time": "2026-01", "max_pages": 3}


def test_learn_is_a_job_that_cancel_ends_with_its_whole_process_group(root):
    env = {"SKILL3_ALLOW_PRIVATE_NETWORKS": "1"}

    async def main():
        with slow_site() as url:
            async with Client(params(root, "--allow-learn", env=env), read_timeout_seconds=120) as c:
                started = time.monotonic()
                job = data(await c.call_tool("learn", _learn_args(url)))
                assert time.monotonic() - started < 20 and job["status"] == "running"  # returns at once
                again = await c.call_tool("learn", _learn_args(url))
                assert again.is_error and "already writing" in again.content[0].text
                status = data(await c.call_tool("job_status", {"job_id": job["job_id"], "wait_seconds": 3}))
                assert status["status"] == "running" and status["pid"] == job["pid"]
                cancelled = data(await c.call_tool("cancel_job", {"job_id": job["job_id"]}))
                assert cancelled["status"] == "cancelled"
                assert _group_gone(job["pid"])
                missing = await c.call_tool("job_status", {"job_id": "learn-0-nope"})
                assert missing.is_error and "no learn job" in missing.content[0].text

    anyio.run(main)


def test_a_client_that_disconnects_ends_the_running_learn(root):
    env = {"SKILL3_ALLOW_PRIVATE_NETWORKS": "1"}
    pid = None

    async def main():
        nonlocal pid
        with slow_site() as url:
            async with Client(params(root, "--allow-learn", env=env), read_timeout_seconds=120) as c:
                pid = data(await c.call_tool("learn", _learn_args(url)))["pid"]
                await anyio.sleep(1)
            assert _group_gone(pid)  # while the site still hangs: only the server could have ended the crawl

    anyio.run(main)
    assert pid


def test_learn_job_reports_progress_while_job_status_waits(root):
    import shutil

    shutil.copy(ROOT / "examples" / "mcp.sources", root / "mcp.sources")
    progress: list[str] = []

    async def on_progress(value, total, message):
        progress.append(message or "")

    async def main():
        async with Client(params(root, "--allow-learn"), read_timeout_seconds=400) as c:
            job = data(await c.call_tool("learn", {"topic": "mcp", "input_file": "mcp.sources", "llm_provider": "extractive",
                                                   "cutoff_time": "2026-01"}))
            status = job
            for _ in range(10):
                status = data(await c.call_tool("job_status", {"job_id": job["job_id"], "wait_seconds": 60},
                                                progress_callback=on_progress))
                if status["status"] != "running":
                    break
            assert status["status"] == "done" and status["exit_code"] in (0, 3), status["log"]
            names = [m["id"] for m in data(await c.call_tool("resolve_skill", {"name": "mcp"}))["matches"]]
            assert names[0] == "mcp"
            listed = [s["name"] for s in data(await c.call_tool("list_skills", {}))["skills"]]
            assert listed == ["frob", "mcp", "widget"]  # the new skill is served without a restart
            man = json.loads((root / "mcp" / "run.json").read_text())
            assert "stale" in man["lint"]["facts"]  # the run records D1's facts for a later lint
            lint = data(await c.call_tool("lint", {"topic": "mcp"}))
            skipped = {s["rule"] for s in lint["skipped"]}
            assert "P3" not in skipped and ("D1" in skipped) is (man["lint"]["facts"]["stale"] is None)

    anyio.run(main)
    assert any("skill3: wrote" in m for m in progress), progress


# --------------------------------------------------------------------------- streamable HTTP


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def http_server(root: Path, *extra: str):
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "skill3", "mcp", "--root", str(root), "--transport", "http",
                             "--port", str(port), *extra], cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "SKILL3_HOME": str(root / ".skill3-home"), "SKILL3_ALLOW_PRIVATE_NETWORKS": "1"})
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp", proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()


def test_streamable_http_serves_the_same_tools_prompts_templates_and_jobs(root):
    pid = None

    async def main():
        nonlocal pid
        with http_server(root, "--allow-learn") as (url, proc), slow_site() as site:
            async with Client(url) as c:
                tools = (await c.list_tools()).tools
                assert all(s.get("description") for t in tools for s in t.input_schema.get("properties", {}).values())
                assert data(await c.call_tool("resolve_skill", {"name": "frb"}))["matches"][0]["id"] == "frob"
                hit = data(await c.call_tool("search", {"query": "grid rows columns"}))["results"][0]
                assert (hit["skill"], hit["version"], hit["citations"][0]["url"]) == ("widget", "2.0", W)
                got = data(await c.call_tool("get_skill", {"topic": "frob", "tokens": 600}))
                assert got["tokens"] <= 600
                prompt = (await c.get_prompt("what_changed", {"topic": "widget"})).messages[0].content.text
                assert "widget.Grid" in prompt
                read = await c.read_resource("skill://frob/references/streams.md")
                assert read.contents[0].text.startswith("# Streams")
                job = data(await c.call_tool("learn", _learn_args(site)))
                pid = job["pid"]
            async with Client(url) as c2:  # a job outlives its HTTP session: another session follows and cancels it
                assert data(await c2.call_tool("job_status", {"job_id": job["job_id"]}))["status"] == "running"
                assert data(await c2.call_tool("cancel_job", {"job_id": job["job_id"]}))["status"] == "cancelled"
            assert _group_gone(pid)

    anyio.run(main)


def test_http_server_exit_ends_running_learn_jobs(root):
    pid = None

    async def main():
        nonlocal pid
        with slow_site() as site:
            with http_server(root, "--allow-learn") as (url, proc):
                async with Client(url) as c:
                    pid = data(await c.call_tool("learn", _learn_args(site)))["pid"]
            # http_server's exit terminated the server (SIGTERM)
            assert _group_gone(pid)

    anyio.run(main)


# --------------------------------------------------------------------------- the job runner: the whole process group ends

_FAMILY = ("import subprocess, sys, time\n"
           "kid = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'])\n"
           "print('grandchild', kid.pid, flush=True)\n"
           "time.sleep(300)\n")


@pytest.mark.parametrize("how", ["cancel", "close", "kill_groups", "timeout"])
def test_a_job_ends_with_its_grandchildren(how):
    from skill3.mcp_jobs import Jobs, kill_groups

    async def main():
        jobs = Jobs()
        job = await jobs.start("t", f"/nonexistent/{how}", [sys.executable, "-c", _FAMILY], timeout=3 if how == "timeout" else 120)
        while job.count == 0:
            await jobs.wait(job, 10)
        grandchild = int(job.lines[0].split()[1])
        assert os.getpgid(grandchild) == job.pgid  # the child leads its own group, the grandchild is in it
        if how == "cancel":
            assert (await jobs.cancel(job.id)).status == "cancelled"
        elif how == "close":
            await jobs.close()
        elif how == "kill_groups":
            kill_groups(jobs.pgids())
        else:
            await jobs.wait(job, 30)
            while job.running:
                await jobs.wait(job, 30)
            assert job.status == "timed_out"
        pgid = job.pgid
        assert pgid is not None and _group_gone(pgid, 15)
        if job.task is not None and not job.task.done():
            await job.task

    anyio.run(main)
