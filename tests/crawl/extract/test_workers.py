"""The extraction pool's worker processes (skill3crawl.extract.workers): real subprocesses, stdlib calls."""

import os
import sys

import pytest

from skill3crawl.extract.workers import WorkerDied, WorkerPool


@pytest.fixture
def pool():
    p = WorkerPool(2)
    yield p
    p.close()


def test_a_call_runs_in_another_process_and_its_error_comes_back(pool):
    assert pool.submit(os.getpid).result() != os.getpid()
    assert pool.submit(divmod, 17, 5).result() == (3, 2)
    with pytest.raises(ValueError, match="invalid literal"):
        pool.submit(int, "x").result()


def test_what_a_call_prints_goes_to_stderr_not_into_the_channel(pool, capfd):
    assert pool.submit(print, "noise", "\x00" * 9).result() is None
    assert pool.submit(sum, [1, 2, 3]).result() == 6


def test_a_worker_that_dies_is_replaced(pool):
    pids = {pool.submit(os.getpid).result() for _ in range(6)}
    with pytest.raises(WorkerDied, match="ended during a call"):
        pool.submit(os._exit, 3).result()
    after = {pool.submit(os.getpid).result() for _ in range(6)}
    assert len(after) == 2 and after != pids  # a new worker beside the one that lived


def test_a_worker_takes_the_crawlers_sys_path_and_never_runs_its_main_script(pool):
    assert pool.submit(eval, "__import__('sys').path").result() == sys.path
    assert pool.submit(eval, "'__mp_main__' in __import__('sys').modules or 'scrapy' in __import__('sys').modules").result() is False


def test_close_ends_and_reaps_every_worker():
    pool = WorkerPool(2)
    procs = [w.proc for w in pool._workers]
    assert pool.submit(abs, -1).result() == 1
    pool.close()
    for proc in procs:
        assert proc.wait(timeout=10) == 0
