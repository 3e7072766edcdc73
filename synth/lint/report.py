"""Render lint results: text (one line per finding), JSON, SARIF 2.1.0."""

from __future__ import annotations

import json
from pathlib import Path

from synth.core.console import printable
from synth.lint.catalogue import RULES
from synth.lint.model import LintResult

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_LEVEL = {"error": "error", "warn": "warning", "info": "note"}
TOOL_NAME = "skill3-lint"


def _location(result: LintResult, file: str) -> str:
    return (Path(result.skill) / file).as_posix() if file else Path(result.skill).as_posix()


def _uri(location: str) -> str:
    """SARIF wants URIs: absolute paths become file:// URIs, relative ones stay relative references."""
    path = Path(location)
    return path.as_uri() if path.is_absolute() else location


def render_text(results: list[LintResult]) -> str:
    lines = []
    totals = {"error": 0, "warn": 0, "info": 0}
    for r in results:
        for f in r.findings:
            where = _location(r, f.file) + (f":{f.line}" if f.line else "")
            # one finding, one line: a file name (or a message quoting one) with a newline cannot forge another
            lines.append(printable(f"{where}: {f.rule} {f.severity}: {f.message}"))
        for k, v in r.counts().items():
            totals[k] += v
    skipped = sum(len(r.skipped) for r in results)
    summary = (
        f"{len(results)} skill(s): {totals['error']} error(s), {totals['warn']} warning(s), {totals['info']} info"
        + (f" ({skipped} rule run(s) skipped, see X1)" if skipped else "")
    )
    return "\n".join(lines + [summary])


def render_json(results: list[LintResult]) -> str:
    return json.dumps({"tool": TOOL_NAME, "results": [r.to_dict() for r in results]}, indent=2)


def render_sarif(results: list[LintResult]) -> str:
    index = {r.id: i for i, r in enumerate(RULES)}
    sarif_rules = [
        {
            "id": r.id,
            "name": r.id,
            "shortDescription": {"text": r.title},
            "defaultConfiguration": {"level": SARIF_LEVEL[r.severity]},
            "properties": {"needs": list(r.needs), "severities": list(r.severities)},
        }
        for r in RULES
    ]
    out = []
    for r in results:
        for f in r.findings:
            physical: dict = {"artifactLocation": {"uri": _uri(_location(r, f.file or "SKILL.md"))}}
            if f.line:
                physical["region"] = {"startLine": f.line}
            out.append(
                {
                    "ruleId": f.rule,
                    "ruleIndex": index[f.rule],
                    "level": SARIF_LEVEL[f.severity],
                    "message": {"text": f.message},
                    "locations": [{"physicalLocation": physical}],
                }
            )
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": TOOL_NAME, "rules": sarif_rules}}, "results": out}],
    }
    return json.dumps(doc, indent=2)


RENDERERS = {"text": render_text, "json": render_json, "sarif": render_sarif}
