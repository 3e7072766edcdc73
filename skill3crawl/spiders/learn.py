"""The `learn` spider: plan queries → Brave search → pages; or the direct docs fallback; or an offline corpus.

Arguments are validated as one model (:mod:`skill3crawl.args`). A bad argument
is one ERROR line, nothing is fetched, and ``scrapy crawl`` exits 2.
"""

from __future__ import annotations

import asyncio
import logging
import os
from datetime import datetime, timezone
from typing import Any, AsyncIterator
from urllib.parse import urlsplit

import scrapy
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse, TextResponse

from skill3crawl.args import ArgsError, LearnArgs, parse_args
from skill3crawl.corpus import markdown_to_html, source_html
from skill3crawl.discovery import brave
from skill3crawl.discovery.links import in_site_links
from skill3crawl.discovery.llmstxt import llms_txt_url, parse_llms_txt
from skill3crawl.discovery.sitemap import parse_sitemap, sitemap_url
from skill3crawl.items import EXPORT_FIELDS, PageItem
from skill3crawl.state import get_state
from skill3crawl.urls import canonical_url, host_of

logger = logging.getLogger(__name__)

MIN_SEARCH_RESULTS = 5  # fewer unique results than this → also run the direct fallback
MAX_SITEMAP_FILES = 10
EXIT_BAD_USAGE = 2


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _headers(response: Any) -> dict[str, str]:
    out = {}
    for k, v in response.headers.items():
        if v:
            out[k.decode("latin-1").lower()] = v[0].decode("latin-1", "replace")
    return out


