"""``scrapy crawl docs -a start_urls=https://docs.example.org/guide/`` — the ``learn`` crawl with docs defaults.

The same spider as ``learn`` (arguments, items, pipelines, feed, exit codes,
docs-mode discovery, ``-a role=worker`` with ``-s SKILL3_REDIS_URL=…``), except
that ``start_urls`` is required (``-a authoritative=HOSTS`` stands in: each host
is crawled from its root), ``topic`` defaults to the first start URL's host,
the start URLs' hosts are authoritative unless ``authoritative`` is given, and
authoritative hosts are never crawled beyond the start URLs.
"""

from __future__ import annotations

from skill3crawl.spiders.learn import LearnSpider


class DocsSpider(LearnSpider):
    name = "docs"
    docs_defaults = True
    crawl_authoritative_roots = False
