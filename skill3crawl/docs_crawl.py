"""Docs mode as a spider mixin: sitemap-first, then llms.txt, then in-prefix links, breadth-first.

Used by the ``docs`` spider (and by ``learn`` when it crawls ``start_urls``).
State that must survive ``-s JOBDIR=…`` pause/resume — the page budget and
the canonical URLs already seen — lives in ``spider.state`` (pickled by Scrapy's
SpiderState extension); in a distributed crawl it lives in Redis instead.
"""

from __future__ import annotations

import logging
import os
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlsplit

from scrapy import Request
from scrapy.http import HtmlResponse, TextResponse
from scrapy.linkextractors import LinkExtractor
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.gz import gunzip
from scrapy.utils.sitemap import Sitemap, sitemap_urls_from_robots

from skill3crawl import distributed
from skill3crawl.cpu import run_cpu
from skill3crawl.docs import (
    Scope,
    is_markdown,
    lastmod_date,
    llms_candidates,
    md_variant,
    normalize_url,
    parse_llms_txt,
    sitemap_candidates,
)
from skill3crawl.docs_extract import extract_page
from skill3crawl.progress import Progress
from synth.item import SourceItem
from synth.scoring import authority

logger = logging.getLogger(__name__)

DEFAULT_MAX_PAGES = 200
DEFAULT_DEPTH_LIMIT = 20
HTTPCACHE_SECS = 7 * 24 * 3600
_PRIO = {"robots": 300, "sitemap": 200, "llms": 100, "page": 0}


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


def apply_docs_settings(settings, args: dict) -> None:
    """Docs-mode settings at spider priority (``-s`` on the command line still wins)."""
    prio = "spider"
    settings.set("DEPTH_PRIORITY", 1, priority=prio)
    settings.set("SCHEDULER_DISK_QUEUE", "scrapy.squeues.PickleFifoDiskQueue", priority=prio)
    settings.set("SCHEDULER_MEMORY_QUEUE", "scrapy.squeues.FifoMemoryQueue", priority=prio)
    settings.set("DEPTH_LIMIT", 0, priority=prio)  # the link depth below is what is limited
    settings.set("HTTPCACHE_ENABLED", True, priority=prio)
    settings.set("HTTPCACHE_EXPIRATION_SECS", HTTPCACHE_SECS, priority=prio)
    settings.setdefault_in_component_priority_dict("EXTENSIONS", Progress, 500)


def resuming(settings) -> bool:
    jobdir = settings.get("JOBDIR")
    return bool(jobdir) and Path(jobdir, "spider.state").exists()


def configure_feed(settings, output_dir: str, role: str, wid: str) -> str:
    """One feed per process: ``run.jsonl`` (planner / single machine) or ``run-<worker_id>.jsonl``.

    Overwritten on a fresh run; appended to when ``JOBDIR`` holds a paused crawl, so
    after a resume the feed holds every page of the whole crawl exactly once.
    """
    name = distributed.feed_name(role, wid) if distributed.redis_enabled(settings) else "run.jsonl"
    path = Path(output_dir) / name
    feeds = dict(settings.getdict("FEEDS"))
    feeds[str(path)] = {"format": "jsonlines", "encoding": "utf-8", "overwrite": not resuming(settings)}
    settings.set("FEEDS", feeds, priority="spider")
    return str(path)


def _int_arg(args: dict, name: str, default: int) -> int:
    raw = args.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an integer (got {raw!r})") from None
    if value < 1:
        raise ValueError(f"{name} must be ≥1 (got {value})")
    return value


def _list_arg(value) -> list[str]:
    if not value:
        return []
    if isinstance(value, (list, tuple)):
        return [v.strip() for v in value if v and v.strip()]
    return [v.strip() for v in str(value).split(",") if v.strip()]


