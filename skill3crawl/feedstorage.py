"""The feed file written line by line: an item in run.jsonl is on disk as soon as it is exported.

Scrapy's :class:`~scrapy.extensions.feedexport.FileFeedStorage` opens the file
buffered, so the items of a crawl that is stopped hard (a second Ctrl-C, a kill,
a close that never completes) were lost with the buffer. This storage opens it
unbuffered: each exported line is one ``write`` to the file.

A write that fails (a full disk, an I/O error) stops the crawl at once, in one line: the
feed is cut back to its last whole line, the failure is recorded in the crawl's state
(``write_failed``; the crawl then exits 1 and nothing is synthesised from a truncated
feed), and every later item is dropped instead of raising once per item.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import IO, Any

from scrapy.extensions.feedexport import FileFeedStorage

logger = logging.getLogger(__name__)


class _FeedFile:
    """The open feed: whole writes only; the first failure cuts the file back to its last whole line and calls
    ``on_failure`` once; later writes are dropped."""

    def __init__(self, raw: IO[bytes], on_failure: Any) -> None:
        self.raw = raw
        self.on_failure = on_failure
        self.failed: OSError | None = None
        self.good = os.fstat(raw.fileno()).st_size  # appended to when a crawl resumes

    def write(self, data: bytes) -> int:
        if self.failed is not None:
            return len(data)  # the crawl is stopping: nothing more goes to a file that cannot take it
        view = memoryview(data)
        done = 0
        try:
            while done < len(view):
                n = self.raw.write(view[done:])
                if not n:
                    raise OSError(28, os.strerror(28))  # a write that takes nothing: the disk is full
                done += n
        except OSError as exc:
            self.failed = exc
            try:
                os.ftruncate(self.raw.fileno(), self.good)  # no half line left behind
            except OSError:
                pass
            self.on_failure(exc)
            return len(data)
        self.good += done
        return done

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


class UnbufferedFileFeedStorage(FileFeedStorage):
    crawler: Any = None

    @classmethod
    def from_crawler(cls, crawler: Any, uri: str, *, feed_options: dict[str, Any] | None = None) -> "UnbufferedFileFeedStorage":
        storage = cls(uri, feed_options=feed_options)
        storage.crawler = crawler
        return storage

    def open(self, spider: Any = None) -> IO[bytes]:
        path = Path(self.path)
        path.parent.mkdir(parents=True, exist_ok=True)
        return _FeedFile(path.open(self.write_mode, buffering=0), self._failed)  # type: ignore[return-value]

    def store(self, file: IO[bytes]) -> None:
        try:
            file.close()
        except OSError as exc:  # the last bytes could not be flushed: as a failed write
            self._failed(exc)

    def _failed(self, exc: OSError) -> None:
        reason = exc.strerror or str(exc)
        logger.error("skill3: writing %s failed (%s): the crawl stops; the items before it are kept, nothing is "
                     "synthesized; free space and run again", self.path, reason)
        crawler = self.crawler
        if crawler is None:
            return
        from skill3crawl.crawl_record import get_state

        get_state(crawler).write_failed = f"{reason}: {self.path}"
        if crawler.stats is not None:
            crawler.stats.set_value("skill3/write_failed", reason)
        engine = getattr(crawler, "engine", None)
        if engine is not None and getattr(engine, "running", False):
            from scrapy.utils.defer import deferred_from_coro

            deferred_from_coro(engine.close_spider_async(reason="write_failed"))
