"""Distributed crawl on scrapy-redis: one shared request queue and dupefilter, many workers.

Switched on by ``-s SKILL3_REDIS_URL=redis://host:port/db`` (:class:`RedisAddon`,
listed in ``ADDONS``). Then:

* ``SCHEDULER`` / ``DUPEFILTER_CLASS`` are scrapy-redis's (thin subclasses here
  that contain its deprecation warnings on Scrapy 2.19), ``SCHEDULER_PERSIST=True``
  (a closing worker never flushes the queue the others are consuming),
  ``REDIS_URL`` set, keys under ``SKILL3_REDIS_KEY`` (default ``skill3:<spider>``).
* The first process, started with ``-a topic=…`` (``-a role=main``, the default),
  empties the keys left by an earlier crawl, publishes its spider arguments
  (``<key>:config``), plans and seeds. Processes started with ``-a role=worker``
  never plan or seed: their ``start()`` yields nothing, they read the planner's
  arguments from Redis (waiting for them up to ``MAX_IDLE_TIME_BEFORE_CLOSE``) and
  consume the shared queue.
* Feeds: the planner writes ``<output_dir>/run.jsonl`` (the single-machine
  contract); each worker writes ``<output_dir>/run-<worker_id>.jsonl``
  (``-a worker_id=``, default ``<hostname>-<pid>``). ``skill3 synth
  output/T/run*.jsonl`` merges them.
* Closing: :class:`RedisWorkerIdle` keeps an idle worker open while the shared
  queue has requests or another worker is busy (workers heartbeat in
  ``<key>:workers``). A worker publishes "busy" *before* it takes a request from
  the queue, so "queue empty and every worker idle" cannot miss a request in
  someone's hands: a worker closes as soon as it sees that (plus
  ``SKILL3_REDIS_IDLE_GRACE`` seconds, default 0); a worker that never saw any work
  waits at most ``MAX_IDLE_TIME_BEFORE_CLOSE`` seconds (default 60), or closes at once when
  a worker has already closed the crawl as finished (``<key>:done``, removed when a planner
  publishes a new crawl).
* A lost server (killed, restarted, unreachable): every client reconnects a bounded number of
  times (``SKILL3_REDIS_RETRIES``, default 5, exponential backoff up to 2 s; connect timeout 5 s,
  socket timeout 10 s); then the process stops in one line (:func:`redis_lost`: exit 1, finish
  reason ``redis_lost``), keeps the items its feed already holds and synthesizes nothing. No
  Redis call is made after that (the close does not flush what it cannot reach).
"""

from __future__ import annotations

import functools
import json
import logging
import os
import re
import socket
import time
import warnings
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator, TypeVar

from scrapy import signals
from scrapy.exceptions import DontCloseSpider, NotConfigured

from skill3crawl.sitecrawl.budget import Claim, Entry, PageBudget, waiting_cap
from synth.core.errors import ExitCode

if TYPE_CHECKING:
    from typing import Self

    import redis
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.settings import BaseSettings
    from twisted.internet.task import LoopingCall

logger = logging.getLogger(__name__)

ROLES = ("main", "worker")
HEARTBEAT_SECS = 1.0
STALE_SECS = 10.0
IDLE_GRACE = 0.0  # SKILL3_REDIS_IDLE_GRACE: extra seconds all workers are idle before they close
MAX_IDLE_WAIT = 60.0  # MAX_IDLE_TIME_BEFORE_CLOSE (scrapy-redis's, 0 there = never): a worker's longest wait
RETRIES = 5  # SKILL3_REDIS_RETRIES: reconnects of one call before the server counts as lost
CONNECT_TIMEOUT = 5.0
SOCKET_TIMEOUT = 10.0


@contextmanager
def contained_redis_warnings() -> Iterator[None]:
    """scrapy-redis 0.9.1 calls Scrapy APIs deprecated in 2.19 (spider= arguments, start_requests,
    from_settings); contain exactly those, here, so the test suite keeps warnings as errors."""
    from scrapy.exceptions import ScrapyDeprecationWarning

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=ScrapyDeprecationWarning, module=r"scrapy(_redis)?(\.|$)")
        warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"scrapy_redis(\.|$)")
        yield


with contained_redis_warnings():
    from scrapy_redis import connection as _redis_connection
    from scrapy_redis.dupefilter import RFPDupeFilter as _RFPDupeFilter
    from scrapy_redis.scheduler import Scheduler as _Scheduler


def redis_enabled(settings: BaseSettings) -> bool:
    return bool(settings.get("SKILL3_REDIS_URL"))


