"""A private HTTP cache: cached bodies hold what redaction removes from the outputs (tokens in pages).

:class:`PrivateFilesystemCacheStorage` is Scrapy's filesystem storage whose
spider folder (``HTTPCACHE_DIR/<spider>``) is created and kept mode 0700, and
whose stored entries are 0700 folders of 0600 files.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path
from typing import Any

from scrapy.extensions.httpcache import FilesystemCacheStorage, RFC2616Policy

logger = logging.getLogger(__name__)
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

    unwritable: str | None = None  # the cache could not be written (a full disk): caching stopped for this crawl

    def store_response(self, spider: Any, request: Any, response: Any) -> None:
        if self.unwritable:
            return
        try:
            super().store_response(spider, request, response)
            rpath = Path(self._get_request_path(spider, request))
            os.chmod(rpath.parent, DIR_MODE)
            os.chmod(rpath, DIR_MODE)
            for f in rpath.iterdir():
                os.chmod(f, FILE_MODE)
        except OSError as exc:  # one line, not one traceback per page; the crawl goes on without its cache
            self.unwritable = exc.strerror or str(exc)
            shutil.rmtree(self._get_request_path(spider, request), ignore_errors=True)  # no half-written entry
            logger.warning("skill3: the HTTP cache in %s cannot be written (%s): caching stops for this crawl",
                           self.cachedir, self.unwritable)


# --------------------------------------------------------------------------- refresh (synth.agents.refresh)

CACHE_DIR = ".httpcache"  # under a `skill3 learn` output folder: what the next learn revalidates


class RevalidatingPolicy(RFC2616Policy):
    """RFC 2616 caching where every stored response is revalidated: the request carries the stored
    ``ETag`` (``If-None-Match``) and ``Last-Modified`` (``If-Modified-Since``); a 304 answer serves the stored
    body, anything else is a refetch. Only responses RFC 2616 lets a cache keep are stored (a validator or an
    expiry; never ``no-store``). A refresh thus sends a conditional request for each page it fetched before
    and downloads only what changed."""

    def is_cached_response_fresh(self, cachedresponse: Any, request: Any) -> bool:
        self._set_conditional_validators(request, cachedresponse)
        return False


class FreshPolicy(RFC2616Policy):
    """``skill3 learn --fresh``: nothing is served from the cache (no conditional request, every page
    downloaded again); what is downloaded is stored as :class:`RevalidatingPolicy` stores it, for the next refresh."""

    def is_cached_response_fresh(self, cachedresponse: Any, request: Any) -> bool:
        return False

    def is_cached_response_valid(self, cachedresponse: Any, response: Any, request: Any) -> bool:
        return False


def learn_cache_settings(output_dir: str | Path, fresh: bool = False) -> dict[str, Any]:
    """The HTTP cache of a `skill3 learn` docs crawl: in the output folder, revalidated (or, ``fresh``, ignored),
    kept until a later learn replaces an entry (the policy, not an age, decides what is fetched)."""
    return {
        "HTTPCACHE_DIR": str(Path(output_dir, CACHE_DIR).resolve()),
        "HTTPCACHE_POLICY": f"{__name__}.{(FreshPolicy if fresh else RevalidatingPolicy).__name__}",
        "HTTPCACHE_EXPIRATION_SECS": 0,
    }
