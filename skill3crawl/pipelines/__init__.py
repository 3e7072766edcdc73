"""Item pipelines: thin adapters over the pure functions in :mod:`skill3crawl.extract` and :mod:`synth`.

Order (settings ``ITEM_PIPELINES``): content + redaction + version markers 100 → dates 200 → build-dated
hosts 250 → scoring 300
(authority + freshness) → duplicates 400 → consensus 500 → limit 800 → release 900.
Every drop raises :class:`DropItem` and counts ``skill3/dropped/<reason>``.
"""

from __future__ import annotations

import logging
import time
from datetime import date
from typing import Any, Self

from scrapy import signals
from scrapy.exceptions import DropItem

from skill3crawl.crawl_record import get_state
from skill3crawl.extract.content import extract_redacted
from skill3crawl.extract.dates import page_dates
from skill3crawl.extract.executor import get_extractor
from synth.evidence.consensus import ConsensusIndex, item_snippets
from synth.evidence.scoring import authority, combined_score, freshness
from synth.evidence.shingles import snippet_tokens
from synth.vet.redact import redact_urls

logger = logging.getLogger(__name__)


class _Base:
    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler
        self.stats = crawler.stats

    @classmethod
    def from_crawler(cls, crawler: Any) -> Self:
        return cls(crawler)

    @property
    def args(self) -> Any:
        return getattr(self.crawler.spider, "args", None)

    def drop(self, item: Any, reason: str) -> None:
        from skill3crawl.crawl_record import note_dropped

        self.stats.inc_value(f"skill3/dropped/{reason}")
        note_dropped(self.crawler, item.final_url or item.url, reason)
        raise DropItem(f"{reason}: {item.url}")


class ContentPipeline(_Base):
    """Main content and secret redaction (before duplicates and consensus, so the snippet fingerprints
    are computed on redacted text). Synthesis redacts again before any model call."""

    async def process_item(self, item: Any) -> Any:
        if item.extracted is not None:  # the spider had the page processed in one call (skill3crawl.extract.page)
            result = item.extracted["content"]
        else:
            result = await get_extractor(self.crawler).run(
                extract_redacted, item.html, item.final_url or item.url, item.title_hint or item.title, item.discovery == "corpus"
            )
        if result["drop_reason"]:
            self.drop(item, result["drop_reason"])
        item.title = result["title"]
        item.excerpts = result["excerpts"]
        item.code_blocks = result["code_blocks"]
        item.content_hash = result["content_hash"]
        item.changes = result.get("changes", []) if item.given_changes is None else item.given_changes
        # the package's API delta: markers on an API page, as a docs site's "Added in X" are (what a release's own notes
        # state leads them), whatever the page scan makes of its list of versioned entries
        item.page_kind = result.get("page_kind", "") if item.given_changes is None else "doc"
        item.page_version = result.get("page_version")
        if item.changes:
            self.stats.inc_value("skill3/changes", len(item.changes))
        if item.page_kind == "change":
            self.stats.inc_value("skill3/change_pages")
        (item.url, item.final_url), n = redact_urls(item.url, item.final_url)  # a token in a URL is a secret too
        if result.get("release_dates"):  # the site's own version timeline (crawl.json "timeline")
            get_state(self.crawler).site_dates.add_release_dates(result["release_dates"], item.final_url or item.url)
        if result.get("chapter"):  # a chapter's release: its nested pages inherit it when the feed closes
            from skill3crawl.crawl_record import note_chapter

            note_chapter(get_state(self.crawler), item.final_url or item.url, result["chapter"])
        result["redactions"] += n
        if result["redactions"]:
            item.redactions += result["redactions"]
            self.stats.inc_value("skill3/redactions", result["redactions"])
            logger.info("skill3: redacted %d secret(s) from %s", result["redactions"], item.url)
        return item


class DatesPipeline(_Base):
    async def process_item(self, item: Any) -> Any:
        if item.extracted is not None and item.extracted["dates"] is not None:
            result = item.extracted["dates"]
        else:
            today = get_state(self.crawler).today
            result = await get_extractor(self.crawler).run(
                page_dates, item.html, item.final_url or item.url, item.headers, today=today, lastmod=item.lastmod,
                hinted=item.date_hint
            )
        item.published = result["published"]
        item.modified = result["modified"]
        item.date_source = result["date_source"]
        if item.date_source == "corpus" and item.date_hint_source:  # the hint's own name (a release's registry date)
            item.date_source = item.date_hint_source
        if item.date_source:
            self.stats.inc_value(f"skill3/date_source/{item.date_source}")
        self.crawler._skill3_stage_t = time.thread_time()  # the synchronous stages start: ReleasePipeline times them
        return item


