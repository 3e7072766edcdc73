"""`skill3 vet` and `skill3 setup` (registered on the typer app in skill3.cli.app)."""

from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Callable, Optional

import typer

from synth.core.errors import ExitCode
from synth.vet.correct import secret_findings
from synth.vet.findings import Finding
from synth.vet.install import SetupError
from synth.vet.install import setup as run_setup
from synth.vet.lintcheck import lint_findings
from synth.vet.record import home_dir
from synth.vet.report import FORMATS, VetReport, render_json, render_sarif, render_text
from synth.vet.runner import DEFAULT_TIMEOUT, scan_copy
from synth.vet.screen import screen_folder

# Checks beside SkillSpector: each takes the skill folder and returns findings
# that are reported and gated exactly like the scanner's (lint errors are MEDIUM: shown, never gating;
# skill3's built-in screen: injection, pipe-to-shell, exfiltration, hidden text - it runs with or without the scanner).
EXTRA_CHECKS: list[Callable[[Path], list[Finding]]] = [lint_findings, screen_folder]


def _skill3_version() -> str:
    try:
        return version("skill3")
    except PackageNotFoundError:
        return "0"


def _fail(message: str, code: ExitCode) -> None:
    typer.echo(message, err=True)
    raise typer.Exit(code)


def skill_folder(path: Path) -> Path:
    """The folder to vet, or exit 2 with the reason: a folder holding SKILL.md
    (a SKILL.md file means its folder)."""
    if not path.exists():
        _fail(f"skill3 vet: {path} does not exist; pass a skill folder (the one holding SKILL.md)", ExitCode.USAGE)
    if path.is_file():
        if path.name != "SKILL.md":
            _fail(f"skill3 vet: {path} is a file, not a skill folder; pass the folder holding SKILL.md", ExitCode.USAGE)
        path = path.parent
    if not (path / "SKILL.md").is_file():
        _fail(f"skill3 vet: {path} has no SKILL.md; pass a skill folder (the one holding SKILL.md)", ExitCode.USAGE)
    return path


def vet(
    path: Path = typer.Argument(..., help="Skill folder (holding SKILL.md) to vet."),
    format: str = typer.Option("text", "--format", "-f", help="Report format: text, json or sarif."),
    fail_on_findings: bool = typer.Option(
        True, "--fail-on-findings/--no-fail-on-findings", help="Exit 3 when HIGH/CRITICAL findings remain."
    ),
    timeout: float = typer.Option(DEFAULT_TIMEOUT, "--timeout", min=1.0, help="Seconds before the scan counts as NOT RUN."),
) -> None:
    """Scan a skill folder with SkillSpector (static, --no-llm), skill3's built-in screen, for secret literals and with `skill3 lint`; report.

    Exit 0 clean, 3 HIGH/CRITICAL findings remain, 1 the scan did not run
    (NOT RUN: not scanned, not clean), 2 bad path or option.
    """
    if format not in FORMATS:
        _fail(f"skill3 vet: unknown --format {format!r}; use one of {', '.join(FORMATS)}", ExitCode.USAGE)
    folder = skill_folder(path)
    scan, dropped = scan_copy(folder, timeout=timeout)  # the scanner gets a copy: the user's folder is never its to change
    extra = dropped + secret_findings(folder) + [f for check in EXTRA_CHECKS for f in check(folder)]
    report = VetReport(path=folder, scan=scan, extra_findings=extra, fail_on_findings=fail_on_findings)
    if format == "json":
        render_json(report, sys.stdout)
    elif format == "sarif":
        render_sarif(report, sys.stdout, _skill3_version())
    else:
        render_text(report, sys.stdout)
    if scan.status != "ran":
        typer.echo(f"skill3 vet: {report.summary_line()}", err=True)
    raise typer.Exit(report.exit_code)


def setup(
    source: Optional[Path] = typer.Option(None, "--source", help="Use this SkillSpector checkout instead of cloning."),
    home: Optional[Path] = typer.Option(None, "--home", help="Where to put skillspector-src/, .venv/ and skillspector.json [default: $SKILL3_HOME or ~/.skill3]."),
    python: Optional[str] = typer.Option(None, "--python", help="Python >=3.12,<3.15 to build the venv with [default: probe]."),
    force: bool = typer.Option(False, "--force", help="Reinstall even if the same source is already installed."),
) -> None:
    """Install NVIDIA SkillSpector into its own venv and record it for `skill3 vet`."""
    try:
        run_setup(home or home_dir(), source=source, python=python, force=force, log=lambda line: typer.echo(line, err=True))
    except SetupError as exc:
        _fail(f"skill3 setup: {exc}", exc.exit_code)


def register(app: typer.Typer) -> None:
    app.command("vet")(vet)
    app.command("setup")(setup)
