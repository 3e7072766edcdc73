"""Brave Search web API (documented shape): request URL and result parsing."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from urllib.parse import urlencode, urlsplit

DEFAULT_URL = "https://api.search.brave.com/res/v1/web/search"
RESULTS_PER_QUERY = 20
SLOT = "skill3-search-api"


@dataclass(frozen=True)
class SearchResult:
    url: str
    title: str
    description: str
    age: str | None  # page_age or age, as given


def freshness_window(cutoff_start: date, today: date) -> str:
    """``YYYY-MM-DDtoYYYY-MM-DD`` from the cutoff month's first day to today."""
    return f"{cutoff_start.isoformat()}to{today.isoformat()}"


def search_url(endpoint: str, query: str, cutoff_start: date, today: date, count: int = RESULTS_PER_QUERY) -> str:
    sep = "&" if "?" in endpoint else "?"
    return endpoint + sep + urlencode({"q": query, "count": count, "freshness": freshness_window(cutoff_start, today)})


def json_object(body: bytes | str, who: str, hint: str = "") -> dict:
    """A search engine's JSON answer as an object; anything else → ValueError naming ``who`` (and ``hint``)."""
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{who} answered non-JSON ({exc.__class__.__name__}){hint}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{who} answered JSON that is not an object")
    return data


def parse_results(body: bytes | str) -> list[SearchResult]:
    """Results from the API's JSON ({"web": {"results": [...]}}); malformed → ValueError."""
    data = json_object(body, "search API")
    web = data.get("web") or {}
    results = web.get("results") if isinstance(web, dict) else None
    out: list[SearchResult] = []
    for r in results or []:
        if not isinstance(r, dict):
            continue
        url = r.get("url")
        if not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https"):
            continue
        out.append(
            SearchResult(
                url=url,
                title=str(r.get("title") or ""),
                description=str(r.get("description") or ""),
                age=r.get("page_age") or r.get("age"),
            )
        )
    return out
