"""Log lines that name the page, never dump it: items carry untrusted page text."""

from __future__ import annotations

import logging

from scrapy import logformatter


class Skill3LogFormatter(logformatter.LogFormatter):
    def dropped(self, item, exception, response, spider=None):
        return {
            "level": logging.DEBUG,
            "msg": "Dropped %(reason)s",
            "args": {"reason": str(exception)[:300]},
        }

    def scraped(self, item, response, spider=None):
        return {
            "level": logging.DEBUG,
            "msg": "Scraped %(url)s",
            "args": {"url": getattr(item, "url", "?")},
        }
