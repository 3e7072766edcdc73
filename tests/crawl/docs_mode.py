"""Helpers for docs-mode tests: the real `scrapy crawl docs` against loopback sites (see tests/harness.py); the
``run_crawl`` fixture reaches every test under tests/crawl/ through tests/crawl/conftest.py.

Warnings are errors in these crawls too (``-W error``)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Callable

import pytest

from tests import harness

ROOT = harness.REPO

FAST = {
    **harness.FAST,
    "SKILL3_PROGRESS_INTERVAL": "1",
    "LOG_LEVEL": "INFO",
    "STATS_CLASS": "tests.crawl.statsdump.JsonFileStatsCollector",
}


class CrawlResult:
    def __init__(self, proc: subprocess.CompletedProcess, stats_file: Path, output_dir: Path) -> None:
        self.proc = proc
        self.returncode = proc.returncode
        self.log = proc.stderr
        self.stats = json.loads(stats_file.read_text()) if stats_file.exists() else {}
        self.output_dir = output_dir

    def items(self, name: str = "run.jsonl") -> list[dict]:
        path = self.output_dir / name
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _spider_args(spider_args: dict) -> list[str]:
    return [f"{k}={v}" for k, v in {"synth": "0", **spider_args}.items()]


def crawl_cmd(spider_args: dict, settings: dict, spider: str = "docs") -> list[str]:
    """The command line of a strict docs crawl, for tests that start (and signal) the process themselves."""
    return harness.crawl_cmd(spider, _spider_args(spider_args), {**FAST, **settings}, strict=True)


def crawl_env(tmp_path: Path, tag: str = "") -> dict:
    return harness.crawl_env({"SKILL3_ALLOW_PRIVATE_NETWORKS": "1", "SKILL3_TEST_STATS_FILE": str(tmp_path / f"stats{tag}.json")})


@pytest.fixture
def run_crawl(tmp_path: Path) -> Callable[..., CrawlResult]:
    """Run `scrapy crawl docs` (or ``spider``) to completion; returns a CrawlResult."""

    def _run(spider_args: dict, settings: dict | None = None, tag: str = "", timeout: float = 120, spider: str = "docs") -> CrawlResult:
        settings = {**FAST, "HTTPCACHE_DIR": str(tmp_path / "httpcache"), **(settings or {})}
        out = Path(spider_args.setdefault("output_dir", str(tmp_path / "out")))
        proc = harness.forkserver.run(harness.scrapy_argv(spider, _spider_args(spider_args), settings), env=crawl_env(tmp_path, tag),
                                      cwd=ROOT, timeout=timeout, strict=True)
        return CrawlResult(proc, tmp_path / f"stats{tag}.json", out)

    return _run
