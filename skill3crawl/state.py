"""Per-crawl shared state the spider, pipelines and extensions read (one per crawler)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any

from skill3crawl import sitedates
from skill3crawl.sitedates import SiteDates
from synth.core.errors import ExitCode
from synth.llm.registry import Choice


@dataclass
class CrawlState:
    started_at: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    today: date = field(default_factory=lambda: datetime.now(timezone.utc).date())
    queries: list[str] = field(default_factory=list)
    planner: dict[str, Any] = field(default_factory=dict)
    discovery: list[str] = field(default_factory=list)  # modes used: corpus / brave / direct
    # Duplicate pages (same content hash): kept URL → dropped URLs that agree with it.
    agreeing: dict[str, list[str]] = field(default_factory=dict)
    # URLs already written that a higher-authority duplicate replaced.
    superseded: set[str] = field(default_factory=set)
    exit_code: ExitCode = ExitCode.OK
    # Official sources found from the topic (registries → repository): prefix ("host" or "host/path") → reason.
    official: dict[str, str] = field(default_factory=dict)
    package: dict[str, Any] | None = None  # the registry package chosen, why, and the candidates
    package_source: dict[str, Any] | None = None  # its release archives read: archives, files, API delta (skill3crawl.packages)
    release_timeline: list[dict[str, str]] = field(default_factory=list)  # {version, date, source, url}
    interrupted: bool = False  # stopped by a signal (Ctrl-C, SIGTERM): kept what was written, no synthesis
    write_failed: str | None = None  # a write of the crawl's output failed (a full disk): it stopped, no synthesis
    # Release dates read on the crawled pages (crawl.json "timeline") and build-dated hosts.
    site_dates: SiteDates = field(default_factory=SiteDates)
    # "auto" as the query planner resolved it (one probe per run): the synthesis it triggers uses the same.
    auto_choice: Choice | None = None


def get_state(crawler: Any) -> CrawlState:
    """The crawler's one :class:`CrawlState` (made on first use, from its settings)."""
    state = getattr(crawler, "_skill3_state", None)
    if state is None:
        state = CrawlState()
        today = crawler.settings.get("SKILL3_TODAY")
        if today:
            state.today = date.fromisoformat(str(today))
        settings = crawler.settings
        state.site_dates = SiteDates(settings.getint("SKILL3_BUILD_DATE_MIN_PAGES", sitedates.MIN_PAGES),
                                     settings.getfloat("SKILL3_BUILD_DATE_SHARE", sitedates.SHARE))
        crawler._skill3_state = state
    return state
