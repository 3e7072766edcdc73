"""The one crawl harness of the tests: `scrapy crawl SPIDER` and `skill3 …` as real child processes.

Children are forked from a warm server (:mod:`tests.forkserver`): each run is its own process (exit
status, stderr, working directory, environment, reactor), without a fresh interpreter importing
Scrapy and the project again. Tests that signal a crawl (Ctrl-C, kill and resume) start
``python -m scrapy`` themselves with :func:`crawl_cmd` and :func:`crawl_env`.

One environment for every run (:func:`crawl_env`): the caller's, without proxies and without the
search key, search URL and private-network switch a developer may have exported — a test that needs
one passes it in ``env``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests import forkserver

REPO = Path(__file__).resolve().parents[1]

# Never inherited from the developer's shell: a test that needs one sets it.
DROPPED = ("BRAVE_SEARCH_API_KEY", "BRAVE_SEARCH_URL", "SEARXNG_URL", "SKILL3_ALLOW_PRIVATE_NETWORKS")

# Settings for crawls whose subject is not politeness or the extraction pool: no delays, inline extraction.
FAST = {
    "DOWNLOAD_DELAY": "0",
    "AUTOTHROTTLE_ENABLED": "0",
    "SKILL3_EXTRACT_WORKERS": "0",
    "SKILL3_JS": "never",
    "SKILL3_REGISTRIES": "",  # hermetic: the real registries are never asked (tests that need them run loopback doubles)
}


def crawl_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a test's child process: this one's, minus proxies and :data:`DROPPED`, plus ``env``."""
    full = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy") and k not in DROPPED}
    full["PYTHONPATH"] = str(REPO)
    full.update(env or {})
    return full


def crawl_cmd(spider: str, spider_args: list[str], settings: dict, strict: bool = False) -> list[str]:
    """``python -m scrapy crawl SPIDER -a … -s …`` (dicts and lists as JSON), for tests that need a Popen."""
    return [sys.executable, *(["-W", "error"] if strict else []), "-m", *scrapy_argv(spider, spider_args, settings)]


def scrapy_argv(spider: str, spider_args: list[str], settings: dict) -> list[str]:
    argv = ["scrapy", "crawl", spider]
    for a in spider_args:
        argv += ["-a", a]
    for k, v in settings.items():
        argv += ["-s", f"{k}={json.dumps(v) if isinstance(v, (dict, list)) else v}"]
    return argv


def scrapy_crawl(spider: str, *spider_args: str, settings: dict | None = None, env: dict | None = None, timeout: float = 120,
                 cwd: Path | None = None, strict: bool = False) -> subprocess.CompletedProcess:
    """`scrapy crawl SPIDER ARGS` to completion → CompletedProcess (text stdout/stderr).

    Offline: the topic is not looked up on the public package registries unless the test points them at its
    loopback doubles (``SKILL3_REGISTRIES``). Each run gets its own HTTP cache unless the test names one: a
    port reused by a later test must never be answered from an earlier test's pages."""
    settings = {"SKILL3_REGISTRIES": "", **(settings or {})}
    with tempfile.TemporaryDirectory(prefix="skill3-httpcache-") as cache:
        settings.setdefault("HTTPCACHE_DIR", cache)
        return forkserver.run(scrapy_argv(spider, list(spider_args), settings), env=crawl_env(env), cwd=cwd or REPO,
                              timeout=timeout, strict=strict)


def skill3(*args: str, env: dict | None = None, timeout: float = 120, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`skill3 ARGS` to completion → CompletedProcess (text stdout/stderr)."""
    return forkserver.run(["skill3", *args], env=crawl_env(env), cwd=cwd or REPO, timeout=timeout)


def run_cmd(cmd: list[str], *, env: dict[str, str], cwd: Path = REPO, timeout: float | None = None) -> subprocess.CompletedProcess:
    """Run a :func:`crawl_cmd` command line to completion through the fork server (e.g. the resume after a
    signalled first run)."""
    assert cmd[0] == sys.executable, cmd
    rest = cmd[1:]
    strict = rest[:2] == ["-W", "error"]
    rest = rest[2:] if strict else rest
    assert rest[0] == "-m", cmd
    return forkserver.run(rest[1:], env=env, cwd=cwd, timeout=timeout, strict=strict)
