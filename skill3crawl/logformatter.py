"""Log lines that name the page, never dump it: items carry untrusted page text. URLs in any log line
(Scrapy's "Crawled", "Redirecting", "Retrying", errors) are logged with their credentials redacted."""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any, Callable

from scrapy import logformatter

from synth.vet.redact import redact_urls

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.http import Response
    from scrapy.logformatter import LogFormatterResult
    from twisted.python.failure import Failure

# a URL that can carry a credential: user:password@ in its authority, or a query
_URL_WITH_SECRET_ROOM = re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://(?:[^\s/?#@<>'\"]*@[^\s<>'\"]*|[^\s?#<>'\"]*\?[^\s<>'\"]+)")


def redact_record(record: logging.LogRecord) -> logging.LogRecord:
    """A record whose message names a URL with a user:password part or a query, with that URL
    redacted like a source URL (``https://REDACTED@host/``, ``?access_token=REDACTED``)."""
    try:
        message = record.getMessage()
    except Exception:  # noqa: BLE001 - a broken record is the logging module's to report
        return record
    if "://" in message:
        redacted = _URL_WITH_SECRET_ROOM.sub(lambda m: redact_urls(m.group(0))[0][0], message)
        if redacted != message:
            record.msg, record.args = redacted, ()
    return record


def _redacting(factory: Callable[..., logging.LogRecord]) -> Callable[..., logging.LogRecord]:
    def make(*args: Any, **kwargs: Any) -> logging.LogRecord:
        return redact_record(factory(*args, **kwargs))

    setattr(make, "skill3_redacting", True)  # a marker on the function: installed once
    return make


class LogRedaction:
    """Extension: every log record, whichever handler Scrapy (re)installs, is made by a record factory
    that passes it through :func:`redact_record`."""

    def __init__(self) -> None:
        factory = logging.getLogRecordFactory()
        if not getattr(factory, "skill3_redacting", False):
            logging.setLogRecordFactory(_redacting(factory))

    @classmethod
    def from_crawler(cls, crawler: Any) -> "LogRedaction":
        return cls()


class Skill3LogFormatter(logformatter.LogFormatter):
    def dropped(self, item: Any, exception: BaseException, response: Response | Failure | None,
                spider: Spider | None = None) -> LogFormatterResult:
        return {
            "level": logging.DEBUG,
            "msg": "Dropped %(reason)s",
            "args": {"reason": str(exception)[:300]},
        }

    def scraped(self, item: Any, response: Response | Failure | None, spider: Spider | None = None) -> LogFormatterResult:
        return {
            "level": logging.DEBUG,
            "msg": "Scraped %(url)s",
            "args": {"url": getattr(item, "url", "?")},
        }
