"""`skill3 models`: the target models whose knowledge cutoff skill3 knows (``synth/data/cutoffs.yaml``)."""

from __future__ import annotations

import json
from enum import Enum

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from synth.evidence.cutoff import cutoff_table, default_model, model_rows


class Format(str, Enum):
    table = "table"
    json = "json"


def models_cmd(
    fmt: Format = typer.Option(Format.table, "--format", help="table (default) or json"),
    vendor: str = typer.Option("", "--vendor", help="only this vendor's models (e.g. OpenAI, Google)"),
) -> None:
    """List the target models with their knowledge-cutoff month, its source and the date it was checked.

    Dated snapshots, -latest names and host prefixes (openai/gpt-4o-2024-08-06) resolve to these
    entries; for any other model pass --cutoff-time YYYY-MM to skill3 learn / synth."""
    rows = [r for r in model_rows() if not vendor or r["vendor"].lower() == vendor.lower()]
    if fmt is Format.json:
        typer.echo(json.dumps({"as_of": str(cutoff_table().get("as_of", "")), "default_model": default_model(), "models": rows}, indent=2))
        return
    table = Table(title=f"skill3 target models ({len(rows)}; default {default_model()}; checked as of {cutoff_table().get('as_of', '')})")
    for col in ("model", "vendor", "cutoff", "kind", "aliases", "checked", "source"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(escape(r["model"]), escape(r["vendor"]), r["cutoff"], r["kind"], escape(", ".join(r["aliases"]) or "—"),
                      r["checked"], escape(r["source"]))
    Console(width=200).print(table)


def register(app: typer.Typer) -> None:
    app.command("models")(models_cmd)
