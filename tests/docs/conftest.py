"""Helpers for docs-mode tests: real `scrapy crawl` subprocesses against loopback sites."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FAST = {
    "DOWNLOAD_DELAY": "0",
    "AUTOTHROTTLE_ENABLED": "0",
    "SKILL3_EXTRACT_WORKERS": "0",
    "SKILL3_PROGRESS_INTERVAL": "1",
    "LOG_LEVEL": "INFO",
    "STATS_CLASS": "tests.docs.statsdump.JsonFileStatsCollector",
    "SKILL3_JS": "never",
}


class CrawlResult:
    def __init__(self, proc, stats_file: Path, output_dir: Path):
        self.proc = proc
        self.returncode = proc.returncode
        self.log = proc.stderr
        self.stats = json.loads(stats_file.read_text()) if stats_file.exists() else {}
        self.output_dir = output_dir

    def items(self, name: str = "run.jsonl") -> list[dict]:
        path = self.output_dir / name
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# Warnings are errors in the crawl subprocesses too.
STRICT = ["-W", "error"]


def crawl_cmd(spider_args: dict, settings: dict, spider: str = "docs") -> list[str]:
    cmd = [sys.executable, *STRICT, "-m", "scrapy", "crawl", spider]
    spider_args = {"synth": "0", **spider_args}
    for k, v in spider_args.items():
        cmd += ["-a", f"{k}={v}"]
    for k, v in {**FAST, **settings}.items():
        cmd += ["-s", f"{k}={v}"]
    return cmd


def crawl_env(tmp_path: Path, tag: str = "") -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["SKILL3_ALLOW_PRIVATE_NETWORKS"] = "1"
    env["SKILL3_TEST_STATS_FILE"] = str(tmp_path / f"stats{tag}.json")
    return env


@pytest.fixture
def run_crawl(tmp_path):
    """Run `scrapy crawl docs` (or ``spider``) to completion; returns a CrawlResult."""

    def _run(spider_args: dict, settings: dict | None = None, tag: str = "", timeout: float = 120, spider: str = "docs") -> CrawlResult:
        settings = {"HTTPCACHE_DIR": str(tmp_path / "httpcache"), **(settings or {})}
        out = Path(spider_args.setdefault("output_dir", str(tmp_path / "out")))
        env = crawl_env(tmp_path, tag)
        proc = subprocess.run(crawl_cmd(spider_args, settings, spider), cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
        return CrawlResult(proc, tmp_path / f"stats{tag}.json", out)

    return _run
