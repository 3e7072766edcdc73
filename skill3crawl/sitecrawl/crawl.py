"""Docs mode: the direct crawl of whole documentation sites, sitemap-first, then llms.txt, then in-prefix links, breadth-first.

:class:`DocsCrawlMixin` is the ``learn`` spider's direct discovery — for
``-a start_urls=…``, the authoritative-host fallback, and ``scrapy crawl docs``.
Pages found by search never go through it (they are on arbitrary hosts). The
page items are the same :class:`~skill3crawl.items.PageItem` and go through the
same pipelines (content extraction and dates in the process pool).

Links are read by Scrapy's :class:`~scrapy.linkextractors.LinkExtractor` (``<base href>``
honoured, files that are not pages skipped); every URL found — by a sitemap, an
llms.txt or a link — then passes the same :class:`~skill3crawl.sitecrawl.scope.Scope`
check, whose refusals are counted by reason.

State that must survive ``-s JOBDIR=…`` pause/resume — the page budget and the
canonical URLs already seen — lives in ``spider.state`` (pickled by Scrapy's
SpiderState extension); in a distributed crawl it lives in Redis instead
(both behind :class:`~skill3crawl.sitecrawl.budget.PageBudget`).
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Iterator
from urllib.parse import urldefrag, urljoin, urlsplit

import scrapy
from scrapy.http import HtmlResponse, Response, TextResponse
from scrapy.linkextractors import LinkExtractor
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.sitemap import sitemap_urls_from_robots

from skill3crawl import distributed
from skill3crawl.crawl_record import get_state
from skill3crawl.distributed.budget import RedisSharedState
from skill3crawl.extract.dates import normalize_date
from skill3crawl.extract.executor import get_extractor
from skill3crawl.extract.page import LinkRules, PageContext, process_page
from skill3crawl.items import FetchedPage, response_headers
from skill3crawl.middlewares import ROBOTS_RETRIES, ROBOTS_TIMEOUT
from skill3crawl.progress import Progress
from skill3crawl.sitecrawl.budget import PAGE_WINDOW, Entry, LocalState, PageBudget, entry_rank, waiting_cap
from skill3crawl.sitecrawl.llms import llms_candidates, md_variant, parse_llms_txt
from skill3crawl.sitecrawl.order import NewVersions, PageOrder, change_candidate, name_endings, points_to_yield, yield_names
from skill3crawl.sitecrawl.scope import Scope
from skill3crawl.sitecrawl.sitemap import MAX_SITEMAP_DEPTH, MAX_SITEMAPS, parse_sitemap, sitemap_candidates
from synth.evidence.urls import canonical_url, host_of, url_key

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings
    from twisted.python.failure import Failure

    from skill3crawl.args import LearnArgs
    from skill3crawl.items import PageItem

logger = logging.getLogger(__name__)

_PRIO = {"robots": 300_000, "sitemap": 200_000, "llms": 150_000}  # above every page's rank (order.PageOrder)
MAX_UNREACHED = 100  # change-record candidates a crawl names as not reached (run.json), at most
MAX_YIELD_LINKS = 5000  # links of one page read for the pages its new markers point to
# Arguments a planner publishes for its workers (never secrets, never per-process ones).
SHARED_ARGS = ("topic", "target_model", "cutoff_time", "strict_cutoff", "authoritative", "start_urls", "max_pages",
               "output_dir", "llm_provider", "llm_endpoint", "llm_model", "depth_limit", "sitemap_filter", "locales")
# Links to these are never extracted ("txt" is left to the scope, which keeps llms-full.txt).
def single_publisher(args: LearnArgs, package_source: bool = False) -> bool:
    """All start URLs under one registrable domain, no search and no package source (the package's release archives
    are a publisher of their own beside its docs site): no independent hosts to agree."""
    from synth.evidence.consensus import independent_host

    hosts = {independent_host(host_of(u)) for u in args.start_urls}
    return len(hosts) <= 1 and not args.brave_token() and args.corpus is None and not package_source


def apply_docs_settings(settings: BaseSettings, args: LearnArgs | None = None, package_source: bool = False) -> None:
    """Docs-mode settings at spider priority (``-s`` on the command line still wins); ``package_source``: the run
    reads the package's release archives too."""
    prio = "spider"
    settings.set("DEPTH_PRIORITY", 1, priority=prio)  # breadth-first ...
    settings.set("SCHEDULER_DISK_QUEUE", "scrapy.squeues.PickleFifoDiskQueue", priority=prio)  # ... with FIFO queues
    settings.set("SCHEDULER_MEMORY_QUEUE", "scrapy.squeues.FifoMemoryQueue", priority=prio)
    # The cache is for docs-mode crawls only: a search-mode run (a key: search first, docs as a fallback)
    # must see what the web says now, never pages or robots.txt stored by an earlier run.
    settings.set("HTTPCACHE_ENABLED", args is None or not args.brave_token(), priority=prio)
    settings.set("SKILL3_EXTRACT_WORKERS", os.cpu_count() or 1, priority=prio)
    settings.setdefault_in_component_priority_dict("EXTENSIONS", Progress, 520)
    pipelines = settings.getdict("ITEM_PIPELINES")
    consensus = "skill3crawl.pipelines.ConsensusPipeline"
    if args is not None and consensus in pipelines and single_publisher(args, package_source):
        # constant memory for one publisher's site (see skill3crawl.sitecrawl.pipelines)
        order = pipelines.pop(consensus)
        pipelines["skill3crawl.sitecrawl.pipelines.SnippetFingerprintPipeline"] = order
        settings.set("ITEM_PIPELINES", pipelines, priority=max(settings.getpriority("ITEM_PIPELINES") or 0, 30))


