"""Docs mode: a whole documentation site, sitemap-first, then llms.txt, then in-prefix links, breadth-first.

:class:`DocsCrawlMixin` replaces the ``learn`` spider's direct discovery
(``_direct_requests`` / ``_page_request`` / ``parse_page``); the page items are
the same :class:`~skill3crawl.items.PageItem` and go through the same
pipelines (content extraction and dates in the process pool).

State that must survive ``-s JOBDIR=…`` pause/resume — the page budget and the
canonical URLs already seen — lives in ``spider.state`` (pickled by Scrapy's
SpiderState extension); in a distributed crawl it lives in Redis instead.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urljoin, urlsplit

import scrapy
from pydantic import Field, ValidationError, field_validator
from scrapy.http import HtmlResponse, TextResponse
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.gz import gunzip
from scrapy.utils.sitemap import Sitemap, sitemap_urls_from_robots

from skill3crawl import distributed
from skill3crawl.args import ArgsError, LearnArgs, _one_line, _split_csv
from skill3crawl.corpus import markdown_to_html
from skill3crawl.docs import Scope, lastmod_date, llms_candidates, md_variant, normalize_url, parse_llms_txt, sitemap_candidates
from skill3crawl.progress import Progress
from skill3crawl.state import get_state
from skill3crawl.urls import canonical_url

logger = logging.getLogger(__name__)

DEFAULT_DEPTH_LIMIT = 20
HTTPCACHE_SECS = 7 * 24 * 3600
_PRIO = {"robots": 300, "sitemap": 200, "llms": 100, "page": 0}
# Arguments a planner publishes for its workers (never secrets, never per-process ones).
SHARED_ARGS = ("topic", "target_model", "cutoff_time", "strict_cutoff", "authoritative", "start_urls", "max_pages",
               "output_dir", "llm_provider", "llm_endpoint", "llm_model", "depth_limit", "sitemap_filter", "locales")


class DocsArgs(LearnArgs):
    """``learn``'s arguments plus docs mode's own."""

    depth_limit: int = DEFAULT_DEPTH_LIMIT  # link hops from a start URL / sitemap / llms.txt entry
    sitemap_filter: list[str] = Field(default_factory=list)  # path prefixes
    locales: Literal["skip", "keep"] = "skip"
    worker_id: str | None = None
    feed_name: str = "run.jsonl"

    @field_validator("depth_limit", mode="before")
    @classmethod
    def _depth(cls, v: Any) -> int:
        try:
            n = int(str(v).strip())
        except ValueError:
            raise ValueError(f"must be a whole number of link hops, got {v!r}") from None
        if not 0 <= n <= 1000:
            raise ValueError(f"must be between 0 and 1000, got {n}")
        return n

    @field_validator("sitemap_filter", mode="before")
    @classmethod
    def _filters(cls, v: Any) -> list[str]:
        return ["/" + f.lstrip("/") for f in _split_csv(v)]

    @field_validator("worker_id", mode="before")
    @classmethod
    def _wid(cls, v: Any) -> str | None:
        return None if v in (None, "") else distributed.worker_id(str(v))

    @property
    def feed_path(self) -> Path:
        return Path(self.output_dir) / self.feed_name


def parse_docs_args(raw: dict[str, Any], feed_name: str = "run.jsonl") -> DocsArgs:
    """Validate; the topic defaults to the first start URL's host; the start hosts are authoritative by default."""
    raw = {k: v for k, v in raw.items() if not str(k).startswith("_")}  # runner bookkeeping (_job …)
    urls = _split_csv(raw.get("start_urls"))
    if not urls and raw.get("role") != "worker":
        # the authoritative-host fallback: crawl each authoritative host from its root
        urls = [f"https://{h}/" for h in _split_csv(raw.get("authoritative"))]
        if urls:
            raw["start_urls"] = ",".join(urls)
    if not raw.get("topic") and urls:
        raw["topic"] = urlsplit(urls[0]).hostname or ""
    if not raw.get("authoritative") and urls:
        raw["authoritative"] = ",".join(dict.fromkeys(urlsplit(u).hostname or "" for u in urls))
    if not urls and raw.get("role") != "worker":
        raise ArgsError("missing argument start_urls: docs mode needs -a start_urls=URL[,URL…] (or -a authoritative=HOSTS)")
    raw["feed_name"] = feed_name
    try:
        args = DocsArgs(**raw)
    except ArgsError:
        raise
    except ValidationError as exc:
        raise ArgsError(_one_line(exc)) from None
    problem = args.usage_problem() if hasattr(args, "usage_problem") else None
    if problem:
        raise ArgsError(problem)
    return args


