"""`skill3 learn`: the crawl (:mod:`skill3crawl.runner`, the launch ``scrapy crawl learn`` uses)
with ``synth=0``, then the synthesis of ``skill3 synth`` on its feed.

It lives on the crawl side, so ``synth`` never imports Scrapy; the ``skill3`` console script
(:mod:`skill3.cli`) puts it beside synth's commands.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn, Optional

import typer

from synth.cli_synth import (
    ContextTokens, CutoffTime, FailOnFindings, LlmEndpoint, LlmModel, LlmProvider, LlmTimeout, StrictCutoff, TargetModel,
    Verify,
)
from synth.llm.model import LLMError
from synth.llm.bounds import timeout_value
from synth.llm.registry import DEFAULT_ENDPOINT, check_provider, choose, model_problem

SETTING_HELP = ("a Scrapy setting for the crawl, as `scrapy crawl -s` (repeatable; wins over the project's settings), "
                "e.g. -s JOBDIR=crawls/mcp (resumable), -s LOG_LEVEL=INFO, -s SKILL3_RESOLVE=JSON")


def _fail(code: int, message: str) -> NoReturn:
    """One ``skill3: error:`` line on stderr, then exit ``code``."""
    typer.echo(f"skill3: error: {message}", err=True)
    raise typer.Exit(code)


def learn_spider_kwargs(
    topic: str,
    *,
    target_model: str | None = None,
    cutoff_time: str | None = None,
    strict_cutoff: bool = False,
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
) -> dict[str, str]:
    """`skill3 learn --x-y V` → spider ``-a x_y=V``; ``synth=0``: this command synthesises itself.

    No ``output_dir`` unless given: the spider's own default (``output/<topic-slug>``) applies."""
    kw: dict[str, str] = {"topic": topic, "synth": "0"}
    optional = {
        "target_model": target_model, "cutoff_time": cutoff_time, "authoritative": authoritative,
        "start_urls": start_urls, "input_file": input_file, "output_dir": output_dir, "llm_endpoint": llm_endpoint,
        "llm_model": llm_model, "llm_timeout": llm_timeout, "brave_key": brave_key, "depth_limit": depth_limit,
        "sitemap_filter": sitemap_filter, "locales": locales, "package": package,
    }
    kw.update({k: str(v) for k, v in optional.items() if v not in (None, "")})
    if max_pages is not None:
        kw["max_pages"] = str(max_pages)
    kw["strict_cutoff"] = "1" if strict_cutoff else "0"
    kw["verify"] = "1" if verify else "0"
    kw["llm_provider"] = llm_provider
    return kw


