"""The scrapy-redis components: the add-on that switches them on, and thin subclasses of scrapy-redis's scheduler
and dupefilter (skill3's keys, its deprecation warnings contained, every Redis call guarded against a lost server)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from skill3crawl.distributed import contained_redis_warnings, redis_key, server_from_settings, spider_role
from skill3crawl.distributed.addon import RedisAddon  # noqa: F401 - its former home
from skill3crawl.distributed.lost import guarded

if TYPE_CHECKING:
    from typing import Self

    from scrapy import Request, Spider
    from scrapy.crawler import Crawler

logger = logging.getLogger("skill3crawl.distributed")  # the distributed crawl's one logger

with contained_redis_warnings():
    from scrapy_redis.dupefilter import RFPDupeFilter as _RFPDupeFilter
    from scrapy_redis.scheduler import Scheduler as _Scheduler


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