def max_idle_wait(settings: Any) -> float:
    """Seconds a worker waits for a planner's arguments, or for work it never saw (``MAX_IDLE_TIME_BEFORE_CLOSE``)."""
    return settings.getfloat("MAX_IDLE_TIME_BEFORE_CLOSE", MAX_IDLE_WAIT) or MAX_IDLE_WAIT


def redis_key(settings: BaseSettings, spider_name: str) -> str:
    return settings.get("SKILL3_REDIS_KEY") or f"skill3:{spider_name}"


def worker_id(value: str | None = None) -> str:
    raw = value or f"{socket.gethostname()}-{os.getpid()}"
    clean = re.sub(r"[^A-Za-z0-9_.-]+", "-", raw).strip("-.")
    if not clean:
        raise ValueError(f"worker_id: not usable in a file name: {value!r}")
    return clean


def feed_name(role: str, wid: str) -> str:
    """``run.jsonl`` for the main process (and single-machine crawls), ``run-<worker_id>.jsonl`` for workers."""
    return "run.jsonl" if role != "worker" else f"run-{wid}.jsonl"


def check_role(role: str | None) -> str:
    role = (role or "main").strip().lower()
    if role not in ROLES:
        raise ValueError(f"role must be main or worker (got {role!r})")
    return role


def client_params(settings: Any) -> dict[str, Any]:
    """redis-py client parameters for bounded reconnects: ``SKILL3_REDIS_RETRIES`` retries of a call that lost its
    connection (exponential backoff, at most 2 s apart), then its ``ConnectionError`` (see :func:`redis_lost`)."""
    from redis.backoff import ExponentialBackoff
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError
    from redis.retry import Retry

    retries = max(0, min(100, settings.getint("SKILL3_REDIS_RETRIES", RETRIES)))
    return {"socket_connect_timeout": CONNECT_TIMEOUT, "socket_timeout": SOCKET_TIMEOUT,
            "retry": Retry(ExponentialBackoff(cap=2.0, base=0.2), retries),
            "retry_on_error": [RedisConnectionError, RedisTimeoutError]}


def server_from_settings(settings: BaseSettings) -> redis.Redis:
    """A client for ``SKILL3_REDIS_URL`` (usable before the add-on has copied it to ``REDIS_URL``), with bounded
    reconnects (:func:`client_params`)."""
    from scrapy_redis import defaults

    url = settings.get("SKILL3_REDIS_URL") or settings.get("REDIS_URL")
    params = {**defaults.REDIS_PARAMS, **client_params(settings), **(settings.getdict("REDIS_PARAMS") or {})}
    params.pop("encoding", None)
    params.pop("retry_on_timeout", None)  # retry_on_error covers it
    with contained_redis_warnings():
        return _redis_connection.get_redis(url=url, **params)


# --------------------------------------------------------------------------- a lost server


def _lost_errors() -> tuple[type[BaseException], ...]:
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    return (RedisConnectionError, RedisTimeoutError)


def is_lost(crawler: Any) -> bool:
    return bool(getattr(crawler, "_skill3_redis_lost", False))


def redis_lost(crawler: Any, exc: BaseException) -> None:
    """The server is gone after its bounded reconnects: say so once, stop this process's crawl (exit 1, nothing
    synthesized, the feed's items kept); from now on no Redis call is made."""
    if crawler is None or is_lost(crawler):
        return
    crawler._skill3_redis_lost = True
    from skill3crawl.state import get_state
    from synth.vet.redact import redact_urls

    url = redact_urls(str(crawler.settings.get("SKILL3_REDIS_URL") or crawler.settings.get("REDIS_URL") or ""))[0][0]
    retries = crawler.settings.getint("SKILL3_REDIS_RETRIES", RETRIES)
    spider = getattr(crawler, "spider", None)
    feed = getattr(getattr(spider, "args", None), "feed_path", None)
    logger.error("skill3: lost the Redis server %s (%s) after %d reconnect(s): this crawl stops; the items already in %s "
                 "are kept, nothing is synthesized; restart redis-server and run again", url,
                 " ".join(str(exc).split())[:160] or type(exc).__name__, retries, feed or "its feed")
    state = get_state(crawler)
    state.exit_code = ExitCode.FAILURE
    if crawler.stats is not None:
        crawler.stats.set_value("skill3/exit_code", 1)
        crawler.stats.set_value("skill3/redis_lost", True)
    engine = getattr(crawler, "engine", None)
    if engine is not None and getattr(engine, "running", False):
        from scrapy.utils.defer import deferred_from_coro

        deferred_from_coro(engine.close_spider_async(reason="redis_lost"))


