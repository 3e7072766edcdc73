"""`skill3 lint`: a thin adapter from the command line to synth.lint."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from synth.core.errors import ExitCode
from synth.lint import RULES, Facts, LintError, fails, lint_paths, load_facts
from synth.lint.report import RENDERERS


class Format(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"


class FailOn(str, Enum):
    error = "error"
    warn = "warn"
    info = "info"
    never = "never"


def print_rules() -> None:
    table = Table(title="skill3 lint rules", show_lines=False)
    for col in ("id", "severity", "title", "needs"):
        table.add_column(col, overflow="fold")
    for r in RULES:
        d = r.to_dict()
        table.add_row(d["id"], d["severity"], escape(d["title"]), ", ".join(d["needs"]) or "—")
    Console(width=160).print(table)


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(ExitCode.USAGE)


def lint(
    paths: Annotated[Optional[list[Path]], typer.Argument(help="Skill folders, or folders of skill folders.", show_default=False)] = None,
    format: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.text,
    fail_on: Annotated[FailOn, typer.Option("--fail-on", help="Exit 1 when a finding reaches this severity.")] = FailOn.error,
    facts_file: Annotated[Optional[Path], typer.Option("--facts", help="JSON facts file (see docs/lint.md).", show_default=False)] = None,
    rules: Annotated[bool, typer.Option("--rules", help="Print the rule catalogue and exit.")] = False,
) -> None:
    """Lint Agent Skill folders: exit 0 clean, 1 by --fail-on, 2 when a check could not run."""
    if rules:
        print_rules()
        raise typer.Exit(ExitCode.OK)
    if not paths:
        _fail("give at least one skill folder (or --rules)")
    try:
        facts = load_facts(facts_file) if facts_file else Facts()
        results = lint_paths(list(paths or ()), facts)
    except LintError as exc:
        _fail(str(exc))
    typer.echo(RENDERERS[format.value](results))
    findings = [f for r in results for f in r.findings]
    raise typer.Exit(ExitCode.FAILURE if fails(findings, fail_on.value) else ExitCode.OK)


def register(app: typer.Typer) -> None:
    app.command("lint")(lint)
