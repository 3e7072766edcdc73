"""The `skill3` command line (typer): synth's commands. Commands read like the README's recipes.

The ``skill3`` console script is :mod:`skill3.cli`, which adds the crawl side's ``learn``;
``python -m synth.cli`` has every command but ``learn`` and never imports Scrapy.
"""

from __future__ import annotations

from typing import Callable

import typer

from synth import cli_lint, cli_models, cli_synth, cli_vet
from synth.agents import cli as cli_agents


def _root() -> None:
    """skill3: crawl → synthesize → lint → vet."""


def make_app(*first: Callable[[typer.Typer], None]) -> typer.Typer:
    """A `skill3` app: the commands ``first`` registers (listed first in --help), then synth's own."""
    app = typer.Typer(
        name="skill3",
        help="Keep AI agents current: learn what changed after a model's cutoff and compile it into a vetted Agent Skill.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    app.callback()(_root)
    for register in (*first, cli_synth.register, cli_lint.register, cli_vet.register, cli_models.register,
                     cli_agents.register):
        register(app)
    return app


app = make_app()


def main() -> None:
    """Run synth's commands (``python -m synth.cli``)."""
    app()


if __name__ == "__main__":
    main()
