"""``scrapy crawl docs -a start_urls=https://docs.example.org/guide/`` — a whole documentation site.

Arguments: ``start_urls`` (comma-separated, required for the planner), ``topic``
(default: the first start URL's host), ``max_pages`` (default 200), ``depth_limit``
(default 20), ``sitemap_filter`` (comma-separated path prefixes), ``locales``
(``skip`` default, or ``keep``), ``output_dir`` (default ``output/<topic>``),
``role`` (``planner`` default, or ``worker`` with ``-s SKILL3_REDIS_URL``),
``worker_id``. Writes ``<output_dir>/run.jsonl`` (see :mod:`skill3crawl.distributed`
for the per-worker feeds).
"""

from __future__ import annotations

from urllib.parse import urlsplit

import scrapy

from skill3crawl import distributed
from skill3crawl.docs_crawl import DocsCrawlMixin, apply_docs_settings, configure_feed, default_output_dir

SPIDER_ARGS = ("topic", "start_urls", "max_pages", "depth_limit", "sitemap_filter", "locales", "output_dir", "cutoff")


class DocsSpider(DocsCrawlMixin, scrapy.Spider):
    name = "docs"

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        settings = crawler.settings
        role = distributed.check_role(kwargs.get("role"))
        if role == "worker":
            if not distributed.redis_enabled(settings):
                raise ValueError("role=worker needs -s SKILL3_REDIS_URL=redis://…")
            shared = distributed.load_config(settings, cls.name, settings.getfloat("MAX_IDLE_TIME_BEFORE_CLOSE", 60.0) or 60.0)
            kwargs = {**shared, **{k: v for k, v in kwargs.items() if k not in shared or k in ("role", "worker_id")}}
        elif distributed.redis_enabled(settings):
            distributed.publish_config(settings, cls.name, {k: kwargs[k] for k in SPIDER_ARGS if k in kwargs})
        kwargs["role"] = role
        spider = super().from_crawler(crawler, *args, **kwargs)
        apply_docs_settings(settings, kwargs)
        spider.feed_path = configure_feed(settings, spider.output_dir, role, spider.worker_id)
        return spider

    def __init__(self, start_urls=None, topic=None, max_pages=None, depth_limit=None, sitemap_filter=None,
                 locales="skip", output_dir=None, role="planner", worker_id=None, cutoff="", **kwargs):
        super().__init__(**kwargs)
        self.role = distributed.check_role(role)
        self.worker_id = distributed.worker_id(worker_id)
        self.setup_docs(start_urls, max_pages, sitemap_filter, locales, depth_limit)
        self.topic = topic or urlsplit(self.docs_start_urls[0]).hostname
        self.cutoff = cutoff or ""
        self.output_dir = output_dir or default_output_dir(self.topic)
        self.state = {}  # replaced by the saved state when JOBDIR holds one

    async def start(self):
        if self.role == "worker":
            return  # workers never plan or seed: they consume the shared queue
        for request in self.docs_seed_requests():
            yield request
