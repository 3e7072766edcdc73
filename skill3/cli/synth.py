"""`skill3 synth`, registered on the typer app of ``skill3.cli.app``.

Its options are :class:`~synth.pipeline.options.SynthOptions`' fields, each defined once there (help text and
default; :func:`~synth.pipeline.options.synth_options`), so none is declared here. ``skill3 learn`` (the crawl, then
this synthesis: both share ``run_synth``) is :mod:`skill3.cli.learn`: nothing in ``synth`` imports Scrapy.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import typer

from skill3.cli.params import option_parameter, with_parameters
from synth.pipeline.options import SynthOptions, option_help, synth_options


def synth_cmd(run_jsonl: list[Path], **options: Any) -> None:
    """Synthesise a skill from a saved crawl (no network but the model)."""
    # ``options``: one per SynthOptions field that is an option (synth.pipeline.options.synth_options)
    from synth.pipeline.run import run_synth

    result = run_synth(options_of(run_jsonl, options))
    result.print_outcome()
    raise typer.Exit(result.exit_code)


def options_of(run_jsonl: list[Path], given: dict[str, Any]) -> SynthOptions:
    """The run's :class:`SynthOptions` from the command's argument and options (option name → value)."""
    fields = {o.field: o.value(given[o.name]) for o in synth_options() if o.name in given}
    return SynthOptions(paths=tuple(str(p) for p in run_jsonl), **fields)


def _parameters() -> list[inspect.Parameter]:
    """`skill3 synth`'s parameters: the run.jsonl files, then one option per SynthOptions option field (with its
    default: typer shows it)."""
    return [
        inspect.Parameter("run_jsonl", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=list[Path],
                          default=typer.Argument(..., help=option_help("paths"))),
        *(option_parameter(o, typed_default=True) for o in synth_options()),
    ]


with_parameters(synth_cmd, _parameters())


def register(app: typer.Typer) -> None:
    """Add `synth` to the `skill3` app."""
    app.command("synth")(synth_cmd)
