"""Docs mode: the direct crawl of whole documentation sites, sitemap-first, then llms.txt, then in-prefix links, breadth-first.

:class:`DocsCrawlMixin` is the ``learn`` spider's direct discovery — for
``-a start_urls=…``, the authoritative-host fallback, and ``scrapy crawl docs``.
Pages found by search never go through it (they are on arbitrary hosts). The
page items are the same :class:`~skill3crawl.items.PageItem` and go through the
same pipelines (content extraction and dates in the process pool).

State that must survive ``-s JOBDIR=…`` pause/resume — the page budget and the
canonical URLs already seen — lives in ``spider.state`` (pickled by Scrapy's
SpiderState extension); in a distributed crawl it lives in Redis instead.
"""

from __future__ import annotations

import logging
import os
from collections import deque
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import scrapy
from scrapy.http import HtmlResponse, TextResponse
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.sitemap import sitemap_urls_from_robots

from skill3crawl import distributed
from skill3crawl.discovery.sitemap import parse_sitemap
from skill3crawl.docs import Scope, lastmod_date, llms_candidates, md_variant, normalize_url, parse_llms_txt, sitemap_candidates
from skill3crawl.items import response_headers
from skill3crawl.progress import Progress
from skill3crawl.state import get_state
from skill3crawl.urls import canonical_url

logger = logging.getLogger(__name__)

_PRIO = {"robots": 300, "sitemap": 200, "llms": 100, "page": 0}
# Arguments a planner publishes for its workers (never secrets, never per-process ones).
SHARED_ARGS = ("topic", "target_model", "cutoff_time", "strict_cutoff", "authoritative", "start_urls", "max_pages",
               "output_dir", "llm_provider", "llm_endpoint", "llm_model", "depth_limit", "sitemap_filter", "locales")


class LocalState:
    """The page budget, its waiting list and the canonical set in ``spider.state`` (persisted with JOBDIR).

    ``max_pages`` bounds the pages *written*: a budget slot is held by a page from
    its request until its item is written; a page that ends without an item
    (failed, robots-denied, not HTML, a duplicate, dropped by a pipeline) gives
    its slot back. At most ``window`` pages are requested and not yet finished;
    the others wait, as compact entries, in a FIFO list (breadth-first order
    kept) bounded by :func:`~skill3crawl.distributed.waiting_cap` — beyond it they
    are dropped. So a sitemap of 100,000 URLs never becomes 100,000 queued requests.
    """

    def __init__(self, spider, window: int):
        self.spider = spider
        self.window = max(1, window)

    @property
    def _s(self) -> dict:
        st = self.spider.state
        st.setdefault("pages", set())
        st.setdefault("canonical", set())
        st.setdefault("count", 0)  # pages requested and not ended without an item
        st.setdefault("active", 0)  # pages requested and not finished
        st.setdefault("waiting", deque())
        st.setdefault("inflight", {})  # key → entry of the pages requested and not finished (requeued after a kill)
        return st

    def _add(self, name: str, key: str) -> bool:
        """Add ``key`` to the set ``name``; False when it was there."""
        seen = self._s[name]
        if key in seen:
            return False
        seen.add(key)
        return True

    def _can_start(self, limit: int) -> bool:
        """A page may be requested now: budget and window both have room (then both count it)."""
        s = self._s
        if s["count"] < limit and s["active"] < self.window:
            s["count"] += 1
            s["active"] += 1
            return True
        return False

    def _start(self, entry: list) -> list:
        self._s["inflight"][normalize_url(entry[0])] = entry
        return entry

    def claim(self, key: str, limit: int, entry: list) -> str:
        """``new`` (fetch it now), ``waiting``, ``over`` (dropped) or ``seen``."""
        if not self._add("pages", key):
            return "seen"
        waiting = self._s["waiting"]
        if not waiting and self._can_start(limit):  # never ahead of a waiting page: breadth-first order
            self._start(entry)
            return "new"
        if len(waiting) < distributed.waiting_cap(limit):
            waiting.append(entry)
            return "waiting"
        return "over"

    def transfer(self, key: str, entry: list | None = None, old_key: str | None = None) -> bool:
        """A page takes over the slot of the page it replaces (an ``.md`` twin's HTML page); False when seen."""
        if old_key is not None:
            self._s["inflight"].pop(old_key, None)
        if not self._add("pages", key):
            return False
        if entry is not None:
            self._start(entry)
        return True

    def finish(self, written: bool, limit: int, key: str | None = None) -> list[list]:
        """A page finished (``written``: its item was, or the budget itself dropped it); → the waiting
        entries to request now."""
        s = self._s
        if key is not None:
            s["inflight"].pop(key, None)
        s["active"] -= 1
        if not written:
            s["count"] -= 1
        return self.pump(limit)

    def pump(self, limit: int) -> list[list]:
        """The waiting entries that budget and window have room for now (requested by the caller)."""
        s = self._s
        ready = []
        while s["waiting"] and self._can_start(limit):
            ready.append(self._start(s["waiting"].popleft()))
        return ready

    def recover(self) -> int:
        """After a kill: the pages that were requested and not finished lost their queued requests; they
        wait again, first in line. → how many."""
        s = self._s
        entries = list(s["inflight"].values())
        for key in s["inflight"]:  # fetched perhaps, but never written: not a canonical duplicate of itself
            s["canonical"].discard(key)
        s["inflight"] = {}
        s["waiting"].extendleft(reversed(entries))
        s["active"] = max(0, s["active"] - len(entries))
        s["count"] = max(0, s["count"] - len(entries))
        return len(entries)

    def waiting_count(self) -> int:
        return len(self._s["waiting"])

    def add_canonical(self, key: str) -> bool:
        return self._add("canonical", key)

    def has_canonical(self, key: str) -> bool:
        return key in self._s["canonical"]


