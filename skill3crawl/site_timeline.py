"""What the crawled pages say about dates as a whole: the site-derived version timeline and build-dated hosts.

* **Timeline** — the release dates change pages print (``## 2.0.0 (2026-04-20)``, "Release date: …", a
  release page's ``<relative-time datetime>``), one entry per (version, source), each with the URL it was
  read on and where on the page (``where``: heading, title, field, paragraph, time, table, text); at most
  :data:`MAX_TIMELINE` entries.
* **Build-dated hosts** — a documentation build stamps every page with the same date (footer "Last
  updated", sitemap ``lastmod``, file mtime), which says nothing about what changed. A host is
  build-dated once at least ``min_pages`` of its pages carry one date and that date is on at least
  ``share`` of the host's pages. Memory is bounded: at most :data:`MAX_HOSTS` hosts and
  :data:`MAX_DATES_PER_HOST` distinct dates per host are counted (a host with more distinct dates than
  that is not build-dated anyway).

Pure bookkeeping, no Scrapy: :class:`skill3crawl.pipelines.BuildDatePipeline` and the content pipeline
feed it, :class:`skill3crawl.extensions.CrawlOutput` writes it to ``crawl.json``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from synth.core import default_settings
from synth.delta.model import ReleaseDate

MAX_TIMELINE = 2000
MAX_HOSTS = 1000
MAX_DATES_PER_HOST = 64
MIN_PAGES = default_settings.SKILL3_BUILD_DATE_MIN_PAGES
SHARE = default_settings.SKILL3_BUILD_DATE_SHARE


@dataclass
class _Host:
    pages: int = 0
    dates: Counter = field(default_factory=Counter)
    overflow: bool = False  # more distinct dates than we count


class SiteDates:
    def __init__(self, min_pages: int = MIN_PAGES, share: float = SHARE) -> None:
        self.min_pages = max(1, int(min_pages))
        self.share = float(share)
        self.hosts: dict[str, _Host] = {}
        self.timeline: dict[tuple[str, str], ReleaseDate] = {}

    # -- timeline -------------------------------------------------------------------------------
    def add_release_dates(self, entries: list[dict[str, Any]], url: str) -> int:
        """Record ``{version, date, source, where}`` entries read on ``url`` (``where``: the part of the page
        the date was read from, :data:`skill3crawl.extract.versions.WHERE`); the first date seen for a
        (version, source) wins. → entries added."""
        added = 0
        for e in entries or ():
            version, date, source = e.get("version"), e.get("date"), e.get("source") or "changelog"
            if not version or not date or len(self.timeline) >= MAX_TIMELINE:
                continue
            key = (str(version), str(source))
            if key not in self.timeline:
                self.timeline[key] = ReleaseDate(str(version), str(date), str(source), url,
                                                 str(e["where"]) if e.get("where") else None)
                added += 1
        return added

    def timeline_list(self) -> list[dict[str, str | None]]:
        """crawl.json's ``timeline``: the rows by date, version and source."""
        rows = sorted(self.timeline.values(), key=lambda e: (e.date, e.version, e.source))
        return [r.to_json() for r in rows]

    # -- build-dated hosts ----------------------------------------------------------------------
    def add_page(self, host: str, date: str | None) -> str | None:
        """Count one page of ``host`` with its date (or None); → the host's build date once it is build-dated."""
        h = self.hosts.get(host)
        if h is None:
            if len(self.hosts) >= MAX_HOSTS:
                return None
            h = self.hosts[host] = _Host()
        h.pages += 1
        if date:
            if date in h.dates or len(h.dates) < MAX_DATES_PER_HOST:
                h.dates[date] += 1
            else:
                h.overflow = True
        return self.build_date(host)

    def build_date(self, host: str) -> str | None:
        h = self.hosts.get(host)
        if h is None or not h.dates:
            return None
        date, n = h.dates.most_common(1)[0]
        return date if n >= self.min_pages and n >= self.share * h.pages else None

    def build_dated_hosts(self) -> dict[str, str]:
        out = {}
        for host in sorted(self.hosts):
            d = self.build_date(host)
            if d:
                out[host] = d
        return out
