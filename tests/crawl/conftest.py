"""Helpers for crawl tests: run the real `scrapy crawl learn` in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def scrapy_crawl(*args: str, settings: dict | None = None, env: dict | None = None, timeout: float = 90, cwd: Path | None = None):
    """`scrapy crawl learn ARGS` → CompletedProcess; settings become -s flags (dicts as JSON).

    Each call gets its own HTTP cache (direct crawls turn it on): a port reused by a later
    test must never be answered from an earlier test's pages."""
    settings = dict(settings or {})
    # Offline: the topic is not looked up on the public package registries unless a test points
    # them at its loopback doubles (tests/crawl/test_discovery_crawl.py sets SKILL3_REGISTRIES).
    settings.setdefault("SKILL3_REGISTRIES", "")
    if "HTTPCACHE_DIR" not in settings:
        cache = tempfile.TemporaryDirectory(prefix="skill3-httpcache-")
        try:
            return scrapy_crawl(*args, settings={**settings, "HTTPCACHE_DIR": cache.name}, env=env, timeout=timeout, cwd=cwd)
        finally:
            cache.cleanup()
    script = Path(sys.executable).with_name("scrapy")  # the real `scrapy` command of this interpreter
    cmd = [str(script) if script.exists() else sys.executable, *([] if script.exists() else ["-m", "scrapy"]), "crawl", "learn"]
    for a in args:
        cmd += ["-a", a]
    for k, v in (settings or {}).items():
        cmd += ["-s", f"{k}={json.dumps(v) if isinstance(v, (dict, list)) else v}"]
    full_env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy") and k not in ("BRAVE_SEARCH_API_KEY", "BRAVE_SEARCH_URL", "SKILL3_ALLOW_PRIVATE_NETWORKS")}
    full_env["PYTHONPATH"] = str(REPO)
    full_env.update(env or {})
    return subprocess.run(cmd, cwd=cwd or REPO, env=full_env, capture_output=True, text=True, timeout=timeout)


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture
def crawl():
    return scrapy_crawl
