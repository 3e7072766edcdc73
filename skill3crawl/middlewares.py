"""Politeness middlewares: robots.txt ``Crawl-delay`` and ``Retry-After``.

Scrapy parses robots.txt but does not honour ``Crawl-delay``;
:class:`CrawlDelayMiddleware` hooks ``robots_parsed`` and sets the host's
download slot delay (no jitter, AutoThrottle kept off it). :class:`RetryAfterMiddleware`
is Scrapy's RetryMiddleware (same counting, same ``RETRY_*`` settings) that honours
a 429/503 ``Retry-After`` (capped by ``SKILL3_RETRY_AFTER_MAX``; a longer wait gives
up on the page) by pausing the host's download slot for that long, so the retry and
every other request to the host wait.
"""

from __future__ import annotations

import logging
from time import monotonic
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any

from scrapy import signals
from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.response import response_status_message

logger = logging.getLogger(__name__)


def parse_retry_after(value: bytes | str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After value (delta-seconds or HTTP-date); None when absent or invalid."""
    if value is None:
        return None
    s = (value.decode("latin-1") if isinstance(value, bytes) else value).strip()
    if not s:
        return None
    if s.isdigit():
        return float(int(s))
    try:
        when = parsedate_to_datetime(s)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    now = now or datetime.now(timezone.utc)
    return max(0.0, (when - now).total_seconds())


class CrawlDelayMiddleware:
    def __init__(self, crawler: Any):
        self.crawler = crawler
        self.max_delay = crawler.settings.getfloat("SKILL3_MAX_CRAWL_DELAY", 60.0)
        self.user_agent = crawler.settings.get("ROBOTSTXT_USER_AGENT") or crawler.settings.get("USER_AGENT")
        self.delays: dict[str, float] = {}
        crawler.signals.connect(self.robots_parsed, signal=signals.robots_parsed)

    @classmethod
    def from_crawler(cls, crawler: Any) -> "CrawlDelayMiddleware":
        return cls(crawler)

    def robots_parsed(self, robotparser: Any, request: Any) -> None:
        try:
            delay = robotparser.crawl_delay(self.user_agent)
        except Exception:  # a parser without crawl-delay support: nothing to honour
            delay = None
        if not delay or delay <= 0:
            return
        host = urlparse_cached(request).hostname or ""
        delay = min(float(delay), self.max_delay)
        self.delays[host] = delay
        self.crawler.stats.set_value(f"skill3/crawl_delay/{host}", delay)
        logger.info("robots.txt of %s asks for Crawl-delay %.1fs: honoured", host, delay)
        downloader = self.crawler.engine.downloader
        downloader.per_slot_settings.setdefault(host, {}).update({"delay": delay, "jitter": 0.0})
        self._apply(downloader, host, delay)

    @staticmethod
    def _apply(downloader: Any, key: str, delay: float) -> None:
        slot = downloader.slots.get(key)
        if slot is not None and (slot.delay < delay or slot.jitter):
            slot.delay = max(slot.delay, delay)
            slot.jitter = 0.0

    def process_request(self, request: Any) -> None:
        host = urlparse_cached(request).hostname or ""
        delay = self.delays.get(host)
        if delay:
            request.meta["autothrottle_dont_adjust_delay"] = True
            downloader = self.crawler.engine.downloader
            self._apply(downloader, downloader.get_slot_key(request), delay)
        return None


class RetryAfterMiddleware(RetryMiddleware):
    def __init__(self, settings: Any):
        super().__init__(settings)
        self.max_wait = settings.getfloat("SKILL3_RETRY_AFTER_MAX", 60.0)

    async def process_response(self, request: Any, response: Any) -> Any:
        if request.meta.get("dont_retry", False) or response.status not in self.retry_http_codes:
            return response
        wait = parse_retry_after(response.headers.get(b"Retry-After"))
        stats = self.crawler.stats
        if wait is not None:
            if request.meta.get("retry_times", 0) >= request.meta.get("max_retry_times", self.max_retry_times):
                return self._retry(request, response_status_message(response.status)) or response
            if wait > self.max_wait:
                stats.inc_value("skill3/retry_after/too_long")
                logger.info("%s asks to retry after %.0fs (> %.0fs): giving up on %s", response.status, wait, self.max_wait, request.url[:200])
                return response
            stats.inc_value("skill3/retry_after/waits")
            stats.inc_value("skill3/retry_after/seconds", wait)
            if not self._pause_slot(request, wait):
                await _sleep(wait)
        return self._retry(request, response_status_message(response.status)) or response

    def _pause_slot(self, request: Any, wait: float) -> bool:
        """Pause the host's download slot for ``wait`` seconds: the retry and every other queued
        request to the host wait (the slot's next download is due ``delay`` after ``lastseen``)."""
        downloader = getattr(self.crawler.engine, "downloader", None)
        slot = downloader.slots.get(downloader.get_slot_key(request)) if downloader is not None else None
        if slot is None:
            return False
        slot.lastseen = max(slot.lastseen, monotonic() + wait)
        if not slot.delay:
            slot.delay = 0.001  # the downloader only consults lastseen for slots with a delay
        return True


async def _sleep(seconds: float) -> None:
    from twisted.internet import reactor
    from twisted.internet.task import deferLater

    from scrapy.utils.defer import maybe_deferred_to_future

    await maybe_deferred_to_future(deferLater(reactor, seconds, lambda: None))


SEARCH_KEY_HEADER = b"X-Subscription-Token"


class SearchKeyMiddleware:
    """Adds the search API key to search requests just before download and strips it from
    them afterwards, so the key never sits in a request that is queued — on disk with
    ``JOBDIR``, in Redis in a distributed crawl, or re-queued by a retry."""

    def __init__(self, crawler: Any):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Any) -> "SearchKeyMiddleware":
        return cls(crawler)

    def _key(self) -> str | None:
        args = getattr(self.crawler.spider, "args", None)
        return args.brave_token() if args is not None else None

    def process_request(self, request: Any) -> None:
        if request.meta.get("skill3_search"):
            key = self._key()
            if key:
                request.headers[SEARCH_KEY_HEADER] = key

    def process_response(self, request: Any, response: Any) -> Any:
        request.headers.pop(SEARCH_KEY_HEADER, None)
        return response

    def process_exception(self, request: Any, exception: Exception) -> None:
        request.headers.pop(SEARCH_KEY_HEADER, None)
