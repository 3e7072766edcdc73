"""The scrapy-redis profile as a Scrapy add-on, in a module of its own: every crawl loads the add-on (settings'
``ADDONS``), and only a crawl with ``SKILL3_REDIS_URL`` needs scrapy-redis and redis (~7 MB and 80 modules of the
crawler's memory otherwise; :mod:`.scheduler` subclasses scrapy-redis's classes and imports it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings


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
        settings.set("SCHEDULER", "skill3crawl.distributed.scheduler.RedisScheduler", priority=prio)
        settings.set("DUPEFILTER_CLASS", "skill3crawl.distributed.scheduler.RedisDupeFilter", priority=prio)
        settings.set("SCHEDULER_PERSIST", True, priority=prio)
        settings.set("SCHEDULER_FLUSH_ON_START", False, priority=prio)  # the planner flushes, workers never
        settings.set("SCHEDULER_QUEUE_CLASS", "scrapy_redis.queue.PriorityQueue", priority=prio)
        from skill3crawl.distributed.idle import RedisWorkerIdle

        settings.setdefault_in_component_priority_dict("EXTENSIONS", RedisWorkerIdle, 600)
