"""Nothing stale presented as current: the draft's sentences that state what a post-cutoff source of ordinary or higher
authority says is no longer true ("`read()` returns it as a list of chunks" against a 3.0 changelog's "`read()` no
longer returns a list of chunks") are removed, whoever wrote them — a model, from a pre-cutoff page or from memory.
A pre-cutoff source may give structure, never a statement a post-cutoff authoritative source contradicts.

Also the footer's account of the sources: what the cited sources were, counted truthfully (published after the
cutoff, before it, undated), never "every source was published after the cutoff" when some were not.

Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Any

_FENCE = re.compile(r"^\s*(```+|~~~+)")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)")
_CITATION = re.compile(r"\[\d+(?:\s*,\s*\d+)*\]")
_BULLET = re.compile(r"^(\s*(?:[-*+]|\d+[.)])\s+)")


def drop_superseded_lines(body: str, claims: list[Any]) -> tuple[str, list[str], list[dict]]:
    """``body`` without the sentences a fresh source says are no longer true (code blocks and headings untouched);
    a bullet left without words goes whole. ``claims``: ``synth.evidence.conflicts.superseded_claims`` of the
    sources (each with ``contradicted_by(sentence)``, ``url``, ``sentence``). Returns (body, fixes, what was removed
    and why)."""
    if not claims:
        return body, [], []
    out: list[str] = []
    removed: list[dict] = []
    fence: str | None = None
    for line in body.split("\n"):
        m = _FENCE.match(line)
        if m:
            fence = None if fence and m.group(1).startswith(fence[:3]) else (fence or m.group(1))
            out.append(line)
            continue
        if fence or line.lstrip().startswith("#") or not line.strip():
            out.append(line)
            continue
        kept_line = _without_superseded(line, claims, removed)
        if kept_line is not None:
            out.append(kept_line)
    fixes = [f"removed {len(removed)} statement(s) that a post-cutoff source says are no longer true"] if removed else []
    return "\n".join(out), fixes, removed


def _without_superseded(line: str, claims: list[Any], removed: list[dict]) -> str | None:
    bullet = _BULLET.match(line)
    lead = bullet.group(1) if bullet else ""
    sentences = _SENTENCE.split(line[len(lead):])
    kept = []
    for s in sentences:
        rule = next((c for c in claims if c.contradicted_by(_CITATION.sub("", s))), None)
        if rule is None:
            kept.append(s)
        else:
            removed.append({"removed": s.strip()[:300], "contradicted_by": rule.url, "fresh": rule.sentence})
    if len(kept) == len(sentences):
        return line
    rest = " ".join(kept).strip()
    if not re.search(r"[A-Za-z]{2}", _CITATION.sub("", rest)):
        return None
    return lead + rest


def source_account(cited: list[dict], cutoff: str, target_model: str) -> str:
    """What the cited sources were, for the footer: "sources published after the 2026-01 cutoff of M" only when every
    one is; else the counts ("3 sources: 1 published or documenting versions after the 2026-01 cutoff of M, 1 before
    it, 1 undated")."""
    kinds = [_kind(s) for s in cited]
    if kinds and all(k == "after" for k in kinds):
        if all(_published_after(s) for s in cited):
            return f"sources published after the {cutoff} cutoff of {target_model}"
        return f"sources published after the {cutoff} cutoff of {target_model} or documenting versions released after it"
    if not kinds:
        return f"no cited source, for the {cutoff} cutoff of {target_model}"
    after, before, undated = (kinds.count(k) for k in ("after", "before", "undated"))
    parts = []
    if after:
        parts.append(f"{after} published or documenting versions after the {cutoff} cutoff of {target_model}")
    if before:
        parts.append(f"{before} published before {'it' if after else f'the {cutoff} cutoff of {target_model}'}"
                     " (used for structure only)")
    if undated:
        parts.append(f"{undated} undated")
    return f"{len(kinds)} source(s): " + ", ".join(parts)


def _published_after(source: dict) -> bool:
    """Post-cutoff by the page's own date (not by the versions a build-dated docs page documents)."""
    return bool(source.get("post_cutoff")) and not source.get("build_date") and not source.get("delta_only")


def _kind(source: dict) -> str:
    if source.get("post_cutoff") or source.get("delta_only"):
        return "after"
    if source.get("published") and not source.get("build_date"):
        return "before"
    return "undated"