def single_publisher(args) -> bool:
    """All start URLs under one registrable domain and no search: no independent hosts to agree."""
    from synth.consensus import independent_host

    hosts = {independent_host(urlsplit(u).hostname or "") for u in args.start_urls}
    return len(hosts) <= 1 and not args.brave_token() and args.corpus is None


def apply_docs_settings(settings, args=None) -> None:
    """Docs-mode settings at spider priority (``-s`` on the command line still wins)."""
    prio = "spider"
    settings.set("DEPTH_PRIORITY", 1, priority=prio)  # breadth-first ...
    settings.set("SCHEDULER_DISK_QUEUE", "scrapy.squeues.PickleFifoDiskQueue", priority=prio)  # ... with FIFO queues
    settings.set("SCHEDULER_MEMORY_QUEUE", "scrapy.squeues.FifoMemoryQueue", priority=prio)
    settings.set("DEPTH_LIMIT", 0, priority=prio)  # the link-hop limit (depth_limit) is what is limited
    # The cache is for docs-mode crawls only: a search-mode run (a key: search first, docs as a fallback)
    # must see what the web says now, never pages or robots.txt stored by an earlier run.
    settings.set("HTTPCACHE_ENABLED", args is None or not args.brave_token(), priority=prio)
    settings.set("SKILL3_EXTRACT_WORKERS", os.cpu_count() or 1, priority=prio)
    settings.setdefault_in_component_priority_dict("EXTENSIONS", Progress, 520)
    pipelines = settings.getdict("ITEM_PIPELINES")
    consensus = "skill3crawl.pipelines.ConsensusPipeline"
    if args is not None and consensus in pipelines and single_publisher(args):
        # constant memory for one publisher's site (see skill3crawl.docs_pipelines)
        order = pipelines.pop(consensus)
        pipelines["skill3crawl.docs_pipelines.SnippetFingerprintPipeline"] = order
        settings.set("ITEM_PIPELINES", pipelines, priority=max(settings.getpriority("ITEM_PIPELINES") or 0, 30))


def resuming(settings) -> bool:
    jobdir = settings.get("JOBDIR")
    return bool(jobdir) and Path(jobdir, "spider.state").exists()