def resuming(settings: BaseSettings) -> bool:
    """A JOBDIR crawl that resumes a saved one."""
    jobdir = settings.get("JOBDIR")
    return bool(jobdir) and Path(jobdir, "spider.state").exists()


def lastmod_day(value: str | None) -> str | None:
    """A sitemap ``lastmod`` (W3C datetime) as YYYY-MM-DD, or None when it is not a date."""
    day = normalize_date(value, free_text=False)
    return day.isoformat() if day else None


class DocsCrawlMixin:
    """Docs-mode discovery for the ``learn`` spider.

    The host spider provides the attributes annotated below under "host": Scrapy's
    (``name``, ``crawler``, ``settings``, ``state``) and the ``learn`` spider's (the
    parsed arguments, the search results already requested, the item count, the
    fallback flag, and how a response becomes a page item or a counted failure).
    """

    crawl_authoritative_roots: bool = True  # the authoritative hosts no start URL is on are crawled from their root

    # -- host: scrapy.Spider ----------------------------------------------------
    name: str
    crawler: Crawler
    settings: BaseSettings
    state: dict  # Scrapy's SpiderState: pickled to JOBDIR (LocalState keeps the budget in it)
    # -- host: the learn spider ------------------------------------------------
    args: LearnArgs | None  # None when the arguments were refused (nothing is crawled)
    seen_urls: set[str]  # url_key of the search results requested
    items_yielded: int  # page items handed to the pipelines
    fallback_started: bool  # the direct crawl of all site roots was started
    _item: Callable[[FetchedPage], PageItem]  # a fetched page → its item (LearnSpider._item)
    page_html: Callable[[Response, dict], str | None]  # the page as HTML, or None (counted as dropped)
    page_failed: Callable[[Failure], None]  # count a failed page request
    # -- set here ----------------------------------------------------------------
    site_roots: list[str]
    scopes: list[Scope]

    def setup_site_crawl(self) -> None:
        """The site roots to crawl and their scopes, from the arguments."""
        a = self.args
        self._profile_cpu0 = time.process_time()
        self.site_roots = a.site_roots(authoritative=self.crawl_authoritative_roots)
        self.scopes = [Scope.from_start_url(u, a.sitemap_filter, a.locales == "skip") for u in self.site_roots]
        self.page_order = PageOrder()
        self.unreached: list[str] = []  # change-record candidates dropped by the page budget

    # -- state -------------------------------------------------------------
    @property
    def docs_state(self) -> PageBudget:
        """The page budget: in Redis for a distributed crawl, else in ``spider.state``."""
        if not hasattr(self, "_docs_state"):
            if distributed.redis_enabled(self.settings):
                self._docs_state: PageBudget = RedisSharedState(self.settings, self.name, self.crawler)
            else:
                self._docs_state = LocalState(self, self.settings.getint("SKILL3_PAGE_WINDOW", PAGE_WINDOW))
        return self._docs_state

    @property
    def link_rules(self) -> LinkRules:
        """:attr:`link_extractor`'s rules, applied by the extraction worker to the tree it parses the page into."""
        if not hasattr(self, "_link_rules"):
            self._link_rules = LinkRules.of(deny_extensions=[])
        return self._link_rules

    @property
    def link_extractor(self) -> LinkExtractor:
        """Scrapy's link extractor: ``<a>``/``<area>`` hrefs against ``<base href>``.

        Its extension filter is off (``deny_extensions=[]``): :class:`Scope` skips non-pages with one set
        lookup (``not_a_page``, counted as a drop reason), where the extractor's own filter tests each link
        against every extension in turn — a sixth of its time on a docs page."""
        if not hasattr(self, "_link_extractor"):
            self._link_extractor = LinkExtractor(deny_extensions=[])
        return self._link_extractor

    def _drop(self, reason: str) -> None:
        self.crawler.stats.inc_value(f"skill3/dropped/{reason}")

    def _scope_for(self, url: str) -> tuple[Scope | None, str]:
        """The scope ``url`` is in, or None and the most telling reason it is in none."""
        reason = "offsite"
        for scope in self.scopes:
            why = scope.allows(url)
            if why is None:
                return scope, ""
            if why != "offsite":
                reason = why
        return None, reason

    # -- requests ------------------------------------------------------------
    def _site_request(self, url: str, discovery: str, *, title: str = "", lastmod: str | None = None,
                      hops: int = 0, html_url: str | None = None, slot_held: bool = False,
                      old_key: str | None = None) -> scrapy.Request | None:
        """A request for an in-scope page that takes a budget slot (``slot_held``: the slot of the page it
        replaces), or None: out of scope, already seen, or waiting for a slot."""
        scope, why = self._scope_for(url)  # cheap checks before canonicalisation
        if scope is None:
            self._drop(why)
            return None
        try:
            canon = canonical_url(url)
        except ValueError:
            return None
        key = url_key(canon)
        if key in self.seen_urls:  # already requested as a search result
            return None
        if discovery == "link" and self.docs_state.has_canonical(key):
            return None  # a page already written under its canonical URL
        rank, depth = self.page_order.rank(canon, hops if discovery == "link" else None, scope.prefix)
        entry = [canon, discovery, title, lastmod, hops, html_url, rank, depth]
        if slot_held:
            if not self.docs_state.transfer(key, entry, old_key):
                self.release_slot()
                return None
            return self._entry_request(entry)
        # a sitemap's or llms.txt's pages are all claimed before any starts: then the best of them (and of the pages
        # links found) take the free slots, level by level when the budget is short (budget.LocalState)
        status = self.docs_state.claim(key, self.args.max_pages, entry, discovery in ("sitemap", "llms.txt"))
        if status == "over":
            self._drop("max_pages")
            if len(self.unreached) < MAX_UNREACHED and change_candidate(canon):
                self.unreached.append(canon)
        elif status == "waiting":
            self.crawler.stats.inc_value("skill3/discovery/waiting")
        return self._entry_request(entry) if status == "new" else None

    def _entry_request(self, entry: Entry) -> scrapy.Request:
        """The request for a budget entry (the page holds its slot until it finishes)."""
        canon, discovery, title, lastmod, hops, html_url = entry[:6]
        item_url = canonical_url(html_url) if html_url else canon
        meta = {
            "skill3": {"discovery": discovery, "query": None, "title": title, "lastmod": lastmod, "url": item_url},
            "skill3_kind": "page",
            "skill3_hops": hops,
            "skill3_slot": True,
            "skill3_key": url_key(canon),
        }
        if html_url:
            meta["skill3_html_url"] = html_url
        # the page's rank is its priority: Scrapy's scheduler hands out the best requested page first
        return scrapy.Request(canon, callback=self.parse_site_page, errback=self.site_page_failed, meta=meta,
                              priority=entry_rank(entry))

    def release_slot(self, key: str | None = None) -> None:
        """A page ended without an item: its budget slot passes on."""
        self._finish(written=False, key=key)

    def _finish(self, written: bool, key: str | None = None) -> None:
        """A page that held a slot finished: request the waiting pages that may start now."""
        for entry in self.docs_state.finish(written, self.args.max_pages, key=key):
            self.crawler.engine.crawl(self._entry_request(entry))

    def resume_waiting(self) -> Iterator[scrapy.Request]:
        """On a resumed crawl: requests for the waiting pages there is room for (after a kill, the
        pages that were in flight wait again first)."""
        if getattr(self.crawler, "_skill3_recovered", False):
            n = self.docs_state.recover()
            logger.info("skill3: resuming after an unclean stop: %d page(s) that were in flight are requested again", n)
        for entry in self.docs_state.pump(self.args.max_pages):
            yield self._entry_request(entry)

    def slot_item_scraped(self, item: Any, response: Response | None, spider: Any = None) -> None:
        """``item_scraped``: a page that held a budget slot was written."""
        if response is not None and response.meta.get("skill3_slot"):
            self._finish(written=True, key=response.meta.get("skill3_key"))

    def slot_item_dropped(self, item: Any, response: Response | None, exception: BaseException, spider: Any = None) -> None:
        """``item_dropped``: a pipeline dropped a page that held a budget slot (the budget's own drop keeps it)."""
        if response is not None and response.meta.get("skill3_slot"):
            self._finish(written=str(exception).startswith("max_pages:"), key=response.meta.get("skill3_key"))

    def slot_request_dropped(self, request: scrapy.Request, spider: Any = None) -> None:
        """``request_dropped``: the scheduler's duplicate filter refused a page that held a budget slot."""
        if request.meta.get("skill3_slot"):
            self.release_slot(request.meta.get("skill3_key"))

    def closed(self, reason: str) -> None:
        """The pages still waiting were never fetched: counted as dropped by ``max_pages``."""
        if hasattr(self, "_profile_cpu0"):  # the crawler process's CPU over the crawl (the profile's total)
            self.crawler.stats.set_value("skill3/profile/crawler_cpu_us", int((time.process_time() - self._profile_cpu0) * 1e6))
        if self.args is not None and reason != "shutdown" and not distributed.redis_enabled(self.settings):
            left = self.docs_state.waiting_count()  # never fetched: the budget was spent (or the spider closed)
            # pages taken back to wait again were counted as dropped when the full waiting list turned them away
            left -= getattr(self.docs_state, "taken_back", lambda: 0)()
            if left:
                self.crawler.stats.inc_value("skill3/dropped/max_pages", left)
            self._record_unreached()

    def _record_unreached(self) -> None:
        """The change-record candidates the page budget left unfetched (dropped, or still waiting), in run.json."""
        urls = list(getattr(self, "unreached", []))
        waiting = self.docs_state.waiting_entries(waiting_cap(self.args.max_pages))
        urls += [e[0] for e in waiting if change_candidate(e[0])]
        urls = sorted(dict.fromkeys(urls))
        if urls:
            self.crawler.stats.set_value("skill3/reach/unreached_change_records", urls[:MAX_UNREACHED])
            self.crawler.stats.set_value("skill3/reach/unreached_change_records_count", len(urls))

    def _direct_requests(self, roots: list[str] | None = None) -> Iterator[scrapy.Request]:
        """Robots.txt (for its sitemaps), llms.txt, and the start page of every site root (or of ``roots``)."""
        if roots is None:
            self.fallback_started = True
        state = get_state(self.crawler)
        if "direct" not in state.discovery:
            state.discovery.append("direct")
        for scope, url in zip(self.scopes, self.site_roots):
            if roots is not None and url not in roots:
                continue
            # answered from the robots.txt middleware's own download (fetched once; see middlewares.py)
            yield scrapy.Request(scope.origin + "/robots.txt", callback=self.parse_robots_sitemaps, errback=self.aux_failed,
                                 meta={"skill3_kind": "robots", "skill3_scope": scope.origin + scope.prefix,
                                       "download_timeout": ROBOTS_TIMEOUT, "max_retry_times": ROBOTS_RETRIES},
                                 priority=_PRIO["robots"])
            for llms in llms_candidates(scope):
                yield scrapy.Request(llms, callback=self.parse_llms_txt, errback=self.aux_failed,
                                     meta={"skill3_kind": "llms"}, priority=_PRIO["llms"])
            req = self._site_request(url, "start")
            if req is not None:
                yield req

    def aux_failed(self, failure: Failure) -> None:
        """A robots.txt, sitemap or llms.txt the site does not have (counted by kind)."""
        self.crawler.stats.inc_value(f"skill3/discovery/aux_missing/{failure.request.meta.get('skill3_kind', 'other')}")

    def parse_robots_sitemaps(self, response: Response) -> Iterator[scrapy.Request]:
        """The sitemaps robots.txt lists, then the conventional locations."""
        listed = list(sitemap_urls_from_robots(response.body, base_url=response.url)) if isinstance(response, TextResponse) else []
        scope, _ = self._scope_for(response.meta["skill3_scope"])
        for url in sitemap_candidates(scope, listed) if scope else listed:
            req = self._sitemap_request(url, 0)
            if req is not None:
                yield req

    def _sitemap_request(self, url: str, depth: int) -> scrapy.Request | None:
        """A sitemap's request, or None past the bounds (``MAX_SITEMAP_DEPTH`` nested indexes, ``MAX_SITEMAPS`` in
        all; each counted under ``skill3/dropped/``)."""
        if depth > MAX_SITEMAP_DEPTH:
            self._drop("sitemap_depth")
            return None
        done: set[str] = getattr(self, "_sitemaps_requested", set())
        self._sitemaps_requested = done
        if url in done:
            return None  # an index that lists itself (or a sitemap listed twice)
        if len(done) >= MAX_SITEMAPS:
            self._drop("sitemap_limit")
            return None
        done.add(url)
        return scrapy.Request(url, callback=self.parse_sitemap, errback=self.aux_failed,
                              meta={"skill3_kind": "sitemap", "skill3_sitemap_depth": depth}, priority=_PRIO["sitemap"])

    def parse_sitemap(self, response: Response) -> Iterator[scrapy.Request]:
        """A sitemap index's sitemaps, or a urlset's pages (with their ``lastmod``), on the sitemap's own host."""
        kind, entries = parse_sitemap(response.body, max_size=self.settings.getint("DOWNLOAD_MAXSIZE"))
        if kind == "invalid":  # not XML (an HTML 200 for a missing sitemap), corrupt gzip, or too big
            self._drop("bad_sitemap")
            return
        host = urlsplit(response.url).netloc
        count = 0
        if kind != "sitemapindex":  # the best pages first (order.PageOrder), so a budget smaller than the sitemap holds them
            scope, _ = self._scope_for(response.url)
            by_loc = {e.loc: e for e in entries}
            entries = [by_loc[u] for u in self.page_order.best_first(list(by_loc), scope.prefix if scope else "/")]
        for entry in entries:
            if urlsplit(entry.loc).netloc != host:
                continue  # a sitemap may only list its own host's pages
            if kind == "sitemapindex":
                req = self._sitemap_request(entry.loc, response.meta.get("skill3_sitemap_depth", 0) + 1)
                if req is not None:
                    yield req
            else:
                count += 1
                req = self._site_request(entry.loc, "sitemap", lastmod=lastmod_day(entry.lastmod))
                if req is not None:
                    yield req
        self.crawler.stats.inc_value("skill3/discovery/sitemap_urls", count)
        yield from self._pump_deferred()

    def _pump_deferred(self) -> Iterator[scrapy.Request]:
        """The waiting pages that may start now (after a sitemap's or an llms.txt's pages were all claimed)."""
        for entry in self.docs_state.pump(self.args.max_pages):
            yield self._entry_request(entry)

    def parse_llms_txt(self, response: Response) -> Iterator[scrapy.Request]:
        """The pages an llms.txt links, their ``.md`` twins first."""
        if response.status != 200 or not isinstance(response, TextResponse):
            return
        links = parse_llms_txt(response.text, response.url)
        self.crawler.stats.inc_value("skill3/discovery/llms_txt_links", len(links))
        for title, url in links:
            path = urlsplit(url).path
            md = None if path.endswith((".md", ".txt")) else md_variant(url)
            if md is not None and self._scope_for(url)[0] is not None:
                # prefer the .md twin (llmstxt.org); fall back to the HTML page when the site has none
                req = self._site_request(md, "llms.txt", title=title, html_url=url)
            else:
                req = self._site_request(url, "llms.txt", title=title)
            if req is not None:
                yield req
        yield from self._pump_deferred()

    def site_page_failed(self, failure: Failure) -> Iterator[scrapy.Request]:
        """A page request failed: a missing ``.md`` twin hands its slot to the HTML page, else the slot passes on."""
        html_url = failure.request.meta.get("skill3_html_url")
        if html_url and failure.check(HttpError):
            self.crawler.stats.inc_value("skill3/discovery/md_twin_missing")
            info = failure.request.meta["skill3"]
            req = self._site_request(html_url, "llms.txt", title=info.get("title") or "", slot_held=True,
                                     old_key=failure.request.meta.get("skill3_key"))
            if req is not None:
                yield req
            return
        self.release_slot(failure.request.meta.get("skill3_key"))
        self.page_failed(failure)

    def _follow_yield(self, page: dict | None) -> None:
        """The pages a new version's markers on this page point to (a type's page listing its new members, each linked
        to its own page) wait first, taken back if the full waiting list had turned them away: the budget goes where
        the delta is (order.points_to_yield). Local page budgets only."""
        promote = getattr(self.docs_state, "promote", None)
        changes = ((page or {}).get("content") or {}).get("changes") or []
        if promote is None or not changes or not (page or {}).get("links"):
            return
        new = self.__dict__.setdefault("_new_versions", NewVersions(self.args.since_version))
        new.observe(changes)
        names = yield_names(changes, new)
        if not names:
            return
        endings = name_endings(names)
        moved: dict[str, int] = {}
        for url in page["links"][:MAX_YIELD_LINKS]:  # type: ignore[index]
            if points_to_yield(url, endings):
                try:
                    key = url_key(canonical_url(url))
                except ValueError:
                    continue
                if how := promote(key):
                    moved[how] = moved.get(how, 0) + 1
        stats = self.crawler.stats
        if moved:
            stats.inc_value("skill3/reach/promoted_by_markers", sum(moved.values()))
        if moved.get("taken back"):  # counted as dropped when the full waiting list turned them away
            stats.inc_value("skill3/dropped/max_pages", -moved["taken back"])

    def follow_links(self, response: Response, urls: list[str] | None = None) -> Iterator[scrapy.Request]:
        """In-scope links of a page, each URL considered once per crawl (no per-link canonicalisation cost).

        ``urls``: the page's links as the extraction worker read them (:meth:`LinkRules.follow_urls`: sorted,
        without fragments); without them they are read here with :attr:`link_extractor`."""
        if not isinstance(response, HtmlResponse):
            return
        hops = response.meta.get("skill3_hops", 0) + 1
        if hops > self.args.depth_limit:
            self._drop("depth_limit")
            return
        seen = self.__dict__.setdefault("_links_seen", set())
        if urls is None:
            urls = sorted({urldefrag(link.url).url for link in self.link_extractor.extract_links(response)})
        # sorted: a deterministic order; the best pages first (order.PageOrder), so a page budget holds them
        for url in self.page_order.best_first(sorted(urls), "/", hops):
            if url in seen:
                continue
            seen.add(url)
            req = self._site_request(url, "link", hops=hops)
            if req is not None:
                yield req

    def _canonical_keys(self, response: Response, page: dict | None = None) -> tuple[str, set[str]]:
        """The page's canonical key (``<link rel=canonical>`` on the same host, else its URL) and its aliases
        (``page``: :func:`process_page`'s result, which has the href and the base URL already)."""
        keys = {url_key(response.url), url_key(response.request.url)}
        if response.meta.get("skill3_html_url"):
            keys.add(url_key(response.meta["skill3_html_url"]))
        primary = url_key(response.meta.get("skill3_html_url") or response.url)
        if isinstance(response, HtmlResponse):
            if page is not None:
                href = page["canonical"]
                target = urljoin(page["base_url"], href.strip()) if href else None
            else:
                href = response.xpath("//link[@rel='canonical']/@href").get()
                target = response.urljoin(href.strip()) if href else None
            if target and urlsplit(target).netloc == urlsplit(response.url).netloc:
                primary = url_key(target)
        return primary, keys - {primary}

    async def _process_page(self, response: HtmlResponse, html: str, info: dict) -> dict | None:
        """The page parsed once in the extraction pool: content, dates, links and its canonical href
        (:func:`~skill3crawl.extract.page.process_page`), or None when the HTML is not the response's own text
        (a markdown or text body converted: its links, if any, are the response's)."""
        ctype = response.headers.get(b"Content-Type", b"").decode("latin-1").lower()
        if ctype and "html" not in ctype:
            return None
        hops = response.meta.get("skill3_hops", 0) + 1
        rules = self.link_rules if hops <= self.args.depth_limit else None
        state = get_state(self.crawler)
        ctx = PageContext(today=state.today, title_hint=info.get("title") or "",
                          headers=response_headers(response), lastmod=info.get("lastmod"), rules=rules,
                          encoding=response.encoding, build_date=state.site_dates.build_date(host_of(response.url)))
        page = await get_extractor(self.crawler).run(process_page, html, response.url, ctx)
        stats = self.crawler.stats
        stats.inc_value("skill3/profile/pages")
        for stage, seconds in page["cpu"].items():
            stats.inc_value(f"skill3/profile/{stage}_us", int(seconds * 1e6))
        return page

    async def parse_site_page(self, response: Response) -> AsyncIterator[scrapy.Request | PageItem]:
        """A docs page: its links first (breadth-first), then its item unless a page with its canonical key was written.

        An HTML page is parsed once, in the extraction pool; this thread only schedules what comes back."""
        info = response.meta["skill3"]
        stats = self.crawler.stats
        stats.inc_value("skill3/pages_fetched")
        stats.inc_value(f"skill3/discovery/{info['discovery']}")
        html = self.page_html(response, info)
        if html is None:
            self.release_slot(response.meta.get("skill3_key"))
            return
        page = None
        if isinstance(response, HtmlResponse):
            page = await self._process_page(response, html, info)
            t = time.thread_time()
            self._follow_yield(page)
            for req in self.follow_links(response, page["links"] if page is not None else None):
                yield req  # breadth-first: links are queued before the item is processed
            stats.inc_value("skill3/profile/schedule_us", int((time.thread_time() - t) * 1e6))
        primary, aliases = self._canonical_keys(response, page)
        fresh = self.docs_state.add_canonical(primary)
        for key in aliases:
            self.docs_state.add_canonical(key)
        if not fresh:
            self._drop("canonical_duplicate")
            self.release_slot(response.meta.get("skill3_key"))
            return
        self.items_yielded += 1
        item = self._item(FetchedPage.of_response(response, info["url"], html, info["discovery"], lastmod=info.get("lastmod"),
                                                  title_hint=info.get("title") or ""))
        item.extracted = page
        yield item
