"""`skill3 learn`: the crawl (:mod:`skill3crawl.runner`, the launch ``scrapy crawl learn`` uses)
with ``synth=0``, then the synthesis of ``skill3 synth`` on its feed.

It imports Scrapy only when it runs, so no other ``skill3`` command loads it; the ``skill3`` console
script (:mod:`skill3.cli.main`) puts it beside synth's commands.
"""

from __future__ import annotations

import functools
import inspect
import os
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, NoReturn, Optional

import typer

from skill3.cli.params import option_parameter, with_parameters
from skill3crawl.args import arg_default, learn_options, learn_spider_args
from synth.core import default_settings
from synth.core.errors import ExitCode, os_reason
from synth.llm.bounds import timeout_value
from synth.llm.model import LLMError
from synth.llm.registry import check_provider, choose, fallback_warning, model_problem

if TYPE_CHECKING:  # pragma: no cover
    from skill3crawl.args import LearnArgs
    from skill3crawl.runner import CrawlOutcome
    from synth.llm.registry import Choice

SETTING_HELP = ("a Scrapy setting for the crawl, as `scrapy crawl -s` (repeatable; wins over the project's settings), "
                "e.g. -s JOBDIR=crawls/mcp (resumable), -s LOG_LEVEL=INFO, -s SKILL3_RESOLVE=JSON")


def _fail(code: ExitCode, message: str) -> NoReturn:
    """One ``skill3: error:`` line on stderr, then exit ``code``."""
    typer.echo(f"skill3: error: {message}", err=True)
    raise typer.Exit(code)


def learn_cmd(topic: str, export: list[str], export_to: Optional[Path], setting: list[str], **options: Any) -> None:
    """Crawl what was published after the cutoff, then synthesise the skill.

    Exit codes: 0 done; 1 nothing usable crawled or synthesis failed; 2 bad usage; 3 high-severity
    vet findings remain; 130 the crawl was stopped (with -s JOBDIR: run the same command again to resume)."""
    # ``options``: the spider arguments' own options (skill3crawl.args.learn_options), one per described argument
    from skill3crawl import runner  # Scrapy is imported for `learn` only, not for every `skill3` command

    overrides, args, kwargs = _checked(topic, export, setting, options)
    out = args.feed_path.parent  # the output folder, the spider's default when none was given
    kwargs["output_dir"] = str(out)
    _claim(out)
    auto_choice = _model(args, kwargs)  # after every usage check, before any fetch
    # --- refresh (synth.agents.refresh): the docs crawl's HTTP cache lives in the output folder; a later learn
    # revalidates it (conditional requests), --fresh ignores it; -s HTTPCACHE_* still wins
    from skill3crawl.httpcache import learn_cache_settings

    overrides = {**learn_cache_settings(out, args.fresh), **overrides}
    # Scrapy's start-up listing and stats dump are for `scrapy crawl`; `skill3 learn` prints the summary.
    settings = runner.project_settings(overrides, log_level=os.environ.get("SKILL3_LOG_LEVEL", default_settings.SKILL3_LOG_LEVEL))
    # one console: `skill3: warning: …` lines, unless -s LOG_LEVEL=… (or another LOG_* setting) asks for Scrapy's log
    console: Any = nullcontext() if runner.uses_scrapy_logging(overrides) else runner.console_logging(settings)
    with console:
        outcome = runner.run_spider(runner.crawler_process(settings), "learn", kwargs)
    if not runner.log_shows_info(settings):
        for line in outcome.report_lines():
            typer.echo(line, err=True)
    if not outcome.complete:  # failed, or paused (JOBDIR: the crawl said how to resume; the skill comes when it completes)
        raise typer.Exit(outcome.exit_code or ExitCode.INTERRUPTED)
    code = _synthesise(args, outcome, auto_choice, export, export_to or out)
    raise typer.Exit(code)


def _checked(topic: str, export: list[str], setting: list[str], options: dict[str, Any]) -> tuple[dict[str, str], LearnArgs, dict[str, str]]:
    """The usage checks, before anything is fetched or any model is called (one line, exit 2): ``--export``, ``-s``,
    the provider and its key, ``--llm-timeout``, then the spider's own argument check → the ``-s`` overrides, the
    spider arguments checked and as ``-a`` strings."""
    from skill3crawl import runner
    from skill3crawl.args import ArgsError, checked_args
    from synth.agents.export import FORMATS as EXPORT_FORMATS

    bad = [f for f in export if f not in EXPORT_FORMATS]
    if bad:
        _fail(ExitCode.USAGE, f"unknown --export {bad[0]!r}; use one of {', '.join(EXPORT_FORMATS)}")
    try:  # a malformed -s, a bad --llm-timeout, or a hosted provider without a key: this command synthesises
        overrides = runner.setting_overrides(setting)
        provider = options.get("llm_provider")
        check_provider(arg_default("llm_provider") if provider is None else provider, options.get("llm_endpoint"))
        if options.get("llm_timeout") is not None:
            timeout_value(options["llm_timeout"])
        kwargs = learn_spider_args(topic, options)
        return overrides, checked_args(dict(kwargs)), kwargs
    except (runner.SettingError, LLMError, ArgsError) as exc:
        _fail(exc.exit_code, str(exc))
    except ValueError as exc:
        _fail(ExitCode.USAGE, str(exc))


