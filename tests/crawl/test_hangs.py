"""A crawl always ends, and what it wrote is never lost: corpora at the page budget, Ctrl-C, a forced stop."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.crawl.conftest import REPO, read_jsonl, scrapy_crawl
from tests.harness import skill3


def write_corpus(path: Path, n: int) -> Path:
    blocks = []
    for i in range(n):
        blocks.append(
            f"=== SOURCE ===\nurl: https://docs{i % 7}.example.org/page-{i}\ntitle: Page {i}\ndate: 2026-0{1 + i % 9}-10\n\n"
            f"# Release note {i}\n\nRelease {i} of the widget toolkit adds the option number {i * 13} to the scheduler, "
            f"and version {i}.{i % 5} removes the legacy flag {i * 7} in favour of the new configuration key {i}.\n\n"
            f"```python\nwidget.configure(option_{i}=True)\n```\n"
        )
    path.write_text("".join(blocks), encoding="utf-8")
    return path


@pytest.mark.parametrize("sources,max_pages", [(2, 2), (6, 2), (40, 7)])
def test_corpus_at_or_over_the_budget_ends_with_max_pages_items(tmp_path, sources, max_pages):
    corpus = write_corpus(tmp_path / "c.sources", sources)
    out = tmp_path / "out"
    proc = scrapy_crawl("topic=widgets", f"input_file={corpus}", f"max_pages={max_pages}", "synth=0", f"output_dir={out}",
                        "cutoff_time=2025-12", settings={"SKILL3_TODAY": "2026-11-29"}, timeout=90)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert len(read_jsonl(out / "run.jsonl")) == max_pages
    summary = json.loads((out / "crawl.json").read_text())["summary"]
    assert summary["items_written"] == max_pages
    assert summary["dropped"].get("max_pages", 0) == sources - max_pages  # the unread sources are counted


def test_skill3_learn_with_a_budget_below_the_corpus_ends(tmp_path) -> None:
    """… and takes Scrapy settings as `scrapy crawl -s` does: JOBDIR keeps the crawl's queue, LOG_LEVEL shows its log."""
    out = tmp_path / "mcp"
    r = skill3("learn", "mcp", "--input-file", str(REPO / "examples" / "mcp.sources"), "--max-pages", "2", "--output-dir", str(out),
               "--llm-provider", "extractive", "-s", f"JOBDIR={tmp_path / 'job'}", "--set", "LOG_LEVEL=INFO", timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert len(read_jsonl(out / "run.jsonl")) == 2
    assert len(json.loads((out / "run.json").read_text())["sources"]) == 2
    assert (tmp_path / "job" / "requests.seen").is_file()
    assert " INFO: " in r.stderr and r.stderr.count("skill3 crawl summary: ") == 1  # the log's line, not repeated


def _start_big_crawl(tmp_path: Path, n: int = 3000):
    corpus = write_corpus(tmp_path / "big.sources", n)
    out = tmp_path / "out"
    cmd = [str(Path(sys.executable).with_name("scrapy")), "crawl", "learn", "-a", "topic=widgets", "-a", f"input_file={corpus}",
           "-a", f"max_pages={n}", "-a", f"output_dir={out}", "-a", "cutoff_time=2025-12", "-s", "SKILL3_TODAY=2026-11-29"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    feed = out / "run.jsonl"
    deadline = time.monotonic() + 90
    while not (feed.exists() and feed.read_bytes().count(b"\n") >= 5):
        assert proc.poll() is None and time.monotonic() < deadline, "the crawl ended or wrote nothing"
        time.sleep(0.05)
    return proc, out


def _stop(proc, signals_: int) -> str:
    try:
        for _ in range(signals_):
            proc.send_signal(signal.SIGINT)
            time.sleep(0.05)
        return proc.communicate(timeout=60)[1]
    finally:
        if proc.poll() is None:  # hung: fail, and leave no process behind
            proc.kill()
            proc.communicate()


def test_ctrl_c_keeps_the_items_says_so_and_exits_130(tmp_path):
    """Items sent from start() (the corpus) are in the pipelines when Ctrl-C comes: the close still completes."""
    proc, out = _start_big_crawl(tmp_path)
    seen = (out / "run.jsonl").read_bytes().count(b"\n")
    log = _stop(proc, 1)
    assert proc.returncode == 130, log[-2000:]
    items = read_jsonl(out / "run.jsonl")
    assert seen <= len(items) < 3000
    assert "skill3: crawl interrupted: %d item(s) kept" % len(items) in log
    crawl = json.loads((out / "crawl.json").read_text())
    assert crawl["finish_reason"] == "shutdown" and crawl["summary"]["items_written"] == len(items)
    assert not (out / "run.json").exists()  # an interrupted crawl is not synthesized
    assert "Traceback" not in log


def test_a_forced_stop_keeps_every_line_already_exported(tmp_path):
    """Two Ctrl-C: Scrapy stops the reactor at once; the lines exported so far are on disk, whole."""
    proc, out = _start_big_crawl(tmp_path)
    log = _stop(proc, 2)
    assert proc.returncode != 0, log[-2000:]
    items = read_jsonl(out / "run.jsonl")  # every line parses
    assert len(items) >= 5
