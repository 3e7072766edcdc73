"""``<output_dir>/run.json``: the provenance manifest of one synthesis run.

Shape (top-level keys): schema, skill3_version, created_at, topic, target_model,
cutoff{month,source}, today, strict_cutoff, inputs{files,crawl_json,read},
crawl (the crawl's crawl.json, when present), queries, sources (the ranked
candidates with scores, dates and whether they made the bundle), used_sources
(the URLs the model saw, numbered [1..n] in order), bundle{mode,
context_tokens, output_reserve, budget_tokens, tokens, note, trimmed, excluded,
shrunk, map_reduce, content)}, model{requested, used, endpoint,
model, auto_fallback_reason}, prompts{version, calls[{phase, prompt_hash, token
counts, seconds}]}, tokens{totals}, postprocess{fixes, reprompted}, verify,
lint, vet, gate{fail_on_findings, blocking, rules, exit_code}, skill{name, path, files, cited,
lines}, validation, written{skill_dir, files} (what skill3 wrote into the output folder: the only
things a later run may replace or delete), timings (seconds per phase), warnings, tool_versions.

``lint``: the final skill's ``LintResult.to_dict()`` (skill, name, counts, findings,
skipped) plus status, advisory_rules, draft (the draft's lint result when it had
errors, else null), fixes, reprompted. ``vet``: ``synth.vet.vetting_record`` (input,
output, extra_findings, not_run, gate) plus status ("done", or "partial" when a scan
did not run). A stage that did not run says ``{"status": "not run", ...}`` — never "clean".
"""

from __future__ import annotations

import platform
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    from synth.evidence.cutoff import Cutoff
    from synth.skill.postprocess import Skill


class Selection(Protocol):
    """What run.json records of the evidence selected for the model (``synth.pipeline.bundle.Selection`` is one)."""

    mode: str  # "direct" | "map-reduce" | "trimmed"
    budget: int
    tokens: int
    note: str
    trimmed: list[str]
    excluded: list[str]


SCHEMA = "skill3.run/1"
TOOLS = ("skill3", "openai", "anthropic", "datasketch", "skills-ref", "rich", "typer", "pyyaml", "markdown-it-py", "scrapy")


def not_run(stage: str) -> dict:
    reason = {
        "lint": "the SKILL.md linter is not wired into synthesis yet",
        "vet": "SkillSpector vetting is not wired into synthesis yet",
    }[stage]
    return {"status": "not run", "reason": reason, "findings": [], "blocking": None}


def tool_versions() -> dict:
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in TOOLS:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def safe_endpoint(url: str | None) -> str | None:
    """An endpoint without credentials (user:password@ and query strings are dropped)."""
    if not url:
        return url
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


CRAWL_TIMELINE_KEPT = 3_000  # crawl.json timeline entries copied into run.json (the newest; skill3's crawl writes fewer)


def _bounded_crawl(meta: dict[str, Any]) -> dict[str, Any]:
    """The crawl's crawl.json as run.json records it: a timeline longer than CRAWL_TIMELINE_KEPT (a crawl.json
    from elsewhere) keeps its newest entries, without absurd version strings, and says how many it had."""
    from synth.delta.versions import plausible_version

    timeline = meta.get("timeline") if isinstance(meta, dict) else None
    if not isinstance(timeline, list):
        return meta
    kept = [e for e in timeline if not isinstance(e, dict) or plausible_version(e.get("version"))]
    if len(kept) == len(timeline) and len(kept) <= CRAWL_TIMELINE_KEPT:
        return meta
    return {**meta, "timeline": kept[-CRAWL_TIMELINE_KEPT:], "timeline_entries": len(timeline)}