class LearnSpider(scrapy.Spider):
    name = "learn"

    def __init__(self, **kwargs: Any):
        # Deliberately not passing kwargs to Spider.__init__: it would copy them
        # (brave_key included) onto the spider as attributes.
        super().__init__(name=self.name)
        self.args: LearnArgs | None = None
        self.args_error: str | None = None
        try:
            args = parse_args(kwargs)
            problem = args.usage_problem()
            if problem:
                raise ArgsError(problem)
            self.args = args
        except ArgsError as exc:
            self.args_error = str(exc)  # start() logs it; no feed is configured, nothing is fetched
        self.seen_urls: set[str] = set()
        self.follow_hosts: set[str] = set()
        self.pending_searches = 0
        self.search_results = 0
        self.fallback_started = False
        self.page_requests = 0
        self.items_yielded = 0

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> "LearnSpider":
        spider = super().from_crawler(crawler, *args, **kwargs)
        a = spider.args
        if a is not None:
            crawler.settings.set(
                "FEEDS",
                {
                    str(a.feed_path): {
                        "format": "jsonlines",
                        "encoding": "utf-8",
                        "overwrite": True,
                        "store_empty": True,
                        "fields": EXPORT_FIELDS,
                    }
                },
                priority="spider",
            )
            crawler.settings.set("CLOSESPIDER_ITEMCOUNT", a.max_pages, priority="spider")
        return spider

    # ------------------------------------------------------------------ start
    async def start(self) -> AsyncIterator[Any]:
        state = get_state(self.crawler)
        if self.args is None:
            logger.error("skill3: %s", self.args_error)
            self._fail(EXIT_BAD_USAGE, "bad_arguments")
            return
        a = self.args
        if a.role == "worker":
            logger.warning("skill3: role=worker is reserved for distributed crawls; running as a normal crawl")
        if a.corpus is not None:
            state.discovery.append("corpus")
            state.planner = {"status": "skipped", "reason": "input_file"}
            for src in a.corpus:
                yield self._corpus_item(src)
            return

        key = a.brave_token()
        if key:
            plan = await asyncio.to_thread(self._plan)
            state.queries = plan.queries
            state.planner = {"status": plan.status, **({"warning": plan.warning} if plan.warning else {})}
            self.crawler.stats.set_value("skill3/queries_planned", len(plan.queries))
            state.discovery.append("brave")
            endpoint = os.environ.get("BRAVE_SEARCH_URL") or self.settings.get("BRAVE_SEARCH_URL") or brave.DEFAULT_URL
            self.pending_searches = len(plan.queries)
            for q in plan.queries:
                yield scrapy.Request(
                    brave.search_url(endpoint, q, a.cutoff.start, state.today),
                    headers={"X-Subscription-Token": key, "Accept": "application/json"},
                    callback=self.parse_search,
                    errback=self.search_failed,
                    dont_filter=True,
                    cb_kwargs={"query": q},
                    meta={
                        "download_slot": brave.SLOT,
                        "dont_obey_robotstxt": True,  # an API we are a customer of, not a crawled site
                        "dont_cache": True,  # the cache would store the key header on disk
                        "autothrottle_dont_adjust_delay": True,
                        "skill3_search": True,
                    },
                )
        else:
            state.queries = []
            state.planner = {"status": "skipped", "reason": "no search key"}
            for r in self._direct_requests():
                yield r

    def _plan(self):
        """Blocking LLM call, run off the reactor thread (asyncio.to_thread) so robots/stats keep going."""
        from synth.llm.base import LLMError, make_chat_model
        from synth.llm.planner import Plan, plan

        a = self.args
        try:
            model = make_chat_model(a.llm_provider, a.llm_endpoint, a.llm_model, timeout=float(self.settings.getfloat("SKILL3_PLANNER_TIMEOUT", 120)))
        except LLMError as exc:
            logger.warning("skill3: query planning unavailable (%s); searching for the bare topic", exc)
            return Plan([a.topic], "fallback", str(exc))
        return plan(model, a.topic, a.cutoff.month, get_state(self.crawler).today)

    def _fail(self, code: int, reason: str) -> None:
        get_state(self.crawler).exit_code = code
        self.crawler.stats.set_value("skill3/exit_code", code)
        self.crawler.stats.set_value("skill3/failure", reason)

    # ----------------------------------------------------------------- corpus
    def _corpus_item(self, src: Any) -> PageItem:
        url = canonical_url(src.url)
        self.crawler.stats.inc_value("skill3/pages_fetched")
        self.crawler.stats.inc_value("skill3/discovery/corpus")
        return self._item(url, url, source_html(src), {}, "corpus", None, title_hint=src.title, date_hint=src.date)

    def _item(self, url, final_url, html, headers, discovery, query, *, lastmod=None, title_hint="", date_hint=None) -> PageItem:
        a = self.args
        return PageItem(
            url=url,
            final_url=final_url,
            host=host_of(final_url),
            title=title_hint,
            topic=a.topic,
            cutoff=a.cutoff.month,
            fetched_at=_now(),
            discovery=discovery,
            query=query,
            html=html,
            headers=headers,
            lastmod=lastmod,
            date_hint=date_hint,
            title_hint=title_hint,
        )

    # ----------------------------------------------------------------- search
    def parse_search(self, response: Any, query: str) -> Any:
        self.pending_searches -= 1
        self.crawler.stats.inc_value("skill3/search/responses")
        try:
            results = brave.parse_results(response.body)
        except ValueError as exc:
            logger.warning("skill3: search for %r: %s", query, exc)
            results = []
        self.crawler.stats.inc_value("skill3/search/results", len(results))
        for r in results:
            req = self._page_request(r.url, "brave", query=query, title=r.title)
            if req is not None:
                self.search_results += 1
                yield req
        yield from self._maybe_fallback()

    def search_failed(self, failure: Any) -> Any:
        from scrapy.spidermiddlewares.httperror import HttpError

        self.pending_searches -= 1
        self.crawler.stats.inc_value("skill3/search/failed")
        status = failure.value.response.status if failure.check(HttpError) else None
        if status in (401, 403):
            logger.error("skill3: the search API rejected the key (HTTP %d): check BRAVE_SEARCH_API_KEY / -a brave_key", status)
        elif status is not None:
            logger.warning("skill3: the search API answered HTTP %d", status)
        else:
            logger.warning("skill3: search request failed: %s", failure.getErrorMessage()[:200])
        yield from self._maybe_fallback()

    def _maybe_fallback(self) -> Any:
        if self.pending_searches > 0 or self.fallback_started:
            return
        self.crawler.stats.set_value("skill3/search/unique_urls", self.search_results)
        if self.search_results < self.settings.getint("SKILL3_MIN_SEARCH_RESULTS", MIN_SEARCH_RESULTS) and (self.args.authoritative or self.args.start_urls):
            logger.info("skill3: search found %d pages; adding the direct crawl of authoritative hosts/start URLs", self.search_results)
            yield from self._direct_requests()

    # ----------------------------------------------------------------- direct
    def direct_seeds(self) -> list[str]:
        """Site roots to discover from: each start URL's site and each authoritative host."""
        a = self.args
        roots: list[str] = []
        for u in a.start_urls:
            p = urlsplit(u)
            roots.append(f"{p.scheme}://{p.netloc}/")
        for host in a.authoritative:
            if not any(urlsplit(r).hostname == host for r in roots):
                roots.append(f"https://{host}/")
        return list(dict.fromkeys(roots))

    def _direct_requests(self) -> Any:
        self.fallback_started = True
        get_state(self.crawler).discovery.append("direct")
        a = self.args
        for root in self.direct_seeds():
            self.follow_hosts.add(urlsplit(root).hostname)
            yield scrapy.Request(llms_txt_url(root), callback=self.parse_llms_txt, errback=self.aux_failed, priority=20)
            yield scrapy.Request(sitemap_url(root), callback=self.parse_sitemap, errback=self.aux_failed, priority=20)
        covered = {urlsplit(u).hostname for u in a.start_urls}
        pages = [*a.start_urls, *(r for r in self.direct_seeds() if urlsplit(r).hostname not in covered)]
        for u in pages:
            req = self._page_request(u, "start")
            if req is not None:
                yield req

    def parse_llms_txt(self, response: Any) -> Any:
        if response.status != 200 or not isinstance(response, TextResponse):
            return
        links = parse_llms_txt(response.text, response.url)
        self.crawler.stats.inc_value("skill3/discovery/llms_txt_links", len(links))
        for url, title in links:
            req = self._page_request(url, "llms.txt", title=title)
            if req is not None:
                yield req

    def parse_sitemap(self, response: Any) -> Any:
        kind, entries = parse_sitemap(response.body)
        if kind == "sitemapindex":
            done = response.meta.get("skill3_sitemaps", 1)
            for e in entries[: max(0, MAX_SITEMAP_FILES - done)]:
                yield scrapy.Request(e.loc, callback=self.parse_sitemap, errback=self.aux_failed, priority=20,
                                     meta={"skill3_sitemaps": done + 1})
            return
        self.crawler.stats.inc_value("skill3/discovery/sitemap_urls", len(entries))
        for e in entries:
            if host_of(e.loc) != host_of(response.url):
                continue  # a sitemap may only list its own host's pages
            req = self._page_request(e.loc, "sitemap", lastmod=e.lastmod)
            if req is not None:
                yield req

    def aux_failed(self, failure: Any) -> None:
        self.crawler.stats.inc_value("skill3/discovery/aux_failed")

    # ------------------------------------------------------------------ pages
    def _page_request(self, url: str, discovery: str, *, query: str | None = None, title: str = "", lastmod: str | None = None):
        try:
            canon = canonical_url(url)
        except ValueError:
            return None
        if canon in self.seen_urls:
            self.crawler.stats.inc_value("skill3/discovery/duplicate_url")
            return None
        if self.page_requests >= self.args.max_pages * 3 or self._items_alive() >= self.args.max_pages:
            self.crawler.stats.inc_value("skill3/discovery/over_budget")
            return None
        self.seen_urls.add(canon)
        self.page_requests += 1
        return scrapy.Request(
            canon,
            callback=self.parse_page,
            errback=self.page_failed,
            meta={"skill3": {"discovery": discovery, "query": query, "title": title, "lastmod": lastmod, "url": canon}},
        )

    def _items_alive(self) -> int:
        """Items yielded and not dropped: written, or still in the pipelines."""
        return self.items_yielded - self.crawler.stats.get_value("item_dropped_count", 0)

    def parse_page(self, response: Any) -> Any:
        info = response.meta["skill3"]
        self.crawler.stats.inc_value("skill3/pages_fetched")
        if self._items_alive() >= self.args.max_pages:
            self.crawler.stats.inc_value("skill3/discovery/over_budget")
            return  # enough pages are written or in the pipelines: skip the extraction work
        self.crawler.stats.inc_value(f"skill3/discovery/{info['discovery']}")
        if not isinstance(response, TextResponse):
            self.crawler.stats.inc_value("skill3/dropped/not_text")
            return
        ctype = response.headers.get(b"Content-Type", b"").decode("latin-1").lower()
        path = urlsplit(response.url).path.lower()
        if "html" in ctype or (not ctype and isinstance(response, HtmlResponse)):
            html = response.text
        elif "markdown" in ctype or "text/plain" in ctype or path.endswith((".md", ".txt")):
            html = markdown_to_html(response.text, info.get("title") or "")
        else:
            self.crawler.stats.inc_value("skill3/dropped/not_html")
            return
        self.items_yielded += 1
        yield self._item(info["url"], response.url, html, _headers(response), info["discovery"], info["query"],
                         lastmod=info.get("lastmod"), title_hint=info.get("title") or "")
        host = urlsplit(response.url).hostname
        if info["discovery"] != "brave" and host in self.follow_hosts and "html" in ctype:
            for url in in_site_links(response):
                req = self._page_request(url, "link")
                if req is not None:
                    yield req

    def page_failed(self, failure: Any) -> None:
        from scrapy.exceptions import DownloadCancelledError, DownloadTimeoutError, CannotResolveHostError
        from scrapy.spidermiddlewares.httperror import HttpError
        from twisted.internet.error import DNSLookupError, TimeoutError as TxTimeout

        if failure.check(IgnoreRequest) and not failure.check(HttpError):
            return  # robots.txt / network guard: counted where they were decided
        if failure.check(HttpError):
            kind = f"http_{failure.value.response.status}"
        elif failure.check(DownloadCancelledError):
            self.crawler.stats.inc_value("skill3/dropped/oversized")
            return
        elif failure.check(DNSLookupError, CannotResolveHostError):
            kind = "dns"
        elif failure.check(DownloadTimeoutError, TxTimeout):
            kind = "timeout"
        else:
            kind = type(failure.value).__name__
        self.crawler.stats.inc_value(f"skill3/failed/{kind}")