def _claim(out: Path) -> None:
    """Refuse a folder with a run.json/index.html skill3 did not write (before crawling, not after), then hold its
    lock until the command ends (one run at a time in a folder; the synthesis re-enters it)."""
    from synth.output.outdir import OutputDirLocked, lock_output_dir
    from synth.output.ownership import OwnershipError, check_outputs

    try:
        check_outputs(out)
        _HELD.append(lock_output_dir(out))
    except (OwnershipError, OutputDirLocked) as exc:
        _fail(exc.exit_code, str(exc))
    except OSError as exc:  # e.g. a folder under /proc: it cannot be created
        _fail(ExitCode.USAGE, f"output folder {str(out)!r} cannot be used ({os_reason(exc)}); pass another --output-dir")


def _model(args: LearnArgs, kwargs: dict[str, str]) -> Choice | None:
    """"auto" resolved once, here (the spider's planner and the synthesis both use the choice, which goes into the
    spider's ``kwargs``); a model chosen explicitly must answer before anything is fetched (it plans and synthesises)."""
    if args.llm_provider != "auto":
        problem = model_problem(args.llm_provider, args.llm_endpoint)
        if problem:
            _fail(ExitCode.USAGE, problem)
        return None
    choice = choose(args.llm_provider, args.llm_endpoint, args.llm_model)
    kwargs["llm_provider"] = choice.provider
    if choice.model:
        kwargs["llm_model"] = choice.model
    if choice.reason:
        typer.secho("skill3: WARNING: " + fallback_warning(choice.reason, planning=True), err=True, fg="yellow", bold=True)
    return choice


def _synthesise(args: LearnArgs, outcome: CrawlOutcome, auto_choice: Choice | None, export: list[str], export_to: Path) -> int:
    """The synthesis of the crawl's feed → its exit code; then ``--export``'s always-loaded index."""
    out = args.feed_path.parent
    if not args.feed_path.is_file():
        _fail(ExitCode.FAILURE, f"the crawl wrote no {args.feed_path}")
    from synth.pipeline.run import run_synth

    # The spider arguments' one build of SynthOptions (the crawl's trigger uses it too), with the crawl's day
    # (SKILL3_TODAY) and the model as `_model` left it before the crawl: "auto" resolved, a provider chosen
    # explicitly checked — neither is probed again. Ctrl-C / SIGTERM: as `skill3 synth`.
    result = run_synth(args.synth_options(today=outcome.today, auto_choice=auto_choice,
                                          model_checked=args.llm_provider != "auto"))
    result.print_outcome()
    if export and result.skill_dir is not None and result.exit_code in (ExitCode.OK, ExitCode.FINDINGS):
        from synth.agents import AgentsError
        from synth.agents.export import export_run

        for fmt in export:
            try:
                typer.echo(f"skill3: {export_run(out, fmt, to=export_to)}")
            except AgentsError as exc:
                _fail(exc.exit_code, str(exc))
    return result.exit_code


# `skill3 learn --help` in groups: each option's panel (an option not named here is listed under "Crawl tuning").
WHAT, SOURCES, MODEL, OUTPUT, TUNING = "What to learn", "Sources", "Model", "Output and vetting", "Crawl tuning"
ORDER = (WHAT, SOURCES, MODEL, OUTPUT, TUNING)
PANELS = {
    "target_model": WHAT, "cutoff_time": WHAT, "strict_cutoff": WHAT, "since_version": WHAT, "package": WHAT,
    "authoritative": SOURCES, "start_urls": SOURCES, "input_file": SOURCES, "brave_key": SOURCES,
    "llm_provider": MODEL, "llm_endpoint": MODEL, "llm_model": MODEL, "llm_timeout": MODEL, "context_tokens": MODEL,
    "verify": MODEL,
    "output_dir": OUTPUT, "fail_on_findings": OUTPUT, "fresh": OUTPUT, "export": OUTPUT, "export_to": OUTPUT,
    "max_pages": TUNING, "depth_limit": TUNING, "sitemap_filter": TUNING, "locales": TUNING, "setting": TUNING,
}


def _parameters() -> list[inspect.Parameter]:
    """`skill3 learn`'s parameters: the topic, one option per spider argument (left out: the argument's default
    applies), then the command's own; each in its --help panel (:data:`PANELS`)."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    own = {
        "export": (list[str], typer.Option([], "--export", metavar="FORMAT", rich_help_panel=OUTPUT,
                                           help="then write the skill's always-loaded index: agents-md, claude-md, cursor "
                                                "or llms-txt (repeatable; see skill3 export)")),
        "export_to": (Optional[Path], typer.Option(None, "--export-to", metavar="DIR", rich_help_panel=OUTPUT,
                                                   help="the folder --export writes into (default: the output folder)")),
        "setting": (list[str], typer.Option([], "-s", "--set", metavar="NAME=VALUE", rich_help_panel=TUNING, help=SETTING_HELP)),
    }
    return [
        inspect.Parameter("topic", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=str,
                          default=typer.Argument(..., metavar="TOPIC", help="technology or concept to learn, e.g. mcp")),
        *(option_parameter(o, typed_default=False, panel=PANELS.get(o.name, TUNING))
          for o in sorted(learn_options(), key=lambda o: ORDER.index(PANELS.get(o.name, TUNING)))),
        *(inspect.Parameter(name, keyword, annotation=kind, default=default) for name, (kind, default) in own.items()),
    ]


with_parameters(learn_cmd, _parameters())


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
