"""Pass 2 in worker processes (synth.pipeline.bundle.parallel) decides exactly what one pass in order decides."""

import json

import pytest

from synth.pipeline.bundle import parallel
from tests.pipeline.bundle_equivalence import FIXTURE, generate, snapshot


@pytest.fixture
def forced(monkeypatch):
    """Every run is "large" and cut into many small chunks: the worker path runs on the 5,000-item run."""
    monkeypatch.setattr(parallel, "MIN_PARALLEL_BYTES", 0)
    monkeypatch.setattr(parallel, "CHUNK_BYTES", 256 * 1024)
    monkeypatch.setenv(parallel.ENV, "2")
    calls = []
    real = parallel.VotePool.vote

    def vote(self, votes, chunks, skipped):
        done = real(self, votes, chunks, skipped)
        calls.append((len(chunks), done))
        return done

    monkeypatch.setattr(parallel.VotePool, "vote", vote)
    return calls


def test_worker_processes_give_the_recorded_snapshot(tmp_path, forced):
    expected = json.loads(FIXTURE.read_text(encoding="utf-8"))
    got = snapshot(generate(tmp_path / "run.jsonl"))
    assert forced and all(n > 4 and done for n, done in forced), "pass 2 did not run in chunks in the workers"
    for mode in expected:
        assert [c["consensus_count"] for c in got[mode]["candidates"]] == [c["consensus_count"] for c in expected[mode]["candidates"]], mode
        assert got[mode] == expected[mode], mode


def test_chunks_cover_every_line_once_at_line_ends(tmp_path):
    path = generate(tmp_path / "run.jsonl")
    data = path.read_bytes()
    splitter = parallel.Splitter(chunk_bytes=100_000)
    from synth.pipeline.bundle.read import iter_items

    list(iter_items([str(path)], splitter=splitter, skipped=set()))
    chunks = splitter.finish()
    assert len(chunks) > 5
    assert chunks[0].start == 0 and chunks[-1].end == len(data)
    assert all(a.end == b.start for a, b in zip(chunks, chunks[1:]))
    for c in chunks:  # each starts at a line start, and its first line number is that line's
        assert c.start == 0 or data[c.start - 1:c.start] == b"\n"
        assert data[:c.start].count(b"\n") + 1 == c.first_line


@pytest.mark.parametrize("env, expected", [({"SKILL3_BUNDLE_WORKERS": "3"}, 3), ({"SKILL3_BUNDLE_WORKERS": "0"}, 0),
                                           ({"SKILL3_BUNDLE_WORKERS": "many"}, 0), ({"SKILL3_BUNDLE_WORKERS": "100000"}, 64)])
def test_workers_setting(env, expected):
    assert parallel.workers(env) == expected


def test_default_workers_one_per_usable_cpu_at_most_four():
    assert 1 <= parallel.workers({}) <= parallel.MAX_WORKERS


def test_a_pool_that_cannot_start_falls_back_to_one_pass(tmp_path, forced, monkeypatch, caplog):
    class NoPool:
        def __init__(self, *a, **k):
            raise OSError("no semaphores here")

    monkeypatch.setattr(parallel, "ProcessPoolExecutor", NoPool)
    expected = json.loads(FIXTURE.read_text(encoding="utf-8"))
    got = snapshot(generate(tmp_path / "run.jsonl"))
    assert got == expected
    assert "could not use 2 worker processes (no semaphores here): reading in the main process" in caplog.text
    assert forced and not any(done for _n, done in forced)


def test_a_pool_that_breaks_falls_back_to_one_pass(tmp_path, forced, monkeypatch, caplog):
    """A worker that dies (here: every chunk's vote raises in the worker) loses nothing: one pass in order."""
    monkeypatch.setattr(parallel, "_worker_vote", _explode)
    expected = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert snapshot(generate(tmp_path / "run.jsonl")) == expected
    assert "reading in the main process" in caplog.text


def _explode(*_args):
    raise RuntimeError("worker lost")
