"""Round four, item 5: the MCP server's ``learn`` child ends with its caller, and bad arguments are one line.

The real ``mcp`` SDK client drives a real ``skill3 mcp`` child; ``learn`` runs a real crawl over a slow loopback
site (it would run for minutes). When the client goes away mid-call, or the server is stopped, the crawl's whole
process group must be gone within seconds and the server must print no traceback."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import stdio_client

from tests.agents.fixtures import params
from tests.mockserver import MockServer

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups")


def slow_site(srv, host, path, query, body):
    if path == "/robots.txt":
        return 200, {"Content-Type": "text/plain"}, "User-agent: *\nAllow: /\n"
    n = int(path.strip("/").split("-")[-1] or 0) if path.startswith("/p-") else 0
    links = "".join(f"<a href='/p-{n * 10 + k}'>page {n * 10 + k}</a> " for k in range(1, 11))
    text = "The frob toolkit streams frames. " * 40
    return 200, {"Content-Type": "text/html"}, f"<html><head><title>Frob {n}</title></head><body><main><h1>Frob {n}</h1><p>{text}</p>{links}</main></body></html>"


def crawl_pids(root: Path) -> list[int]:
    """The processes whose command line names the learn output folder under ``root`` (the child and its own)."""
    needle = str(root / "frob").encode()
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if needle in (d / "cmdline").read_bytes() and int(d.name) != os.getpid():
                    pids.append(int(d.name))
            except OSError:
                pass
    return pids


def wait_gone(root: Path, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = crawl_pids(root)
        if not left:
            return []
        time.sleep(0.2)
    return crawl_pids(root)


@pytest.fixture
def site():
    srv = MockServer(routes=slow_site, delay=0.7, name="slow").start()
    yield srv
    srv.stop()


def _learn_args(site) -> dict:
    return {"topic": "frob", "start_urls": [f"http://127.0.0.1:{site.port}/"], "llm_provider": "extractive",
            "cutoff_time": "2026-01", "max_pages": 400}


@pytest.mark.parametrize("how", ["client-disconnects", "server-terminated"])
def test_the_learn_crawl_ends_with_its_caller(tmp_path, site, how):
    root = tmp_path / "root"
    root.mkdir()
    errlog = tmp_path / "server-stderr.txt"
    env = {"SKILL3_ALLOW_PRIVATE_NETWORKS": "1", "SKILL3_HOME": str(tmp_path / "home")}
    seen: list[int] = []

    async def main():
        with errlog.open("w") as err, anyio.move_on_after(60):
            async with Client(stdio_client(params(root, "--allow-learn", env=env), errlog=err), read_timeout_seconds=120) as c:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(c.call_tool, "learn", _learn_args(site))
                    for _ in range(300):
                        seen[:] = crawl_pids(root)
                        if seen and site.seen:
                            break
                        await anyio.sleep(0.1)
                    assert seen and site.seen, "the crawl never started"
                    if how == "server-terminated":
                        server = int(Path(f"/proc/{seen[0]}/stat").read_text().rsplit(")", 1)[1].split()[1])  # the child's parent
                        os.kill(server, signal.SIGTERM)
                        await anyio.sleep(1.0)
                    tg.cancel_scope.cancel()

    anyio.run(main)
    assert wait_gone(root, 12) == [], "the learn crawl outlived its caller"
    text = errlog.read_text()
    assert "Traceback" not in text and "BrokenPipe" not in text, text[-2000:]


@pytest.mark.parametrize("tool,args,says", [
    ("learn", {"topic": "fr\x00ob"}, "topic holds a control character"),
    ("learn", {"topic": "frob", "cutoff_time": "2026-01\x00"}, "cutoff_time holds a control character"),
    ("learn", {"topic": "x" * 2_000_000}, "topic is 2,000,000 characters; at most 200"),
    ("get_skill", {"topic": "x" * 2_000_000}, "topic is 2,000,000 characters; at most 200"),
    ("get_skill", {"topic": "x" * 150}, "no skill for 'xxxx"),
    ("get_skill", {"topic": "nope", "file": "y" * 2_000_000}, "file is 2,000,000 characters; at most 300"),
    ("learn", {"topic": "frob", "cutoff_time": "2026-1"}, "cutoff_time must be YYYY-MM"),
    ("get_skill", {"topic": "nope", "tokens": "many"}, "get_skill: tokens:"),
])
def test_bad_arguments_are_one_short_line(tmp_path, tool, args, says):
    errlog = tmp_path / "server-stderr.txt"

    async def main():
        with errlog.open("w") as err:
            async with Client(stdio_client(params(tmp_path, "--allow-learn"), errlog=err)) as c:
                return await c.call_tool(tool, args)

    r = anyio.run(main)
    text = r.content[0].text
    assert r.is_error and says in text and "\n" not in text and len(text) < 600, text[:300]
    assert "Traceback" not in errlog.read_text()
