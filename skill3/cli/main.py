"""``skill3``: ``learn`` (:mod:`skill3.cli.learn`) and ``mcp`` (:mod:`skill3.mcp_server`) beside synth's commands (:mod:`skill3.cli.app`)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from skill3.cli import learn as cli_learn
from skill3.cli.app import make_app
from synth.core.errors import ExitCode


def mcp_cmd(
    root: Optional[Path] = typer.Option(
        None, "--root", metavar="DIR", show_default=False,
        help="The folder whose run folders (or skill folders) are served and where learn writes "
             "(default: the user's skills folder, $SKILL3_HOME/skills, i.e. ~/.skill3/skills)."),
    allow_learn: bool = typer.Option(False, "--allow-learn", help="Offer the learn tools (learn, job_status, cancel_job): "
                                                                  "crawls that write into the root."),
    learn_timeout: float = typer.Option(3600.0, "--learn-timeout", min=10.0, metavar="SECONDS", help="Seconds one learn job may run."),
    transport: str = typer.Option("stdio", "--transport", metavar="stdio|http",
                                  help="stdio (the client starts the server) or http (streamable HTTP at http://HOST:PORT/mcp)."),
    host: str = typer.Option("127.0.0.1", "--host", metavar="ADDRESS", help="With --transport http: the address to listen on."),
    port: int = typer.Option(8765, "--port", min=1, max=65535, metavar="PORT", help="With --transport http: the port."),
) -> None:
    """Serve the learned skills over MCP: tools resolve_skill, search, get_skill, search_delta, list_skills, lint, vet
    (and learn, job_status, cancel_job with --allow-learn); resources and templates skill://NAME/SKILL.md and
    skill://NAME/references/FILE; prompts what_changed and upgrade_code.

    Examples: skill3 mcp · skill3 mcp --root output --allow-learn · skill3 mcp --transport http --port 8765
    """
    if transport not in ("stdio", "http", "streamable-http"):
        typer.echo(f"skill3 mcp: error: --transport {transport!r}; use stdio or http", err=True)
        raise typer.Exit(ExitCode.USAGE)
    from skill3.mcp_server import default_root, serve

    if root is None:
        folder = default_root()
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            typer.echo(f"skill3 mcp: error: cannot create the skills folder {folder} ({exc.strerror or exc}); "
                       "pass --root DIR or set SKILL3_HOME", err=True)
            raise typer.Exit(ExitCode.USAGE) from None
    else:
        folder = root.expanduser().resolve()
        if not folder.is_dir():
            typer.echo(f"skill3 mcp: error: {root} is not a folder; pass --root with a folder of skill3 run folders "
                       "(or omit it for ~/.skill3/skills)", err=True)
            raise typer.Exit(ExitCode.USAGE)
    where = "stdio" if transport == "stdio" else f"http://{host}:{port}/mcp"
    if transport != "stdio" and host not in ("127.0.0.1", "localhost", "::1"):
        typer.echo(f"skill3 mcp: warning: listening on {host} without authentication: whoever reaches it reads the skills"
                   f"{' and can start crawls' if allow_learn else ''}", err=True)
    typer.echo(f"skill3 mcp: serving the skills under {folder} on {where}"
               f"{' (learn on: it writes there)' if allow_learn else ''}", err=True)
    serve(folder, allow_learn=allow_learn, learn_timeout=learn_timeout, transport="stdio" if transport == "stdio" else "http",
          host=host, port=port)


def _register_mcp(app: typer.Typer) -> None:
    app.command("mcp")(mcp_cmd)


app = make_app(cli_learn.register, _register_mcp)


def main() -> None:
    """The ``skill3`` console script."""
    app(prog_name="skill3")


if __name__ == "__main__":
    main()
