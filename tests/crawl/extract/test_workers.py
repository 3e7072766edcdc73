"""The extraction pool's worker processes (skill3crawl.extract.workers): real subprocesses, stdlib calls."""

import os
import sys
import time

import pytest

from skill3crawl.extract.workers import WorkerDied, WorkerPool, reply


@pytest.fixture
def pool():
    p = WorkerPool(2)
    yield p
    p.close()


def test_a_call_runs_in_another_process_and_its_error_comes_back(pool):
    assert reply(pool.submit(os.getpid).result()) != os.getpid()
    assert reply(pool.submit(divmod, 17, 5).result()) == (3, 2)
    with pytest.raises(ValueError, match="invalid literal"):
        reply(pool.submit(int, "x").result())


def test_what_a_call_prints_goes_to_stderr_not_into_the_channel(pool, capfd):
    assert reply(pool.submit(print, "noise", "\x00" * 9).result()) is None
    assert reply(pool.submit(sum, [1, 2, 3]).result()) == 6


def test_a_worker_that_dies_is_replaced(pool):
    before = {w.proc.pid for w in pool._workers}
    with pytest.raises(WorkerDied, match="ended during a call"):
        reply(pool.submit(os._exit, 3).result(timeout=30))
    assert [reply(pool.submit(abs, -i).result(timeout=30)) for i in range(4)] == [0, 1, 2, 3]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and {w.proc.pid for w in pool._workers} == before:
        time.sleep(0.05)
    after = {w.proc.pid for w in pool._workers}
    assert len(after) == 2 and len(after & before) == 1 and all(w.alive for w in pool._workers)


def test_a_worker_takes_the_crawlers_sys_path_and_never_runs_its_main_script(pool):
    assert reply(pool.submit(eval, "__import__('sys').path").result()) == sys.path
    assert reply(pool.submit(eval, "'__mp_main__' in __import__('sys').modules or 'scrapy' in __import__('sys').modules").result()) is False


def test_close_ends_and_reaps_every_worker():
    pool = WorkerPool(2)
    procs = [w.proc for w in pool._workers]
    assert reply(pool.submit(abs, -1).result()) == 1
    pool.close()
    for proc in procs:
        assert proc.wait(timeout=10) == 0


def test_calls_beyond_the_workers_queue_and_all_come_back_in_their_own_futures(pool):
    futures = [pool.submit(pow, i, 2) for i in range(200)]
    assert [reply(f.result(timeout=30)) for f in futures] == [i * i for i in range(200)]
