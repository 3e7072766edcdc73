"""The crawl-wide page budget of a distributed crawl, in Redis (:class:`RedisSharedState`)."""

from __future__ import annotations

import json
from typing import Any

from skill3crawl.distributed import redis_key, server_from_settings
from skill3crawl.distributed.lost import guarded
from skill3crawl.sitecrawl.budget import Claim, Entry, PageBudget, waiting_cap


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
    def claim(self, key: str, limit: int, entry: Entry, defer: bool = False) -> Claim:
        """(``defer`` is not kept: the shared list hands pages out in the order they were found.)"""
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

    @guarded(list)
    def waiting_entries(self, most: int) -> list[Entry]:
        return [json.loads(raw) for raw in self.server.lrange(self.waiting, 0, max(0, most - 1))]

    @guarded(True)
    def add_canonical(self, key: str) -> bool:
        return bool(self.server.sadd(self.canonical, key))

    @guarded(False)
    def has_canonical(self, key: str) -> bool:
        return bool(self.server.sismember(self.canonical, key))
