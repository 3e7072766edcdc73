"""`skill3 learn`: the crawl (:mod:`skill3crawl.runner`, the launch ``scrapy crawl learn`` uses)
with ``synth=0``, then the synthesis of ``skill3 synth`` on its feed.

It imports Scrapy only when it runs, so no other ``skill3`` command loads it; the ``skill3`` console
script (:mod:`skill3.cli.main`) puts it beside synth's commands.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from pathlib import Path
from typing import Any, Callable, NoReturn, Optional, cast

import typer

from skill3.cli.synth import (
    ContextTokens,
    CutoffTime,
    FailOnFindings,
    Fresh,
    LlmEndpoint,
    LlmModel,
    LlmProvider,
    LlmTimeout,
    SinceVersion,
    StrictCutoff,
    TargetModel,
    Verify,
)
from skill3crawl.args import DEFAULT_DEPTH_LIMIT, MAX_PAGES_LIMIT, arg_default
from synth.core.errors import ExitCode
from synth.llm.bounds import timeout_value
from synth.llm.model import LLMError
from synth.llm.registry import Provider, check_provider, choose, fallback_warning, model_problem

SETTING_HELP = ("a Scrapy setting for the crawl, as `scrapy crawl -s` (repeatable; wins over the project's settings), "
                "e.g. -s JOBDIR=crawls/mcp (resumable), -s LOG_LEVEL=INFO, -s SKILL3_RESOLVE=JSON")


def _fail(code: ExitCode, message: str) -> NoReturn:
    """One ``skill3: error:`` line on stderr, then exit ``code``."""
    typer.echo(f"skill3: error: {message}", err=True)
    raise typer.Exit(code)


def learn_spider_kwargs(
    topic: str,
    *,
    target_model: str | None = None,
    cutoff_time: str | None = None,
    strict_cutoff: bool = False,
    since_version: str | None = None,
    authoritative: str | None = None,
    start_urls: str | None = None,
    input_file: str | None = None,
    max_pages: int | None = None,
    output_dir: str | None = None,
    llm_provider: str = "auto",
    llm_endpoint: str | None = None,
    llm_model: str | None = None,
    llm_timeout: float | None = None,
    verify: bool = False,
    brave_key: str | None = None,
    depth_limit: int | None = None,
    sitemap_filter: str | None = None,
    locales: str | None = None,
    package: str | None = None,
    fresh: bool = False,
    context_tokens: int | None = None,
    fail_on_findings: bool = True,
) -> dict[str, str]:
    """`skill3 learn --x-y V` → spider ``-a x_y=V``; ``synth=0``: this command synthesises itself.

    No ``output_dir`` unless given: the spider's own default (``output/<topic-slug>``) applies."""
    kw: dict[str, str] = {"topic": topic, "synth": "0"}
    optional = {
        "target_model": target_model, "cutoff_time": cutoff_time, "authoritative": authoritative,
        "start_urls": start_urls, "input_file": input_file, "output_dir": output_dir, "llm_endpoint": llm_endpoint,
        "llm_model": llm_model, "llm_timeout": llm_timeout, "brave_key": brave_key, "depth_limit": depth_limit,
        "sitemap_filter": sitemap_filter, "locales": locales, "package": package, "context_tokens": context_tokens,
        "since_version": since_version,
    }
    kw.update({k: str(v) for k, v in optional.items() if v not in (None, "")})
    if max_pages is not None:
        kw["max_pages"] = str(max_pages)
    kw["strict_cutoff"] = "1" if strict_cutoff else "0"
    kw["verify"] = "1" if verify else "0"
    kw["fail_on_findings"] = "1" if fail_on_findings else "0"
    kw["llm_provider"] = llm_provider
    if fresh:
        kw["fresh"] = "1"
    return kw


