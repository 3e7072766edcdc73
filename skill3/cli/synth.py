"""`skill3 synth`, registered on the typer app of ``skill3.cli.app``.

``skill3 learn`` (the crawl, then this synthesis: both share ``run_synth``) is
:mod:`skill3.cli.learn`: nothing in ``synth`` imports Scrapy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional, cast

import typer

from synth.llm.registry import DEFAULT_ENDPOINT, PROVIDERS, Provider
from synth.pipeline.options import DEFAULT_CONTEXT_TOKENS

_OTHERS = [p for p in PROVIDERS if p != "auto"]
PROVIDER_HELP = ("auto (the default: openai if the endpoint answers GET /models with a 2xx JSON model list, else extractive), "
                 + ", ".join(_OTHERS[:-1]) + f" or {_OTHERS[-1]}")

# The synthesis options `skill3 synth` and `skill3 learn` share: one definition, one help text.
TargetModel = Annotated[Optional[str], typer.Option("--target-model", help="the model the skill is for (cutoff lookup only)")]
CutoffTime = Annotated[Optional[str], typer.Option("--cutoff-time", help="cutoff month YYYY-MM; wins over --target-model")]
StrictCutoff = Annotated[bool, typer.Option("--strict-cutoff", help="drop pre-cutoff and undated sources")]
SinceVersion = Annotated[Optional[str], typer.Option("--since-version", help="the target model knows the topic up to this version: every newer version is the delta, dated or not (for sites that print no release dates)")]
LlmProvider = Annotated[str, typer.Option("--llm-provider", help=PROVIDER_HELP)]
LlmEndpoint = Annotated[Optional[str], typer.Option("--llm-endpoint", help=f"OpenAI-compatible endpoint (default {DEFAULT_ENDPOINT})")]
LlmModel = Annotated[Optional[str], typer.Option("--llm-model", help="model name at the endpoint")]
Verify = Annotated[bool, typer.Option("--verify", help="one more model call re-grounds the draft against its sources")]
ContextTokens = Annotated[Optional[int], typer.Option("--context-tokens", help=f"the model's context window in tokens (default {DEFAULT_CONTEXT_TOKENS})")]
LlmTimeout = Annotated[Optional[float], typer.Option(
    "--llm-timeout", metavar="SECONDS",
    help="seconds one model call may take, its retries included (default SKILL3_LLM_TIMEOUT, else 300; all calls of a run "
         "together: SKILL3_LLM_TOTAL_TIMEOUT, else 3600)")]
FailOnFindings = Annotated[bool, typer.Option("--fail-on-findings/--no-fail-on-findings", help="exit 3 when high-severity findings remain")]
Fresh = Annotated[bool, typer.Option("--fresh", help="ignore the previous run in the output folder: no unchanged short cut, no diff (the previous skill is still kept in .history/)")]


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
