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
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from time import monotonic
from typing import Any

from scrapy import signals
from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as ScrapyRobotsTxtMiddleware
from scrapy.exceptions import CannotResolveHostError, IgnoreRequest
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.response import response_status_message

from synth.core import default_settings

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


MAX_CRAWL_DELAY = default_settings.SKILL3_MAX_CRAWL_DELAY  # seconds; a longer robots.txt Crawl-delay is capped
RETRY_AFTER_MAX = default_settings.SKILL3_RETRY_AFTER_MAX  # seconds; a longer Retry-After is not waited for


class CrawlDelayMiddleware:
    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler
        self.max_delay = crawler.settings.getfloat("SKILL3_MAX_CRAWL_DELAY", MAX_CRAWL_DELAY)
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


def is_dns_failure(exc: BaseException) -> bool:
    """A name that does not resolve: asking again in a second does not help."""
    from twisted.internet.error import DNSLookupError

    return isinstance(exc, (CannotResolveHostError, DNSLookupError))


class RetryAfterMiddleware(RetryMiddleware):
    def __init__(self, settings: Any) -> None:
        super().__init__(settings)
        self.max_wait = settings.getfloat("SKILL3_RETRY_AFTER_MAX", RETRY_AFTER_MAX)

    def process_exception(self, request: Any, exception: Exception) -> Any:  # type: ignore[override]  # Scrapy 2.19's, without spider
        if is_dns_failure(exception):  # never retried (DNSLookupError is an OSError, which is retried)
            self.crawler.stats.inc_value("skill3/dns_not_retried")
            return None
        return super().process_exception(request, exception)

    async def process_response(self, request: Any, response: Any) -> Any:  # type: ignore[override]  # awaits Retry-After
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
            stats.inc_value("skill3/retry_after/seconds", wait)  # type: ignore[arg-type]  # seconds, not a count
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
    from scrapy.utils.defer import maybe_deferred_to_future
    from twisted.internet import reactor
    from twisted.internet.task import deferLater

    await maybe_deferred_to_future(deferLater(reactor, seconds, lambda: None))


DISALLOW_ALL = b"User-agent: *\nDisallow: /\n"
# robots.txt's own time: each try at most ROBOTS_TIMEOUT seconds, ROBOTS_RETRIES retries, so a host that drips its
# robots.txt a byte a second holds the crawl of that host at most (1 + ROBOTS_RETRIES) × ROBOTS_TIMEOUT seconds
ROBOTS_TIMEOUT = 10.0
ROBOTS_RETRIES = 1
MAX_ROBOTS_BYTES = 500 * 1024  # RFC 9309 §2.5: a crawler must parse at least 500 KiB