_F = TypeVar("_F", bound=Callable[..., Any])


def guarded(default: Any = None) -> Callable[[_F], _F]:
    """A Redis-calling method of an object with ``crawler``: once the server is lost (:func:`redis_lost`), or when
    this call loses it, it returns ``default`` (called when callable) instead of calling or raising."""

    def wrap(fn: _F) -> _F:
        @functools.wraps(fn)
        def inner(self: Any, *args: Any, **kwargs: Any) -> Any:
            crawler = getattr(self, "crawler", None)
            if is_lost(crawler):
                return default() if callable(default) else default
            try:
                return fn(self, *args, **kwargs)
            except _lost_errors() as exc:
                if crawler is None:
                    raise
                redis_lost(crawler, exc)
                return default() if callable(default) else default

        return inner  # type: ignore[return-value]

    return wrap


class RedisAddon:
    """Scrapy add-on: the scrapy-redis profile when ``SKILL3_REDIS_URL`` is set."""

    def update_settings(self, settings: BaseSettings) -> None:
        url = settings.get("SKILL3_REDIS_URL")
        if not url:
            return
        if not str(url).startswith(("redis://", "rediss://", "unix://")):
            raise ValueError(f"SKILL3_REDIS_URL must be a redis:// URL (got {url!r})")
        if settings.get("JOBDIR"):
            raise ValueError("JOBDIR and SKILL3_REDIS_URL exclude each other: the Redis queue is already persistent")
        prio = "addon"
        settings.set("REDIS_URL", url, priority=prio)
        settings.set("SCHEDULER", "skill3crawl.distributed.RedisScheduler", priority=prio)
        settings.set("DUPEFILTER_CLASS", "skill3crawl.distributed.RedisDupeFilter", priority=prio)
        settings.set("SCHEDULER_PERSIST", True, priority=prio)
        settings.set("SCHEDULER_FLUSH_ON_START", False, priority=prio)  # the planner flushes, workers never
        settings.set("SCHEDULER_QUEUE_CLASS", "scrapy_redis.queue.PriorityQueue", priority=prio)
        settings.setdefault_in_component_priority_dict("EXTENSIONS", RedisWorkerIdle, 600)


class RedisDupeFilter(_RFPDupeFilter):
    crawler: Any = None

    @classmethod
    def from_spider(cls, spider: Spider) -> Self:
        key = redis_key(spider.settings, spider.name) + ":dupefilter"
        server = server_from_settings(spider.settings)
        instance = cls(server, key=key, debug=spider.settings.getbool("DUPEFILTER_DEBUG"))
        instance.crawler = getattr(spider, "crawler", None)
        return instance

    def log(self, request: Request, spider: Spider) -> None:
        with contained_redis_warnings():
            return super().log(request, spider)

    @guarded(True)  # lost: every request counts as seen (nothing more is queued)
    def request_seen(self, request: Request) -> bool:
        return super().request_seen(request)

    @guarded()
    def close(self, reason: str = "") -> None:
        return super().close(reason)


class RedisScheduler(_Scheduler):
    """scrapy-redis's scheduler with skill3's keys; the planner starts from empty keys."""

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        with contained_redis_warnings():
            instance = cls.from_settings(crawler.settings)
        instance.stats = crawler.stats
        instance.crawler = crawler
        return instance

    @guarded()
    def open(self, spider: Spider) -> None:
        self.queue_key = redis_key(spider.settings, spider.name) + ":requests"
        with contained_redis_warnings():
            super().open(spider)
        if spider_role(spider) == "main":
            base = redis_key(spider.settings, spider.name)
            self.flush()
            # a fresh crawl: forget the shared state of an earlier one (not ":config", already written)
            self.server.delete(*(base + f":state:{k}" for k in ("pages", "canonical", "count", "waiting")))
            logger.info("distributed crawl: main process (plans and seeds), queue %s emptied", self.queue_key)
        else:
            logger.info("distributed crawl: worker, %d requests waiting in %s", len(self.queue), self.queue_key)

    @guarded(False)
    def enqueue_request(self, request: Request) -> bool:
        with contained_redis_warnings():
            return super().enqueue_request(request)

    @guarded()
    def next_request(self) -> Any:
        idle = getattr(getattr(self, "crawler", None), "_skill3_redis_idle", None)
        if idle is not None:
            idle.mark_busy()  # before the pop: a request is never in a worker's hands while it reads as idle
        with contained_redis_warnings():
            return super().next_request()

    @guarded(0)
    def __len__(self) -> int:
        return super().__len__()

    @guarded(False)
    def has_pending_requests(self) -> bool:
        return super().has_pending_requests()

    @guarded()
    def close(self, reason: str) -> None:
        return super().close(reason)


