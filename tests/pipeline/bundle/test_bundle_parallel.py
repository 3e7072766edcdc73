"""Both passes in worker processes (synth.pipeline.bundle.parallel) decide exactly what one pass in order decides."""

import json
from datetime import date
from pathlib import Path

import pytest

from synth.pipeline.bundle import parallel
from tests.pipeline.bundle.bundle_equivalence import FIXTURE, generate, snapshot


@pytest.fixture
def forced(monkeypatch):
    """Every run is "large" and cut into many small chunks: the worker path runs on the 5,000-item run."""
    monkeypatch.setattr(parallel, "MIN_PARALLEL_BYTES", 0)
    monkeypatch.setattr(parallel, "CHUNK_BYTES", 256 * 1024)
    monkeypatch.setenv(parallel.ENV, "2")
    calls = []
    real_vote, real_read = parallel.VotePool.vote, parallel.VotePool.read

    def vote(self, votes, chunks, skipped, loose=frozenset()):
        done = real_vote(self, votes, chunks, skipped, loose)
        calls.append(("vote", len(chunks), done))
        return done

    def read(self, reading, paths, replay):
        chunks = real_read(self, reading, paths, replay)
        calls.append(("read", len(chunks or ()), chunks is not None))
        return chunks

    monkeypatch.setattr(parallel.VotePool, "vote", vote)
    monkeypatch.setattr(parallel.VotePool, "read", read)
    return calls


def test_worker_processes_give_the_recorded_snapshot(tmp_path, forced):
    expected = json.loads(FIXTURE.read_text(encoding="utf-8"))
    got = snapshot(generate(tmp_path / "run.jsonl"))
    assert {kind for kind, _n, _done in forced} == {"read", "vote"}
    assert all(n > 4 and done for _kind, n, done in forced), "a pass did not run in chunks in the workers"
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
    assert forced and not any(done for _kind, _n, done in forced)


@pytest.mark.parametrize("worker", ["_worker_vote", "_worker_read"])
def test_a_pool_that_breaks_falls_back_to_one_pass(tmp_path, forced, monkeypatch, caplog, worker):
    """A worker that dies (here: every chunk's vote, or every chunk's read after the first, raises in the worker)
    loses nothing: the pass runs in order (pass 1 from the start, whatever the workers had read)."""
    monkeypatch.setattr(parallel, worker, _explode if worker == "_worker_vote" else _explode_after_first)
    expected = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert snapshot(generate(tmp_path / "run.jsonl")) == expected
    assert "reading in the main process" in caplog.text
    assert ("read", 0, False) in forced if worker == "_worker_read" else ("read", 0, False) not in forced


def _explode(*_args):
    raise RuntimeError("worker lost")


def _explode_after_first(reading, path, start, end):
    if start:
        raise RuntimeError("worker lost")
    return reading.chunk(path, start, end)


