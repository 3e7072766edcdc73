"""sitemap.xml: where to look for a site's sitemaps, and their URLs with ``lastmod`` (a date signal), via Scrapy's sitemap utilities."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable
from urllib.parse import urlsplit

from scrapy.utils.gz import gunzip
from scrapy.utils.sitemap import Sitemap

from skill3crawl.sitecrawl.scope import Scope

MAX_SITEMAP_BYTES = 50 * 1024 * 1024  # the sitemaps.org limit, uncompressed
# A sitemap index may list only sitemaps (sitemaps.org); some sites nest indexes anyway, and a hostile one lists
# itself or an endless tree of indexes. Bounds: an index found through MAX_SITEMAP_DEPTH indexes is not fetched,
# and a crawl fetches at most MAX_SITEMAPS sitemaps in all (robots.txt's and the conventional ones included).
MAX_SITEMAP_DEPTH = 3
MAX_SITEMAPS = 50


@dataclass(frozen=True)
class SitemapEntry:
    loc: str
    lastmod: str | None


def parse_sitemap(body: bytes, max_size: int = MAX_SITEMAP_BYTES) -> tuple[str, list[SitemapEntry]]:
    """→ (``"urlset"`` | ``"sitemapindex"`` | ``"invalid"``, entries in document order)."""
    if body[:2] == b"\x1f\x8b":  # sitemap.xml.gz
        try:
            body = gunzip(body, max_size=max_size or MAX_SITEMAP_BYTES)
        except Exception:  # corrupt or over the cap
            return "invalid", []
    try:
        sm = Sitemap(body)
    except Exception:  # lxml on a non-XML body
        return "invalid", []
    kind = sm.type or "invalid"
    if kind not in ("urlset", "sitemapindex"):
        return "invalid", []
    entries = []
    for e in sm:
        loc = (e.get("loc") or "").strip()
        if urlsplit(loc).scheme in ("http", "https"):
            entries.append(SitemapEntry(loc, (e.get("lastmod") or "").strip() or None))
    return kind, entries


def sitemap_candidates(scope: Scope, robots_sitemaps: Iterable[str] = ()) -> list[str]:
    """Sitemaps to try: robots.txt ``Sitemap:`` lines first, then the conventional locations."""
    out = list(dict.fromkeys(robots_sitemaps))
    for path in ("/sitemap.xml", scope.prefix + "sitemap.xml"):
        url = scope.origin + path
        if url not in out:
            out.append(url)
    return out
