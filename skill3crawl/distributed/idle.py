"""Closing an idle worker of a distributed crawl: only when the shared queue is drained and no other worker is busy
(workers heartbeat in ``<key>:workers``; a worker publishes "busy" before it takes a request from the queue)."""

from __future__ import annotations

import json
import logging
import time
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import DontCloseSpider, NotConfigured

from skill3crawl.distributed import max_idle_wait, redis_enabled, redis_key, server_from_settings, worker_id
from skill3crawl.distributed.lost import guarded, is_lost
from synth.core import default_settings

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.http import Response
    from twisted.internet.task import LoopingCall

logger = logging.getLogger("skill3crawl.distributed")  # the distributed crawl's one logger

HEARTBEAT_SECS = 1.0
STALE_SECS = 10.0
IDLE_GRACE = default_settings.SKILL3_REDIS_IDLE_GRACE  # extra seconds all workers are idle before they close


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
