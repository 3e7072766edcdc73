"""The crawl runner behind `scrapy crawl learn|docs` and `skill3 learn`: the argument pre-check, `-s`
settings, the process choice and the outcome read from a finished crawler — no crawl process here
(`test_output_dir.py` keeps one subprocess per entry point for exit 2 + one line end to end)."""

from __future__ import annotations

from pathlib import Path

import pytest
import scrapy
from scrapy.crawler import AsyncCrawlerProcess, Crawler, CrawlerProcess
from scrapy.settings import SETTINGS_PRIORITIES, Settings
from scrapy.statscollectors import MemoryStatsCollector

from skill3crawl import runner
from skill3crawl.args import ArgsError, checked_args
from skill3crawl.crawl_record import get_state
from skill3crawl.spiders.docs import DocsSpider
from skill3crawl.spiders.learn import LearnSpider

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    bad = tmp_path / "bad.txt"
    bad.write_text("=== SOURCE ===\ntitle: x\n\nbody\n")
    blocker = tmp_path / "notes.txt"
    blocker.write_text("the user's file\n")
    return {"bad": str(bad), "blocker": str(blocker), "never": str(tmp_path / "never")}


# The cases the subprocess crawls used to cover, one line each, before anything starts.
BAD = [
    (LearnSpider, {"topic": "mcp", "target_model": "gpt-99"}, "cutoff_time"),
    (LearnSpider, {"topic": "mcp", "cutoff_time": "2026-1x"}, "cutoff_time"),
    (LearnSpider, {"topic": "mcp", "input_file": "{bad}"}, "block 1 has no 'url:'"),
    (LearnSpider, {"topic": "mcp", "max_pages": "many"}, "bad argument max_pages"),
    (LearnSpider, {"topic": "mcp", "package": "maven:x"}, "bad argument package: must look like pypi:NAME"),
    (LearnSpider, {"topic": "mcp", "output_dir": "{blocker}/out"}, "notes.txt is a file"),
    (LearnSpider, {"topic": "mcp", "synth": "1", "llm_provider": "anthropic"}, "set ANTHROPIC_API_KEY"),  # the environment
    (LearnSpider, {"topic": "mcp", "role": "boss"}, "bad argument role"),
    (LearnSpider, {"cutoff_time": "2026-01"}, "missing argument topic"),
    (DocsSpider, {"start_urls": "http://127.0.0.1:9/docs/", "depth_limit": "deep"}, "bad argument depth_limit: must be a whole number of link hops"),
    (DocsSpider, {"start_urls": "http://127.0.0.1:9/docs/", "locales": "some"}, "bad argument locales"),
    (DocsSpider, {"topic": "x"}, "missing argument start_urls"),
]


@pytest.mark.parametrize("spidercls, raw, needle", BAD, ids=[f"{c.name}-{n[:24]}" for c, _, n in BAD])
def test_bad_arguments_are_one_line_before_the_crawl(monkeypatch, files, spidercls, raw, needle) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    kwargs = {"synth": "0", "output_dir": files["never"], **{k: v.format(**files) for k, v in raw.items()}}
    problem = runner.argument_problem(spidercls, kwargs)
    assert problem and needle in problem and "\n" not in problem, problem
    assert not Path(files["never"]).exists()  # the check creates nothing
    assert Path(files["blocker"]).read_text() == "the user's file\n"


@pytest.mark.parametrize(
    "spidercls, raw",
    [
        (LearnSpider, {"topic": "mcp", "input_file": str(REPO / "examples" / "mcp.sources"), "cutoff_time": "2026-01"}),
        (LearnSpider, {"topic": "mcp", "role": "worker", "max_pages": "many"}),  # a worker's arguments come from Redis
        (DocsSpider, {"authoritative": "docs.example.org"}),
        (scrapy.Spider, {"anything": "goes"}),  # not a skill3 spider: Scrapy's own rules
    ],
)
def test_good_or_unchecked_arguments_pass(spidercls, raw, tmp_path) -> None:
    assert runner.argument_problem(spidercls, {"output_dir": str(tmp_path / "o"), **raw}) is None


def test_checked_args_are_what_the_spider_reads(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    args = checked_args({"topic": "Café Tips", "synth": "0"})
    assert args.output_dir == str(Path("output") / "café-tips") == LearnSpider(topic="Café Tips", synth="0").args.output_dir
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ArgsError, match="ANTHROPIC_API_KEY"):
        checked_args({"topic": "t", "llm_provider": "anthropic"})