class RobotsTxtMiddleware(ScrapyRobotsTxtMiddleware):
    """Scrapy's robots.txt middleware, as RFC 9309 asks when robots.txt is unreachable: a 5xx answer
    (after the retries) means complete disallow for that host (Scrapy allows all), counted in
    ``skill3/robots_unavailable``; a download error is one log line, not a traceback."""

    _responses: dict[str, Any]  # netloc → the robots.txt response, handed to the crawl's own robots.txt request

    async def process_request(self, request: Any, spider: Any = None) -> Any:  # answers with a Response
        """Scrapy's check, except for the crawl's own robots.txt request (docs mode reads its ``Sitemap:`` lines):
        it is answered from the download this middleware made (robots.txt is fetched once per host), or ignored
        when that download failed (a failed robots.txt is not tried again)."""
        url = urlparse_cached(request)
        if request.meta.get("skill3_kind") == "robots" and url.path == "/robots.txt":
            await self.robot_parser(request)
            stored = getattr(self, "_responses", {}).get(url.netloc)
            if stored is None:
                raise IgnoreRequest(f"robots.txt of {url.netloc} could not be fetched")
            return stored.replace(url=request.url, request=request)
        return await super().process_request(request)

    def process_request_2(self, rp: Any, request: Any) -> None:
        """Scrapy's check; a page robots.txt forbids is listed in crawl.json's ``dropped_items`` (reason ``robots``)."""
        try:
            super().process_request_2(rp, request)
        except IgnoreRequest:
            from skill3crawl.crawl_record import note_dropped

            note_dropped(self.crawler, request.url, "robots")
            raise

    async def _parse_robots(self, response: Any, netloc: str, request: Any) -> None:
        if not hasattr(self, "_responses"):
            self._responses = {}
        if response.status < 500:
            self._responses[netloc] = response.replace(body=response.body[:MAX_ROBOTS_BYTES])
        if response.status >= 500:
            self._stats.inc_value("skill3/robots_unavailable")
            logger.warning("robots.txt of %s answered HTTP %d: nothing on that host is fetched (RFC 9309)",
                           netloc, response.status)
            response = response.replace(body=DISALLOW_ALL)
        await super()._parse_robots(response, netloc, request)

    async def robot_parser(self, request: Any) -> Any:
        """Scrapy's, except that every request waiting for the host's robots.txt gets the parser: Scrapy
        awaits one shared Deferred from each of them, and after the first waiter (``asFuture``
        swallows the result) the others got None — allowed — so a host's first concurrent requests
        (llms.txt, the start page) passed whatever robots.txt said. A download error is one log line."""
        from scrapy.http import Request
        from scrapy.utils.defer import maybe_deferred_to_future
        from twisted.internet.defer import Deferred

        url = urlparse_cached(request)
        netloc = url.netloc
        if netloc not in self._parsers:
            self._parsers[netloc] = Deferred()
            # the robots.txt of an API skill3 calls (a package registry) is part of that call: the network guard's
            # exemption of the trusted endpoint covers it, and nothing else on that host
            api = {"skill3_api": True} if request.meta.get("skill3_api") else {}
            timeout = min(ROBOTS_TIMEOUT, self.crawler.settings.getfloat("DOWNLOAD_TIMEOUT") or ROBOTS_TIMEOUT)
            robotsreq = Request(f"{url.scheme}://{netloc}/robots.txt", priority=self.DOWNLOAD_PRIORITY, callback=NO_CALLBACK,
                                meta={"dont_obey_robotstxt": True, "download_timeout": timeout,
                                      "max_retry_times": ROBOTS_RETRIES, "download_maxsize": MAX_ROBOTS_BYTES * 4, **api})
            try:
                resp = await self.crawler.engine.download_async(robotsreq)
                await self._parse_robots(resp, netloc, request)
            except Exception as e:
                if not isinstance(e, IgnoreRequest):
                    logger.warning("robots.txt of %s: %s", netloc, _one_line(e))
                if isinstance(self._parsers.get(netloc), Deferred):
                    self._robots_error(e, netloc)
            self._stats.inc_value("robotstxt/request_count")
        parser = self._parsers[netloc]
        if not isinstance(parser, Deferred):
            return parser
        mine: Deferred = Deferred()

        def hand_on(result: Any) -> Any:
            mine.callback(result)
            return result  # the next waiter gets it too

        parser.addBoth(hand_on)
        return await maybe_deferred_to_future(mine)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__


class RedirectScopeMiddleware:
    """A redirect target is a link: a docs crawl's page request redirected (Scrapy's redirect middleware queues the
    target as a new request, which the network guard checks like any) to a host none of the crawl's scopes covers
    is not followed, so an off-site target is never kept as a source. Counted in ``skill3/dropped/offsite_redirect``."""

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Any) -> "RedirectScopeMiddleware":
        return cls(crawler)

    def process_request(self, request: Any) -> None:
        if not request.meta.get("redirect_urls") or request.meta.get("skill3_kind") != "page":
            return
        scope_for = getattr(self.crawler.spider, "_scope_for", None)
        if scope_for is None or not getattr(self.crawler.spider, "scopes", None):
            return
        scope, why = scope_for(request.url)
        if scope is None and why == "offsite":  # another host (a move within the site, /latest/ → /stable/, is followed)
            self.crawler.stats.inc_value("skill3/dropped/offsite_redirect")
            logger.info("skill3: %s redirects out of the crawl's scope to %s: not followed",
                        request.meta["redirect_urls"][0], request.url)
            raise IgnoreRequest("redirect out of the crawl's scope")


SEARCH_KEY_HEADER = b"X-Subscription-Token"


class SearchKeyMiddleware:
    """Adds the search API key to search requests just before download and strips it from
    them afterwards, so the key never sits in a request that is queued — on disk with
    ``JOBDIR``, in Redis in a distributed crawl, or re-queued by a retry."""

    def __init__(self, crawler: Any) -> None:
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
