"""``scrapy crawl docs -a start_urls=https://docs.example.org/guide/`` — the ``learn`` crawl in docs mode.

Same arguments, items, pipelines, feed and exit codes as ``learn`` (DESIGN §3),
with the direct discovery replaced by docs mode (:mod:`skill3crawl.docs_crawl`)
and these extra arguments: ``depth_limit`` (link hops, default 20),
``sitemap_filter`` (comma-separated path prefixes), ``locales`` (``skip``
default, or ``keep``), ``worker_id``. ``topic`` defaults to the first start
URL's host; the start URLs' hosts are authoritative unless ``authoritative`` is
given. ``-a role=worker`` with ``-s SKILL3_REDIS_URL=…`` joins a distributed
crawl (:mod:`skill3crawl.distributed`).
"""

from __future__ import annotations

from typing import Any

from skill3crawl import distributed
from skill3crawl.args import ArgsError
from skill3crawl.docs_crawl import SHARED_ARGS, DocsCrawlMixin, apply_docs_settings, parse_docs_args, resuming
from skill3crawl.items import EXPORT_FIELDS
from skill3crawl.spiders.learn import LearnSpider


class DocsSpider(DocsCrawlMixin, LearnSpider):
    name = "docs"

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> "DocsSpider":
        settings = crawler.settings
        try:
            role = distributed.check_role(kwargs.get("role"))
            redis = distributed.redis_enabled(settings)
            if role == "worker" and not redis:
                raise ValueError("role=worker needs -s SKILL3_REDIS_URL=redis://…")
            if role == "worker":
                wait = settings.getfloat("MAX_IDLE_TIME_BEFORE_CLOSE", 60.0) or 60.0
                shared = distributed.load_config(settings, cls.name, wait)
                kwargs = {**shared, **kwargs, "synth": "0"}  # workers never synthesize: run `skill3 synth run*.jsonl`
                kwargs.setdefault("worker_id", distributed.worker_id())
            elif redis:
                distributed.publish_config(settings, cls.name, {k: kwargs[k] for k in SHARED_ARGS if k in kwargs})
            kwargs["_feed_name"] = distributed.feed_name(role, kwargs.get("worker_id") or "") if redis else "run.jsonl"
        except ValueError as exc:
            kwargs = {"_error": str(exc)}
        spider = super().from_crawler(crawler, *args, **kwargs)
        a = spider.args
        apply_docs_settings(settings, a)
        if a is not None:
            crawler.settings.set(
                "FEEDS",
                {str(a.feed_path): {"format": "jsonlines", "encoding": "utf-8", "store_empty": True, "fields": EXPORT_FIELDS,
                                    # a resumed JOBDIR crawl appends: the feed then holds the whole crawl, each page once
                                    "overwrite": not resuming(settings)}},
                priority="spider",
            )
        return spider

    def __init__(self, **kwargs: Any):
        error = kwargs.pop("_error", None)
        feed_name = kwargs.pop("_feed_name", "run.jsonl")
        super().__init__()  # learn's bookkeeping; the arguments are parsed here, as DocsArgs
        self.args, self.args_error = None, error
        if error is None:
            try:
                self.args = parse_docs_args(kwargs, feed_name)
                self.setup_docs()
            except (ArgsError, ValueError) as exc:
                self.args, self.args_error = None, str(exc)
        self.state = {}  # replaced by the saved state when JOBDIR holds one

    async def start(self):
        if self.args is not None and self.args.role == "worker":
            return  # workers never plan or seed: they consume the shared queue
        async for request in super().start():
            yield request