def test_a_worker_without_redis_is_the_spiders_one_line(monkeypatch) -> None:
    """The pre-check leaves workers alone; the spider refuses one without -s SKILL3_REDIS_URL (exit 2)."""
    monkeypatch.delenv("SKILL3_REDIS_URL", raising=False)
    crawler = Crawler(DocsSpider, Settings({"SKILL3_REGISTRIES": ""}))
    spider = DocsSpider.from_crawler(crawler, role="worker")
    assert spider.args is None and spider.args_error == "role=worker needs -s SKILL3_REDIS_URL=redis://…"


# ----------------------------------------------------------------------------------- -s NAME=VALUE
@pytest.mark.parametrize(
    "pairs, expected",
    [
        ([], {}),
        (["JOBDIR=crawls/mcp"], {"JOBDIR": "crawls/mcp"}),
        (['SKILL3_RESOLVE={"docs.test": "127.0.0.1"}'], {"SKILL3_RESOLVE": '{"docs.test": "127.0.0.1"}'}),
        (["QUERY=a=b"], {"QUERY": "a=b"}),  # the first = splits
        (["LOG_LEVEL=INFO", "LOG_LEVEL=DEBUG"], {"LOG_LEVEL": "DEBUG"}),  # the later one wins
        (["HTTPCACHE_DIR="], {"HTTPCACHE_DIR": ""}),
        ([" JOBDIR =x"], {"JOBDIR": "x"}),
    ],
)
def test_setting_overrides(pairs, expected) -> None:
    assert runner.setting_overrides(pairs) == expected


@pytest.mark.parametrize("pair", ["JOBDIR", "=x", "", "LOG LEVEL=INFO", "-s=1", "1ABC=2", "JOBDIR:crawls"])
def test_a_malformed_setting_is_one_line(pair) -> None:
    with pytest.raises(runner.SettingError) as exc:
        runner.setting_overrides(["LOG_LEVEL=INFO", pair])
    assert str(exc.value).startswith(f"bad -s value {pair!r}: use -s NAME=VALUE") and "\n" not in str(exc.value)


def test_overrides_are_at_cmdline_priority_over_the_project() -> None:
    settings = runner.project_settings({"JOBDIR": "crawls/mcp", "DOWNLOAD_DELAY": "0", "LOG_LEVEL": "INFO"}, log_level="WARNING")
    cmdline = SETTINGS_PRIORITIES["cmdline"]
    assert settings["BOT_NAME"] == "skill3" and settings.getpriority("BOT_NAME") == SETTINGS_PRIORITIES["project"]
    assert (settings["JOBDIR"], settings.getpriority("JOBDIR")) == ("crawls/mcp", cmdline)
    assert (settings.getfloat("DOWNLOAD_DELAY"), settings.getpriority("DOWNLOAD_DELAY")) == (0.0, cmdline)
    assert settings["LOG_LEVEL"] == "INFO"  # -s wins over skill3 learn's quiet default
    assert runner.project_settings(log_level="WARNING")["LOG_LEVEL"] == "WARNING"
    assert runner.project_settings()["LOG_LEVEL"] == "INFO"  # the project's own


@pytest.mark.parametrize(
    "values, cls",
    [
        ({}, AsyncCrawlerProcess),  # Scrapy's default reactor is asyncio: what `scrapy crawl` uses
        ({"TWISTED_REACTOR": "twisted.internet.epollreactor.EPollReactor"}, CrawlerProcess),
        ({"FORCE_CRAWLER_PROCESS": True}, CrawlerProcess),
        ({"TWISTED_REACTOR_ENABLED": False}, AsyncCrawlerProcess),
    ],
)
def test_the_process_is_the_one_scrapy_crawl_uses(values, cls) -> None:
    settings = runner.project_settings()
    settings.setdict(values, priority="cmdline")
    assert runner.process_class(settings) is cls


@pytest.mark.parametrize(
    "values, shows",
    [({}, True), ({"LOG_LEVEL": "WARNING"}, False), ({"LOG_LEVEL": "debug"}, True), ({"LOG_LEVEL": 30}, False),
     ({"LOG_ENABLED": False}, False), ({"LOG_FILE": "crawl.log"}, False)],
)
def test_log_shows_info(values, shows) -> None:
    settings = runner.project_settings()
    settings.setdict(values, priority="cmdline")
    assert runner.log_shows_info(settings) is shows


