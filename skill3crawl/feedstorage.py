"""The feed file written line by line: an item in run.jsonl is on disk as soon as it is exported.

Scrapy's :class:`~scrapy.extensions.feedexport.FileFeedStorage` opens the file
buffered, so the items of a crawl that is stopped hard (a second Ctrl-C, a kill,
a close that never completes) were lost with the buffer. This storage opens it
unbuffered: each exported line is one ``write`` to the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, Any

from scrapy.extensions.feedexport import FileFeedStorage


class UnbufferedFileFeedStorage(FileFeedStorage):
    def open(self, spider: Any = None) -> IO[bytes]:
        path = Path(self.path)
        path.parent.mkdir(parents=True, exist_ok=True)
        return path.open(self.write_mode, buffering=0)
