"""Typer parameters from option records, so a command declares none by hand: ``skill3 synth``'s from
:class:`synth.pipeline.options.SynthOptions` (:func:`~synth.pipeline.options.synth_options`), ``skill3 learn``'s
from the spider arguments (:func:`skill3crawl.args.learn_options`)."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Optional

import typer

from synth.llm.registry import PROVIDERS
from synth.pipeline.options import CommandOption

# What a value option's value is, in its --help (a flag shows none): the option's own metavar wins.
METAVARS = {
    "target_model": "MODEL", "cutoff_time": "YYYY-MM", "since_version": "VERSION", "authoritative": "HOST,…",
    "start_urls": "URL,…", "input_file": "PATH", "max_pages": "N", "output_dir": "DIR",
    "llm_provider": "|".join(PROVIDERS),  # with any installed provider plugin
    "llm_endpoint": "URL", "llm_model": "NAME",
    "context_tokens": "TOKENS", "brave_key": "KEY", "package": "ECO:NAME", "depth_limit": "HOPS",
    "sitemap_filter": "PREFIX,…", "locales": "skip|keep", "topic": "TOPIC",
}


def option_parameter(option: CommandOption, *, typed_default: bool, panel: str | None = None) -> inspect.Parameter:
    """``option`` as a keyword-only typer parameter: a flag with the option's default, else an optional value whose
    default is the option's (``typed_default``: typer shows it) or ``None`` (left out: the callee's default applies).
    ``panel``: the --help panel it is listed in."""
    if option.kind is bool:
        default = typer.Option(option.default, option.flag, help=option.help, rich_help_panel=panel)
        return inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=bool)
    value = option.default if typed_default else None
    metavar = option.metavar or METAVARS.get(option.name) or option.name.upper()
    default = typer.Option(value, option.flag, help=option.help, metavar=metavar, rich_help_panel=panel)
    annotation = option.kind if value is not None else Optional[option.kind]
    return inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)


def with_parameters(command: Callable[..., Any], parameters: list[inspect.Parameter]) -> None:
    """Give ``command`` (a ``**options`` function) the signature typer reads (:func:`inspect.signature`)."""
    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__annotations__ = {}  # the signature's annotations, not the def's, are the options' types
