"""Progress of long crawls, a LogStats-like extension.

Every ``SKILL3_PROGRESS_INTERVAL`` seconds (default 10; 0 disables) it logs one line::

    progress: 1200 pages done, 3400 queued, 14.2 pages/s (avg 12.9), dropped: locale=41 canonical_duplicate=7

and at the end stores ``skill3/progress/pages_per_second`` in the stats. "Dropped"
sums the stats under ``skill3/dropped/<reason>`` and Scrapy's
``item_dropped_reasons_count/<reason>``.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import NotConfigured
from twisted.internet import task

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

INTERVAL = 10.0  # SKILL3_PROGRESS_INTERVAL: seconds between progress lines (0: none)


def dropped_by_reason(stats: dict) -> dict[str, int]:
    out: dict[str, int] = {}
    for key, value in stats.items():
        for prefix in ("skill3/dropped/", "item_dropped_reasons_count/"):
            if key.startswith(prefix) and isinstance(value, int):
                reason = key[len(prefix):]
                out[reason] = out.get(reason, 0) + value
    return dict(sorted(out.items()))


def progress_line(done: int, queued: int | None, rate: float, avg: float, dropped: dict[str, int]) -> str:
    q = "?" if queued is None else str(queued)
    drops = " ".join(f"{k}={v}" for k, v in dropped.items()) or "none"
    return f"progress: {done} pages done, {q} queued, {rate:.1f} pages/s (avg {avg:.1f}), dropped: {drops}"


class Progress:
    def __init__(self, crawler: Crawler, interval: float) -> None:
        self.crawler = crawler
        self.interval = interval
        self.task: task.LoopingCall | None = None
        self.started: float | None = None
        self.last = (0.0, 0)

    @classmethod
    def from_crawler(cls, crawler: Any) -> "Progress":
        interval = crawler.settings.getfloat("SKILL3_PROGRESS_INTERVAL", INTERVAL)
        if interval <= 0:
            raise NotConfigured
        ext = cls(crawler, interval)
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def _done(self) -> int:
        return int(self.crawler.stats.get_value("response_received_count", 0))

    def _queued(self) -> int | None:
        try:
            return len(self.crawler.engine.scheduler)  # type: ignore[arg-type]  # no scheduler (yet): TypeError below
        except (AttributeError, TypeError):
            return None

    def spider_opened(self, spider: Spider) -> None:
        self.started = time.monotonic()
        self.last = (self.started, self._done())
        self.task = loop = task.LoopingCall(self.log)
        loop.start(self.interval, now=False)

    def log(self) -> None:
        now, done = time.monotonic(), self._done()
        rate = (done - self.last[1]) / max(now - self.last[0], 1e-9)
        avg = done / max(now - (self.started or now), 1e-9)
        self.last = (now, done)
        logger.info(progress_line(done, self._queued(), rate, avg, dropped_by_reason(self.crawler.stats.get_stats())))

    def spider_closed(self, spider: Spider, reason: str) -> None:
        if self.task and self.task.running:
            self.task.stop()
        if self.started is not None:
            elapsed = max(time.monotonic() - self.started, 1e-9)
            done = self._done()
            self.crawler.stats.set_value("skill3/progress/pages_per_second", round(done / elapsed, 2))
            logger.info(progress_line(done, self._queued(), done / elapsed, done / elapsed, dropped_by_reason(self.crawler.stats.get_stats())))