def learn_cmd(
    topic: str = typer.Argument(..., help="technology or concept to learn, e.g. mcp"),
    target_model: TargetModel = None,
    cutoff_time: CutoffTime = None,
    strict_cutoff: StrictCutoff = False,
    since_version: SinceVersion = None,
    authoritative: Optional[str] = typer.Option(None, "--authoritative", help="comma-separated authoritative hosts (weight 1.0)"),
    start_urls: Optional[str] = typer.Option(None, "--start-urls", help="comma-separated URLs to crawl directly, each within its path prefix (docs mode)"),
    depth_limit: Optional[int] = typer.Option(None, "--depth-limit", help=f"link hops from a start URL, sitemap or llms.txt entry (default {DEFAULT_DEPTH_LIMIT})"),
    sitemap_filter: Optional[str] = typer.Option(None, "--sitemap-filter", help="comma-separated path prefixes sitemap and link URLs must start with"),
    locales: Optional[str] = typer.Option(None, "--locales", help=f"skip: leave /ja/, /zh-cn/ … translations out; keep (default {arg_default('locales')})"),
    input_file: Optional[str] = typer.Option(None, "--input-file", help="offline corpus: an === SOURCE === file, JSON Lines, a WARC file or a folder of .html/.md pages (docs/corpus.md)"),
    package: Optional[str] = typer.Option(None, "--package", help="the registry package the topic is: pypi:NAME, npm:NAME or crates:NAME (default: looked up by the topic's name)"),
    max_pages: Optional[int] = typer.Option(None, "--max-pages", help=f"pages written, 1–{MAX_PAGES_LIMIT} (default {arg_default('max_pages')})"),
    output_dir: Optional[str] = typer.Option(None, "--output-dir", help="output folder (default output/<topic>)"),
    llm_provider: LlmProvider = "auto",
    llm_endpoint: LlmEndpoint = None,
    llm_model: LlmModel = None,
    verify: Verify = False,
    brave_key: Optional[str] = typer.Option(None, "--brave-key", help="Brave Search API key (default BRAVE_SEARCH_API_KEY)"),
    context_tokens: ContextTokens = None,
    llm_timeout: LlmTimeout = None,
    fail_on_findings: FailOnFindings = True,
    fresh: Fresh = False,
    export: list[str] = typer.Option([], "--export", metavar="FORMAT",
                                     help="then write the skill's always-loaded index: agents-md, claude-md, cursor or llms-txt (repeatable; see skill3 export)"),
    export_to: Optional[Path] = typer.Option(None, "--export-to", help="the folder --export writes into (default: the output folder)"),
    setting: list[str] = typer.Option([], "-s", "--set", metavar="NAME=VALUE", help=SETTING_HELP),
) -> None:
    """Crawl what was published after the cutoff, then synthesise the skill.

    Exit codes: 0 done; 1 nothing usable crawled or synthesis failed; 2 bad usage; 3 high-severity
    vet findings remain; 130 the crawl was stopped (with -s JOBDIR: run the same command again to resume)."""
    from skill3crawl import runner  # Scrapy is imported for `learn` only, not for every `skill3` command
    from skill3crawl.args import ArgsError, checked_args
    from synth.agents.export import FORMATS as EXPORT_FORMATS

    bad = [f for f in export if f not in EXPORT_FORMATS]
    if bad:
        _fail(ExitCode.USAGE, f"unknown --export {bad[0]!r}; use one of {', '.join(EXPORT_FORMATS)}")
    try:  # a malformed -s, a bad --llm-timeout, or a hosted provider without a key: before any crawl
        overrides = runner.setting_overrides(setting)
        check_provider(llm_provider, llm_endpoint)
        if llm_timeout is not None:
            timeout_value(llm_timeout)
    except (runner.SettingError, LLMError) as exc:
        _fail(exc.exit_code, str(exc))
    except ValueError as exc:
        _fail(ExitCode.USAGE, str(exc))
    kwargs = learn_spider_kwargs(
        topic, target_model=target_model, cutoff_time=cutoff_time, strict_cutoff=strict_cutoff, since_version=since_version,
        authoritative=authoritative, start_urls=start_urls, input_file=input_file, max_pages=max_pages,
        output_dir=output_dir, llm_provider=llm_provider, llm_endpoint=llm_endpoint, llm_model=llm_model,
        llm_timeout=llm_timeout, verify=verify, brave_key=brave_key, depth_limit=depth_limit, sitemap_filter=sitemap_filter,
        locales=locales, package=package, fresh=fresh, context_tokens=context_tokens, fail_on_findings=fail_on_findings,
    )
    try:  # the spider's own argument check, before Scrapy starts and before any model is probed: one line, exit 2
        args = checked_args(dict(kwargs))
    except ArgsError as exc:
        _fail(exc.exit_code, str(exc))
    out = args.feed_path.parent  # the output folder, the spider's default when none was given
    kwargs["output_dir"] = str(out)
    from synth.output.ownership import OwnershipError, check_outputs

    try:  # a run.json/index.html skill3 did not write: refuse before crawling, not after
        check_outputs(out)
    except OwnershipError as exc:
        _fail(exc.exit_code, str(exc))
    from synth.output.outdir import OutputDirLocked, lock_output_dir

    try:  # one run at a time in a folder: held until the command ends (the synthesis below re-enters it)
        _HELD.append(lock_output_dir(out))
    except OutputDirLocked as exc:
        _fail(exc.exit_code, str(exc))
    # the model, after every usage check (a usage error is never preceded by a model warning) and before any fetch
    auto_choice = None
    if llm_provider == "auto":  # resolved once, here: the spider's planner and synthesis both use this choice
        auto_choice = choose(llm_provider, llm_endpoint, llm_model)
        kwargs["llm_provider"] = auto_choice.provider
        if auto_choice.model:
            kwargs["llm_model"] = auto_choice.model
        if auto_choice.reason:
            typer.secho("skill3: WARNING: " + fallback_warning(auto_choice.reason, planning=True), err=True, fg="yellow",
                        bold=True)
    else:  # a model chosen explicitly must answer before anything is fetched (it plans and synthesises)
        problem = model_problem(llm_provider, llm_endpoint)
        if problem:
            _fail(ExitCode.USAGE, problem)
    # --- refresh (synth.agents.refresh): the docs crawl's HTTP cache lives in the output folder; a later learn
    # revalidates it (conditional requests), --fresh ignores it; -s HTTPCACHE_* still wins
    from skill3crawl.httpcache import learn_cache_settings

    overrides = {**learn_cache_settings(out, fresh), **overrides}
    # Scrapy's start-up listing and stats dump are for `scrapy crawl`; `skill3 learn` prints the summary.
    settings = runner.project_settings(overrides, log_level=os.environ.get("SKILL3_LOG_LEVEL", "WARNING"))
    outcome = runner.run_spider(runner.crawler_process(settings), "learn", kwargs)
    if not runner.log_shows_info(settings):
        for line in outcome.report_lines():
            typer.echo(line, err=True)
    if not outcome.complete:  # failed, or paused (JOBDIR: the crawl said how to resume; the skill comes when it completes)
        raise typer.Exit(outcome.exit_code or ExitCode.INTERRUPTED)
    feed = out / "run.jsonl"
    if not feed.is_file():
        _fail(ExitCode.FAILURE, f"the crawl wrote no {feed}")
    from synth.pipeline.run import run_synth

    # The spider arguments' one build of SynthOptions (the crawl's trigger uses it too), with the crawl's day
    # (SKILL3_TODAY) and the provider as asked for ("auto", already resolved: no second probe).
    options = dataclasses.replace(args.synth_options(today=outcome.today, auto_choice=auto_choice),
                                  llm_provider=cast(Provider, llm_provider))  # checked by check_provider above
    result = run_synth(options)  # Ctrl-C / SIGTERM from here on: as `skill3 synth` (130 / 143, nothing half-written)
    result.print_outcome()
    if export and result.skill_dir is not None and result.exit_code in (ExitCode.OK, ExitCode.FINDINGS):  # --export: the always-loaded index
        from synth.agents import AgentsError
        from synth.agents.export import export_run

        for fmt in export:
            try:
                typer.echo(f"skill3: {export_run(out, fmt, to=export_to or out)}")
            except AgentsError as exc:
                _fail(exc.exit_code, str(exc))
    raise typer.Exit(result.exit_code)


_HELD: list = []  # the output folder's lock (synth.output.outdir.OutputLock) while `learn` runs


def _releasing_locks(command: Callable[..., None]) -> Callable[..., None]:
    """``command`` that lets go of the output folder it held when it ends, however it ends (the kernel does too
    when the process ends: this is for `learn` run inside a longer-lived process)."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        try:
            command(*args, **kwargs)
        finally:
            while _HELD:
                _HELD.pop().release()

    return run


def register(app: typer.Typer) -> None:
    """Add `learn` to a `skill3` app."""
    app.command("learn")(_releasing_locks(learn_cmd))
