"""What the crawl records as it goes, one record per crawler (:class:`CrawlState`, :func:`get_state`): the queries and
the planner, the pages dropped and the duplicates, the official sources and the package, the release timeline, the
site's dates and chapters, the exit code; the spider, pipelines and extensions fill it, crawl.json and the closing
summary are written from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any

from skill3crawl import site_timeline
from skill3crawl.site_timeline import SiteDates
from synth.core.errors import ExitCode
from synth.llm.registry import Choice

MAX_DROPPED_LISTED = 500
MAX_CHAPTERS = 200  # chapters whose release their pages inherit (crawl.json "chapters")
MAX_CHAPTER_PAGES = 10_000  # pages inheriting a chapter's release, over all chapters  # pages the crawl dropped, listed by URL in crawl.json (all are counted in the summary)


def note_dropped(crawler: Any, url: str, reason: str) -> None:
    """Keep the URL and reason of a page the crawl dropped (robots.txt, oversized, no content, a rule …), the first
    :data:`MAX_DROPPED_LISTED`, for crawl.json and the preview's list of every source."""
    state = get_state(crawler)
    if len(state.dropped) < MAX_DROPPED_LISTED:
        state.dropped.append({"url": str(url), "reason": str(reason)})


@dataclass
class CrawlState:
    started_at: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    today: date = field(default_factory=lambda: datetime.now(timezone.utc).date())
    queries: list[str] = field(default_factory=list)
    planner: dict[str, Any] = field(default_factory=dict)
    discovery: list[str] = field(default_factory=list)  # modes used: corpus / brave / direct
    # Duplicate pages (same content hash): kept URL → dropped URLs that agree with it.
    agreeing: dict[str, list[str]] = field(default_factory=dict)
    dropped: list[dict[str, str]] = field(default_factory=list)  # {"url", "reason"} of the first pages dropped (crawl.json)
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
    # Chapters stating the release their nested pages belong to (skill3crawl.extract.versions.chapters): the
    # chapters (crawl.json "chapters") and each nested page's key → {version, date, title, chapter}
    chapters: list[dict[str, Any]] = field(default_factory=list)
    chapter_pages: dict[str, dict[str, Any]] = field(default_factory=dict)
    # "auto" as the query planner resolved it (one probe per run): the synthesis it triggers uses the same.
    auto_choice: Choice | None = None


def note_chapter(state: CrawlState, url: str, chapter: dict[str, Any]) -> None:
    """A chapter page read (``find_changes``' ``chapter``): its nested pages inherit its release when the feed closes;
    the first chapter naming a page wins. Bounded by :data:`MAX_CHAPTERS` and :data:`MAX_CHAPTER_PAGES`."""
    if len(state.chapters) >= MAX_CHAPTERS or not isinstance(chapter, dict) or not chapter.get("version"):
        return
    pages = [p for p in chapter.get("pages") or [] if isinstance(p, str)]
    state.chapters.append({"url": url, "version": chapter["version"], "date": chapter.get("date"),
                           "title": chapter.get("title") or "", "pages": len(pages)})
    for page in pages:
        if len(state.chapter_pages) >= MAX_CHAPTER_PAGES:
            break
        state.chapter_pages.setdefault(page, {"version": chapter["version"], "date": chapter.get("date"),
                                              "title": chapter.get("title") or "", "chapter": url})


def get_state(crawler: Any) -> CrawlState:
    """The crawler's one :class:`CrawlState` (made on first use, from its settings)."""
    state = getattr(crawler, "_skill3_state", None)
    if state is None:
        state = CrawlState()
        today = crawler.settings.get("SKILL3_TODAY")
        if today:
            state.today = date.fromisoformat(str(today))
        settings = crawler.settings
        state.site_dates = SiteDates(settings.getint("SKILL3_BUILD_DATE_MIN_PAGES", site_timeline.MIN_PAGES),
                                     settings.getfloat("SKILL3_BUILD_DATE_SHARE", site_timeline.SHARE))
        crawler._skill3_state = state
    return state
