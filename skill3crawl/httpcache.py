"""A private HTTP cache: cached bodies hold what redaction removes from the outputs (tokens in pages).

:class:`PrivateFilesystemCacheStorage` is Scrapy's filesystem storage whose
spider folder (``HTTPCACHE_DIR/<spider>``) is created and kept mode 0700, and
whose stored entries are 0700 folders of 0600 files.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from scrapy.extensions.httpcache import FilesystemCacheStorage

DIR_MODE = 0o700
FILE_MODE = 0o600


def make_private_dir(path: Path) -> None:
    """Create ``path`` (missing parents too) with mode 0700; make it 0700 if it exists."""
    missing = []
    p = path
    while not p.exists():
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        d.mkdir(mode=DIR_MODE, exist_ok=True)
        os.chmod(d, DIR_MODE)  # mkdir's mode is masked by the umask
    os.chmod(path, DIR_MODE)


class PrivateFilesystemCacheStorage(FilesystemCacheStorage):
    def open_spider(self, spider: Any) -> None:
        super().open_spider(spider)
        make_private_dir(Path(self.cachedir, spider.name))

    def store_response(self, spider: Any, request: Any, response: Any) -> None:
        super().store_response(spider, request, response)
        rpath = Path(self._get_request_path(spider, request))
        os.chmod(rpath.parent, DIR_MODE)
        os.chmod(rpath, DIR_MODE)
        for f in rpath.iterdir():
            os.chmod(f, FILE_MODE)