def test_ranges_cover_every_byte_once_at_line_starts(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"".join(b"x" * n + b"\n" for n in (5, 300, 0, 1, 70_000, 2, 9)) + b"tail without newline")
    data = path.read_bytes()
    for size in (1, 7, 100, 4096, 10**6):
        ranges = parallel.cut([str(path), str(path)], size)
        for run in (ranges[:len(ranges) // 2], ranges[len(ranges) // 2:]):
            assert run[0][1] == 0 and run[-1][2] == len(data)
            assert all(a[2] == b[1] for a, b in zip(run, run[1:]))
            assert all(start == 0 or data[start - 1:start] == b"\n" for _p, start, _e in run)


@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_worker_processes_with_snippet_tokens_give_the_recorded_snapshot(tmp_path, forced, monkeypatch, start):
    monkeypatch.setattr(parallel, "start_method", lambda: start)
    expected = json.loads(FIXTURE.read_text(encoding="utf-8"))
    got = snapshot(generate(tmp_path / "run.jsonl", tokens=True))
    assert all(n > 4 and done for _kind, n, done in forced), "a pass did not run in chunks in the workers"
    assert got == expected


def _chunk_votes(path, spill: str = "", lose: bool = False):
    """The votes of the whole run read as one chunk (its spill written by pass 1's worker code when ``spill``, and
    lost before pass 2 when ``lose``), on candidates made of two lines' snippets; and how many lines were
    read for it (``os.pread``)."""
    from synth.evidence.consensus import item_snippets
    from synth.pipeline.bundle.read import iter_items
    from synth.pipeline.bundle.summary import Reading
    from synth.pipeline.bundle.vote import Votes

    votes = Votes()
    for k, (_where, item) in enumerate(iter_items([str(path)])):
        if k % 2500 == 0:
            for _kind, text in item_snippets(item.excerpts, item.code_blocks):
                votes.add_candidate_snippet(text, item.host or "x.example", float(item.authority))
    size = path.stat().st_size
    spilled = Reading(date(2026, 1, 1), date(2026, 11, 29), False, {}, ("quill",)).chunk(str(path), 0, size, spill).spilled
    assert spilled == bool(spill)
    if lose:
        Path(spill).unlink()
    reads = []
    real_pread = parallel.os.pread

    def pread(fd, n, offset):
        reads.append(offset)
        return real_pread(fd, n, offset)

    parallel.os.pread = pread
    try:
        parallel.vote_chunk(votes, parallel.Chunk(str(path), 0, size, 1, spill), set(), set())
    finally:
        parallel.os.pread = real_pread
    return (dict(votes.hosts), votes.authoritative_variant), len(reads)


def test_a_spill_gives_the_votes_of_reading_the_chunk_and_reads_few_lines(tmp_path):
    path = generate(tmp_path / "run.jsonl", tokens=True)
    lines = path.read_bytes().count(b"\n")
    read_votes, none = _chunk_votes(path)
    spill_votes, reads = _chunk_votes(path, str(tmp_path / "0.spill"))
    assert none == 0 and 0 < reads < lines / 2  # only the lines that met a candidate's tokens, or carry none
    assert spill_votes == read_votes and any(len(h) > 1 for h in read_votes[0].values())


def test_a_spill_round_trip_and_what_is_not_one(tmp_path):
    from synth.pipeline.bundle.spill import SpillWriter, read_spill

    w = SpillWriter()
    w.tokened(10, 100, (7).to_bytes(4, "little") + (9).to_bytes(4, "little"))
    w.other(3, 110, 50)
    w.tokened(160, 20, (5).to_bytes(4, "little"))
    path = tmp_path / "a.spill"
    assert w.write(str(path))
    s = read_spill(str(path))
    assert s is not None
    assert (list(s.offsets), list(s.sizes), list(s.ends), list(s.others)) == ([10, 160], [100, 20], [2, 3], [3, 110, 50])
    assert s.packed(0) == (7).to_bytes(4, "little") + (9).to_bytes(4, "little") and s.packed(1) == (5).to_bytes(4, "little")
    data = path.read_bytes()
    for bad in (data[:-1], data + b"\0", b"x" + data[1:], b""):
        path.write_bytes(bad)
        assert read_spill(str(path)) is None
    assert read_spill(str(tmp_path / "missing.spill")) is None
    assert not SpillWriter().write(str(tmp_path / "no-such-dir" / "b.spill"))


def test_a_chunk_whose_spill_is_gone_is_read_again(tmp_path):
    path = generate(tmp_path / "run.jsonl", tokens=True)
    expected, _ = _chunk_votes(path)
    assert _chunk_votes(path, str(tmp_path / "0.spill"), lose=True) == (expected, 0)


def test_the_pool_removes_its_spills(tmp_path, forced, monkeypatch):
    made = []
    real = parallel.tempfile.mkdtemp

    def mkdtemp(**kw):
        made.append(real(dir=tmp_path, **kw))
        return made[-1]

    monkeypatch.setattr(parallel.tempfile, "mkdtemp", mkdtemp)
    expected = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert snapshot(generate(tmp_path / "run.jsonl", tokens=True)) == expected
    assert made and not any(Path(d).exists() for d in made)


def test_workers_are_forked_only_while_this_process_runs_one_thread():
    import sys
    import threading

    if not sys.platform.startswith("linux"):
        assert parallel.start_method() == "spawn"
        return
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert parallel.start_method() == "spawn"
    finally:
        stop.set()
        other.join()
    assert parallel.start_method() == ("fork" if threading.active_count() == 1 else "spawn")


def test_spills_stop_at_their_cap_and_the_rest_is_read_again(tmp_path, forced, monkeypatch):
    monkeypatch.setattr(parallel, "MAX_SPILL_BYTES", 1)  # the first spill reaches it
    spills = []
    real = parallel.VotePool.vote

    def vote(self, votes, chunks, skipped, loose=frozenset()):
        spills.append([bool(c.spill) for c in chunks])
        return real(self, votes, chunks, skipped, loose)

    monkeypatch.setattr(parallel.VotePool, "vote", vote)
    expected = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert snapshot(generate(tmp_path / "run.jsonl", tokens=True)) == expected
    # in each run, the ranges submitted before the first spill came back have theirs (two per worker); none after
    assert spills and all(run[0] and not any(run[2 * 2 + 1:]) and len(run) > 6 for run in spills)


def test_a_spilled_range_names_its_lines_as_the_run_does(tmp_path):
    """A line pass 1 read otherwise than as it is (here: not UTF-8, so "loose") in a range that starts at line 2:
    pass 2 knows it by its line number in the run, and lets it vote on its words, not on its (lying) tokens."""
    from synth.evidence.consensus import item_snippets
    from synth.pipeline.bundle.read import iter_items
    from synth.pipeline.bundle.summary import Reading
    from synth.pipeline.bundle.vote import Votes
    from tests.pipeline.bundle.test_bundle_equivalence import _UNRELATED, _tokens_run

    path = _tokens_run(tmp_path / "run.jsonl", b"\xff", [_UNRELATED])
    loose: set[str] = set()
    items = list(iter_items([str(path)], loose=loose))
    assert loose == {f"{path}:2"}
    start, size = path.read_bytes().index(b"\n") + 1, path.stat().st_size
    spill = str(tmp_path / "1.spill")
    assert Reading(date(2026, 1, 1), date(2026, 11, 29), False, {}, ()).chunk(str(path), start, size, spill).spilled
    votes = Votes()
    a = items[0][1]
    cids = [votes.add_candidate_snippet(text, "a.example", 0.6) for _kind, text in item_snippets(a.excerpts, a.code_blocks)]
    parallel.vote_chunk(votes, parallel.Chunk(str(path), start, size, 2, spill), set(), loose)
    assert any("b.example" in votes.hosts[cid] for cid in cids)