class DocsCrawlMixin:
    """The docs-mode crawl; the host spider provides ``topic`` and item bookkeeping."""

    link_extractor = LinkExtractor(deny_extensions=[], unique=True)

    def setup_docs(self, start_urls, max_pages=None, sitemap_filter=None, locales="skip", depth_limit=None) -> None:
        urls = _list_arg(start_urls)
        if not urls:
            raise ValueError("start_urls: at least one URL is required in docs mode")
        filters = _list_arg(sitemap_filter)
        skip = str(locales or "skip").lower() not in ("keep", "all", "0", "false")
        self.scopes = [Scope.from_start_url(u, filters, skip) for u in urls]
        self.docs_start_urls = urls
        self.max_pages = _int_arg({"max_pages": max_pages}, "max_pages", DEFAULT_MAX_PAGES)
        # link hops from a start URL, a sitemap or llms.txt entry (those pages are hop 0)
        self.depth_limit = _int_arg({"depth_limit": depth_limit}, "depth_limit", DEFAULT_DEPTH_LIMIT)
        self.authoritative_hosts = sorted({s.host().split(":")[0] for s in self.scopes})

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

    def page_request(self, url: str, discovery: str, **meta) -> Request | None:
        """A request for a page, or None (out of scope, already claimed, over budget)."""
        url = url.split("#", 1)[0]
        scope, why = self._scope_for(url)
        if scope is None:
            self._drop(why)
            return None
        if not self.docs_state.claim_page(normalize_url(url), self.max_pages):
            if self.docs_state.pages_claimed() > self.max_pages:
                self._drop("max_pages")
            return None
        meta.update(skill3_kind="page", skill3_discovery=discovery)
        return Request(url, callback=self.parse_doc, errback=self.doc_failed, meta=meta, priority=_PRIO["page"])

    # -- discovery ----------------------------------------------------------
    def docs_seed_requests(self):
        for scope, url in zip(self.scopes, self.docs_start_urls):
            yield Request(scope.origin + "/robots.txt", callback=self.parse_robots_sitemaps, errback=self.aux_failed,
                          meta={"skill3_kind": "robots", "skill3_scope": scope.origin + scope.prefix}, priority=_PRIO["robots"])
            for llms in llms_candidates(scope):
                yield Request(llms, callback=self.parse_llms, errback=self.aux_failed,
                              meta={"skill3_kind": "llms"}, priority=_PRIO["llms"])
            req = self.page_request(url, "start")
            if req is not None:
                yield req

    def parse_robots_sitemaps(self, response):
        listed = list(sitemap_urls_from_robots(response.body, base_url=response.url)) if isinstance(response, TextResponse) else []
        scope, _ = self._scope_for(response.meta["skill3_scope"])
        for url in sitemap_candidates(scope, listed) if scope else listed:
            yield Request(url, callback=self.parse_sitemap, errback=self.aux_failed,
                          meta={"skill3_kind": "sitemap"}, priority=_PRIO["sitemap"])

    def aux_failed(self, failure):
        self.crawler.stats.inc_value(f"skill3/aux_missing/{failure.request.meta.get('skill3_kind', 'other')}")

    def parse_sitemap(self, response):
        body = response.body
        if response.url.endswith(".gz") or body[:2] == b"\x1f\x8b":
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
        for entry in sitemap:
            loc = entry.get("loc")
            if not loc:
                continue
            if sitemap.type == "sitemapindex":
                if urlsplit(loc).netloc == host:
                    yield Request(loc, callback=self.parse_sitemap, errback=self.aux_failed,
                                  meta={"skill3_kind": "sitemap"}, priority=_PRIO["sitemap"])
            elif sitemap.type == "urlset":
                req = self.page_request(loc, "sitemap", skill3_lastmod=lastmod_date(entry.get("lastmod")))
                if req is not None:
                    yield req

    def parse_llms(self, response):
        if not isinstance(response, TextResponse):
            return
        links = parse_llms_txt(response.text, response.url)
        self.crawler.stats.inc_value("skill3/llms_txt/links", len(links))
        for _, url in links:
            path = urlsplit(url).path
            if path.endswith("llms-full.txt"):
                req = self.page_request(url, "llms.txt")
            elif path.endswith(".md"):
                req = self.page_request(url, "llms.txt")
            else:
                md = md_variant(url)
                scope, _ = self._scope_for(url)
                if scope is None or md is None:
                    req = self.page_request(url, "llms.txt")
                else:
                    # prefer the .md twin; fall back to the HTML page when the site has none
                    req = self.page_request(md, "llms.txt", skill3_html_url=url)
                    if req is not None:
                        req.meta["playwright"] = False
            if req is not None:
                yield req

    def doc_failed(self, failure):
        request = failure.request
        html_url = request.meta.get("skill3_html_url")
        if html_url and failure.check(HttpError):
            self.crawler.stats.inc_value("skill3/llms_txt/md_missing")
            req = self.page_request(html_url, "llms.txt")
            if req is not None:
                yield req
            return
        self._drop("fetch_failed")

    def follow_links(self, response):
        if not isinstance(response, HtmlResponse):
            return
        hops = response.meta.get("skill3_hops", 0) + 1
        if hops > self.depth_limit:
            self._drop("depth_limit")
            return
        for link in self.link_extractor.extract_links(response):
            url = link.url.split("#", 1)[0]
            key = normalize_url(url)
            if isinstance(self.docs_state, LocalState) and key in self.docs_state._s["canonical"]:
                continue
            req = self.page_request(url, "link", skill3_hops=hops)
            if req is not None:
                yield req

    async def parse_doc(self, response):
        meta = response.meta
        for req in self.follow_links(response):
            yield req
        with_dates = self.settings.getbool("SKILL3_DOCS_DATES", True)
        content_type = response.headers.get(b"Content-Type", b"").decode("latin-1")
        data = await run_cpu(self.crawler, extract_page, response.body, response.url, content_type, with_dates)
        canonical = data.get("canonical")
        keys = {normalize_url(response.url), normalize_url(response.request.url)}
        if canonical:
            canon_abs = response.urljoin(canonical)
            if urlsplit(canon_abs).netloc == urlsplit(response.url).netloc:
                keys = {normalize_url(canon_abs)} | keys
        if meta.get("skill3_html_url"):
            keys.add(normalize_url(meta["skill3_html_url"]))
        primary = normalize_url(response.urljoin(canonical)) if canonical else normalize_url(response.url)
        fresh = self.docs_state.add_canonical(primary)
        for key in keys - {primary}:
            self.docs_state.add_canonical(key)
        if not fresh:
            self._drop("canonical_duplicate")
            return
        if not data["excerpts"] and not data["code_blocks"]:
            self._drop("no_content")
            return
        yield self.make_doc_item(response, data)

    def make_doc_item(self, response, data: dict) -> SourceItem:
        published, source = data.get("published"), "htmldate" if data.get("published") else None
        if not published and response.meta.get("skill3_lastmod"):
            published, source = response.meta["skill3_lastmod"], "sitemap_lastmod"
        host = urlsplit(response.url).hostname or ""
        weight, reason = authority(host, self.authoritative_hosts)
        return SourceItem(
            url=response.meta.get("skill3_html_url") or response.request.url,
            final_url=response.url,
            host=host,
            title=data.get("title") or "",
            topic=getattr(self, "topic", "") or "",
            cutoff=getattr(self, "cutoff", "") or "",
            fetched_at=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            published=published,
            modified=data.get("modified") or response.meta.get("skill3_lastmod"),
            date_source=source,
            discovery=response.meta.get("skill3_discovery", "link"),
            authority=weight,
            authority_reason=reason,
            excerpts=data["excerpts"],
            code_blocks=data["code_blocks"],
            content_hash=data["content_hash"],
        )


def default_output_dir(topic: str) -> str:
    import re

    slug = re.sub(r"[^a-z0-9]+", "-", (topic or "docs").lower()).strip("-") or "docs"
    return os.path.join("output", slug)