def learn_cmd(
    topic: str = typer.Argument(..., help="technology or concept to learn, e.g. mcp"),
    target_model: TargetModel = None,
    cutoff_time: CutoffTime = None,
    strict_cutoff: StrictCutoff = False,
    authoritative: Optional[str] = typer.Option(None, "--authoritative", help="comma-separated authoritative hosts (weight 1.0)"),
    start_urls: Optional[str] = typer.Option(None, "--start-urls", help="comma-separated URLs to crawl directly, each within its path prefix (docs mode)"),
    depth_limit: Optional[int] = typer.Option(None, "--depth-limit", help="link hops from a start URL, sitemap or llms.txt entry (default 20)"),
    sitemap_filter: Optional[str] = typer.Option(None, "--sitemap-filter", help="comma-separated path prefixes sitemap and link URLs must start with"),
    locales: Optional[str] = typer.Option(None, "--locales", help="skip (default): leave /ja/, /zh-cn/ … translations out; keep"),
    input_file: Optional[str] = typer.Option(None, "--input-file", help="offline corpus in the === SOURCE === format"),
    package: Optional[str] = typer.Option(None, "--package", help="the registry package the topic is: pypi:NAME, npm:NAME or crates:NAME (default: looked up by the topic's name)"),
    max_pages: Optional[int] = typer.Option(None, "--max-pages", help="page budget for the crawl"),
    output_dir: Optional[str] = typer.Option(None, "--output-dir", help="output folder (default output/<topic>)"),
    llm_provider: LlmProvider = "auto",
    llm_endpoint: LlmEndpoint = None,
    llm_model: LlmModel = None,
    verify: Verify = False,
    brave_key: Optional[str] = typer.Option(None, "--brave-key", help="Brave Search API key (default BRAVE_SEARCH_API_KEY)"),
    context_tokens: ContextTokens = None,
    llm_timeout: LlmTimeout = None,
    fail_on_findings: FailOnFindings = True,
    setting: list[str] = typer.Option([], "-s", "--set", metavar="NAME=VALUE", help=SETTING_HELP),
) -> None:
    """Crawl what was published after the cutoff, then synthesise the skill.

    Exit codes: 0 done; 1 nothing usable crawled or synthesis failed; 2 bad usage; 3 high-severity
    vet findings remain; 130 the crawl was stopped (with -s JOBDIR: run the same command again to resume)."""
    from skill3crawl import runner  # Scrapy is imported for `learn` only, not for every `skill3` command
    from skill3crawl.args import ArgsError, checked_args
    from skill3crawl.extensions import EXIT_INTERRUPTED

    try:  # a malformed -s, a bad --llm-timeout, or a hosted provider without a key: before any crawl
        overrides = runner.setting_overrides(setting)
        check_provider(llm_provider, llm_endpoint or (DEFAULT_ENDPOINT if llm_provider == "openai" else None))
        if llm_timeout is not None:
            timeout_value(llm_timeout)
    except (runner.SettingError, LLMError, ValueError) as exc:
        _fail(2, str(exc))
    kwargs = learn_spider_kwargs(
        topic, target_model=target_model, cutoff_time=cutoff_time, strict_cutoff=strict_cutoff,
        authoritative=authoritative, start_urls=start_urls, input_file=input_file, max_pages=max_pages,
        output_dir=output_dir, llm_provider=llm_provider, llm_endpoint=llm_endpoint, llm_model=llm_model,
        llm_timeout=llm_timeout, verify=verify, brave_key=brave_key, depth_limit=depth_limit, sitemap_filter=sitemap_filter,
        locales=locales,
        package=package,
    )
    try:  # the spider's own argument check, before Scrapy starts and before any model is probed: one line, exit 2
        args = checked_args(dict(kwargs))
    except ArgsError as exc:
        _fail(2, str(exc))
    kwargs["output_dir"] = args.output_dir
    out = Path(args.output_dir)
    from synth.ownership import OwnershipError, check_outputs

    try:  # a run.json/index.html skill3 did not write: refuse before crawling, not after
        check_outputs(out)
    except OwnershipError as exc:
        _fail(2, str(exc))
    if llm_provider == "auto":  # the spider takes a concrete provider for its query planner
        choice = choose(llm_provider, llm_endpoint, llm_model)
        kwargs["llm_provider"] = choice.provider
        if choice.model:
            kwargs["llm_model"] = llm_model = choice.model
        if choice.reason:
            typer.secho(f"skill3: WARNING: no LLM answers ({choice.reason}): planning falls back to the bare topic and "
                        "synthesis to the extractive synthesizer (quotes only, no model)", err=True, fg="yellow", bold=True)
    else:  # a model chosen explicitly must answer before anything is fetched (it plans and synthesises)
        problem = model_problem(llm_provider, llm_endpoint)
        if problem:
            _fail(2, problem)
    # Scrapy's start-up listing and stats dump are for `scrapy crawl`; `skill3 learn` prints the summary.
    settings = runner.project_settings(overrides, log_level=os.environ.get("SKILL3_LOG_LEVEL", "WARNING"))
    outcome = runner.run_spider(runner.crawler_process(settings), "learn", kwargs)
    if not runner.log_shows_info(settings):
        for line in outcome.report_lines():
            typer.echo(line, err=True)
    if not outcome.complete:  # failed, or paused (JOBDIR: the crawl said how to resume; the skill comes when it completes)
        raise typer.Exit(outcome.exit_code or EXIT_INTERRUPTED)
    feed = out / "run.jsonl"
    if not feed.is_file():
        _fail(1, f"the crawl wrote no {feed}")
    from synth.options import SynthOptions
    from synth.run import run_synth

    result = run_synth(SynthOptions(
        paths=(str(feed),), output_dir=str(out), topic=topic, target_model=target_model, cutoff=cutoff_time,
        llm_provider=llm_provider, llm_endpoint=llm_endpoint, llm_model=llm_model, verify=verify,
        strict_cutoff=strict_cutoff, context_tokens=context_tokens, llm_timeout=llm_timeout,
        fail_on_findings=fail_on_findings,
    ))
    result.print_outcome()
    raise typer.Exit(result.exit_code)


def register(app: typer.Typer) -> None:
    """Add `learn` to a `skill3` app."""
    app.command("learn")(learn_cmd)
