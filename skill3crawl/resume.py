"""A ``JOBDIR`` crawl survives ``kill -9``: ``spider.state`` is saved as the crawl goes, not only at close.

Scrapy's SpiderState extension pickles ``spider.state`` when the spider closes;
a killed crawl left none, and its resume started over. :class:`JobState` saves
it atomically (a temporary file, then ``os.replace``) every
``SKILL3_STATE_SAVE_INTERVAL`` seconds (default 1) while the spider runs, in the
same file SpiderState loads on resume.

A marker file (``skill3.running``, holding the pid) is there while a crawl
runs and is removed when it closes. Found with its process gone, the last run
was killed: Scrapy's request queue and seen-fingerprints files in JOBDIR were
never closed and are unusable (their index is written at close), so they are
removed, and the pages the saved state had in flight are requested again,
first (:meth:`~skill3crawl.sitecrawl.budget.LocalState.recover`).

Bound: a page is fetched twice only if it was requested and not finished in
the last saved state, or requested after it — at most ``SKILL3_PAGE_WINDOW``
pages plus those requested since the last save (``SKILL3_STATE_SAVE_INTERVAL``
seconds, or ten times the last save's duration when the state is large).
"""

from __future__ import annotations

import logging
import os
import pickle
import shutil
import time
from pathlib import Path
from typing import Any

from scrapy import signals
from scrapy.exceptions import NotConfigured

from skill3crawl.crawl_record import CrawlState, get_state
from skill3crawl.site_timeline import SiteDates
from synth.core import default_settings

logger = logging.getLogger(__name__)

MARKER = "skill3.running"
SAVE_INTERVAL = default_settings.SKILL3_STATE_SAVE_INTERVAL  # seconds between saves of spider.state (at most)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def killed_before(jobdir: Path) -> bool:
    """A previous crawl in ``jobdir`` ended without closing (its marker is there, its process gone)."""
    marker = jobdir / MARKER
    try:
        pid = int(marker.read_text().strip() or 0)
    except (FileNotFoundError, ValueError):
        return marker.exists()
    return pid != os.getpid() and not _alive(pid)


MEMORY_KEY = "skill3/crawl_memory"


def keep_crawl_memory(state: CrawlState, saved: dict[str, Any]) -> None:
    """What the crawl learned from the pages it read, kept in ``spider.state`` so that a resumed crawl still has it:
    the site's release dates and build-dated hosts (crawl.json ``timeline``) and the chapters whose pages inherit their
    release when the feed closes. The first run puts its own objects there (saved as they grow); a resumed run takes
    the saved ones back."""
    memory = saved.get(MEMORY_KEY)
    if isinstance(memory, dict) and isinstance(memory.get("site_dates"), SiteDates):
        state.site_dates = memory["site_dates"]
        state.chapters = list(memory.get("chapters") or [])
        state.chapter_pages = dict(memory.get("chapter_pages") or {})
    saved[MEMORY_KEY] = {"site_dates": state.site_dates, "chapters": state.chapters, "chapter_pages": state.chapter_pages}


def save_state(path: Path, state: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        pickle.dump(state, fh, protocol=4)
    os.replace(tmp, path)


class JobState:
    def __init__(self, crawler: Any, jobdir: Path, interval: float) -> None:
        self.crawler = crawler
        self.jobdir = jobdir
        self.interval = interval
        self.loop: Any = None
        self.mark: tuple = ()
        self.next_at = 0.0
        jobdir.mkdir(parents=True, exist_ok=True)
        if killed_before(jobdir):
            # Scrapy's own files of the killed run: the queue's index is written only at close
            for name in ("requests.queue", "requests.seen"):
                p = jobdir / name
                if p.is_dir():
                    shutil.rmtree(p)
                elif p.exists():
                    p.unlink()
            crawler._skill3_recovered = (jobdir / "spider.state").exists()
            logger.warning("skill3: the last crawl in %s was killed; resuming from its saved state", jobdir)
        (jobdir / MARKER).write_text(str(os.getpid()))
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Any) -> "JobState":
        jobdir = crawler.settings.get("JOBDIR")
        if not jobdir:
            raise NotConfigured
        return cls(crawler, Path(jobdir), crawler.settings.getfloat("SKILL3_STATE_SAVE_INTERVAL", SAVE_INTERVAL))

    def save(self) -> None:
        """Save when the crawl moved since the last save, and no more often than every ten times the
        last save's duration (a state of 100,000 pages takes a fraction of a second to pickle): the
        saving costs at most about a tenth of the crawl's time."""
        spider = self.crawler.spider
        if spider is None or not hasattr(spider, "state"):
            return
        now = time.monotonic()
        stats = self.crawler.stats
        mark = (stats.get_value("downloader/request_count", 0), stats.get_value("item_scraped_count", 0),
                stats.get_value("item_dropped_count", 0))
        if mark == self.mark or now < self.next_at:
            return
        save_state(self.jobdir / "spider.state", spider.state)
        self.mark = mark
        self.next_at = now + 10 * (time.monotonic() - now)

    def spider_opened(self, spider: Any = None) -> None:
        from twisted.internet.task import LoopingCall

        if spider is not None and isinstance(getattr(spider, "state", None), dict):
            keep_crawl_memory(get_state(self.crawler), spider.state)

        self.loop = LoopingCall(self.save)
        self.loop.start(max(0.05, self.interval), now=False)

    def spider_closed(self, spider: Any = None, reason: str = "") -> None:
        if self.loop is not None and self.loop.running:
            self.loop.stop()
        # SpiderState writes the final state next; the queue files are closed by now
        (self.jobdir / MARKER).unlink(missing_ok=True)
