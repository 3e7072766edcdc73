"""Distributed crawl on scrapy-redis: one shared request queue and dupefilter, many workers.

Switched on by ``-s SKILL3_REDIS_URL=redis://host:port/db`` (:class:`.addon.RedisAddon`,
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
* Closing: :class:`.idle.RedisWorkerIdle` keeps an idle worker open while the shared
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
  socket timeout 10 s); then the process stops in one line (:func:`.lost.redis_lost`: exit 1, finish
  reason ``redis_lost``), keeps the items its feed already holds and synthesizes nothing. No
  Redis call is made after that (the close does not flush what it cannot reach).

This package holds the settings, keys, roles, the client and the planner's published arguments; the
scrapy-redis components are in :mod:`.scheduler` (the add-on, scheduler and dupefilter), the lost server in
:mod:`.lost`, the shared page budget in :mod:`.state` and the closing of idle workers in :mod:`.idle`.
"""

from __future__ import annotations

import json
import os
import re
import socket
import time
import warnings
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator

from synth.core import default_settings

if TYPE_CHECKING:
    import redis
    from scrapy import Spider
    from scrapy.settings import BaseSettings

ROLES = ("main", "worker")
MAX_IDLE_WAIT = 60.0  # MAX_IDLE_TIME_BEFORE_CLOSE (scrapy-redis's, 0 there = never): a worker's longest wait
RETRIES = default_settings.SKILL3_REDIS_RETRIES  # reconnects of one call before the server counts as lost
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
    connection (exponential backoff, at most 2 s apart), then its ``ConnectionError`` (see :func:`.lost.redis_lost`)."""
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
        from scrapy_redis import connection  # here: a crawl without Redis never loads scrapy-redis nor redis

        return connection.get_redis(url=url, **params)


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