@dataclass(frozen=True)
class RunRecord:
    """What one synthesis run did and used, as :func:`build` writes it into run.json (the caller is
    :func:`synth.pipeline.write._manifest`)."""

    topic: str
    target_model: str
    cutoff: Cutoff
    today: str
    started: datetime
    paths: list[str]
    crawl_meta: dict[str, Any]
    crawl_json: str | None
    report: dict
    ranking: list[dict]
    selection: Selection
    bundle: dict[str, Any]
    context_tokens: int
    output_reserve: int
    shrunk: dict[str, Any] | None
    map_reduce: dict[str, Any]
    provider: dict[str, Any]
    calls: list[dict]
    skill: Skill
    skill_dir: Path
    out_dir: Path
    validation: dict
    postprocess: dict[str, Any]
    verify: dict[str, Any]
    lint: dict[str, Any]
    vet: dict[str, Any]
    timings: dict[str, float]
    warnings: list[str]
    strict_cutoff: bool
    fail_on_findings: bool


def build(rec: RunRecord) -> dict:
    """run.json's content for one run (its shape: the module docstring)."""
    queries = rec.crawl_meta.get("queries") or rec.crawl_meta.get("planned_queries") or sorted(
        {r["query"] for r in rec.ranking if r.get("query")}
    )
    prompt_est = sum(c.get("prompt_tokens_estimated") or 0 for c in rec.calls)
    completion_est = sum(c.get("completion_tokens_estimated") or 0 for c in rec.calls)
    reported_prompt = [c.get("prompt_tokens") for c in rec.calls if c.get("prompt_tokens") is not None]
    reported_completion = [c.get("completion_tokens") for c in rec.calls if c.get("completion_tokens") is not None]
    files = sorted(rec.skill.files())
    # The gate as the vetting record decided it (synth.vet.gate: both sides, quarantined sources too).
    vet_gate = rec.vet["gate"]
    gate = {"fail_on_findings": rec.fail_on_findings, "blocking": vet_gate["blocking"], "rules": vet_gate["rules"],
            "exit_code": vet_gate["exit_code"]}
    return {
        "schema": SCHEMA,
        "skill3_version": tool_versions().get("skill3"),
        "created_at": rec.started.isoformat(timespec="seconds"),
        "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "topic": rec.topic,
        "target_model": rec.target_model,
        "cutoff": {"month": rec.cutoff.month, "source": rec.cutoff.source},
        "today": rec.today,
        "strict_cutoff": rec.strict_cutoff,
        "inputs": {"files": [str(p) for p in rec.paths], "crawl_json": rec.crawl_json, "read": rec.report},
        "crawl": _bounded_crawl(rec.crawl_meta) or None,
        "queries": queries,
        "sources": rec.ranking,
        "used_sources": [src["url"] for src in rec.bundle["sources"] + rec.bundle.get("delta_sources", [])],
        "bundle": {
            "mode": rec.selection.mode,
            "context_tokens": rec.context_tokens,
            "output_reserve": rec.output_reserve,
            "budget_tokens": rec.selection.budget,
            "tokens": rec.selection.tokens,
            "token_count": "heuristic ceil(chars/3.5), no tokenizer",
            "note": rec.selection.note,
            "trimmed": rec.selection.trimmed,
            "excluded": rec.selection.excluded,
            "shrunk_after_context_error": rec.shrunk,
            "map_reduce": rec.map_reduce or None,
            "content": rec.bundle,
        },
        "model": {**rec.provider, "endpoint": safe_endpoint(rec.provider.get("endpoint"))},
        "prompts": {"version": "synth-1", "calls": rec.calls},
        "tokens": {
            "prompt_estimated": prompt_est,
            "completion_estimated": completion_est,
            "prompt_reported": sum(reported_prompt) if reported_prompt else None,
            "completion_reported": sum(reported_completion) if reported_completion else None,
        },
        "postprocess": rec.postprocess,
        "verify": rec.verify,
        "lint": rec.lint,
        "vet": rec.vet,
        "gate": gate,
        "skill": {
            "name": rec.skill.name,
            "path": str(rec.skill_dir),
            "files": files,
            "cited": rec.skill.cited,
            "lines": len(rec.skill.skill_md().splitlines()),
        },
        "validation": rec.validation,
        # what this run wrote into rec.out_dir: the only things a later run may replace or delete
        "written": {"skill_dir": rec.skill_dir.name, "files": ["run.json", "index.html", *(f"{rec.skill_dir.name}/{f}" for f in files)]},
        "timings": rec.timings,
        "warnings": rec.warnings,
        "tool_versions": tool_versions(),
    }
