"""Faults end cleanly: one run per output folder, a full disk, signals during synthesis."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skill3.cli.app import app
from synth.output.outdir import lock_output_dir
from tests.crawl.conftest import REPO, read_jsonl, scrapy_crawl
from tests.crawl.test_hangs import write_corpus
from tests.harness import crawl_env, skill3

EXAMPLE = REPO / "examples" / "mcp.sources"


def _one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr[-3000:]
    return lines[0]


def _one_error(stderr: str) -> str:
    """The one error line among warnings."""
    errors = [line for line in stderr.splitlines() if "error:" in line.lower() or " ERROR: " in line]
    assert len(errors) == 1 and "Traceback" not in stderr, stderr[-3000:]
    return errors[0]


# --------------------------------------------------------------------------- one run per output folder


def test_the_lock_is_reentrant_in_a_process_and_released(tmp_path):
    out = tmp_path / "new" / "out"
    with lock_output_dir(out):
        assert out.is_dir()
        with lock_output_dir(out):  # skill3 learn's synthesis inside its crawl's hold
            pass
        probe = subprocess.run([sys.executable, "-c", "import sys; from synth.output.outdir import lock_output_dir; "
                                "lock_output_dir(sys.argv[1])", str(out)], capture_output=True, text=True, env=crawl_env())
        assert probe.returncode == 1 and "OutputDirLocked" in probe.stderr and "is in use by another skill3 run" in probe.stderr
    lock_output_dir(out).release()  # free again
    assert list(out.iterdir()) == []  # no lock file


def test_a_second_run_into_a_busy_folder_refuses_in_one_line_and_the_lock_dies_with_the_first(tmp_path):
    corpus = write_corpus(tmp_path / "big.sources", 3000)
    out = tmp_path / "out"
    cmd = [str(Path(sys.executable).with_name("scrapy")), "crawl", "learn", "-a", "topic=widgets", "-a", f"input_file={corpus}",
           "-a", "max_pages=3000", "-a", f"output_dir={out}", "-a", "cutoff_time=2025-12", "-a", "synth=0"]
    first = subprocess.Popen(cmd, cwd=REPO, env=crawl_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        feed = out / "run.jsonl"
        deadline = time.monotonic() + 90
        while not (feed.exists() and feed.read_bytes().count(b"\n") >= 5):
            assert first.poll() is None and time.monotonic() < deadline, "the first crawl ended or wrote nothing"
            time.sleep(0.05)
        learn = skill3("learn", "mcp", "--input-file", str(EXAMPLE), "--output-dir", str(out), "--llm-provider", "extractive",
                       timeout=60)
        assert learn.returncode == 2 and "is in use by another skill3 run" in _one_error_line(learn.stderr)
        crawl = scrapy_crawl("topic=mcp", f"input_file={EXAMPLE}", f"output_dir={out}", "synth=0", timeout=60)
        assert crawl.returncode == 2 and f"output folder {str(out)!r} is in use" in _one_error_line(crawl.stderr)
        synth = CliRunner().invoke(app, ["synth", str(feed), "--llm-provider", "extractive", "--quiet"])
        assert synth.exit_code == 2 and "is in use by another skill3 run" in _one_error_line(synth.stderr)
        assert first.poll() is None  # the first run went on, its feed its own
        assert all(item["topic"] == "widgets" for item in read_jsonl(feed)[:-1])
    finally:
        first.kill()  # SIGKILL: no handler runs; the kernel drops the lock with the process
        first.wait(timeout=30)
    again = skill3("learn", "mcp", "--input-file", str(EXAMPLE), "--output-dir", str(out), "--llm-provider", "extractive",
                   timeout=120)
    assert again.returncode == 0, again.stderr[-3000:]
    assert (out / "mcp" / "SKILL.md").is_file() and {i["topic"] for i in read_jsonl(out / "run.jsonl")} == {"mcp"}


# --------------------------------------------------------------------------- a full disk

SKILL3 = str(Path(sys.executable).with_name("skill3"))


def _in_tiny_fs(tmp_path: Path, size: str, script: str, *args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    """``script`` (sh) with ``$1`` a real tmpfs of ``size`` (a private mount namespace: nothing changes outside it)."""
    import shutil

    unshare = shutil.which("unshare")
    mnt = tmp_path / "disk"
    mnt.mkdir()
    if not unshare or subprocess.run([unshare, "-rm", "sh", "-c", 'mount -t tmpfs -o size=64k tmpfs "$1"', "sh", str(mnt)],
                                     capture_output=True).returncode:
        pytest.skip("no mount namespaces here (the injected-failure tests below still run)")
    return subprocess.run([unshare, "-rm", "sh", "-c", f'mount -t tmpfs -o size={size} tmpfs "$1" && {script}', "sh", str(mnt), *args],
                          capture_output=True, text=True, env=crawl_env(), cwd=REPO, timeout=timeout)


def test_a_disk_that_fills_during_the_crawl_stops_it_in_one_line_without_synthesis(tmp_path):
    corpus = write_corpus(tmp_path / "c.sources", 400)
    proc = _in_tiny_fs(tmp_path, "48k", f'"{SKILL3}" learn widgets --input-file "$2" --output-dir "$1/out" '
                       '--cutoff-time 2025-12 --llm-provider extractive; echo "exit=$?"; '
                       'ls -A "$1/out"; echo ---; cat "$1/out/run.jsonl"', str(corpus))
    out, feed = proc.stdout.split("\n---\n", 1)
    assert "exit=1" in out, proc.stdout[-2000:] + proc.stderr[-3000:]
    error = _one_error(proc.stderr)
    assert "writing" in error and "run.jsonl" in error and "No space left on device" in error
    names = out.split("exit=1", 1)[1].split()
    assert "run.jsonl" in names and "run.json" not in names and "widgets" not in names  # nothing synthesized
    lines = [line for line in feed.splitlines() if line.strip()]
    assert lines and all(line.startswith("{") and line.endswith("}") for line in lines)  # whole lines only


def test_a_disk_full_during_synthesis_leaves_the_previous_outputs_whole(tmp_path):
    proc = _in_tiny_fs(tmp_path, "3m", f'"{SKILL3}" learn mcp --input-file "$2" --output-dir "$1/out" --llm-provider extractive '
                       '>/dev/null 2>&1 || exit 9; sha256sum "$1"/out/run.json "$1"/out/index.html "$1"/out/mcp/SKILL.md > "$1/../before"; '
                       'dd if=/dev/zero of="$1/filler" bs=4k 2>/dev/null; '
                       # room for a new SKILL.md, not for run.json and index.html too
                       'truncate -s -$(( $(stat -c %s "$1/out/mcp/SKILL.md") + 12288 )) "$1/filler"; '
                       f'"{SKILL3}" synth "$1/out/run.jsonl" --llm-provider extractive --cutoff-time 2025-06 --quiet; echo "exit=$?"; '
                       'sha256sum -c "$1/../before" && ls -A "$1/out"', str(EXAMPLE))
    assert proc.returncode == 0 and "exit=1" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert "No space left on device" in _one_error(proc.stderr)
    assert proc.stdout.count(": OK") == 3  # SKILL.md, run.json and index.html as the previous run left them
    assert sorted(proc.stdout.split("exit=1", 1)[1].split()[6:]) == ["crawl.json", "index.html", "mcp", "run.json", "run.jsonl"]


def test_a_failed_write_at_any_output_leaves_all_three_as_they_were(tmp_path, monkeypatch):
    """The injected variant (no mount needed): ENOSPC at each staged file in turn, and at each commit rename."""
    from synth.output import writing
    from tests.pipeline.corpus import EXAMPLE as EXAMPLE_SOURCES
    from tests.pipeline.corpus import parse_sources, write_jsonl

    feed = write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE_SOURCES))
    assert CliRunner().invoke(app, ["synth", str(feed), "--llm-provider", "extractive", "--quiet"]).exit_code == 0
    names = ("mcp/SKILL.md", "run.json", "index.html")
    before = {n: (tmp_path / n).read_bytes() for n in names}
    real_write, real_rename = writing._write_synced, writing.os.rename
    for target in ("SKILL.md", "run.json", "index.html", "rename:1", "rename:3", "rename:5"):
        calls = {"n": 0}

        def write(path, text, target=target):
            if Path(path).name == target:
                raise OSError(28, "No space left on device", str(path))
            return real_write(path, text)

        def rename(src, dst, target=target):
            calls["n"] += 1
            if target == f"rename:{calls['n']}":
                raise OSError(28, "No space left on device", str(dst))
            return real_rename(src, dst)

        monkeypatch.setattr(writing, "_write_synced", write)
        monkeypatch.setattr(writing.os, "rename", rename)
        r = CliRunner().invoke(app, ["synth", str(feed), "--llm-provider", "extractive", "--cutoff-time", "2025-06", "--quiet"])
        monkeypatch.undo()
        assert r.exit_code == 1 and "No space left on device" in _one_error(r.stderr), (target, r.stderr)
        assert {n: (tmp_path / n).read_bytes() for n in names} == before, target
        # (a refresh may have copied the previous run to .history/ just before the failed commit: a copy, not a change)
        assert sorted(p.name for p in tmp_path.iterdir() if p.name != ".history") == ["index.html", "mcp", "run.json",
                                                                                      "run.jsonl"], target


def test_a_feed_write_that_fails_cuts_back_to_whole_lines_and_reports_once(tmp_path):
    from skill3crawl.feedstorage import _FeedFile

    class Disk:  # a file that takes 100 bytes, then is full
        def __init__(self, fh):
            self.fh, self.room = fh, 100

        def write(self, data):
            if not self.room:
                raise OSError(28, "No space left on device")
            n = min(len(data), self.room)
            self.room -= n
            return self.fh.write(bytes(data[:n]))

        def fileno(self):
            return self.fh.fileno()

    path = tmp_path / "run.jsonl"
    failures = []
    with path.open("wb", buffering=0) as raw:
        feed = _FeedFile(Disk(raw), failures.append)
        for i in range(10):
            feed.write(b'{"url": "https://a.example/%d", "pad": "%s"}\n' % (i, b"x" * 10))
    assert len(failures) == 1 and failures[0].errno == 28
    text = path.read_text()
    assert text.count("\n") == 1 and text.endswith("}\n")  # the line that fitted, no half second one


# --------------------------------------------------------------------------- signals during synthesis


@pytest.mark.parametrize("command", ["learn", "synth"])
@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "Ctrl-C"])
def test_a_signal_during_synthesis_stops_it_with_nothing_half_written(tmp_path, command, sig, code):
    """`skill3 learn` after its crawl (where Scrapy's handlers used to swallow the signal) and `skill3 synth`: the
    model call in progress is abandoned, exit 128 + the signal, one line, the previous outputs whole."""
    import hashlib
    import threading

    from tests.mockserver import StubLLM

    out = tmp_path / "out"
    first = skill3("learn", "mcp", "--input-file", str(EXAMPLE), "--output-dir", str(out), "--llm-provider", "extractive")
    assert first.returncode == 0, first.stderr[-2000:]
    names = ("mcp/SKILL.md", "run.json", "index.html", "run.jsonl")
    before = {n: hashlib.sha256((out / n).read_bytes()).hexdigest() for n in names}
    asked = threading.Event()

    def answer(body):  # a probe is answered; the synthesis call never is (in this test's time)
        if len(json.dumps(body)) < 2000:
            return "ok"
        asked.set()
        time.sleep(60)
        return "too late"

    with StubLLM(answer) as llm:
        args = ["--llm-provider", "openai", "--llm-endpoint", llm.url, "--llm-model", "stub-model"]
        cmd = [SKILL3, "learn", "mcp", "--input-file", str(EXAMPLE), "--output-dir", str(out), *args] if command == "learn" \
            else [SKILL3, "synth", str(out / "run.jsonl"), "--quiet", *args]
        proc = subprocess.Popen(cmd, cwd=REPO, env=crawl_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert asked.wait(90), "synthesis never called the model"
            time.sleep(0.3)
            proc.send_signal(sig)
            _, stderr = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == code, stderr[-3000:]
    error = _one_error(stderr)
    assert f"interrupted ({signal.Signals(sig).name})" in error and "nothing was written" in error
    after = {n: hashlib.sha256((out / n).read_bytes()).hexdigest() for n in names}
    if command == "learn":  # its crawl completed: run.jsonl is the new crawl's
        del after["run.jsonl"], before["run.jsonl"]
    assert after == before
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]
