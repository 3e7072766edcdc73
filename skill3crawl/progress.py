"""Progress of long crawls: a LogStats-like extension, and a live line on a terminal (:class:`LiveProgress`).

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

from synth.core import default_settings

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

INTERVAL = default_settings.SKILL3_PROGRESS_INTERVAL  # seconds between progress lines (0: none)


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


# --------------------------------------------------------------------------- the live line on a terminal

LIVE_INTERVAL = default_settings.SKILL3_LIVE_PROGRESS_INTERVAL  # seconds between redraws


def live_line(fetched: int, written: int, dropped: int, rate: float, budget_left: int | None, elapsed: float,
              budget: int | None = None) -> str:
    """The live progress line's text (pure): with the page ``budget``, the share of it written and the time left at
    the rate pages are being written (``ETA`` once one is written)."""
    share = ""
    if budget:
        pct = min(100, int(100 * written / budget))
        per_page = elapsed / written if written else None
        left = budget if budget_left is None else budget_left
        eta = f" · ETA {_clock(per_page * left)}" if per_page is not None and left > 0 else ""
        share = f"{pct}% of {budget:,} pages{eta} · "
    budget_text = "" if budget_left is None else f" · budget left {budget_left:,}"
    return (f"crawling: {share}{max(fetched, written):,} fetched · {written:,} written · {dropped:,} dropped · "
            f"{rate:.1f} pages/s{budget_text} · {_clock(elapsed)}")


def _clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def live_wanted(settings: Any, stream: Any = None) -> bool:
    """The live line is drawn when stderr is a terminal, ``SKILL3_LIVE_PROGRESS`` is not off, and the log does
    not already show the crawl's INFO lines (``skill3 learn``'s default level is WARNING)."""
    import sys

    stream = sys.stderr if stream is None else stream
    setting = str(settings.get("SKILL3_LIVE_PROGRESS", default_settings.SKILL3_LIVE_PROGRESS)).strip().lower()
    if setting in ("0", "false", "no", "off", "never"):
        return False
    if setting not in ("1", "true", "yes", "on", "always") and not (hasattr(stream, "isatty") and stream.isatty()):
        return False
    level = settings.get("LOG_LEVEL", "DEBUG")
    number = level if isinstance(level, int) else logging.getLevelName(str(level).upper())
    return not settings.getbool("LOG_ENABLED", True) or (isinstance(number, int) and number > logging.INFO)


class LiveProgress:
    """One live line on stderr while the crawl runs — pages fetched, written and dropped, the rate, the page
    budget left — drawn with rich on the reactor thread (no refresh thread) and erased when the crawl
    closes, where ``skill3 learn`` prints its one-line summary. Log lines (warnings) are printed above it."""

    def __init__(self, crawler: Any, interval: float) -> None:
        self.crawler = crawler
        self.interval = interval
        self.task: Any = None
        self.live: Any = None
        self.started = 0.0
        self.handlers: list[tuple[logging.StreamHandler, Any]] = []

    @classmethod
    def from_crawler(cls, crawler: Any) -> "LiveProgress":
        if not live_wanted(crawler.settings):
            raise NotConfigured
        ext = cls(crawler, crawler.settings.getfloat("SKILL3_LIVE_PROGRESS_INTERVAL", LIVE_INTERVAL))
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        from skill3crawl.extensions import output_ready

        crawler.signals.connect(ext.output_ready, signal=output_ready)  # before the crawl's own synthesis prints
        return ext

    def output_ready(self, crawler: Any = None) -> None:
        self.spider_closed(None, "finished")

    def text(self) -> str:
        stats = self.crawler.stats.get_stats()
        fetched = int(stats.get("skill3/pages_fetched", 0))
        written = int(stats.get("item_scraped_count", 0))
        dropped = sum(dropped_by_reason(stats).values())
        elapsed = max(time.monotonic() - self.started, 1e-9)
        args = getattr(self.crawler.spider, "args", None)
        budget = getattr(args, "max_pages", None)
        left = None if budget is None else max(0, int(budget) - written)
        return live_line(fetched, written, dropped, max(fetched, written) / elapsed, left, elapsed,
                         None if budget is None else int(budget))

    def spider_opened(self, spider: Any) -> None:
        import sys

        from rich.console import Console
        from rich.live import Live
        from rich.text import Text

        self.started = time.monotonic()
        original = sys.stderr
        console = Console(file=original, stderr=True, highlight=False, soft_wrap=True)
        self.live = Live(Text(self.text()), console=console, auto_refresh=False, transient=True,
                         redirect_stdout=False, redirect_stderr=True)
        self.live.start()
        # Scrapy's log handler holds the stream it was given: send it through the live display's proxy
        for handler in logging.getLogger().handlers:
            if isinstance(handler, logging.StreamHandler) and getattr(handler, "stream", None) is original:
                self.handlers.append((handler, original))
                handler.setStream(sys.stderr)
        self.task = task.LoopingCall(self.draw)
        self.task.start(self.interval, now=True)

    def draw(self) -> None:
        from rich.text import Text

        if self.live is not None:
            self.live.update(Text(self.text()), refresh=True)

    def spider_closed(self, spider: Any, reason: str) -> None:
        if self.task is not None and self.task.running:
            self.task.stop()
        for handler, stream in self.handlers:
            handler.setStream(stream)
        self.handlers = []
        if self.live is not None:
            self.live.stop()
            self.live = None
