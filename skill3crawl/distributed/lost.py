"""A lost Redis server: after its bounded reconnects the process stops in one line (exit 1, nothing synthesized,
the feed's items kept) and no Redis call is made after that (:func:`guarded`)."""

from __future__ import annotations

import functools
import logging
from typing import Any, Callable, TypeVar

from skill3crawl.distributed import RETRIES
from synth.core.errors import ExitCode

logger = logging.getLogger("skill3crawl.distributed")  # the distributed crawl's one logger


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
    from skill3crawl.crawl_record import get_state
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
