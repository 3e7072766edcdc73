"""The `learn` spider: official sources → plan queries → search → pages; the direct docs crawl; or an offline corpus.

Arguments are validated as one model (:mod:`skill3crawl.args`). A bad argument
is one ERROR line, nothing is fetched, and ``scrapy crawl`` exits 2.

Discovery: the topic's official sources first (package registries → repository
→ docs site, :mod:`skill3crawl.discovery.official`); with a search provider
(Brave, or SearXNG when ``SEARXNG_URL`` is set), the planned queries are searched and the
results are fetched (never followed further: they are on arbitrary hosts). The
start URLs and authoritative hosts are always crawled in docs mode
(:class:`~skill3crawl.sitecrawl.crawl.DocsCrawlMixin`: sitemaps, llms.txt, in-prefix
links, canonical and locale de-duplication), beside the search, within the page budget.
Without a planner model the queries are the fixed plan (:func:`synth.llm.planner.deterministic_queries`).
``-a role=worker`` with ``-s SKILL3_REDIS_URL=…`` joins a distributed crawl
(:mod:`skill3crawl.distributed`).
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, AsyncIterator, Iterator
from urllib.parse import urlsplit

import orjson
import scrapy
from scrapy import signals
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse, TextResponse

from skill3crawl import distributed
from skill3crawl.args import ArgsError, LearnArgs, checked_args
from skill3crawl.corpus import markdown_to_html, source_html
from skill3crawl.crawl_record import get_state, note_dropped
from skill3crawl.discovery import search
from skill3crawl.discovery.official import OfficialSourcesMixin
from skill3crawl.extract.encoding import page_text
from skill3crawl.items import EXPORT_FIELDS, FetchedPage, PageItem
from skill3crawl.packages.spider import PackageSourceMixin
from skill3crawl.sitecrawl.crawl import SHARED_ARGS, DocsCrawlMixin, apply_docs_settings, resuming
from skill3crawl.sitecrawl.textfiles import plain_text
from skill3crawl.sitecrawl.textmarkup import pod_to_markdown
from synth.core import default_settings
from synth.core.errors import ExitCode
from synth.evidence.urls import canonical_url, host_of, url_key
from synth.output.outdir import OutputDirLocked, OutputLock, lock_output_dir

if TYPE_CHECKING:
    from synth.llm.planner import Plan

logger = logging.getLogger(__name__)

PLANNER_TIMEOUT = default_settings.SKILL3_PLANNER_TIMEOUT  # seconds the query planner may wait for the model


def decompression_bomb(exc: BaseException) -> bool:
    """Scrapy refused a compressed body that decompresses past DOWNLOAD_MAXSIZE (an IgnoreRequest)."""
    try:
        from scrapy.utils._compression import _DecompressionMaxSizeExceeded
    except ImportError:  # a Scrapy without it: recognise the message
        return "during decompression" in str(exc)
    return isinstance(exc.__cause__, _DecompressionMaxSizeExceeded)


def _text_page_html(text: str, info: dict) -> str:
    """A plain-text page as HTML: markdown as it is, a text in POD markup converted first (its ``NAME`` line the
    title)."""
    pod = pod_to_markdown(text)
    if pod is not None:
        return markdown_to_html(pod[0], pod[1] or info.get("title") or "")
    return markdown_to_html(text, info.get("title") or "")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class LearnSpider(OfficialSourcesMixin, PackageSourceMixin, DocsCrawlMixin, scrapy.Spider):
    name = "learn"
    docs_defaults = False  # `scrapy crawl docs`: start URLs required, topic and authority from them

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> "LearnSpider":
        settings = crawler.settings
        try:
            kwargs = cls._distributed_kwargs(settings, kwargs)
        except ValueError as exc:
            kwargs = {"_error": str(exc)}
        spider = super().from_crawler(crawler, *args, **kwargs)
        a = spider.args
        if a is not None and a.role == "main":  # one run at a time in a folder (workers write their own feed beside it)
            try:
                spider.output_lock = lock_output_dir(str(a.feed_path.parent))
            except (OutputDirLocked, OSError) as exc:
                spider.args, spider.args_error = None, str(exc)  # start() logs it; nothing is fetched or written
            else:  # held through the synthesis the closing feed triggers
                crawler.signals.connect(spider.output_lock.release, signal=signals.engine_stopped)
        a = spider.args
        if a is None:
            return spider
        crawler.signals.connect(spider.slot_item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(spider.slot_item_dropped, signal=signals.item_dropped)
        crawler.signals.connect(spider.slot_request_dropped, signal=signals.request_dropped)
        if a.corpus is None and (spider.site_roots or spider.resolves_packages()):
            apply_docs_settings(settings, a, package_source=spider.resolves_packages() and spider.packages_enabled())
        settings.set(
            "FEEDS",
            {str(a.feed_path): {"format": "jsonlines", "encoding": "utf-8", "store_empty": True, "fields": EXPORT_FIELDS,
                                # a resumed JOBDIR crawl appends: the feed then holds the whole crawl, each page once
                                "overwrite": not resuming(settings)}},
            priority="spider",
        )
        # No CLOSESPIDER_ITEMCOUNT: items yielded from start() never let Scrapy 2.19's close finish
        # once it fires (the crawl hangs). The page budget and LimitPipeline enforce max_pages.
        return spider

    @classmethod
    def _distributed_kwargs(cls, settings: Any, kwargs: dict) -> dict:
        """The spider arguments in a distributed crawl: workers read the planner's; the planner publishes its own."""
        role = distributed.check_role(kwargs.get("role"))
        redis = distributed.redis_enabled(settings)
        if role == "worker" and not redis:
            raise ValueError("role=worker needs -s SKILL3_REDIS_URL=redis://…")
        if role == "worker":
            shared = distributed.load_config(settings, cls.name, distributed.max_idle_wait(settings))
            kwargs = {**shared, **kwargs, "synth": "0"}  # workers never synthesize: run `skill3 synth run*.jsonl`
            kwargs.setdefault("worker_id", distributed.worker_id())
        elif redis:
            distributed.publish_config(settings, cls.name, {k: kwargs[k] for k in SHARED_ARGS if k in kwargs})
        feed = distributed.feed_name(role, kwargs.get("worker_id") or "") if redis else "run.jsonl"
        return {**kwargs, "_feed_name": feed}

    def __init__(self, **kwargs: Any) -> None:
        # Deliberately not passing kwargs to Spider.__init__: it would copy them
        # (brave_key included) onto the spider as attributes.
        super().__init__(name=self.name)
        self.args: LearnArgs | None = None
        self.args_error: str | None = kwargs.pop("_error", None)
        feed_name = kwargs.pop("_feed_name", "run.jsonl")
        self.site_roots: list[str] = []
        self.output_lock: OutputLock | None = None
        if self.args_error is None:
            try:
                self.args = checked_args(kwargs, docs=self.docs_defaults, feed_name=feed_name)
                self.setup_site_crawl()
            except (ArgsError, ValueError) as exc:
                self.args, self.args_error = None, str(exc)  # start() logs it; nothing is fetched
        self.state: dict = {}  # replaced by the saved state when JOBDIR holds one
        self.seen_urls: set[str] = set()  # url_key of the search results requested
        self.pending_searches = 0
        self.search_provider: search.SearchProvider | None = None  # set in start(): Brave, SearXNG or none
        self.search_results = 0
        self.fallback_started = False
        self.page_requests = 0
        self.items_yielded = 0
        self.written_before = 0  # corpus sources already in a resumed crawl's feed

    # ------------------------------------------------------------------ start
    async def start(self) -> AsyncIterator[Any]:
        state = get_state(self.crawler)
        if self.args is None:
            logger.error("skill3: %s", self.args_error)
            self._fail(ExitCode.USAGE, "bad_arguments")
            return
        a = self.args
        if a.role == "worker":
            return  # workers never plan or seed: they consume the shared queue
        if a.corpus is not None:
            async for item in self._start_corpus(state):
                yield item
            return
        provider = self.search_provider = search.configured_provider(self.settings, a.brave_token())
        if self.resolves_packages():  # official sources from the topic: registries → repository → docs
            for r in self.registry_requests():
                yield r
        elif self.registry_dates_wanted():  # the site is given; the registries may still date its versions
            for r in self.registry_requests(dates_only=True):
                yield r
        if provider is not None:
            plan = await asyncio.to_thread(self._plan)
            for r in self._searches_and_sites(provider, plan, state):
                yield r
        else:
            for r in self._start_without_search(state):
                yield r

    def _searches_and_sites(self, provider: search.SearchProvider, plan: Plan, state: Any) -> Iterator[scrapy.Request]:
        """The planned searches, and beside them the named sites' direct crawl: they always get their
        robots/sitemap/llms.txt pass, within the page budget, however much the search finds."""
        yield from self._search_requests(provider, plan, state)
        if self.site_roots:
            yield from self._direct_requests()

    def _start_without_search(self, state: Any) -> Iterator[scrapy.Request]:
        """No search provider: the sites named (docs mode), and the pages a resumed crawl left waiting."""
        state.queries = []
        state.planner = {"status": "skipped", "reason": "no search provider"}
        if not self.resolves_packages():  # else said once the registries answered (or "nothing found")
            self.warn_no_search()
        if self.site_roots:
            yield from self._direct_requests()
        elif not self.resolves_packages():
            self.nothing_found_check()
        if resuming(self.settings):  # the pages waiting in the saved state (after a kill: also those in flight)
            yield from self.resume_waiting()

    def _say_skipped(self, corpus: Any) -> None:
        """What the corpus left out, counted and said once (each reason one warning line)."""
        for reason, urls in (("oversized", corpus.oversized), ("duplicate_url", corpus.duplicates)):
            if urls:
                self.crawler.stats.inc_value(f"skill3/dropped/{reason}", len(urls))
                for url in urls:
                    note_dropped(self.crawler, url, reason)
                what = f"over {corpus.max_body // (1024 * 1024)} MiB" if reason == "oversized" else "a URL an earlier source has"
                logger.warning("skill3: input_file: %d source(s) skipped, %s: %s", len(urls), what, ", ".join(urls[:3]))
        for reason, which in sorted(corpus.skipped.items()):
            self.crawler.stats.inc_value(f"skill3/corpus_skipped/{reason}", len(which))
        if corpus.skipped:
            logger.info("skill3: input_file: not pages, skipped: %s",
                        ", ".join(f"{len(w)} {r.replace('_', ' ')}" for r, w in sorted(corpus.skipped.items())))
        for reason, why in (("non_utf8_name", "file name(s) not in UTF-8"), ("not_a_regular_file", "not regular file(s)")):
            if reason in corpus.skipped:
                logger.warning("skill3: input_file: %d %s skipped: %s", len(corpus.skipped[reason]), why,
                               ", ".join(corpus.skipped[reason][:5]))
        if "no_url" in corpus.skipped:
            logger.warning("skill3: input_file: %d page(s) without a URL skipped (%s): save them from a browser, mirror "
                           "them as host/path.html or give each a 'url:' frontmatter line", len(corpus.skipped["no_url"]),
                           ", ".join(corpus.skipped["no_url"][:3]))
        if corpus.hidden:
            logger.warning("skill3: input_file: %d '=== SOURCE ===' line(s) inside a code block, <pre> or comment were read "
                           "as page text, not as new sources (source block(s) %s); close the block before the next source",
                           len(corpus.hidden), ", ".join(map(str, sorted(set(corpus.hidden))[:5])))

    async def _start_corpus(self, state: Any) -> AsyncIterator[PageItem]:
        """The offline corpus: its skipped sources said once, then one item per source within the budget
        (a resumed crawl skips what its feed already holds)."""
        state.discovery.append("corpus")
        state.planner = {"status": "skipped", "reason": "input_file"}
        corpus = self.args.corpus
        assert corpus is not None  # start() comes here only with a corpus
        self._say_skipped(corpus)
        written = self._written_before()
        self.written_before = len(written)
        for n, src in enumerate(corpus):
            if written and url_key(src.url) in written:
                self.crawler.stats.inc_value("skill3/resumed/already_written")
                continue
            if not await self._budget_left():
                self._drop_unread(corpus, n)
                break
            self.items_yielded += 1
            yield self._corpus_item(src)

    def _search_requests(self, provider: search.SearchProvider, plan: Plan, state: Any) -> Iterator[scrapy.Request]:
        """The planned queries as search API requests (the key header is added at download time)."""
        a = self.args
        state.queries = plan.queries
        state.planner = {"status": plan.status, **({"warning": plan.warning} if plan.warning else {})}
        self.crawler.stats.set_value("skill3/queries_planned", len(plan.queries))
        state.discovery.append(provider.name)
        self.pending_searches = len(plan.queries)
        for q in plan.queries:
            yield scrapy.Request(
                provider.request_url(q, a.cutoff.start, state.today),
                # the key header is added at download time (SearchKeyMiddleware): never in a queue on disk or in Redis
                headers={"Accept": "application/json"},
                callback=self.parse_search,
                errback=self.search_failed,
                dont_filter=True,
                cb_kwargs={"query": q},
                meta={
                    "download_slot": search.SLOT,
                    "dont_obey_robotstxt": True,  # an API we are a customer of, not a crawled site
                    "dont_cache": True,  # the cache would store the key header on disk
                    "autothrottle_dont_adjust_delay": True,
                    "skill3_search": provider.sends_key,  # only Brave's requests carry the key
                    "skill3_kind": "search",
                    "skill3_api": True,  # the network guard exempts the configured search API for its own calls only
                },
            )

    def provider(self) -> search.SearchProvider:
        """The search engine answering this crawl's searches (a worker decides from its own environment)."""
        if self.search_provider is None:
            self.search_provider = search.configured_provider(self.settings, self.args.brave_token()) or search.BraveProvider(search.brave.DEFAULT_URL)
        return self.search_provider

    def _plan(self) -> Plan:
        """Blocking LLM call, run off the reactor thread (asyncio.to_thread) so robots/stats keep going."""
        from synth.llm.model import LLMError
        from synth.llm.planner import Plan, deterministic_queries, plan
        from synth.llm.registry import choose, fallback_warning, make_chat_model

        a = self.args
        choice = choose(a.llm_provider, a.llm_endpoint, a.llm_model)  # auto: openai when the endpoint answers
        if a.llm_provider == "auto":
            get_state(self.crawler).auto_choice = choice  # the synthesis this crawl triggers uses it: one probe
        versions = self._known_versions()
        if choice.reason:  # auto, and no model server answers: the fixed plan
            warning = fallback_warning(choice.reason, planning=True, synthesis=a.synth)
            logger.warning("skill3: %s", warning)
            return Plan(deterministic_queries(a.topic, versions), "fallback", warning)
        try:
            model = make_chat_model(choice.provider, a.llm_endpoint, choice.model, timeout=self.settings.getfloat("SKILL3_PLANNER_TIMEOUT", PLANNER_TIMEOUT))
        except LLMError as exc:
            logger.warning("skill3: query planning unavailable (%s); searching with the fixed plan", exc)
            return Plan(deterministic_queries(a.topic, versions), "fallback", str(exc))
        return plan(model, a.topic, a.cutoff.month, get_state(self.crawler).today, versions=versions)

    def _known_versions(self) -> list[str]:
        """The topic's versions the crawl already knows (the release timeline so far), newest first."""
        rows = getattr(get_state(self.crawler), "release_timeline", None) or []
        dated = sorted((r for r in rows if isinstance(r, dict) and r.get("version") and r.get("date")),
                       key=lambda r: str(r["date"]), reverse=True)
        return list(dict.fromkeys(str(r["version"]) for r in dated))

    def _fail(self, code: ExitCode, reason: str) -> None:
        get_state(self.crawler).exit_code = code
        self.crawler.stats.set_value("skill3/exit_code", int(code))
        self.crawler.stats.set_value("skill3/failure", reason)

    # ----------------------------------------------------------------- corpus
    def _written_before(self) -> set[str]:
        """The corpus sources a resumed ``JOBDIR`` crawl already wrote (its feed is appended to, not
        replaced): read from the feed itself, so what a killed run wrote after its last state save counts."""
        if not resuming(self.settings):
            return set()
        keys: set[str] = set()
        try:
            with open(self.args.feed_path, "rb") as fh:
                for line in fh:
                    try:
                        url = orjson.loads(line).get("url")
                    except (orjson.JSONDecodeError, AttributeError):
                        continue  # a line cut by the kill: its source is written again
                    if isinstance(url, str):
                        keys.add(url_key(url))
        except FileNotFoundError:
            pass
        if keys:
            logger.info("skill3: resuming: %d corpus source(s) already in %s are not written again", len(keys), self.args.feed_path)
        return keys

    async def _budget_left(self) -> bool:
        """Whether another corpus source may go to the pipelines: False once ``max_pages`` items are
        written (by this run or, resumed, the one before); while the items still in the pipelines
        could fill the budget, wait for them."""
        stats = self.crawler.stats
        room = self.args.max_pages - self.written_before
        while True:
            if stats.get_value("item_scraped_count", 0) >= room:
                return False
            if self._items_alive() < room:
                return True
            await asyncio.sleep(0.01)

    def _drop_unread(self, corpus: Any, read: int) -> None:
        try:
            left = len(corpus) - read
        except TypeError:  # a stream: not counted
            return
        if left > 0:
            self.crawler.stats.inc_value("skill3/dropped/max_pages", left)

    def _corpus_item(self, src: Any) -> PageItem:
        url = canonical_url(src.url)
        self.crawler.stats.inc_value("skill3/pages_fetched")
        self.crawler.stats.inc_value("skill3/discovery/corpus")
        return self._item(FetchedPage(url, url, source_html(src), "corpus", dict(src.headers), title_hint=src.title,
                                      date_hint=src.date))

    def _item(self, page: FetchedPage) -> PageItem:
        """The item of a fetched page, with this crawl's topic and cutoff."""
        a = self.args
        return PageItem(
            url=page.url,
            final_url=page.final_url,
            host=host_of(page.final_url),
            title=page.title_hint,
            topic=a.topic,
            cutoff=a.cutoff.month,
            fetched_at=_now(),
            discovery=page.discovery,
            query=page.query,
            html=page.html,
            headers=page.headers,
            lastmod=page.lastmod,
            date_hint=page.date_hint,
            title_hint=page.title_hint,
        )

    # ----------------------------------------------------------------- search
    def parse_search(self, response: Any, query: str) -> Any:
        self.pending_searches -= 1
        self.crawler.stats.inc_value("skill3/search/responses")
        try:
            results = self.provider().parse(response.body, self.args.cutoff.start)
        except ValueError as exc:
            logger.warning("skill3: search for %r: %s", query, exc)
            results = []
        self.crawler.stats.inc_value("skill3/search/results", len(results))
        for r in results:
            req = self._search_request(r.url, query=query, title=r.title)
            if req is not None:
                self.search_results += 1
                yield req
        yield from self._maybe_fallback()

    def search_failed(self, failure: Any) -> Any:
        from scrapy.spidermiddlewares.httperror import HttpError

        self.pending_searches -= 1
        self.crawler.stats.inc_value("skill3/search/failed")
        status = failure.value.response.status if failure.check(HttpError) else None
        if status in (401, 403) and getattr(self, "_search_refused", False):  # said once for the plan's queries
            logger.info("skill3: the search API refused the query too (HTTP %d)", status)
        elif status in (401, 403):
            self._search_refused = True
            if self.provider().sends_key:
                logger.error("skill3: the search API rejected the key (HTTP %d): check BRAVE_SEARCH_API_KEY / -a brave_key", status)
            else:
                logger.error("skill3: SearXNG refused the search (HTTP %d): check SEARXNG_URL and its access rules", status)
        elif status is not None:
            logger.warning("skill3: the search API answered HTTP %d", status)
        else:
            logger.warning("skill3: search request failed: %s", failure.getErrorMessage()[:200])
        yield from self._maybe_fallback()

    def _maybe_fallback(self) -> Any:
        """When the last search answered: its count of unique results in the stats. (The named sites' direct crawl
        started beside the search: see :meth:`start`.)"""
        if self.pending_searches > 0 or self.args.role == "worker":
            return
        self.crawler.stats.set_value("skill3/search/unique_urls", self.search_results)
        yield from ()

    # ------------------------------------------------------------------ pages
    def _search_request(self, url: str, *, query: str, title: str = "") -> scrapy.Request | None:
        """A search result's page: fetched once, never followed further."""
        try:
            canon = canonical_url(url)
        except ValueError:
            return None
        key = url_key(canon)
        if key in self.seen_urls:
            self.crawler.stats.inc_value("skill3/discovery/duplicate_url")
            return None
        if self.page_requests >= self.args.max_pages * 3 or self._items_alive() >= self.args.max_pages:
            self.crawler.stats.inc_value("skill3/discovery/over_budget")
            return None
        self.seen_urls.add(key)
        self.page_requests += 1
        return scrapy.Request(
            canon,
            callback=self.parse_page,
            errback=self.page_failed,
            # never from (or into) the HTTP cache: a re-run must see what the web says now
            meta={"skill3": {"discovery": self.provider().name, "query": query, "title": title, "lastmod": None, "url": canon},
                  "dont_cache": True},
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
        html = self.page_html(response, info)
        if html is None:
            return
        self.items_yielded += 1
        yield self._item(FetchedPage.of_response(response, info["url"], html, info["discovery"], query=info["query"],
                                                 title_hint=info.get("title") or ""))

    def page_html(self, response: Any, info: dict) -> str | None:
        """The page as HTML (markdown and plain-text bodies converted, whatever their content type: a ``NEWS`` file
        served as ``application/octet-stream`` — :func:`~skill3crawl.sitecrawl.textfiles.plain_text`), or None,
        counted as dropped."""
        ctype = response.headers.get(b"Content-Type", b"").decode("latin-1").lower()
        path = urlsplit(response.url).path.lower()
        if not isinstance(response, TextResponse):
            text = plain_text(response.body, ctype, urlsplit(response.url).path, response.url)
            if text is None:
                self.crawler.stats.inc_value("skill3/dropped/not_text")
                return None
            self.crawler.stats.inc_value("skill3/discovery/plain_text_untyped")
            return _text_page_html(text, info)
        if "html" in ctype or (not ctype and isinstance(response, HtmlResponse)):
            return page_text(response)
        if "markdown" in ctype or "text/plain" in ctype or path.endswith((".md", ".txt")):
            return _text_page_html(page_text(response), info)
        text = plain_text(response.body, ctype, urlsplit(response.url).path, response.url)
        if text is not None:
            return _text_page_html(text, info)
        self.crawler.stats.inc_value("skill3/dropped/not_html")
        return None

    def page_failed(self, failure: Any) -> None:
        from scrapy.exceptions import CannotResolveHostError, DownloadCancelledError, DownloadTimeoutError
        from scrapy.spidermiddlewares.httperror import HttpError
        from twisted.internet.error import DNSLookupError
        from twisted.internet.error import TimeoutError as TxTimeout

        if failure.check(IgnoreRequest) and not failure.check(HttpError):
            if decompression_bomb(failure.value):
                self.crawler.stats.inc_value("skill3/dropped/oversized")
                note_dropped(self.crawler, failure.request.url, "oversized")
            return  # robots.txt / network guard: counted where they were decided
        if failure.check(HttpError):
            kind = f"http_{failure.value.response.status}"
        elif failure.check(DownloadCancelledError):
            self.crawler.stats.inc_value("skill3/dropped/oversized")
            note_dropped(self.crawler, failure.request.url, "oversized")
            return
        elif failure.check(DNSLookupError, CannotResolveHostError):
            kind = "dns"
        elif failure.check(DownloadTimeoutError, TxTimeout):
            kind = "timeout"
        else:
            kind = type(failure.value).__name__
        self.crawler.stats.inc_value(f"skill3/failed/{kind}")
