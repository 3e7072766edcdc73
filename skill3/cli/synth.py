"""`skill3 synth`, registered on the typer app of ``skill3.cli.app``.

``skill3 learn`` (the crawl, then this synthesis: both share ``run_synth``) is
:mod:`skill3.cli.learn`: nothing in ``synth`` imports Scrapy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional, cast

import typer

from synth.llm.registry import Provider
from synth.pipeline.options import option_help

# The synthesis options of `skill3 synth`; their help texts are SynthOptions' (skill3 learn shows the same ones
# through the spider arguments, skill3crawl.args.LearnArgs).
TargetModel = Annotated[Optional[str], typer.Option("--target-model", help=option_help("target_model"))]
CutoffTime = Annotated[Optional[str], typer.Option("--cutoff-time", help=option_help("cutoff"))]
StrictCutoff = Annotated[bool, typer.Option("--strict-cutoff", help=option_help("strict_cutoff"))]
SinceVersion = Annotated[Optional[str], typer.Option("--since-version", help=option_help("since_version"))]
LlmProvider = Annotated[str, typer.Option("--llm-provider", help=option_help("llm_provider"))]
LlmEndpoint = Annotated[Optional[str], typer.Option("--llm-endpoint", help=option_help("llm_endpoint"))]
LlmModel = Annotated[Optional[str], typer.Option("--llm-model", help=option_help("llm_model"))]
Verify = Annotated[bool, typer.Option("--verify", help=option_help("verify"))]
ContextTokens = Annotated[Optional[int], typer.Option("--context-tokens", help=option_help("context_tokens"))]
LlmTimeout = Annotated[Optional[float], typer.Option("--llm-timeout", metavar="SECONDS", help=option_help("llm_timeout"))]
FailOnFindings = Annotated[bool, typer.Option("--fail-on-findings/--no-fail-on-findings", help=option_help("fail_on_findings"))]
Fresh = Annotated[bool, typer.Option("--fresh", help=option_help("fresh"))]

def synth_cmd(
    run_jsonl: list[Path] = typer.Argument(..., help="run.jsonl file(s) written by the crawl (several workers: pass them all)"),
    output_dir: Optional[str] = typer.Option(None, "--output-dir", help="where the skill, run.json and index.html go (default: the first file's folder)"),
    topic: Optional[str] = typer.Option(None, "--topic", help="topic (default: from crawl.json or the items)"),
    target_model: TargetModel = None,
    cutoff_time: CutoffTime = None,
    llm_provider: LlmProvider = "auto",
    llm_endpoint: LlmEndpoint = None,
    llm_model: LlmModel = None,
    verify: Verify = False,
    strict_cutoff: StrictCutoff = False,
    since_version: SinceVersion = None,
    context_tokens: ContextTokens = None,
    llm_timeout: LlmTimeout = None,
    dry_run: bool = typer.Option(False, "--dry-run", help="print the ranked sources and the bundle size; call no model, write nothing"),
    fail_on_findings: FailOnFindings = True,
    fresh: Fresh = False,
    quiet: bool = typer.Option(False, "--quiet", help="no progress display"),
) -> None:
    """Synthesise a skill from a saved crawl (no network but the model)."""
    from synth.pipeline.options import SynthOptions
    from synth.pipeline.run import run_synth

    result = run_synth(SynthOptions(
        paths=tuple(str(p) for p in run_jsonl), output_dir=output_dir, topic=topic, target_model=target_model,
        cutoff=cutoff_time, llm_provider=cast(Provider, llm_provider), llm_endpoint=llm_endpoint, llm_model=llm_model, verify=verify,
        strict_cutoff=strict_cutoff, since_version=since_version, context_tokens=context_tokens, llm_timeout=llm_timeout,
        dry_run=dry_run, fail_on_findings=fail_on_findings, progress=not quiet, fresh=fresh,
    ))
    result.print_outcome()
    raise typer.Exit(result.exit_code)


def register(app: typer.Typer) -> None:
    """Add `synth` to the `skill3` app."""
    app.command("synth")(synth_cmd)