def spider_role(spider: Spider) -> str:
    return check_role(getattr(getattr(spider, "args", None), "role", None))


def publish_config(settings: Any, spider_name: str, args: dict) -> None:
    """The planner's arguments for the workers; a new crawl is not finished (``<key>:done`` removed first)."""
    server = server_from_settings(settings)
    base = redis_key(settings, spider_name)
    server.delete(base + ":done")
    server.set(base + ":config", json.dumps(args, sort_keys=True))


def load_config(settings: BaseSettings, spider_name: str, wait: float) -> dict[str, Any]:
    """The planner's spider arguments, waiting up to ``wait`` seconds for a planner to publish them."""
    server = server_from_settings(settings)
    key = redis_key(settings, spider_name) + ":config"
    deadline = time.monotonic() + wait
    while True:
        raw = server.get(key)
        if raw:
            return json.loads(raw)
        if time.monotonic() >= deadline:
            raise ValueError(f"role=worker: no planner has published {key} in Redis (start one with -a topic=…)")
        time.sleep(0.2)


class RedisSharedState(PageBudget):
    """Crawl-wide page budget shared by all workers: the budget count, its waiting list, the claimed and
    the written canonical keys, in Redis. No window: the shared queue is Redis's, not in memory."""

    def __init__(self, settings: Any, spider_name: str, crawler: Any = None) -> None:
        self.server = server_from_settings(settings)
        self.crawler = crawler  # told when the server is lost (redis_lost)
        base = redis_key(settings, spider_name)
        self.pages, self.count, self.canonical = base + ":state:pages", base + ":state:count", base + ":state:canonical"
        self.waiting = base + ":state:waiting"

    @guarded("seen")  # lost: no new page is claimed (not counted as over the budget)
    def claim(self, key: str, limit: int, entry: Entry) -> Claim:
        if not self.server.sadd(self.pages, key):
            return "seen"
        if self.server.incr(self.count) <= limit:
            return "new"
        self.server.decr(self.count)
        if self.server.llen(self.waiting) < waiting_cap(limit):
            self.server.rpush(self.waiting, json.dumps(entry))
            return "waiting"
        return "over"

    @guarded(False)
    def transfer(self, key: str, entry: Entry | None = None, old_key: str | None = None) -> bool:
        return bool(self.server.sadd(self.pages, key))

    @guarded(list)
    def finish(self, written: bool, limit: int, key: str | None = None) -> list[Entry]:
        """A page that ended without an item passes its slot to the first waiting page."""
        if written:
            return []
        raw = self.server.lpop(self.waiting)
        if raw:
            return [json.loads(raw)]  # type: ignore[arg-type]  # one value: lpop without a count
        self.server.decr(self.count)
        return []

    @guarded(list)
    def pump(self, limit: int) -> list[Entry]:
        """Waiting pages take the slots that are free (a slot freed while a worker queued a page)."""
        ready: list[Entry] = []
        while self.server.llen(self.waiting):
            if self.server.incr(self.count) > limit:
                self.server.decr(self.count)
                break
            raw = self.server.lpop(self.waiting)
            if raw is None:  # another worker took it
                self.server.decr(self.count)
                break
            ready.append(json.loads(raw))  # type: ignore[arg-type]  # one value: lpop without a count
        return ready

    def recover(self) -> int:
        """Nothing to recover: the requests in flight stay in the shared Redis queue."""
        return 0

    @guarded(0)
    def waiting_count(self) -> int:
        return int(self.server.llen(self.waiting))

    @guarded(True)
    def add_canonical(self, key: str) -> bool:
        return bool(self.server.sadd(self.canonical, key))

    @guarded(False)
    def has_canonical(self, key: str) -> bool:
        return bool(self.server.sismember(self.canonical, key))


