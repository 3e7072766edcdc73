"""The `skill3` command line (typer): synth's commands. Commands read like the README's recipes.

The ``skill3`` console script is :mod:`skill3.cli.main`, which adds the crawl side's ``learn``;
``python -m skill3.cli.app`` has every command but ``learn`` and never imports Scrapy.
"""

from __future__ import annotations

from typing import Callable

import typer

from skill3.cli import agents as cli_agents
from skill3.cli import lint as cli_lint
from skill3.cli import models as cli_models
from skill3.cli import synth as cli_synth
from skill3.cli import vet as cli_vet


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
    """Run synth's commands (``python -m skill3.cli.app``)."""
    app()


if __name__ == "__main__":
    main()
