"""The one launch of a skill3 crawl, behind both ``scrapy crawl learn|docs`` and ``skill3 learn``.

* :func:`argument_problem` — the spider arguments checked before Scrapy starts
  (:func:`~skill3crawl.args.checked_args`: one line naming the problem; the callers exit
  ``ExitCode.USAGE``, 2);
* :func:`hold_output_dir` — one run at a time in an output folder (another run there: exit 2);
* :func:`setting_overrides` and :func:`project_settings` — ``-s NAME=VALUE`` at Scrapy's
  ``cmdline`` priority over the project's settings;
* :func:`process_class` / :func:`crawler_process` — the process ``scrapy crawl`` itself would use;
* :func:`run_spider` — create the crawler, crawl, and read the outcome: the exit code
  (:func:`~skill3crawl.extensions.crawl_exit_code`), whether a signal stopped it, and the
  lines that report it (the chosen package, the closing summary).
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from scrapy import Spider
from scrapy.crawler import AsyncCrawlerProcess, Crawler, CrawlerProcess, CrawlerProcessBase
from scrapy.settings import BaseSettings, Settings
from scrapy.spiderloader import get_spider_loader
from scrapy.utils.project import get_project_settings

from skill3crawl.args import ArgsError, checked_args
from synth.core.errors import (
    ExitCode,
    SettingError,  # noqa: F401 - defined with every error (synth.core.errors)
    )

ASYNCIO_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
_SETTING_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


# ------------------------------------------------------------------ arguments
def takes_skill3_args(spidercls: type[Spider]) -> bool:
    """Whether the spider reads its ``-a`` arguments through :class:`~skill3crawl.args.LearnArgs`."""
    from skill3crawl.spiders.learn import LearnSpider

    return isinstance(spidercls, type) and issubclass(spidercls, LearnSpider)


def argument_problem(spidercls: type[Spider], spider_kwargs: Mapping[str, Any]) -> str | None:
    """One line for the first problem with a skill3 spider's arguments, else ``None``.

    Spiders that do not take skill3's arguments, and workers of a distributed crawl (their
    arguments come from Redis), are not checked here: the spider reports their problems."""
    if not takes_skill3_args(spidercls) or spider_kwargs.get("role") == "worker":
        return None
    try:
        args = checked_args(dict(spider_kwargs), docs=bool(getattr(spidercls, "docs_defaults", False)))
    except ArgsError as exc:
        return str(exc)
    return args.model_problem()  # an explicitly chosen model that does not answer: before anything is fetched


def hold_output_dir(spidercls: type[Spider], spider_kwargs: Mapping[str, Any]) -> str | None:
    """Take the output folder of a skill3 spider's run for this process (released when it ends), or one line
    naming the folder when another run holds it. Workers of a distributed crawl write their own feed
    beside the planner's and take none."""
    if not takes_skill3_args(spidercls) or spider_kwargs.get("role") == "worker":
        return None
    from skill3crawl.args import output_dir_of
    from synth.output.outdir import OutputDirLocked, lock_output_dir

    try:
        lock_output_dir(output_dir_of(dict(spider_kwargs), docs=bool(getattr(spidercls, "docs_defaults", False))))
    except OutputDirLocked as exc:
        return str(exc)
    except (ArgsError, OSError):  # the argument check names these
        return None
    return None


# ------------------------------------------------------------------- settings
def setting_overrides(pairs: Iterable[str]) -> dict[str, str]:
    """``-s NAME=VALUE`` options → ``{NAME: VALUE}`` (a later one wins, as in ``scrapy crawl``);
    a malformed one raises :class:`SettingError` with one line."""
    overrides: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        name = name.strip()
        if not sep or not _SETTING_NAME.fullmatch(name):
            raise SettingError(f"bad -s value {pair!r}: use -s NAME=VALUE, e.g. -s JOBDIR=crawls/mcp or -s LOG_LEVEL=INFO")
        overrides[name] = value
    return overrides


def project_settings(overrides: Mapping[str, Any] | None = None, *, log_level: str | None = None) -> Settings:
    """skill3crawl's settings (wherever the command runs), ``log_level`` and then ``overrides``
    at the ``cmdline`` priority, so ``-s LOG_LEVEL=…`` still wins over ``log_level``."""
    os.environ.setdefault("SCRAPY_SETTINGS_MODULE", "skill3crawl.settings")
    settings = get_project_settings()
    if log_level:
        settings.set("LOG_LEVEL", log_level, priority="cmdline")
    settings.setdict(dict(overrides or {}), priority="cmdline")
    return settings


def spider_class(settings: BaseSettings, name: str) -> type[Spider]:
    """The project's spider called ``name`` (:class:`KeyError` when there is none)."""
    return get_spider_loader(settings).load(name)


def process_class(settings: BaseSettings) -> type[CrawlerProcess] | type[AsyncCrawlerProcess]:
    """The process class ``scrapy crawl`` would run the crawl in (``scrapy.cmdline``'s choice)."""
    asyncio = settings.get("TWISTED_REACTOR") == ASYNCIO_REACTOR and not settings.getbool("FORCE_CRAWLER_PROCESS")
    if asyncio or not settings.getbool("TWISTED_REACTOR_ENABLED", True):
        return AsyncCrawlerProcess
    return CrawlerProcess


def crawler_process(settings: Settings) -> CrawlerProcess | AsyncCrawlerProcess:
    """A crawler process for ``settings`` (it sets up logging and, when started, the reactor)."""
    return process_class(settings)(settings)


