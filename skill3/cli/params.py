"""Typer parameters from option records, so a command declares none by hand: ``skill3 synth``'s from
:class:`synth.pipeline.options.SynthOptions` (:func:`~synth.pipeline.options.synth_options`), ``skill3 learn``'s
from the spider arguments (:func:`skill3crawl.args.learn_options`)."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Optional

import typer

from synth.pipeline.options import CommandOption


def option_parameter(option: CommandOption, *, typed_default: bool) -> inspect.Parameter:
    """``option`` as a keyword-only typer parameter: a flag with the option's default, else an optional value whose
    default is the option's (``typed_default``: typer shows it) or ``None`` (left out: the callee's default applies)."""
    if option.kind is bool:
        default = typer.Option(option.default, option.flag, help=option.help)
        return inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=bool)
    value = option.default if typed_default else None
    default = typer.Option(value, option.flag, help=option.help, metavar=option.metavar)
    annotation = option.kind if value is not None else Optional[option.kind]
    return inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)


def with_parameters(command: Callable[..., Any], parameters: list[inspect.Parameter]) -> None:
    """Give ``command`` (a ``**options`` function) the signature typer reads (:func:`inspect.signature`)."""
    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__annotations__ = {}  # the signature's annotations, not the def's, are the options' types