class RedisWorkerIdle:
    """Close an idle worker only when the shared queue is drained and no other worker is busy."""

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler
        self.grace = crawler.settings.getfloat("SKILL3_REDIS_IDLE_GRACE", IDLE_GRACE)
        self.max_wait = max_idle_wait(crawler.settings)
        self.server = server_from_settings(crawler.settings)
        self.idle_since: float | None = None
        self.saw_work = False
        self.closing = False
        self.loop: LoopingCall | None = None
        self.key: str | None = None
        self.published_busy: bool | None = None

    @classmethod
    def from_crawler(cls, crawler: Any) -> RedisWorkerIdle:
        if not redis_enabled(crawler.settings):
            raise NotConfigured
        ext = cls(crawler)
        crawler._skill3_redis_idle = ext  # the scheduler announces "busy" through it
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_idle, signal=signals.spider_idle)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(ext.response_received, signal=signals.response_received)
        return ext

    def spider_opened(self, spider: Spider) -> None:
        from twisted.internet import task

        self.spider = spider
        self.key = redis_key(spider.settings, spider.name) + ":workers"
        self.me = getattr(getattr(spider, "args", None), "worker_id", None) or worker_id()
        self.opened = time.monotonic()
        self._beat()
        self.loop = loop = task.LoopingCall(self._beat)
        loop.start(HEARTBEAT_SECS, now=False)

    def response_received(self, response: Response, request: Request, spider: Spider) -> None:
        self.saw_work = True

    def _busy(self) -> bool:
        engine = self.crawler.engine
        try:
            return not engine.spider_is_idle()
        except RuntimeError:
            return True

    def _queue_len(self) -> int:
        sched = self.crawler.engine.scheduler
        return len(sched) if sched is not None else 0

    @guarded()
    def _publish(self, busy: bool) -> None:
        assert self.key is not None  # set when the spider opened
        self.server.hset(self.key, self.me, json.dumps({"busy": busy, "ts": time.time()}))
        self.published_busy = busy

    def mark_busy(self) -> None:
        """Called before each pop from the shared queue: the others see this worker busy before the request
        leaves the queue, so none of them closes on "queue empty, all idle" while it is being crawled."""
        if self.key is not None and self.published_busy is not True and not self.closing:
            self._publish(True)

    @guarded()
    def _beat(self) -> None:
        if is_lost(self.crawler):
            return
        busy = self._busy()
        self._publish(busy)
        if self._queue_len() > 0:
            slot = getattr(self.crawler.engine, "_slot", None)  # pull shared work now, not at the 5 s heartbeat
            if slot is not None:
                slot.nextcall.schedule()
        elif not busy and not self.closing and self._may_close():
            # the engine re-checks idleness only every 5 s: close as soon as the crawl is done
            from scrapy.utils.defer import deferred_from_coro

            self._closing_finished()
            deferred_from_coro(self.crawler.engine.close_spider_async(reason="finished"))
        if busy:
            self.idle_since = None

    @guarded(False)
    def _others_busy(self) -> bool:
        now = time.time()
        assert self.key is not None  # set when the spider opened
        for wid, raw in self.server.hgetall(self.key).items():
            wid = wid.decode() if isinstance(wid, bytes) else wid
            if wid == self.me:
                continue
            beat = json.loads(raw)
            if beat.get("busy") and now - beat.get("ts", 0) < STALE_SECS:
                return True
        return False

    def _done_key(self) -> str:
        return redis_key(self.crawler.settings, self.spider.name) + ":done"

    @guarded(True)  # lost: nothing more will come from the shared queue
    def _may_close(self) -> bool:
        """Queue drained, nobody busy (and idle for the grace period, default none); a worker that never saw
        any work waits up to ``max_wait`` for some, unless a worker has already closed the crawl as finished."""
        if self._queue_len() > 0 or self._others_busy():
            self.idle_since = None
            return False
        now = time.monotonic()
        if self.idle_since is None:
            self.idle_since = now
        if not self.saw_work and self.server.exists(self._done_key()):
            return True  # started after the crawl was over: nothing will come
        wait = self.grace if self.saw_work else self.max_wait
        return now - self.idle_since >= wait

    @guarded()
    def _closing_finished(self) -> None:
        """This worker closes on "queue drained, all idle": the crawl is over (workers started later close at once)."""
        self.closing = True
        if self.saw_work:
            self.server.set(self._done_key(), json.dumps({"by": self.me, "ts": time.time()}))
        logger.info("distributed crawl: queue drained and all workers idle, closing %s", self.me)

    def spider_idle(self, spider: Any) -> None:
        if is_lost(self.crawler):
            return  # the server is gone: the spider closes
        self._publish(False)
        if is_lost(self.crawler):
            return
        if self.closing or not self._may_close():
            raise DontCloseSpider
        self._closing_finished()

    def spider_closed(self, spider: Spider, reason: str) -> None:
        if self.loop is not None and self.loop.running:
            self.loop.stop()
        self._leave()

    @guarded()
    def _leave(self) -> None:
        if self.key is not None:
            self.server.hdel(self.key, self.me)