# ------------------------------------------------------------------------------------- the outcome
def finished_crawler(stats: dict, settings: dict | None = None, **spider_kwargs: str) -> Crawler:
    """A crawler as the process leaves it: its spider, stats and state (no crawl is run)."""
    crawler = Crawler(LearnSpider, Settings({"SKILL3_REGISTRIES": "", **(settings or {})}))
    crawler.spider = LearnSpider(**spider_kwargs)
    crawler.stats = MemoryStatsCollector(crawler)
    for key, value in stats.items():
        crawler.stats.set_value(key, value)
    return crawler


CORPUS = {"topic": "mcp", "input_file": str(REPO / "examples" / "mcp.sources"), "cutoff_time": "2026-01", "synth": "0"}
DONE = {"finish_reason": "finished", "skill3/pages_fetched": 5, "skill3/items_written": 2, "skill3/dropped/duplicate": 3}


def test_a_finished_crawl_reports_the_package_and_the_summary() -> None:
    crawler = finished_crawler(DONE, **CORPUS)
    get_state(crawler).package = {"chosen": "pypi:mcp", "reason": "exact name, has documentation"}
    outcome = runner.crawl_outcome(crawler)
    assert (outcome.exit_code, outcome.interrupted, outcome.complete) == (0, False, True)
    assert outcome.report_lines() == [
        "skill3: 'mcp' is the package pypi:mcp (exact name, has documentation)",
        "skill3 crawl summary: pages fetched 5, robots-denied 0, blocked by network guard 0, dropped 3 (duplicate 3), "
        "failed 0, items written 2",
    ]


def test_a_package_the_crawl_did_not_use_is_not_announced() -> None:
    """Start URLs given, and a registry package of the topic's name that links none of them (a topic "python", the
    unrelated npm:python): the crawl did not use it, so `skill3 learn` does not say the topic is that package."""
    crawler = finished_crawler(DONE, **CORPUS)
    get_state(crawler).package = {"chosen": "npm:python", "reason": "exact name",
                                  "use": "not used: its registry links name none of the sites given"}
    assert not any("package" in line for line in runner.crawl_outcome(crawler).report_lines())
    assert runner.package_line("python", {"chosen": "pypi:x", "reason": "r", "use": "release dates only (…)"}) == \
        "'python' is the package pypi:x (r)"


@pytest.mark.parametrize(
    "stats, settings, interrupted, code, complete",
    [
        ({**DONE, "skill3/exit_code": 1}, {}, False, 1, False),  # nothing usable
        ({**DONE, "finish_reason": "shutdown", "skill3/exit_code": 130}, {}, True, 130, False),  # Ctrl-C
        ({**DONE, "finish_reason": "shutdown"}, {"JOBDIR": "job"}, True, 0, False),  # paused: resume later
    ],
)
def test_a_stopped_or_failed_crawl_is_not_complete(stats, settings, interrupted, code, complete) -> None:
    crawler = finished_crawler(stats, settings, **CORPUS)
    get_state(crawler).interrupted = interrupted
    outcome = runner.crawl_outcome(crawler)
    assert (outcome.exit_code, outcome.interrupted, outcome.complete) == (code, interrupted, complete)


def test_a_crawl_that_fetched_nothing_leaves_the_saying_to_its_error_line() -> None:
    """E.g. nothing found for the topic: the crawl logged one line; no summary of zeros after it."""
    crawler = finished_crawler({"finish_reason": "finished", "skill3/items_written": 0, "skill3/exit_code": 1}, **CORPUS)
    outcome = runner.crawl_outcome(crawler)
    assert (outcome.exit_code, outcome.summary, outcome.package) == (1, None, None)
    assert outcome.today == get_state(crawler).today.isoformat()  # the crawl's day, for its synthesis


def test_bad_arguments_report_nothing_but_exit_2() -> None:
    crawler = finished_crawler({"skill3/exit_code": 2, "finish_reason": "finished"}, topic="mcp", cutoff_time="13-2026")
    outcome = runner.crawl_outcome(crawler)
    assert outcome == runner.CrawlOutcome(2) and outcome.report_lines() == []
