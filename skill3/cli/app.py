"""The `skill3` command line (typer): synth's commands. Commands read like the README's recipes.

The ``skill3`` console script is :mod:`skill3.cli.main`, which adds the crawl side's ``learn``;
``python -m skill3.cli.app`` has every command but ``learn`` and never imports Scrapy.
"""

from __future__ import annotations

import platform
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Callable, Optional

import typer
import typer.core

from skill3.cli import agents as cli_agents
from skill3.cli import lint as cli_lint
from skill3.cli import models as cli_models
from skill3.cli import synth as cli_synth
from skill3.cli import vet as cli_vet

# Two or three examples per command, shown under its --help (one per line).
EXAMPLES: dict[str, tuple[str, ...]] = {
    "learn": ("skill3 learn mcp --target-model claude-sonnet-4-5",
              "skill3 learn httpx --start-urls https://www.python-httpx.org/ --max-pages 50",
              "skill3 learn react --input-file saved-pages/ --llm-provider extractive --export agents-md"),
    "synth": ("skill3 synth output/mcp/run.jsonl",
              "skill3 synth output/mcp/run.jsonl --dry-run",
              "skill3 synth run-*.jsonl --output-dir output/mcp --llm-provider anthropic"),
    "lint": ("skill3 lint output/mcp/mcp", "skill3 lint ~/.claude/skills --format sarif", "skill3 lint --rules"),
    "vet": ("skill3 vet output/mcp", "skill3 vet output/mcp/mcp --format sarif > vet.sarif"),
    "setup": ("skill3 setup", "skill3 setup --source ~/src/skillspector --force"),
    "models": ("skill3 models", "skill3 models --vendor Anthropic --format json"),
    "diff": ("skill3 diff output/mcp/.history/1.0.0 output/mcp", "skill3 diff old-run/ output/mcp --format json --exit-code"),
    "export": ("skill3 export output/mcp --format agents-md --to ~/project",
               "skill3 export output/mcp --format cursor --to ~/project"),
    "install": ("skill3 install output/mcp --agent claude-code --user", "skill3 install output/mcp --agent cursor --project ~/project",
                "skill3 install mcp --agent codex --uninstall"),
    "mcp": ("skill3 mcp", "skill3 mcp --root ~/.skill3/skills --allow-learn"),
}


def examples_epilog(command: str) -> str | None:
    """The ``Examples:`` block of ``command``'s --help (paragraphs: typer prints each on its own line)."""
    lines = EXAMPLES.get(command)
    return "\n\n".join(("Examples:", *(f"  $ {line}" for line in lines))) if lines else None


def version_text() -> str:
    """``skill3 --version``: skill3's version, Python's, Scrapy's (read from its metadata: not imported) and whether
    SkillSpector (``skill3 vet``'s scanner) is found."""
    def installed(package: str) -> str:
        try:
            return version(package)
        except PackageNotFoundError:
            return "not installed"

    from synth.vet.runner import ScannerUnavailable, resolve_scanner

    try:
        scanner = resolve_scanner()
        spector = f"found ({scanner.binary}, via {scanner.origin}{', ' + scanner.version if scanner.version else ''})"
    except ScannerUnavailable as exc:
        spector = f"not found: {exc}"
    return "\n".join((f"skill3 {installed('skill3')}", f"Python {platform.python_version()} ({platform.python_implementation()})",
                      f"Scrapy {installed('scrapy')}", f"SkillSpector {spector}"))


def _print_version(value: bool) -> None:
    if value:
        typer.echo(version_text())
        raise typer.Exit(0)


def _root(
    show_version: Optional[bool] = typer.Option(None, "--version", is_eager=True, callback=_print_version,
                                                help="Print the versions of skill3, Python and Scrapy, whether SkillSpector "
                                                     "is found, and exit."),
) -> None:
    """skill3: crawl → synthesize → lint → vet."""


_display_type_rich = typer.core.TyperOption.display_type_rich


def _no_flag_type(self: typer.core.TyperOption, ctx: Any) -> Any:
    """A flag takes no value: typer would print ``<bool>`` as its metavar; nothing is printed."""
    return None if self.is_flag and self.metavar is None else _display_type_rich(self, ctx)


typer.core.TyperOption.display_type_rich = _no_flag_type  # type: ignore[method-assign]
# an argument's name column already names it (TOPIC, PATHS...): no "<str>" beside it
typer.core.TyperArgument.display_type_rich = lambda self, ctx: None  # type: ignore[method-assign]


def make_app(*first: Callable[[typer.Typer], None]) -> typer.Typer:
    """A `skill3` app: the commands ``first`` registers (listed first in --help), then synth's own."""
    app = typer.Typer(
        name="skill3",
        help="Keep AI agents current: learn what changed after a model's cutoff and compile it into a vetted Agent Skill.",
        no_args_is_help=True,
        add_completion=True,  # --install-completion / --show-completion (bash, zsh, fish, PowerShell)
        pretty_exceptions_enable=False,
    )
    app.callback()(_root)
    for register in (*first, cli_synth.register, cli_lint.register, cli_vet.register, cli_models.register,
                     cli_agents.register):
        register(app)
    for info in app.registered_commands:  # the examples under each command's --help
        info.epilog = info.epilog or examples_epilog(info.name or "")
    return app


app = make_app()


def main() -> None:
    """Run synth's commands (``python -m skill3.cli.app``)."""
    app()


if __name__ == "__main__":
    main()
