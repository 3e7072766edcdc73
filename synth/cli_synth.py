"""`skill3 synth` and `skill3 learn`, registered on the typer app of ``synth.cli``.

``learn`` is the only place the synth side imports Scrapy: it runs the ``learn``
spider with ``synth=0`` and then synthesises itself, so both entry points share
``run_synth``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from synth.llm.model import LLMError
from synth.llm.registry import DEFAULT_ENDPOINT, check_provider, choose
from synth.skill.names import slugify

PROVIDER_HELP = "auto (openai if the endpoint answers GET /models with a 2xx JSON model list, else extractive), openai, anthropic or extractive"


def _fail(code: int, message: str) -> None:
    typer.echo(f"skill3: error: {message}", err=True)
    raise typer.Exit(code)


def synth_cmd(
    run_jsonl: list[Path] = typer.Argument(..., help="run.jsonl file(s) written by the crawl (several workers: pass them all)"),
    output_dir: Optional[str] = typer.Option(None, "--output-dir", help="where the skill, run.json and index.html go (default: the first file's folder)"),
    topic: Optional[str] = typer.Option(None, "--topic", help="topic (default: from crawl.json or the items)"),
    target_model: Optional[str] = typer.Option(None, "--target-model", help="the model the skill is for (cutoff lookup only)"),
    cutoff_time: Optional[str] = typer.Option(None, "--cutoff-time", help="cutoff month YYYY-MM; wins over --target-model"),
    llm_provider: str = typer.Option("auto", "--llm-provider", help=PROVIDER_HELP),
    llm_endpoint: Optional[str] = typer.Option(None, "--llm-endpoint", help=f"OpenAI-compatible endpoint (default {DEFAULT_ENDPOINT})"),
    llm_model: Optional[str] = typer.Option(None, "--llm-model", help="model name at the endpoint"),
    verify: bool = typer.Option(False, "--verify", help="one more model call re-grounds the draft against its sources"),
    strict_cutoff: bool = typer.Option(False, "--strict-cutoff", help="drop pre-cutoff and undated sources"),
    context_tokens: Optional[int] = typer.Option(None, "--context-tokens", help="the model's context window in tokens (default 8192)"),
    dry_run: bool = typer.Option(False, "--dry-run", help="print the ranked sources and the bundle size; call no model, write nothing"),
    fail_on_findings: bool = typer.Option(True, "--fail-on-findings/--no-fail-on-findings", help="exit 3 when high-severity findings remain"),
    quiet: bool = typer.Option(False, "--quiet", help="no progress display"),
) -> None:
    """Synthesise a skill from a saved crawl (no network but the model)."""
    from synth.options import SynthOptions
    from synth.run import run_synth

    result = run_synth(SynthOptions(
        paths=tuple(str(p) for p in run_jsonl), output_dir=output_dir, topic=topic, target_model=target_model,
        cutoff=cutoff_time, llm_provider=llm_provider, llm_endpoint=llm_endpoint, llm_model=llm_model, verify=verify,
        strict_cutoff=strict_cutoff, context_tokens=context_tokens, dry_run=dry_run,
        fail_on_findings=fail_on_findings, progress=not quiet,
    ))
    result.print_outcome()
    raise typer.Exit(result.exit_code)


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
    verify: bool = False,
    brave_key: str | None = None,
    depth_limit: int | None = None,
    sitemap_filter: str | None = None,
    locales: str | None = None,
    package: str | None = None,
) -> dict[str, str]:
    """`skill3 learn --x-y V` → spider ``-a x_y=V`` (DESIGN §3); ``synth=0``: this command synthesises itself."""
    kw: dict[str, str] = {"topic": topic, "output_dir": output_dir or default_output_dir(topic), "synth": "0"}
    optional = {
        "target_model": target_model, "cutoff_time": cutoff_time, "authoritative": authoritative,
        "start_urls": start_urls, "input_file": input_file, "llm_endpoint": llm_endpoint, "llm_model": llm_model,
        "brave_key": brave_key, "depth_limit": depth_limit, "sitemap_filter": sitemap_filter, "locales": locales,
        "package": package,
    }
    kw.update({k: str(v) for k, v in optional.items() if v not in (None, "")})
    if max_pages is not None:
        kw["max_pages"] = str(max_pages)
    kw["strict_cutoff"] = "1" if strict_cutoff else "0"
    kw["verify"] = "1" if verify else "0"
    kw["llm_provider"] = llm_provider
    return kw


def default_output_dir(topic: str) -> str:
    """``output/<topic-slug>/``, the crawl's own slug (letters and digits of any script: ``日本語`` stays)."""
    from skill3crawl.args import topic_slug  # the learn command starts a crawl: the crawl's package is there

    return str(Path("output") / (topic_slug(topic) or slugify(topic) or "topic"))


