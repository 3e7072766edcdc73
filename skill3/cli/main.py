"""``skill3``: ``learn`` (:mod:`skill3.cli.learn`) and ``mcp`` (:mod:`skill3.mcp_server`) beside synth's commands (:mod:`skill3.cli.app`)."""

from __future__ import annotations

from pathlib import Path

import typer

from skill3.cli import learn as cli_learn
from skill3.cli.app import make_app
from synth.core.errors import ExitCode, os_reason


def mcp_cmd(
    root: Path = typer.Option(Path("output"), "--root", help="the output root whose run folders (or skill folders) are served"),
    allow_learn: bool = typer.Option(False, "--allow-learn", help="offer the learn tool (it crawls and writes into --root)"),
    learn_timeout: float = typer.Option(3600.0, "--learn-timeout", min=10.0, help="seconds one learn may run"),
) -> None:
    """Serve the learned skills over MCP (stdio): resources SKILL.md and references; tools list_skills, get_skill,
    search_delta, lint, vet, and learn with --allow-learn."""
    if not root.is_dir():
        typer.echo(f"skill3: error: {root} is not a folder; pass --root with the output root (default output/)", err=True)
        raise typer.Exit(ExitCode.USAGE)
    from skill3.mcp_server import serve

    serve(root.resolve(), allow_learn=allow_learn, learn_timeout=learn_timeout)


def _register_mcp(app: typer.Typer) -> None:
    app.command("mcp")(mcp_cmd)


app = make_app(cli_learn.register, _register_mcp)


def main() -> None:
    """The ``skill3`` console script. An OS error no command turned into its own message (a folder that cannot be
    created, a file that cannot be read) is one line and exit 2, not a traceback (SKILL3_DEBUG=1 shows it)."""
    import os

    try:
        app(prog_name="skill3")
    except OSError as exc:
        if os.environ.get("SKILL3_DEBUG"):
            raise
        typer.echo(f"skill3: error: {os_reason(exc)}", err=True)
        raise SystemExit(int(ExitCode.USAGE)) from None


if __name__ == "__main__":
    main()
