"""``skill3 diff``, ``skill3 export`` and ``skill3 install``: thin adapters over :mod:`synth.agents`.

Exit codes: 0 done; 1 ``diff --exit-code`` found differences; 2 bad usage or input (one line naming it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NoReturn, Optional

import typer

from synth.agents import AgentsError
from synth.core.errors import ExitCode


def _fail(exc: AgentsError | str, code: ExitCode = ExitCode.USAGE) -> NoReturn:
    typer.echo(f"skill3: error: {exc}", err=True)
    raise typer.Exit(exc.exit_code if isinstance(exc, AgentsError) else code)


def diff_cmd(
    old: Path = typer.Argument(..., help="the earlier skill folder or run folder (e.g. OUT/.history/1.0.0)"),
    new: Path = typer.Argument(..., help="the later skill folder or run folder (e.g. OUT)"),
    format: str = typer.Option("text", "--format", "-f", help="text or json"),
    exit_code: bool = typer.Option(False, "--exit-code", help="exit 1 when the two differ"),
) -> None:
    """Compare two skills: new versions in the timeline, claims added / removed / changed (by citation and text), sources added / gone."""
    from synth.agents.diff import diff_runs, summary_lines
    from synth.agents.runview import load

    if format not in ("text", "json"):
        _fail(f"unknown --format {format!r}; use text or json")
    try:
        record = diff_runs(load(old), load(new))
    except AgentsError as exc:
        _fail(exc)
    if format == "json":
        typer.echo(json.dumps(record, indent=2, ensure_ascii=False))
    else:
        for line in summary_lines(record, examples=50):
            typer.echo(line)
    raise typer.Exit(ExitCode.FAILURE if exit_code and not record["unchanged"] else ExitCode.OK)


def export_cmd(
    outdir: Path = typer.Argument(..., help="the run folder (skill3's --output-dir) or the skill folder to index"),
    format: str = typer.Option(..., "--format", "-f", help="agents-md, claude-md, cursor or llms-txt"),
    to: Optional[Path] = typer.Option(None, "--to", help="the folder the file goes into, e.g. your project (default: OUTDIR)"),
    skill_path: Optional[str] = typer.Option(None, "--skill-path", help="how the index names the skill folder (default: its path relative to --to), e.g. .claude/skills/NAME"),
) -> None:
    """Write the skill's always-loaded index (≤ 8 KB): one line per post-cutoff change, in the file the agent reads.

    agents-md and claude-md edit only skill3's section between its markers in AGENTS.md / CLAUDE.md; cursor
    writes .cursor/rules/skill3-NAME.mdc; llms-txt writes llms.txt (both refused when a file skill3 did not
    write is there)."""
    from synth.agents.export import export_run

    try:
        typer.echo(f"skill3: {export_run(outdir, format, to=to or outdir, skill_path=skill_path)}")
    except AgentsError as exc:
        _fail(exc)


def install_cmd(
    skilldir: Path = typer.Argument(..., help="the skill folder (or run folder) to install; with --uninstall also a skill name"),
    agent: str = typer.Option(..., "--agent", help="claude-code, codex or cursor"),
    project: Optional[Path] = typer.Option(None, "--project", help="install into this project (default: the working folder)"),
    user: bool = typer.Option(False, "--user", help="install for the user (the agent's folder in your home)"),
    uninstall: bool = typer.Option(False, "--uninstall", help="remove what skill3 installed there (changed and other files stay)"),
) -> None:
    """Copy a skill where the agent loads skills (see docs/agents.md for each agent's folder and its documentation);
    refuses a folder skill3 did not install; --uninstall removes only what it installed."""
    from synth.agents import install as inst

    try:
        if uninstall:
            r = inst.uninstall(str(skilldir), agent, project=project, user=user)
            kept = f"; kept {len(r.kept)} file(s) skill3 did not write or that changed: {', '.join(r.kept[:5])}" if r.kept else ""
            typer.echo(f"skill3: uninstalled {r.dest} ({len(r.removed)} file(s) removed{kept})")
        else:
            r = inst.install(skilldir, agent, project=project, user=user)
            typer.echo(f"skill3: installed {r.dest} ({len(r.written)} file(s); where {agent} loads skills per {r.doc})")
    except AgentsError as exc:
        _fail(exc)
    except OSError as exc:
        _fail(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), ExitCode.FAILURE)


def register(app: typer.Typer) -> None:
    """Add ``diff``, ``export`` and ``install`` to a ``skill3`` app."""
    app.command("diff")(diff_cmd)
    app.command("export")(export_cmd)
    app.command("install")(install_cmd)
