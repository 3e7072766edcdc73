"""Search providers behind one small interface: Brave Search and SearXNG (a third is one class).

A provider builds the request URL for a query and the freshness window (the cutoff's first day to
today), parses the answer into :class:`~skill3crawl.discovery.brave.SearchResult` items, and says
whether its requests carry the search key (added only at download time by ``SearchKeyMiddleware``,
so a key is never queued, cached or written). Every provider's requests go through one download slot
(one at a time, ≥1 s apart), are never cached and do not ask for robots.txt: we are the API's client.

SearXNG's JSON API (docs.searxng.org/dev/search_api.html): ``GET /search?q=…&format=json`` with
``time_range`` ∈ {day, week, month, year}; the answer's ``results[]`` carry ``url``, ``title``,
``content`` and (when the engine gives one) ``publishedDate``. Its time ranges are coarse, so results
whose ``publishedDate`` is before the cutoff are also dropped here.
"""

from __future__ import annotations

import logging
from datetime import date
from typing import Any, Mapping
from urllib.parse import urlencode, urlsplit, urlunsplit

from skill3crawl.discovery import brave
from skill3crawl.discovery.brave import SearchResult
from skill3crawl.setting_values import setting_or_env

SLOT = brave.SLOT
logger = logging.getLogger(__name__)


class SearchProvider:
    name = "search"
    sends_key = False  # the request carries the Brave key (X-Subscription-Token) at download time

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint

    def request_url(self, query: str, cutoff_start: date, today: date) -> str:  # pragma: no cover - interface
        raise NotImplementedError

    def parse(self, body: bytes | str, cutoff_start: date | None = None) -> list[SearchResult]:  # pragma: no cover
        raise NotImplementedError


class BraveProvider(SearchProvider):
    name = "brave"
    sends_key = True

    def request_url(self, query: str, cutoff_start: date, today: date) -> str:
        return brave.search_url(self.endpoint, query, cutoff_start, today)

    def parse(self, body: bytes | str, cutoff_start: date | None = None) -> list[SearchResult]:
        return brave.parse_results(body)


def searxng_time_range(cutoff_start: date, today: date) -> str | None:
    """The smallest SearXNG ``time_range`` that covers cutoff → today; None past a year (no filter)."""
    days = (today - cutoff_start).days
    for name, limit in (("day", 1), ("week", 7), ("month", 31), ("year", 366)):
        if days <= limit:
            return name
    return None


class SearXNGProvider(SearchProvider):
    name = "searxng"

    def request_url(self, query: str, cutoff_start: date, today: date) -> str:
        base = self.endpoint.rstrip("/")
        if not urlsplit(base).path.endswith("/search"):
            base += "/search"
        params: dict[str, Any] = {"q": query, "format": "json"}
        window = searxng_time_range(cutoff_start, today)
        if window:
            params["time_range"] = window
        return base + ("&" if "?" in base else "?") + urlencode(params)

    def parse(self, body: bytes | str, cutoff_start: date | None = None) -> list[SearchResult]:
        data = brave.json_object(body, "SearXNG", "; is format=json enabled in its settings.yml?")
        out: list[SearchResult] = []
        for r in data.get("results") or []:
            if not isinstance(r, dict) or not isinstance(r.get("url"), str):
                continue
            if urlsplit(r["url"]).scheme not in ("http", "https"):
                continue
            published = r.get("publishedDate") if isinstance(r.get("publishedDate"), str) else None
            if published and cutoff_start and published[:10] < cutoff_start.isoformat():
                continue  # the time_range is coarser than the cutoff: the window is enforced here too
            out.append(SearchResult(url=r["url"], title=str(r.get("title") or ""), description=str(r.get("content") or ""), age=published))
        return out


def brave_endpoint(settings: Any, env: Mapping[str, str] | None = None) -> str:
    """The Brave Search API URL: ``-s BRAVE_SEARCH_URL=…``, else the environment variable, else Brave's."""
    return setting_or_env(settings, "BRAVE_SEARCH_URL", env) or brave.DEFAULT_URL


def searxng_url(settings: Any, env: Mapping[str, str] | None = None) -> str | None:
    """The SearXNG instance: ``-s SEARXNG_URL=…``, else the environment variable, else None."""
    return setting_or_env(settings, "SEARXNG_URL", env)


def configured_provider(settings: Any, brave_key: str | None, env: Mapping[str, str] | None = None) -> SearchProvider | None:
    """SearXNG when ``SEARXNG_URL`` is set (setting, else env); else Brave when it has a key; else None."""
    searx = searxng_url(settings, env)
    if searx:
        parts = urlsplit(str(searx))
        if parts.username or parts.password:  # a URL is queued, cached and logged: never carry a secret in it
            logger.warning("skill3: SEARXNG_URL carries credentials; they are not sent (a request URL is queued and logged): "
                           "reach SearXNG on a private address or through a proxy instead")
            searx = urlunsplit(parts._replace(netloc=(parts.hostname or "") + (f":{parts.port}" if parts.port else "")))
        return SearXNGProvider(str(searx))
    if brave_key:
        return BraveProvider(brave_endpoint(settings, env))
    return None