class LocalState:
    """Budget and canonical set in ``spider.state`` (persisted with JOBDIR)."""

    def __init__(self, spider):
        self.spider = spider

    @property
    def _s(self) -> dict:
        st = self.spider.state
        st.setdefault("pages", set())
        st.setdefault("canonical", set())
        st.setdefault("count", 0)
        return st

    def claim_page(self, url: str, limit: int) -> bool:
        s = self._s
        if url in s["pages"]:
            return False
        s["pages"].add(url)
        s["count"] += 1
        return s["count"] <= limit

    def pages_claimed(self) -> int:
        return self._s["count"]

    def add_canonical(self, key: str) -> bool:
        s = self._s
        if key in s["canonical"]:
            return False
        s["canonical"].add(key)
        return True

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
    settings.set("HTTPCACHE_ENABLED", True, priority=prio)
    settings.set("HTTPCACHE_EXPIRATION_SECS", HTTPCACHE_SECS, priority=prio)
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
    """Docs-mode discovery for a spider shaped like ``learn`` (``args``, ``_item``, ``page_failed``)."""

    def setup_docs(self) -> None:
        a = self.args
        self.scopes = [Scope.from_start_url(u, a.sitemap_filter, a.locales == "skip") for u in a.start_urls]

    # -- state -------------------------------------------------------------
    @property
    def docs_state(self):
        if not hasattr(self, "_docs_state"):
            if distributed.redis_enabled(self.settings):
                self._docs_state = distributed.RedisSharedState(self.settings, self.name)
            else:
                self._docs_state = LocalState(self)
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
    def _page_request(self, url: str, discovery: str, *, query: str | None = None, title: str = "",
                      lastmod: str | None = None, hops: int = 0, html_url: str | None = None):
        if discovery == "brave":
            return super()._page_request(url, discovery, query=query, title=title, lastmod=lastmod)
        scope, why = self._scope_for(url)  # cheap checks before canonicalisation
        if scope is None:
            self._drop(why)
            return None
        try:
            canon = canonical_url(url)
        except ValueError:
            return None
        if discovery == "link" and self.docs_state.has_canonical(normalize_url(canon)):
            return None  # a page already written under its canonical URL
        if not self.docs_state.claim_page(normalize_url(canon), self.args.max_pages):
            if self.docs_state.pages_claimed() > self.args.max_pages:
                self._drop("max_pages")
            return None
        item_url = canonical_url(html_url) if html_url else canon
        meta = {
            "skill3": {"discovery": discovery, "query": query, "title": title, "lastmod": lastmod, "url": item_url},
            "skill3_kind": "page",
            "skill3_hops": hops,
        }
        if html_url:
            meta["skill3_html_url"] = html_url
        return scrapy.Request(canon, callback=self.parse_page, errback=self.docs_page_failed, meta=meta, priority=_PRIO["page"])

    def _direct_requests(self):
        self.fallback_started = True
        get_state(self.crawler).discovery.append("docs")
        for scope, url in zip(self.scopes, self.args.start_urls):
            yield scrapy.Request(scope.origin + "/robots.txt", callback=self.parse_robots_sitemaps, errback=self.aux_failed,
                                 meta={"skill3_kind": "robots", "skill3_scope": scope.origin + scope.prefix}, priority=_PRIO["robots"])
            for llms in llms_candidates(scope):
                yield scrapy.Request(llms, callback=self.parse_llms_txt, errback=self.aux_failed,
                                     meta={"skill3_kind": "llms"}, priority=_PRIO["llms"])
            req = self._page_request(url, "start")
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
        body = response.body
        if body[:2] == b"\x1f\x8b":
            try:
                body = gunzip(body, max_size=self.settings.getint("DOWNLOAD_MAXSIZE"))
            except OSError:
                self._drop("bad_sitemap")
                return
        try:
            sitemap = Sitemap(body)
        except Exception:  # lxml on a non-XML body (an HTML 200 for a missing sitemap)
            self._drop("bad_sitemap")
            return
        host = urlsplit(response.url).netloc
        count = 0
        for entry in sitemap:
            loc = (entry.get("loc") or "").strip()
            if not loc or urlsplit(loc).netloc != host:
                continue  # a sitemap may only list its own host's pages
            if sitemap.type == "sitemapindex":
                yield scrapy.Request(loc, callback=self.parse_sitemap, errback=self.aux_failed,
                                     meta={"skill3_kind": "sitemap"}, priority=_PRIO["sitemap"])
            elif sitemap.type == "urlset":
                count += 1
                req = self._page_request(loc, "sitemap", lastmod=lastmod_date(entry.get("lastmod")))
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
                req = self._page_request(md, "llms.txt", title=title, html_url=url)
            else:
                req = self._page_request(url, "llms.txt", title=title)
            if req is not None:
                yield req

    def docs_page_failed(self, failure):
        html_url = failure.request.meta.get("skill3_html_url")
        if html_url and failure.check(HttpError):
            self.crawler.stats.inc_value("skill3/discovery/md_twin_missing")
            info = failure.request.meta["skill3"]
            req = self._page_request(html_url, "llms.txt", title=info.get("title") or "")
            if req is not None:
                yield req
            return
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
            req = self._page_request(url, "link", hops=hops)
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

    def parse_page(self, response):
        info = response.meta["skill3"]
        if info["discovery"] == "brave":
            yield from super().parse_page(response)
            return
        stats = self.crawler.stats
        stats.inc_value("skill3/pages_fetched")
        stats.inc_value(f"skill3/discovery/{info['discovery']}")
        if not isinstance(response, TextResponse):
            self._drop("not_text")
            return
        ctype = response.headers.get(b"Content-Type", b"").decode("latin-1").lower()
        path = urlsplit(response.url).path.lower()
        if "html" in ctype:
            html = response.text
            yield from self.follow_links(response)  # breadth-first: links are queued before the item is processed
        elif "markdown" in ctype or "text/plain" in ctype or path.endswith((".md", ".txt")):
            html = markdown_to_html(response.text, info.get("title") or "")
        else:
            self._drop("not_html")
            return
        primary, aliases = self._canonical_keys(response)
        fresh = self.docs_state.add_canonical(primary)
        for key in aliases:
            self.docs_state.add_canonical(key)
        if not fresh:
            self._drop("canonical_duplicate")
            return
        from skill3crawl.spiders.learn import _headers

        yield self._item(info["url"], response.url, html, _headers(response), info["discovery"], info["query"],
                         lastmod=info.get("lastmod"), title_hint=info.get("title") or "")
