"""An unusable output folder is found before anything is fetched: exit 2, one line naming the folder and the fix."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skill3.cli.app import app
from synth.output.outdir import output_dir_problem
from tests.crawl.conftest import REPO, scrapy_crawl
from tests.harness import skill3
from tests.mockserver import MockServer, bind, generated_site


@pytest.fixture
def blocker(tmp_path) -> Path:
    f = tmp_path / "notes.txt"
    f.write_text("the user's file\n")
    return f


@pytest.mark.parametrize(
    "rel, needle",
    [
        ("notes.txt", "is a file, not a folder"),
        ("notes.txt/out", "notes.txt is a file"),
        ("notes.txt/a/b/c", "notes.txt is a file"),
        ("fresh/a/b", None),
        (".", None),
    ],
)
def test_output_dir_problem_table(tmp_path, blocker, rel, needle):
    problem = output_dir_problem(tmp_path / rel)
    if needle is None:
        assert problem is None
    else:
        assert needle in problem and "pass a folder" in problem and "\n" not in problem
    assert blocker.read_text() == "the user's file\n"
    assert not (tmp_path / "fresh").exists()  # the check creates nothing


def test_output_dir_problem_not_writable(tmp_path, monkeypatch):
    """The permission check alone (as root a chmod'ed folder stays writable): os.access says no."""
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) == tmp_path else real(p, mode, **kw))
    problem = output_dir_problem(tmp_path / "out" / "deeper")
    assert problem and "is not writable" in problem and str(tmp_path) in problem


def test_scrapy_crawl_refuses_a_folder_below_a_file_before_fetching(tmp_path, blocker) -> None:
    """`scrapy crawl learn`'s bad argument end to end: one line, exit 2, nothing fetched (every other bad
    argument is a case of tests/crawl/test_runner.py's table, the same pre-check without a process)."""
    server = MockServer()
    server.routes = bind(generated_site(3), server.url)
    with server as site:
        proc = scrapy_crawl("topic=t", f"start_urls={site.url}/docs/", f"output_dir={blocker}/out", "synth=0",
                            env={"SKILL3_ALLOW_PRIVATE_NETWORKS": "1"}, timeout=60)
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and f"{blocker}/out" in lines[0] and "is a file" in lines[0], proc.stderr
    assert sum(site.hits.values()) == 0  # nothing fetched


def test_skill3_learn_and_synth_refuse_a_folder_below_a_file(tmp_path, blocker) -> None:
    """`skill3 learn`'s bad argument end to end (a process: the pre-check runs before Scrapy's); `skill3 synth`'s in-process."""
    learn = skill3("learn", "mcp", "--input-file", str(REPO / "examples" / "mcp.sources"), "--output-dir", f"{blocker}/out",
                   "--llm-provider", "extractive", timeout=60)
    assert learn.returncode == 2, learn.stderr[-2000:]
    lines = [line for line in learn.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and f"{blocker}/out" in lines[0], learn.stderr
    feed = tmp_path / "run.jsonl"
    feed.write_text('{"url": "https://docs.example.org/a", "topic": "t"}\n')
    synth = CliRunner().invoke(app, ["synth", str(feed), "--output-dir", f"{blocker}/skill", "--llm-provider", "extractive", "--quiet"])
    assert synth.exit_code == 2, synth.stderr[-2000:]
    lines = [line for line in synth.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and f"{blocker}/skill" in lines[0], synth.stderr


def test_read_only_file_system_is_refused_before_fetching(tmp_path) -> None:
    """A real read-only mount (a private mount namespace: nothing changes outside this test's processes):
    the runner's pre-check, which `scrapy crawl learn` and `skill3 learn` run before Scrapy starts."""
    unshare = shutil.which("unshare")
    ro = tmp_path / "ro"
    ro.mkdir()
    if not unshare or subprocess.run([unshare, "-rm", "sh", "-c", 'mount -t tmpfs -o ro tmpfs "$1"', "sh", str(ro)],
                                     capture_output=True).returncode:
        pytest.skip("no unprivileged mount namespaces here")
    check = ("import sys; from skill3crawl.runner import argument_problem; from skill3crawl.spiders.learn import LearnSpider; "
             "print(argument_problem(LearnSpider, dict(a.split('=', 1) for a in sys.argv[1:])))")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [unshare, "-rm", "sh", "-c", 'mount -t tmpfs -o ro tmpfs "$1" && shift && exec "$@"', "sh", str(ro),
         sys.executable, "-c", check, "topic=t", "start_urls=https://docs.example.org/docs/", f"output_dir={ro}/out", "synth=0"],
        capture_output=True, text=True, env=env, cwd=REPO, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert len(lines) == 1 and "is not writable" in lines[0] and f"{ro}/out" in lines[0], proc.stdout


@pytest.mark.parametrize("cutoff, needle", [("0000-01", "is before 1990"), ("2999-01", "is after this month")])
def test_an_impossible_cutoff_is_a_usage_error_before_anything_runs(tmp_path, cutoff, needle) -> None:
    """`skill3 learn` (a process) and `skill3 synth` (in-process): one line naming --cutoff-time's value, exit 2, nothing written."""
    learn = skill3("learn", "mcp", "--input-file", str(REPO / "examples" / "mcp.sources"), "--output-dir", str(tmp_path / "o"),
                   "--cutoff-time", cutoff, "--llm-provider", "extractive", timeout=60)
    assert learn.returncode == 2, learn.stderr[-2000:]
    lines = [line for line in learn.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and f"cutoff_time {cutoff} {needle}" in lines[0] and "Traceback" not in learn.stderr, learn.stderr
    assert not (tmp_path / "o").exists()
    feed = tmp_path / "run.jsonl"
    feed.write_text('{"url": "https://docs.example.org/a", "topic": "t"}\n')
    synth = CliRunner().invoke(app, ["synth", str(feed), "--cutoff-time", cutoff, "--llm-provider", "extractive", "--quiet"])
    assert synth.exit_code == 2, synth.stderr[-2000:]
    lines = [line for line in synth.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0], synth.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.jsonl"]