def learn_cmd(
    topic: str = typer.Argument(..., help="technology or concept to learn, e.g. mcp"),
    target_model: Optional[str] = typer.Option(None, "--target-model", help="the model the skill is for (cutoff lookup only)"),
    cutoff_time: Optional[str] = typer.Option(None, "--cutoff-time", help="cutoff month YYYY-MM; wins over --target-model"),
    strict_cutoff: bool = typer.Option(False, "--strict-cutoff", help="drop pre-cutoff and undated sources"),
    authoritative: Optional[str] = typer.Option(None, "--authoritative", help="comma-separated authoritative hosts (weight 1.0)"),
    start_urls: Optional[str] = typer.Option(None, "--start-urls", help="comma-separated URLs to crawl directly, each within its path prefix (docs mode)"),
    depth_limit: Optional[int] = typer.Option(None, "--depth-limit", help="link hops from a start URL, sitemap or llms.txt entry (default 20)"),
    sitemap_filter: Optional[str] = typer.Option(None, "--sitemap-filter", help="comma-separated path prefixes sitemap and link URLs must start with"),
    locales: Optional[str] = typer.Option(None, "--locales", help="skip (default): leave /ja/, /zh-cn/ … translations out; keep"),
    input_file: Optional[str] = typer.Option(None, "--input-file", help="offline corpus in the === SOURCE === format"),
    package: Optional[str] = typer.Option(None, "--package", help="the registry package the topic is: pypi:NAME, npm:NAME or crates:NAME (default: looked up by the topic's name)"),
    max_pages: Optional[int] = typer.Option(None, "--max-pages", help="page budget for the crawl"),
    output_dir: Optional[str] = typer.Option(None, "--output-dir", help="output folder (default output/<topic>)"),
    llm_provider: str = typer.Option("auto", "--llm-provider", help=PROVIDER_HELP),
    llm_endpoint: Optional[str] = typer.Option(None, "--llm-endpoint", help=f"OpenAI-compatible endpoint (default {DEFAULT_ENDPOINT})"),
    llm_model: Optional[str] = typer.Option(None, "--llm-model", help="model name at the endpoint"),
    verify: bool = typer.Option(False, "--verify", help="re-ground the draft against its sources (one more model call)"),
    brave_key: Optional[str] = typer.Option(None, "--brave-key", help="Brave Search API key (default BRAVE_SEARCH_API_KEY)"),
    context_tokens: Optional[int] = typer.Option(None, "--context-tokens", help="the model's context window in tokens (default 8192)"),
    fail_on_findings: bool = typer.Option(True, "--fail-on-findings/--no-fail-on-findings", help="exit 3 when high-severity findings remain"),
) -> None:
    """Crawl what was published after the cutoff, then synthesise the skill."""
    try:  # a hosted provider without a key fails before any crawl
        check_provider(llm_provider, llm_endpoint or (DEFAULT_ENDPOINT if llm_provider == "openai" else None))
    except LLMError as exc:
        _fail(2, str(exc))
    crawl_provider = llm_provider
    if llm_provider == "auto":  # the spider takes a concrete provider for its query planner
        choice = choose(llm_provider, llm_endpoint, llm_model)
        crawl_provider, llm_model, reason = choice.provider, choice.model, choice.reason
        if reason:
            typer.secho(f"skill3: WARNING: no LLM answers ({reason}): planning falls back to the bare topic and synthesis "
                        "to the extractive synthesizer (quotes only, no model)", err=True, fg="yellow", bold=True)
    kwargs = learn_spider_kwargs(
        topic, target_model=target_model, cutoff_time=cutoff_time, strict_cutoff=strict_cutoff,
        authoritative=authoritative, start_urls=start_urls, input_file=input_file, max_pages=max_pages,
        output_dir=output_dir, llm_provider=crawl_provider, llm_endpoint=llm_endpoint, llm_model=llm_model,
        verify=verify, brave_key=brave_key, depth_limit=depth_limit, sitemap_filter=sitemap_filter, locales=locales,
        package=package,
    )
    out = Path(kwargs["output_dir"])
    from synth.ownership import OwnershipError, check_outputs

    try:  # a run.json/index.html skill3 did not write: refuse before crawling, not after
        check_outputs(out)
    except OwnershipError as exc:
        _fail(2, str(exc))
    code = run_crawl(kwargs)
    if code:
        raise typer.Exit(code)
    feed = out / "run.jsonl"
    if not feed.is_file():
        _fail(1, f"the crawl wrote no {feed}")
    from synth.options import SynthOptions
    from synth.run import run_synth

    result = run_synth(SynthOptions(
        paths=(str(feed),), output_dir=str(out), topic=topic, target_model=target_model, cutoff=cutoff_time,
        llm_provider=llm_provider, llm_endpoint=llm_endpoint, llm_model=llm_model, verify=verify,
        strict_cutoff=strict_cutoff, context_tokens=context_tokens, fail_on_findings=fail_on_findings,
    ))
    result.print_outcome()
    raise typer.Exit(result.exit_code)


