"""Extensions: the crawl's closing summary + crawl.json, and the synthesis trigger.

On ``feed_exporter_closed`` (run.jsonl fully stored) :class:`CrawlOutput`
removes superseded duplicates from run.jsonl and records agreeing URLs, logs
the summary line, puts the figures in the stats, writes ``crawl.json`` and then
sends :data:`output_ready`; :class:`SynthTrigger` answers that by calling
``SKILL3_SYNTH_FUNCTION`` (``synth.pipeline.run.run_synth``, loaded lazily) with the spider arguments'
``SynthOptions`` unless ``synth=0``. Both files are replaced atomically (:mod:`synth.output.writing`).
"""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from scrapy import signals
from scrapy.utils.misc import load_object

from skill3crawl.crawl_record import get_state
from synth.core import default_settings
from synth.core.errors import ExitCode
from synth.output.writing import atomic_open, atomic_write_text

logger = logging.getLogger(__name__)

output_ready = object()  # signal: run.jsonl and crawl.json are complete
# SKILL3_SYNTH_FUNCTION: called when the feed closes (unless -a synth=0): run_synth(SynthOptions) -> SynthResult.
SYNTH_FUNCTION = default_settings.SKILL3_SYNTH_FUNCTION


def rewrite_feed(path: Path, superseded: set[str], agreeing: dict[str, list[str]], dedupe: bool = False,
                 inherit: dict[str, dict[str, Any]] | None = None) -> int:
    """Drop superseded lines, add agreeing URLs to kept ones (streaming, replaced atomically); → lines written.

    ``dedupe`` (a crawl resumed after a kill, whose pages in flight were fetched again): only the first
    line of a URL is kept, and a line cut short by the kill is dropped. ``inherit``: the pages nested in a chapter
    that states their release (page key → ``{version, date, title}``, :func:`skill3crawl.crawl_record.note_chapter`): such a
    page without change entries of its own gets its blocks as entries of that release (:func:`inherit_release`)."""
    if not path.exists():
        return 0
    written = 0
    if not superseded and not agreeing and not dedupe and not inherit:
        with path.open("rb") as fh:
            return sum(1 for line in fh if line.strip())
    seen: set[str] = set()
    with atomic_open(path) as out, path.open(encoding="utf-8") as src:
        for line in src:
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except ValueError:
                if dedupe:
                    continue
                raise
            url = item.get("url")
            if url in superseded or (dedupe and url in seen):
                continue
            seen.add(url)
            extra = agreeing.get(url)
            changed = inherit_release(item, inherit) if inherit else False
            if extra:
                item["agreeing_urls"] = list(dict.fromkeys([*item.get("agreeing_urls", []), *extra]))
            if extra or changed:
                line = json.dumps(item, ensure_ascii=False) + "\n"
            out.write(line if line.endswith("\n") else line + "\n")
            written += 1
    return written


def inherit_release(item: dict[str, Any], inherit: dict[str, dict[str, Any]]) -> bool:
    """A page nested in a chapter that states its release (:mod:`skill3crawl.extract.versions.chapters`), without
    change entries of its own of that release or a later one (a sentence recalling an older version, "Since 1.51.0,
    an opt-in …", is the page's history, not its release): its blocks become that release's entries (after its own
    older ones) and it a change page about it. → changed."""
    from skill3crawl.extract.versions.chapters import chapter_key, inherited_changes
    from synth.delta.versions import parse_version

    got = next((inherit[k] for u in (item.get("final_url"), item.get("url")) if isinstance(u, str)
                and (k := chapter_key(u)) in inherit), None)
    if got is None:
        return False
    release = parse_version(got["version"])
    own = item.get("changes") or []
    if release is None or any((v := parse_version(c.get("version"))) is None or v >= release for c in own):
        return False
    changes = inherited_changes(item.get("excerpts") or [], got["version"], got.get("date"), got.get("title") or "")
    if not changes:
        return False
    item["changes"], item["page_kind"], item["page_version"] = own + changes, "change", got["version"]
    return True


def summary_figures(stats: dict[str, Any]) -> dict[str, Any]:
    dropped = {k.rsplit("/", 1)[1]: v for k, v in stats.items() if k.startswith("skill3/dropped/")}
    failed = {k.rsplit("/", 1)[1]: v for k, v in stats.items() if k.startswith("skill3/failed/")}
    return {
        "pages_fetched": stats.get("skill3/pages_fetched", 0),
        "robots_denied": stats.get("robotstxt/forbidden", 0),
        "robots_unavailable": stats.get("skill3/robots_unavailable", 0),  # hosts whose robots.txt answered 5xx: disallowed
        "network_guard_blocked": stats.get("skill3/netguard/blocked", 0),
        "dropped": dict(sorted(dropped.items())),
        "failed": dict(sorted(failed.items())),
        "items_written": stats.get("skill3/items_written", 0),
        # change-record candidates (sitecrawl.order.change_candidate) the page budget left unfetched, at most 100 named
        "unreached_change_records": list(stats.get("skill3/reach/unreached_change_records") or []),
        "unreached_change_records_count": stats.get("skill3/reach/unreached_change_records_count", 0),
        # refresh (synth.agents.refresh): conditional requests answered 304 (revalidate), refetched (invalidate) ...
        "httpcache": {k.split("/", 1)[1]: v for k, v in sorted(stats.items()) if k.startswith("httpcache/")},
    }