# ------------------------------------------------------------------------ run
@dataclass(frozen=True)
class CrawlOutcome:
    """What a finished crawl process tells its caller."""

    exit_code: ExitCode
    interrupted: bool = False  # a signal stopped it (a paused JOBDIR crawl too): nothing to synthesise yet
    package: str | None = None  # "'fastapi' is the package pypi:fastapi (…)"
    summary: str | None = None  # the crawl's closing summary line; None when it fetched nothing
    today: str | None = None  # the crawl's day (SKILL3_TODAY, else the UTC date): its synthesis uses the same

    @property
    def complete(self) -> bool:
        """The crawl finished (exit 0, not stopped): its feed is whole and can be synthesised."""
        return self.exit_code == 0 and not self.interrupted

    def report_lines(self) -> list[str]:
        """The lines ``skill3 learn`` prints after the crawl."""
        lines = [f"skill3: {self.package}"] if self.package else []
        return lines + ([self.summary] if self.summary else [])


def package_line(topic: str, package: Mapping[str, Any]) -> str | None:
    """The line ``skill3 learn`` prints about the registry package the topic is, or None: no package, or one the crawl
    did not use (start URLs or hosts were given and its registry links name none of them: another project)."""
    if not package.get("chosen") or str(package.get("use") or "").startswith("not used"):
        return None
    return f"{topic!r} is the package {package['chosen']} ({package['reason']})"


def crawl_outcome(crawler: Crawler) -> CrawlOutcome:
    """Read a finished crawler: its exit code, whether it was stopped, the package and the summary."""
    from skill3crawl.crawl_record import get_state
    from skill3crawl.extensions import crawl_exit_code, summary_figures, summary_line

    code = crawl_exit_code(crawler)
    args = getattr(crawler.spider, "args", None)
    stats = crawler.stats
    if args is None or stats is None:  # bad arguments or no spider: nothing ran
        return CrawlOutcome(code)
    state = get_state(crawler)
    chosen = package_line(args.topic, state.package or {})
    values = stats.get_stats()
    # Nothing fetched (e.g. nothing found for the topic): the crawl's own error line says it all.
    summary = summary_line(summary_figures(values)) if values.get("skill3/pages_fetched") is not None else None
    return CrawlOutcome(code, interrupted=state.interrupted, package=chosen, summary=summary, today=state.today.isoformat())


def run_spider(process: CrawlerProcessBase, spider: str | type[Spider],
               spider_kwargs: Mapping[str, Any], *, crawler: Crawler | None = None) -> CrawlOutcome:
    """Run one spider in ``process`` to its end (Ctrl-C as in ``scrapy crawl``) → its outcome.

    ``crawler``: one the caller already created from ``process`` (``scrapy crawl`` connects its own
    signals to it)."""
    crawler = crawler or process.create_crawler(spider)
    process.crawl(crawler, **spider_kwargs)
    process.start()
    if process.bootstrap_failed:
        return CrawlOutcome(ExitCode.FAILURE)
    return crawl_outcome(crawler)


# ------------------------------------------------------------------ the console
# The settings that say how the crawl logs: one given (`-s LOG_LEVEL=INFO`, SKILL3_LOG_LEVEL) means Scrapy's own log
# format; none given (`skill3 learn`'s default) means one console of `skill3: warning: …` lines.
LOGGING_SETTINGS = ("LOG_LEVEL", "LOG_FORMAT", "LOG_FILE", "LOG_ENABLED", "LOG_STDOUT", "LOG_DATEFORMAT")


class ConsoleFormatter(logging.Formatter):
    """A log record as one ``skill3: warning: …`` line, like every other message of ``skill3 learn``: the level in
    lower case, the message's own ``skill3:`` prefix not repeated, only its first line (a traceback is named by its
    exception, not printed), control characters escaped."""

    def format(self, record: logging.LogRecord) -> str:
        from synth.core.console import printable

        message = record.getMessage()
        message = message[len("skill3: "):] if message.startswith("skill3: ") else message
        first, _, rest = message.partition("\n")
        if rest.strip():
            first += f" (+{rest.count(chr(10)) + 1} more line(s))"
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            first += f": {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}".rstrip(": ")
        return f"skill3: {record.levelname.lower()}: {printable(first)}"


def uses_scrapy_logging(overrides: Mapping[str, Any]) -> bool:
    """Whether the user chose how the crawl logs (a ``-s LOG_*`` setting or ``SKILL3_LOG_LEVEL``): then Scrapy's
    log format applies, else :func:`console_logging`'s lines."""
    return bool(os.environ.get("SKILL3_LOG_LEVEL")) or any(name in overrides for name in LOGGING_SETTINGS)


class console_logging:  # noqa: N801 (a context manager used as a statement)
    """While it is entered: Scrapy's own log handler off (``LOG_ENABLED`` false in ``settings``) and one handler on
    stderr writing :class:`ConsoleFormatter` lines at WARNING and above."""

    def __init__(self, settings: Settings, level: int = logging.WARNING) -> None:
        settings.set("LOG_ENABLED", False, priority="cmdline")
        self.handler = logging.StreamHandler()
        self.handler.setLevel(level)
        self.handler.setFormatter(ConsoleFormatter())

    def __enter__(self) -> "console_logging":
        logging.root.addHandler(self.handler)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.root.removeHandler(self.handler)


def log_shows_info(settings: BaseSettings) -> bool:
    """Whether the crawl's INFO lines (the package chosen, the summary) reach the console."""
    if not settings.getbool("LOG_ENABLED", True) or settings.get("LOG_FILE"):
        return False
    level = settings.get("LOG_LEVEL", "DEBUG")
    number = level if isinstance(level, int) else logging.getLevelName(str(level).upper())
    return isinstance(number, int) and number <= logging.INFO