class BuildDatePipeline(_Base):
    """Build-dated hosts: when most pages of a host carry one date (a docs build's stamp), that date says
    nothing about change. Counts each page's date per host (bounded, :mod:`skill3crawl.site_timeline`) and
    sets ``build_date`` on the host's items once the host is recognised; ``crawl.json`` lists the hosts
    (``build_dated_hosts``), so pages written before the recognition are covered too."""

    def process_item(self, item: Any) -> Any:
        site = get_state(self.crawler).site_dates
        was = site.build_date(item.host)
        item.build_date = site.add_page(item.host, item.published or item.modified)
        if item.build_date and not was:
            self.stats.inc_value("skill3/build_dated_hosts")
            logger.info("skill3: %s stamps its pages with one build date (%s); its freshness comes from version markers",
                        item.host, item.build_date)
        return item


class ScoringPipeline(_Base):
    """Authority (config data + the run's authoritative hosts) and freshness (recency, strict cutoff, future-dated)."""

    def process_item(self, item: Any) -> Any:
        args = self.args
        item.authority, item.authority_reason = authority(item.host, args.authoritative, url=item.url, official=get_state(self.crawler).official)
        published = date.fromisoformat(item.published) if item.published else None
        fr = freshness(published, args.cutoff.start, get_state(self.crawler).today, strict=args.strict_cutoff)
        if fr.drop_reason:
            self.drop(item, fr.drop_reason)
        item.recency_weight = fr.recency_weight
        item.post_cutoff = fr.post_cutoff
        item.combined_score = combined_score(item.authority, fr.recency_weight)
        return item


class DuplicatePipeline(_Base):
    """Same content hash → one item. The higher-authority URL is kept; the other is recorded as agreeing.

    A lower-or-equal-authority duplicate is dropped (``duplicate``). A higher-authority
    duplicate arriving later is written and the earlier line is superseded: the
    output extension removes it from run.jsonl when the feed closes.
    """

    def __init__(self, crawler: Any) -> None:
        super().__init__(crawler)
        self.kept: dict[str, tuple[str, float]] = {}  # content_hash → (url, authority)

    def process_item(self, item: Any) -> Any:
        state = get_state(self.crawler)
        seen = self.kept.get(item.content_hash)
        if seen is None:
            self.kept[item.content_hash] = (item.url, item.authority)
            return item
        kept_url, kept_authority = seen
        if item.authority > kept_authority:
            state.superseded.add(kept_url)
            previous = state.agreeing.pop(kept_url, [])
            item.agreeing_urls = [*item.agreeing_urls, kept_url, *previous]
            state.agreeing[item.url] = list(item.agreeing_urls)
            self.kept[item.content_hash] = (item.url, item.authority)
            self.stats.inc_value("skill3/dropped/duplicate")
            return item
        state.agreeing.setdefault(kept_url, []).append(item.url)
        self.drop(item, "duplicate")


class ConsensusPipeline(_Base):
    """Annotates agreement so far: the most independent hosts any of the page's snippets recurs on."""

    def __init__(self, crawler: Any) -> None:
        super().__init__(crawler)
        self.index = ConsensusIndex()

    def process_item(self, item: Any) -> Any:
        best = 1
        fps: list[str] = []
        snippets = item_snippets(item.excerpts, item.code_blocks)
        for _kind, text in snippets:
            verdict = self.index.add(text, item.host, item.authority)
            fps.append(verdict.fingerprint)
            best = max(best, self.index.agreement(verdict.cluster))
        item.consensus_count = best
        item.snippet_fingerprints = fps
        item.snippet_tokens = snippet_tokens(snippets)
        return item


class LimitPipeline(_Base):
    """Exactly ``max_pages`` items are written; later ones (in flight when the limit hit) are dropped."""

    def __init__(self, crawler: Any) -> None:
        super().__init__(crawler)
        self.passed = 0

    def process_item(self, item: Any) -> Any:
        if self.passed >= self.args.max_pages:
            self.drop(item, "max_pages")
        self.passed += 1
        return item


class ReleasePipeline(_Base):
    """Frees the transient page data (never exported) before the item is written.

    It also keeps the crawler thread's CPU profile (``skill3/profile/*_us``, summed over the pages; the
    extraction worker's stages are counted by the spider): ``scoring`` = the synchronous stages from the
    end of the dates to here (build dates, scoring, duplicates, fingerprints or consensus, limit), ``feed``
    = from here to the last ``item_scraped`` receiver (the feed export and the budget's bookkeeping)."""

    def __init__(self, crawler: Any) -> None:
        super().__init__(crawler)
        self._t: float | None = None
        crawler.signals.connect(self._scraped, signal=signals.item_scraped)  # after the feed exporter's receiver

    def _scraped(self, item: Any = None, response: Any = None, spider: Any = None) -> None:
        if self._t is not None:
            self.stats.inc_value("skill3/profile/feed_us", int((time.thread_time() - self._t) * 1e6))
            self._t = None

    def process_item(self, item: Any) -> Any:
        item.html = ""
        item.headers = {}
        item.extracted = None
        item.given_changes = None
        self._t = time.thread_time()
        start = getattr(self.crawler, "_skill3_stage_t", None)
        if start is not None:
            self.stats.inc_value("skill3/profile/scoring_us", int((self._t - start) * 1e6))
        return item
