"""The `skill3` command line (typer). Commands read like the README."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="skill3",
    help="Keep AI agents current: learn what changed after a model's cutoff and compile it into a vetted Agent Skill.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """skill3: crawl → synthesize → lint → vet."""


from synth import cli_lint, cli_models, cli_synth, cli_vet  # noqa: E402  (each registers its commands)

cli_synth.register(app)
cli_lint.register(app)
cli_vet.register(app)
cli_models.register(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