def run_crawl(spider_kwargs: dict[str, str]) -> int:
    """Run the Scrapy ``learn`` spider in this process; returns the crawl's exit code (0 when it finished)."""
    import os

    os.environ.setdefault("SCRAPY_SETTINGS_MODULE", "skill3crawl.settings")
    try:
        from scrapy.crawler import CrawlerProcess
        from scrapy.utils.project import get_project_settings
    except ImportError as exc:  # pragma: no cover - scrapy is a dependency
        _fail(1, f"Scrapy is not installed: {exc}")
    from skill3crawl.args import ArgsError, parse_args

    try:  # the spider's own argument check, before Scrapy starts: one line, exit 2
        problem = parse_args(dict(spider_kwargs)).usage_problem()
    except ArgsError as exc:
        problem = str(exc)
    if problem:
        _fail(2, problem)
    settings = get_project_settings()
    # Scrapy's start-up listing and stats dump are for `scrapy crawl`; `skill3 learn` prints the summary.
    settings.set("LOG_LEVEL", os.environ.get("SKILL3_LOG_LEVEL", "WARNING"), priority="cmdline")
    process = CrawlerProcess(settings)
    try:
        crawler = process.create_crawler("learn")
    except KeyError:
        _fail(1, "the Scrapy spider 'learn' is not available (is skill3crawl installed?)")
    process.crawl(crawler, **spider_kwargs)
    process.start()
    if getattr(process, "bootstrap_failed", False):
        return 1
    package = getattr(getattr(crawler, "_skill3_state", None), "package", None) or {}
    if package.get("chosen"):  # the official sources came from this registry package
        typer.echo(f"skill3: {spider_kwargs.get('topic', '')!r} is the package {package['chosen']} ({package['reason']})", err=True)
    if crawler.stats and crawler.stats.get_value("skill3/pages_fetched") is not None:
        st = crawler.stats
        dropped = sum(v for k, v in st.get_stats().items() if k.startswith("skill3/dropped/"))
        typer.echo(
            f"skill3: crawl: pages fetched {st.get_value('skill3/pages_fetched', 0)}, robots-denied "
            f"{st.get_value('skill3/robots_denied', 0)}, dropped {dropped}, items written {st.get_value('skill3/items_written', 0)}",
            err=True,
        )
    from skill3crawl.extensions import crawl_exit_code

    return crawl_exit_code(crawler)


def register(app: typer.Typer) -> None:
    """Add `synth` and `learn` to the `skill3` app."""
    app.command("synth")(synth_cmd)
    app.command("learn")(learn_cmd)