class DocsCrawlMixin:
    """Docs-mode discovery for the ``learn`` spider (uses its ``args``, ``_item``, ``_fail``, ``page_failed``)."""

    crawl_authoritative_roots = True  # the authoritative hosts no start URL is on are crawled from their root

    def setup_site_crawl(self) -> None:
        a = self.args
        self.site_roots = a.site_roots(authoritative=self.crawl_authoritative_roots)
        self.scopes = [Scope.from_start_url(u, a.sitemap_filter, a.locales == "skip") for u in self.site_roots]

    # -- state -------------------------------------------------------------
    @property
    def docs_state(self):
        if not hasattr(self, "_docs_state"):
            if distributed.redis_enabled(self.settings):
                self._docs_state = distributed.RedisSharedState(self.settings, self.name)
            else:
                self._docs_state = LocalState(self, self.settings.getint("SKILL3_PAGE_WINDOW", 1000))
        return self._docs_state

    def _drop(self, reason: str) -> None:
        self.crawler.stats.inc_value(f"skill3/dropped/{reason}")

    def _scope_for(self, url: str) -> tuple[Scope | None, str]:
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
                      hops: int = 0, html_url: str | None = None, slot_held: bool = False, old_key: str | None = None):
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
        if canon in self.seen_urls:  # already requested as a search result
            return None
        key = normalize_url(canon)
        if discovery == "link" and self.docs_state.has_canonical(key):
            return None  # a page already written under its canonical URL
        entry = [canon, discovery, title, lastmod, hops, html_url]
        if slot_held:
            moved = (self.docs_state.transfer(key, entry, old_key) if isinstance(self.docs_state, LocalState)
                     else self.docs_state.transfer(key))
            if not moved:
                self.release_slot()
                return None
            return self._entry_request(entry)
        status = self.docs_state.claim(key, self.args.max_pages, entry)
        if status == "over":
            self._drop("max_pages")
        elif status == "waiting":
            self.crawler.stats.inc_value("skill3/discovery/waiting")
        return self._entry_request(entry) if status == "new" else None

    def _entry_request(self, entry: list):
        canon, discovery, title, lastmod, hops, html_url = entry
        item_url = canonical_url(html_url) if html_url else canon
        meta = {
            "skill3": {"discovery": discovery, "query": None, "title": title, "lastmod": lastmod, "url": item_url},
            "skill3_kind": "page",
            "skill3_hops": hops,
            "skill3_slot": True,
            "skill3_key": normalize_url(canon),
        }
        if html_url:
            meta["skill3_html_url"] = html_url
        return scrapy.Request(canon, callback=self.parse_site_page, errback=self.site_page_failed, meta=meta, priority=_PRIO["page"])

    def release_slot(self, key: str | None = None) -> None:
        """A page ended without an item: its budget slot passes on."""
        self._finish(written=False, key=key)

    def _finish(self, written: bool, key: str | None = None) -> None:
        if isinstance(self.docs_state, LocalState):
            ready = self.docs_state.finish(written, self.args.max_pages, key=key)
        else:
            ready = self.docs_state.finish(written, self.args.max_pages)
        for entry in ready:
            self.crawler.engine.crawl(self._entry_request(entry))

    def resume_waiting(self):
        """On a resumed local crawl: requests for the waiting pages there is room for (after a kill, the
        pages that were in flight wait again first)."""
        if not isinstance(self.docs_state, LocalState):
            return
        if getattr(self.crawler, "_skill3_recovered", False):
            n = self.docs_state.recover()
            logger.info("skill3: resuming after an unclean stop: %d page(s) that were in flight are requested again", n)
        for entry in self.docs_state.pump(self.args.max_pages):
            yield self._entry_request(entry)

    def slot_item_scraped(self, item, response, spider=None) -> None:
        """``item_scraped``: a page that held a budget slot was written."""
        if response is not None and response.meta.get("skill3_slot"):
            self._finish(written=True, key=response.meta.get("skill3_key"))

    def slot_item_dropped(self, item, response, exception, spider=None) -> None:
        """``item_dropped``: a pipeline dropped a page that held a budget slot (the budget's own drop keeps it)."""
        if response is not None and response.meta.get("skill3_slot"):
            self._finish(written=str(exception).startswith("max_pages:"), key=response.meta.get("skill3_key"))

    def slot_request_dropped(self, request, spider=None) -> None:
        """``request_dropped``: the scheduler's duplicate filter refused a page that held a budget slot."""
        if request.meta.get("skill3_slot"):
            self.release_slot(request.meta.get("skill3_key"))

    def closed(self, reason: str) -> None:
        if self.args is not None and reason != "shutdown" and not distributed.redis_enabled(self.settings):
            left = self.docs_state.waiting_count()  # never fetched: the budget was spent (or the spider closed)
            if left:
                self.crawler.stats.inc_value("skill3/dropped/max_pages", left)

    def _direct_requests(self, roots=None):
        """Robots.txt (for its sitemaps), llms.txt, and the start page of every site root (or of ``roots``)."""
        if roots is None:
            self.fallback_started = True
        state = get_state(self.crawler)
        if "direct" not in state.discovery:
            state.discovery.append("direct")
        for scope, url in zip(self.scopes, self.site_roots):
            if roots is not None and url not in roots:
                continue
            yield scrapy.Request(scope.origin + "/robots.txt", callback=self.parse_robots_sitemaps, errback=self.aux_failed,
                                 meta={"skill3_kind": "robots", "skill3_scope": scope.origin + scope.prefix}, priority=_PRIO["robots"])
            for llms in llms_candidates(scope):
                yield scrapy.Request(llms, callback=self.parse_llms_txt, errback=self.aux_failed,
                                     meta={"skill3_kind": "llms"}, priority=_PRIO["llms"])
            req = self._site_request(url, "start")
            if req is not None:
                yield req

    def aux_failed(self, failure):
        self.crawler.stats.inc_value(f"skill3/discovery/aux_missing/{failure.request.meta.get('skill3_kind', 'other')}")

    def parse_robots_sitemaps(self, response):
        listed = list(sitemap_urls_from_robots(response.body, base_url=response.url)) if isinstance(response, TextResponse) else []
        scope, _ = self._scope_for(response.meta["skill3_scope"])
        for url in sitemap_candidates(scope, listed) if scope else listed:
            yield scrapy.Request(url, callback=self.parse_sitemap, errback=self.aux_failed,
                                 meta={"skill3_kind": "sitemap"}, priority=_PRIO["sitemap"])

    def parse_sitemap(self, response):
        kind, entries = parse_sitemap(response.body, max_size=self.settings.getint("DOWNLOAD_MAXSIZE"))
        if kind == "invalid":  # not XML (an HTML 200 for a missing sitemap), corrupt gzip, or too big
            self._drop("bad_sitemap")
            return
        host = urlsplit(response.url).netloc
        count = 0
        for entry in entries:
            if urlsplit(entry.loc).netloc != host:
                continue  # a sitemap may only list its own host's pages
            if kind == "sitemapindex":
                yield scrapy.Request(entry.loc, callback=self.parse_sitemap, errback=self.aux_failed,
                                     meta={"skill3_kind": "sitemap"}, priority=_PRIO["sitemap"])
            else:
                count += 1
                req = self._site_request(entry.loc, "sitemap", lastmod=lastmod_date(entry.lastmod))
                if req is not None:
                    yield req
        self.crawler.stats.inc_value("skill3/discovery/sitemap_urls", count)

    def parse_llms_txt(self, response):
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

    def site_page_failed(self, failure):
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

    def follow_links(self, response):
        """In-scope links of a page, each URL considered once per crawl (no per-link canonicalisation cost)."""
        if not isinstance(response, HtmlResponse):
            return
        hops = response.meta.get("skill3_hops", 0) + 1
        if hops > self.args.depth_limit:
            self._drop("depth_limit")
            return
        seen = self.__dict__.setdefault("_links_seen", set())
        base = response.url
        base_href = response.xpath("//base/@href").get()
        if base_href:
            base = response.urljoin(base_href.strip())
        hrefs = {h.strip().split("#", 1)[0] for h in response.xpath("//a/@href").getall()}
        for href in sorted(hrefs):  # sorted: a deterministic order for breadth-first runs
            if not href or href.startswith(("mailto:", "javascript:", "tel:", "data:")):
                continue
            url = urljoin(base, href)
            if url in seen:
                continue
            seen.add(url)
            req = self._site_request(url, "link", hops=hops)
            if req is not None:
                yield req

    def _canonical_keys(self, response) -> tuple[str, set[str]]:
        """The page's canonical key (``<link rel=canonical>`` on the same host, else its URL) and its aliases."""
        keys = {normalize_url(response.url), normalize_url(response.request.url)}
        if response.meta.get("skill3_html_url"):
            keys.add(normalize_url(response.meta["skill3_html_url"]))
        primary = normalize_url(response.meta.get("skill3_html_url") or response.url)
        if isinstance(response, HtmlResponse):
            href = response.xpath("//link[@rel='canonical']/@href").get()
            if href:
                target = response.urljoin(href.strip())
                if urlsplit(target).netloc == urlsplit(response.url).netloc:
                    primary = normalize_url(target)
        return primary, keys - {primary}

    def parse_site_page(self, response):
        info = response.meta["skill3"]
        stats = self.crawler.stats
        stats.inc_value("skill3/pages_fetched")
        stats.inc_value(f"skill3/discovery/{info['discovery']}")
        html = self.page_html(response, info)
        if html is None:
            self.release_slot(response.meta.get("skill3_key"))
            return
        if isinstance(response, HtmlResponse):
            yield from self.follow_links(response)  # breadth-first: links are queued before the item is processed
        primary, aliases = self._canonical_keys(response)
        fresh = self.docs_state.add_canonical(primary)
        for key in aliases:
            self.docs_state.add_canonical(key)
        if not fresh:
            self._drop("canonical_duplicate")
            self.release_slot(response.meta.get("skill3_key"))
            return
        self.items_yielded += 1
        yield self._item(info["url"], response.url, html, response_headers(response), info["discovery"], None,
                         lastmod=info.get("lastmod"), title_hint=info.get("title") or "")
