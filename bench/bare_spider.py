"""The bare-Scrapy row of ``bench/bench_crawl.py``: Scrapy's defaults, no project, no pipelines; every page's
in-prefix links followed through ``LinkExtractor`` (on the crawler's thread, as a plain Scrapy spider does).

    scrapy runspider bench/bare_spider.py -a start_url=http://127.0.0.1:PORT/index.html
"""

from __future__ import annotations

from typing import Any, Iterator
from urllib.parse import urldefrag

import scrapy
from scrapy.linkextractors import LinkExtractor


class BareSpider(scrapy.Spider):
    name = "bare"

    def __init__(self, start_url: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start_urls = [start_url]
        self.prefix = start_url.rsplit("/", 1)[0] + "/"
        self.links = LinkExtractor()

    def parse(self, response: Any) -> Iterator[scrapy.Request]:
        self.crawler.stats.inc_value("skill3/pages_fetched")
        if not isinstance(response, scrapy.http.HtmlResponse):
            return
        for link in self.links.extract_links(response):
            url = urldefrag(link.url).url
            if url.startswith(self.prefix):
                yield scrapy.Request(url, callback=self.parse)