def summary_line(fig: dict[str, Any]) -> str:
    dropped = ", ".join(f"{k} {v}" for k, v in fig["dropped"].items()) or "none"
    return (
        f"skill3 crawl summary: pages fetched {fig['pages_fetched']}, robots-denied {fig['robots_denied']}, "
        f"blocked by network guard {fig['network_guard_blocked']}, dropped {sum(fig['dropped'].values())} ({dropped}), "
        f"failed {sum(fig['failed'].values())}, items written {fig['items_written']}"
    )


def resumable(settings: Any) -> bool:
    """A stopped crawl continues later: its queue is kept in JOBDIR or in Redis (a distributed crawl)."""
    from skill3crawl.distributed import redis_enabled

    return bool(settings.get("JOBDIR")) or redis_enabled(settings)


def crawl_exit_code(crawler: Any) -> ExitCode:
    """The crawl's exit code: its own (``skill3/exit_code``); 130 when a signal stopped it (a paused
    ``JOBDIR`` crawl excepted) or the process stopped before the spider closed (a second Ctrl-C).
    The feed's lines written so far stay in every case."""
    stats = crawler.stats
    if stats is None:
        return ExitCode.FAILURE
    code = ExitCode(int(stats.get_value("skill3/exit_code") or 0))
    if getattr(crawler.spider, "args", None) is None and code:
        return code
    reason = stats.get_value("finish_reason")
    if reason is None and crawler.spider is not None and getattr(crawler.spider, "args", None) is not None:
        logger.error("skill3: crawl stopped before it could close: the items already in run.jsonl are kept; "
                     "crawl.json was not written")
        return ExitCode.INTERRUPTED
    if reason == "shutdown" and not resumable(crawler.settings):
        return code or ExitCode.INTERRUPTED
    return code


def _count_lines(path: Path) -> int:
    try:
        with open(path, "rb") as fh:
            return sum(1 for line in fh if line.strip())
    except OSError:
        return 0


class CrawlOutput:
    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler
        self.done = False
        crawler.signals.connect(self.feed_closed, signal=signals.feed_exporter_closed)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Any) -> "CrawlOutput":
        return cls(crawler)

    def spider_closed(self, spider: Any, reason: str) -> None:
        self.reason = reason
        if getattr(spider, "args", None) is None:
            logger.info("skill3 crawl summary: not run (bad arguments)")

    def feed_closed(self) -> None:
        spider = self.crawler.spider
        args = getattr(spider, "args", None)
        if args is None or self.done:
            return
        self.done = True
        state = get_state(self.crawler)
        stats = self.crawler.stats
        try:
            if state.write_failed:  # the feed holds the whole lines written before the failure: kept as they are
                written = _count_lines(args.feed_path)
            else:
                written = rewrite_feed(args.feed_path, state.superseded, state.agreeing,
                                       dedupe=getattr(self.crawler, "_skill3_recovered", False), inherit=state.chapter_pages)
        except OSError as exc:  # the disk filled at the end: the feed is left as it was (the rewrite is atomic)
            state.write_failed = f"{exc.strerror or exc}: {args.feed_path}"
            logger.error("skill3: rewriting %s failed (%s): its items are kept as written, nothing is synthesized; "
                         "free space and run again", args.feed_path, exc.strerror or exc)
            written = _count_lines(args.feed_path)
        if state.write_failed:
            state.exit_code = ExitCode.FAILURE
            stats.set_value("skill3/exit_code", 1)
        stats.set_value("skill3/items_written", written)
        stats.set_value("skill3/robots_denied", stats.get_value("robotstxt/forbidden", 0))
        fig = summary_figures(stats.get_stats())
        logger.info(summary_line(fig))
        reason = getattr(self, "reason", None) or stats.get_value("finish_reason")
        if reason == "shutdown":  # Ctrl-C / SIGTERM: what was written is kept, nothing is synthesized
            state.interrupted = True
            if resumable(self.crawler.settings):
                logger.warning("skill3: crawl paused: %d item(s) kept in %s; run the same command again to resume",
                               written, args.feed_path)
            else:
                logger.warning("skill3: crawl interrupted: %d item(s) kept in %s (not synthesized); "
                               "pass -s JOBDIR=DIR to make a crawl resumable", written, args.feed_path)
                state.exit_code = ExitCode.INTERRUPTED
                stats.set_value("skill3/exit_code", int(ExitCode.INTERRUPTED))
        elif written == 0 and state.exit_code == 0:
            logger.error("skill3: no usable sources were written to %s", args.feed_path)
            state.exit_code = ExitCode.FAILURE
            stats.set_value("skill3/exit_code", int(ExitCode.FAILURE))
        crawl = {
            "topic": args.topic,
            "slug": args.slug,
            **args.scope.crawl_json(),  # the cutoff, target model and since-version as resolved: synthesis reads them
            "today": state.today.isoformat(),
            "queries": state.queries,
            "planner": state.planner,
            "discovery": state.discovery,
            "args": args.public_dict(),
            "feed": str(args.feed_path),
            "started_at": state.started_at,
            "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "finish_reason": reason,
            "summary": fig,
            "duplicates": state.agreeing,
            "dropped_items": state.dropped,  # the first pages dropped, by URL and reason (all counted in summary)
            "timeline": state.site_dates.timeline_list(),
            "build_dated_hosts": state.site_dates.build_dated_hosts(),
            "chapters": state.chapters,  # pages stating the release of the pages nested under them
        }
        from skill3crawl.discovery.official import add_to_crawl_json

        add_to_crawl_json(crawl, state)  # official sources, the chosen package, release timeline (merged)
        path = Path(args.output_dir) / "crawl.json"
        try:
            atomic_write_text(path, json.dumps(crawl, indent=2, ensure_ascii=False) + "\n")
        except OSError as exc:  # one line; the previous crawl.json stays whole, nothing is synthesized
            if state.write_failed:  # the feed's failure was the line: this one follows from it
                logger.info("skill3: %s not written either (%s)", path, exc.strerror or exc)
            else:
                logger.error("skill3: writing %s failed (%s): nothing is synthesized; free space and run again", path,
                             exc.strerror or exc)
            state.write_failed = state.write_failed or f"{exc.strerror or exc}: {path}"
            state.exit_code = ExitCode.FAILURE
            stats.set_value("skill3/exit_code", 1)
        self.crawler.signals.send_catch_log(output_ready, crawler=self.crawler)


