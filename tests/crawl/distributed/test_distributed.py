"""Distributed crawl: real scrapy-redis workers (subprocesses) against one loopback site and a real Redis."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest

from skill3crawl import distributed
from skill3crawl.distributed.idle import RedisWorkerIdle
from skill3crawl.distributed.scheduler import RedisAddon, RedisScheduler
from tests.crawl.docs_mode import ROOT, crawl_cmd, crawl_env
from tests.mockserver import MockServer, bind, generated_site

REDIS_URL = os.environ.get("SKILL3_TEST_REDIS_URL")
needs_redis = pytest.mark.skipif(not REDIS_URL, reason="SKILL3_TEST_REDIS_URL not set (scripts/test.sh starts redis-server on loopback)")
PAGES = 120


def _redis():
    import redis

    return redis.Redis.from_url(REDIS_URL)


def _settings(key: str, tmp_path: Path) -> dict:
    return {
        "SKILL3_REDIS_URL": REDIS_URL,
        "SKILL3_REDIS_KEY": key,
        "HTTPCACHE_ENABLED": "0",
        "MAX_IDLE_TIME_BEFORE_CLOSE": "30",
    }


def _start(args: dict, settings: dict, tmp_path: Path, tag: str, spider: str = "docs") -> subprocess.Popen:
    with open(tmp_path / f"{tag}.log", "w") as log:  # the child keeps its own descriptor
        return subprocess.Popen(crawl_cmd(args, settings, spider), cwd=ROOT, env=crawl_env(tmp_path, tag), stdout=log, stderr=subprocess.STDOUT)


def _feeds(out: Path) -> dict[str, list[str]]:
    return {
        p.name: [json.loads(line)["url"] for line in p.read_text().splitlines() if line.strip()]
        for p in sorted(out.glob("run*.jsonl"))
    }


def _log(tmp_path: Path, tag: str) -> str:
    return (tmp_path / f"{tag}.log").read_text()


@pytest.fixture
def site():
    server = MockServer(delay=0.02)
    server.routes = bind(generated_site(PAGES, sitemap=True), server.url)
    with server:
        yield server


@pytest.fixture
def key():
    k = f"skill3test:{uuid.uuid4().hex[:8]}"
    yield k
    r = _redis()
    for name in r.scan_iter(k + ":*"):
        r.delete(name)


def test_profile_settings_and_bad_url():
    from scrapy.settings import Settings

    s = Settings({"SKILL3_REDIS_URL": "redis://127.0.0.1:6390/0"})
    RedisAddon().update_settings(s)
    assert s["SCHEDULER"] == "skill3crawl.distributed.scheduler.RedisScheduler"
    assert s["DUPEFILTER_CLASS"] == "skill3crawl.distributed.scheduler.RedisDupeFilter"
    assert s.getbool("SCHEDULER_PERSIST") is True and s["REDIS_URL"] == "redis://127.0.0.1:6390/0"
    with pytest.raises(ValueError, match="SKILL3_REDIS_URL must be a redis:// URL"):
        RedisAddon().update_settings(Settings({"SKILL3_REDIS_URL": "http://x"}))
    with pytest.raises(ValueError, match="JOBDIR and SKILL3_REDIS_URL"):
        RedisAddon().update_settings(Settings({"SKILL3_REDIS_URL": "redis://x", "JOBDIR": "/tmp/j"}))
    assert distributed.feed_name("planner", "h-1") == "run.jsonl"
    assert distributed.feed_name("worker", "h-1") == "run-h-1.jsonl"


@pytest.mark.redis
@needs_redis
def test_two_workers_equal_one_and_never_repeat(site, key, tmp_path):
    # one worker alone
    single_out = tmp_path / "single"
    p = _start({"start_urls": f"{site.url}/docs/", "output_dir": single_out, "max_pages": 1000}, _settings(key + "s", tmp_path), tmp_path, "single")
    assert p.wait(120) == 0, _log(tmp_path, "single")[-3000:]
    single = _feeds(single_out)
    assert list(single) == ["run.jsonl"]
    single_urls = set(single["run.jsonl"])
    assert len(single_urls) == PAGES + 1  # every generated page and the index
    site.hits.clear()

    # a planner and a worker sharing the queue
    out = tmp_path / "two"
    planner = _start({"start_urls": f"{site.url}/docs/", "output_dir": out, "max_pages": 1000, "worker_id": "a"}, _settings(key, tmp_path), tmp_path, "planner")
    time.sleep(0.5)
    worker = _start({"role": "worker", "worker_id": "b"}, _settings(key, tmp_path), tmp_path, "worker")
    assert planner.wait(120) == 0, _log(tmp_path, "planner")[-3000:]
    assert worker.wait(120) == 0, _log(tmp_path, "worker")[-3000:]
    feeds = _feeds(out)  # the worker took output_dir from the planner's published arguments
    assert sorted(feeds) == ["run-b.jsonl", "run.jsonl"]
    all_urls = [u for urls in feeds.values() for u in urls]
    assert len(all_urls) == len(set(all_urls)), [u for u, n in Counter(all_urls).items() if n > 1]
    assert set(all_urls) == single_urls
    assert feeds["run-b.jsonl"] and feeds["run.jsonl"], "both workers must have crawled pages"
    assert max(site.page_hits().values()) == 1  # no page fetched twice across workers
    assert "main process (plans and seeds)" in _log(tmp_path, "planner") and "worker," in _log(tmp_path, "worker")


@pytest.mark.redis
@needs_redis
def test_learn_workers_share_one_page_budget(key, tmp_path):
    """`scrapy crawl learn` distributes too; max_pages is one budget for all workers together."""
    server = MockServer(delay=0.25)  # slow enough that both processes get pages
    server.routes = bind(generated_site(PAGES, sitemap=True), server.url)
    out = tmp_path / "learn"
    with server as site:
        # the worker first: it waits for the planner's arguments in Redis
        worker = _start({"role": "worker", "worker_id": "b"}, _settings(key, tmp_path), tmp_path, "worker", spider="learn")
        args = {"topic": "demo", "start_urls": f"{site.url}/docs/", "output_dir": out, "max_pages": 40, "worker_id": "a"}
        planner = _start(args, _settings(key, tmp_path), tmp_path, "planner", spider="learn")
        try:
            assert planner.wait(120) == 0, _log(tmp_path, "planner")[-3000:]
            assert worker.wait(120) == 0, _log(tmp_path, "worker")[-3000:]
        finally:
            for p in (planner, worker):
                if p.poll() is None:
                    p.kill()
                    p.wait()
        hits = site.page_hits()
    feeds = _feeds(out)
    assert sorted(feeds) == ["run-b.jsonl", "run.jsonl"] and all(feeds.values()), {k: len(v) for k, v in feeds.items()}
    all_urls = [u for urls in feeds.values() for u in urls]
    assert len(all_urls) == len(set(all_urls)) == 40
    assert sum(hits.values()) == 40 and max(hits.values()) == 1  # every fetch became an item; no page twice


@pytest.mark.redis
@needs_redis
def test_closing_one_worker_keeps_the_shared_queue(site, key, tmp_path):
    out = tmp_path / "out"
    planner = _start({"start_urls": f"{site.url}/docs/", "output_dir": out, "max_pages": 1000, "worker_id": "a"}, _settings(key, tmp_path), tmp_path, "planner")
    worker = _start({"role": "worker", "worker_id": "b"}, _settings(key, tmp_path), tmp_path, "worker")
    try:
        deadline = time.monotonic() + 60
        while sum(site.page_hits().values()) < 25:
            assert time.monotonic() < deadline, "crawl did not start"
            assert planner.poll() is None, _log(tmp_path, "planner")[-3000:]
            time.sleep(0.05)
        # Freeze the other worker while the planner shuts down, so only a flush could empty the queue
        # (otherwise the worker may drain it first on a busy machine and the check proves nothing).
        worker.send_signal(signal.SIGSTOP)
        planner.send_signal(signal.SIGINT)  # graceful stop of one worker mid-crawl
        assert planner.wait(60) == 0, _log(tmp_path, "planner")[-3000:]
        left = _redis().zcard(key + ":requests")
        assert left > 0, "the queue must still hold requests when the planner has closed"
        worker.send_signal(signal.SIGCONT)
        assert worker.wait(120) == 0, _log(tmp_path, "worker")[-3000:]
    finally:
        for proc in (planner, worker):
            if proc.poll() is None:
                proc.send_signal(signal.SIGCONT)
                proc.kill()
                proc.wait(10)
    assert _redis().zcard(key + ":requests") == 0
    feeds = _feeds(out)
    all_urls = [u for urls in feeds.values() for u in urls]
    assert len(all_urls) == len(set(all_urls))
    assert len(set(all_urls)) == PAGES + 1, "the worker must finish what the closed planner left queued"
    assert len(feeds["run-b.jsonl"]) >= left  # everything left queued was crawled by the worker
    assert max(site.page_hits().values()) == 1


@pytest.mark.redis
@needs_redis
def test_a_worker_reads_busy_before_its_request_leaves_the_queue(key: str) -> None:
    """Workers close on "queue empty and every worker idle" without a grace period: that is only safe if a
    worker is published busy before the request it takes has left the queue."""
    from scrapy import Request, Spider
    from scrapy.utils.test import get_crawler

    class Demo(Spider):
        name = "demo"

    from scrapy.settings import Settings

    settings = Settings({"SKILL3_REDIS_URL": REDIS_URL, "SKILL3_REDIS_KEY": key})
    RedisAddon().update_settings(settings)
    crawler = get_crawler(Demo, {k: settings[k] for k in ("SKILL3_REDIS_URL", "SKILL3_REDIS_KEY", "REDIS_URL", "DUPEFILTER_CLASS",
                                                          "SCHEDULER_PERSIST", "SCHEDULER_QUEUE_CLASS")})
    idle = RedisWorkerIdle.from_crawler(crawler)
    idle.key, idle.me = key + ":workers", "a"  # what spider_opened sets, without its heartbeat loop
    scheduler = RedisScheduler.from_crawler(crawler)
    scheduler.open(Demo.from_crawler(crawler))
    assert scheduler.enqueue_request(Request("http://docs.example.org/p1.html"))
    other = _redis()  # another worker's connection
    other.hset(key + ":workers", "a", json.dumps({"busy": False, "ts": time.time()}))  # idle before taking it
    idle.published_busy = False

    seen_at_pop = []
    pop = scheduler.queue.pop

    def observed_pop(timeout: int = 0) -> object:
        seen_at_pop.append(json.loads(other.hget(key + ":workers", "a"))["busy"])  # what another worker reads
        return pop(timeout)

    scheduler.queue.pop = observed_pop
    try:
        request = scheduler.next_request()
        assert request is not None and request.url == "http://docs.example.org/p1.html"
        assert seen_at_pop == [True]
        assert scheduler.next_request() is None and seen_at_pop == [True, True]
    finally:
        for client in (other, idle.server, scheduler.server, scheduler.df.server):
            client.close()


@pytest.mark.redis
@needs_redis
def test_a_worker_started_after_the_crawl_closes_at_once(site, key, tmp_path):
    """A worker that never gets any work because the crawl is already over does not wait
    MAX_IDLE_TIME_BEFORE_CLOSE for some."""
    out = tmp_path / "out"
    settings = {**_settings(key, tmp_path), "MAX_IDLE_TIME_BEFORE_CLOSE": "90"}
    planner = _start({"start_urls": f"{site.url}/docs/", "output_dir": out, "max_pages": 1000, "worker_id": "a"}, settings, tmp_path, "planner")
    assert planner.wait(120) == 0, _log(tmp_path, "planner")[-3000:]
    late = _start({"role": "worker", "worker_id": "late"}, settings, tmp_path, "late")
    try:
        late.wait(60)  # well under the 90 s a worker without work would otherwise wait
    except subprocess.TimeoutExpired:
        pytest.fail("the late worker waited for work in a finished crawl")
    finally:
        if late.poll() is None:
            late.kill()
            late.wait()
    assert "queue drained and all workers idle, closing late" in _log(tmp_path, "late")
    assert len(set(_feeds(out)["run.jsonl"])) == PAGES + 1


def _own_redis(tmp_path: Path) -> tuple[subprocess.Popen, str]:
    """A redis-server of this test's own (the shared one is never killed), on a free loopback port."""
    import shutil
    import socket

    exe = shutil.which("redis-server")
    assert exe, "redis-server is missing: scripts/install.sh installs it"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([exe, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no",
                             "--dir", str(tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    import redis

    deadline = time.monotonic() + 20
    while True:
        try:
            redis.Redis.from_url(url).ping()
            return proc, url
        except redis.ConnectionError:
            assert time.monotonic() < deadline and proc.poll() is None, "redis-server did not start"
            time.sleep(0.05)


@pytest.mark.redis
@pytest.mark.parametrize("role", ["main", "worker"])
def test_redis_killed_mid_crawl_stops_the_crawl_in_one_line_and_keeps_its_items(site, tmp_path, role):
    """The real server, killed by the test while a planner (and a worker) crawl: bounded reconnects, then one error
    line, exit 1, the items already written kept whole; nothing synthesized."""
    server, url = _own_redis(tmp_path)
    site.delay = 0.1  # slow enough to be mid-crawl when Redis dies
    settings = {**_settings("skill3test:lost", tmp_path), "SKILL3_REDIS_URL": url, "SKILL3_REDIS_RETRIES": "3"}
    out = tmp_path / "out"
    try:
        planner = _start({"start_urls": f"{site.url}/docs/", "output_dir": out, "max_pages": 1000, "worker_id": "a"},
                         settings, tmp_path, "main")
        procs = {"main": planner}
        if role == "worker":
            time.sleep(0.5)
            procs["worker"] = _start({"role": "worker", "worker_id": "b"}, settings, tmp_path, "worker")
        watched = out / ("run.jsonl" if role == "main" else "run-b.jsonl")
        deadline = time.monotonic() + 60
        while not (watched.exists() and watched.read_bytes().count(b"\n") >= 5):
            assert all(p.poll() is None for p in procs.values()) and time.monotonic() < deadline, _log(tmp_path, role)[-3000:]
            time.sleep(0.05)
    finally:
        server.kill()
        server.wait(10)
    try:
        code = procs[role].wait(90)
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait(10)  # reaped: an unreaped child is a ResourceWarning, an error under -W error
    log = _log(tmp_path, role)
    assert code == 1, log[-3000:]
    assert "Traceback" not in log, log[-5000:]
    errors = [line for line in log.splitlines() if " ERROR: " in line]
    assert len(errors) == 1 and "Redis" in errors[0] and url.split("//")[1].split("/")[0] in errors[0], errors or log[-3000:]
    items = [json.loads(line) for line in watched.read_text().splitlines() if line.strip()]
    assert len(items) >= 5
