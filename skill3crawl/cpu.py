"""Per-page CPU work off Scrapy's reactor thread: a process pool awaited through asyncio.

Scrapy runs callbacks and pipelines on one thread; HTML parsing, trafilatura and
htmldate are pure CPU, so done inline they serialise the whole crawl on one core.
:func:`run_cpu` sends a pure, picklable function to a ``ProcessPoolExecutor``
(one per crawler, ``SKILL3_CPU_WORKERS`` processes, default: the number of
cores; ``0`` runs inline) and awaits it with ``loop.run_in_executor``, so the
reactor keeps downloading while the cores extract.

Use it from an ``async def process_item`` or an ``async def`` callback::

    result = await run_cpu(self.crawler, extract_page, body, url)
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable

from scrapy import signals

_POOL_ATTR = "_skill3_cpu_pool"


def _worker_init() -> None:
    # Ctrl-C reaches the whole process group: the crawl decides, workers keep working.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import htmldate  # noqa: F401  (warm the imports once per worker)
    import trafilatura  # noqa: F401


def cpu_workers(settings) -> int:
    value = settings.get("SKILL3_CPU_WORKERS")
    if value in (None, "", "auto"):
        return os.cpu_count() or 1
    n = int(value)
    if n < 0:
        raise ValueError(f"SKILL3_CPU_WORKERS must be ≥0 (got {n})")
    return n


def _pool(crawler) -> ProcessPoolExecutor | None:
    if not hasattr(crawler, _POOL_ATTR):
        n = cpu_workers(crawler.settings)
        pool = None
        if n > 0:
            # spawn: never fork a process that runs a reactor and threads.
            pool = ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_init)
            crawler.stats.set_value("skill3/cpu_workers", n)

            def _shutdown(spider=None, reason=None, _pool=pool):
                _pool.shutdown(wait=True, cancel_futures=True)

            crawler.signals.connect(_shutdown, signal=signals.spider_closed, weak=False)
        setattr(crawler, _POOL_ATTR, pool)
    return getattr(crawler, _POOL_ATTR)


async def run_cpu(crawler, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in the crawler's process pool (inline when the pool is off)."""
    pool = _pool(crawler)
    if pool is None:
        return fn(*args)
    return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)