class StartItemsClose:
    """Lets a crawl whose items come from ``Spider.start()`` (the corpus) close.

    Scrapy 2.19 re-checks whether a closing spider's scraper is idle only when a
    *response* finishes (scrapy/scrapy#7029): once the close began — Ctrl-C, a
    CLOSESPIDER_* limit — the items sent straight from ``start()`` that finish
    later never let it complete, and the crawl hangs. Once such items exist,
    this re-runs that check every ``interval`` seconds until the spider closes.
    """

    interval = 0.1

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler
        self.loop: Any = None
        crawler.signals.connect(self.item_done, signal=signals.item_scraped)
        crawler.signals.connect(self.item_done, signal=signals.item_dropped)
        crawler.signals.connect(self.item_done, signal=signals.item_error)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Any) -> "StartItemsClose":
        return cls(crawler)

    def item_done(self, item: Any = None, response: Any = None, **kwargs: Any) -> None:
        if response is None and self.loop is None:
            from twisted.internet.task import LoopingCall

            self.loop = LoopingCall(self.check)
            self.loop.start(self.interval, now=False)

    def check(self) -> None:
        scraper = getattr(self.crawler.engine, "scraper", None)
        slot = getattr(scraper, "slot", None)
        if slot is not None and slot.closing is not None and not slot.closing.called and hasattr(scraper, "_check_if_closing"):
            scraper._check_if_closing()  # type: ignore[union-attr]  # hasattr above

    def spider_closed(self, spider: Any = None, reason: str = "") -> None:
        if self.loop is not None and self.loop.running:
            self.loop.stop()


class SynthTrigger:
    """Runs synthesis on the finished feed (``-a synth=1``, the default); records its exit code."""

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler
        crawler.signals.connect(self.output_ready, signal=output_ready)

    @classmethod
    def from_crawler(cls, crawler: Any) -> "SynthTrigger":
        return cls(crawler)

    def output_ready(self, crawler: Any) -> None:
        args = getattr(self.crawler.spider, "args", None)
        state = get_state(self.crawler)
        if args is None or not args.synth or state.exit_code or state.interrupted:
            return
        path = self.crawler.settings.get("SKILL3_SYNTH_FUNCTION", SYNTH_FUNCTION)
        try:
            run_synth = load_object(path)
        except (ImportError, NameError, AttributeError, ValueError):
            logger.warning("skill3: synthesis is not available (%s missing); run.jsonl is the result", path)
            self.crawler.stats.set_value("skill3/synth", "unavailable")
            return
        logger.info("skill3: synthesizing into %s", args.output_dir)
        # the crawl's "today" (SKILL3_TODAY) also bounds synthesis, and "auto" stays what the planner probed;
        # -a fail_on_findings=0 turns the exit-3 gate off
        options = args.synth_options(today=state.today.isoformat(), auto_choice=state.auto_choice)
        try:
            result = run_synth(options)
            result.print_outcome()
            code = result.exit_code
        except Exception as exc:  # a synthesis crash must not lose the crawl; one line, exit 1
            logger.error("skill3: synthesis failed: %s: %s", type(exc).__name__, str(exc).splitlines()[0][:300] if str(exc) else "")
            code = ExitCode.FAILURE
        code = ExitCode(int(code or 0))
        self.crawler.stats.set_value("skill3/synth_exit_code", int(code))
        if code:
            state.exit_code = code
            self.crawler.stats.set_value("skill3/exit_code", int(code))
