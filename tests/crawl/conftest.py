"""Helpers for crawl tests: the real `scrapy crawl learn`, as a child process (see tests/harness.py); the docs-mode
crawl's ``run_crawl`` fixture (tests/crawl/docs_mode.py) is offered here too, to every test under tests/crawl/."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Callable

import pytest

from tests.crawl.docs_mode import run_crawl
from tests.harness import REPO
from tests.harness import scrapy_crawl as _crawl

__all__ = ["REPO", "crawl", "read_jsonl", "run_crawl", "scrapy_crawl"]


def scrapy_crawl(*args: str, settings: dict | None = None, env: dict | None = None, timeout: float = 90,
                 cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`scrapy crawl learn ARGS` → CompletedProcess; settings become -s flags (dicts as JSON).

    Extraction runs inline unless the test sets ``SKILL3_EXTRACT_WORKERS`` (docs mode would start a
    worker pool per crawl)."""
    return _crawl("learn", *args, settings={"SKILL3_EXTRACT_WORKERS": "0", **(settings or {})}, env=env, timeout=timeout, cwd=cwd)


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture
def crawl() -> Callable[..., subprocess.CompletedProcess]:
    return scrapy_crawl
