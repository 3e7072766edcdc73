"""``skill3 synth --dry-run``: the version timeline, the cutoff's version boundary, the ranked sources and
the bundle that would be sent — printed by the caller from :class:`DryRunReport`; no model is called,
nothing is written."""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console

from synth.pipeline.bundle import Candidate, Ranked, Selection, source_tokens


@dataclass(frozen=True)
class DryRunReport:
    """What a dry run found: the ranking, the selection for ``budget`` tokens of ``context_tokens``."""

    ranked: Ranked
    selection: Selection
    budget: int
    context_tokens: int
    cutoff: str = ""

    def print(self, out: Console | None = None) -> None:
        """Print the tables and the bundle's size (default: stdout, 200 columns)."""
        print_dry_run(self.ranked, self.selection, self.budget, self.context_tokens,
                      out or Console(highlight=False, soft_wrap=True, width=200), self.cutoff)


def print_dry_run(ranked: Ranked, sel: Selection, budget: int, ctx_tokens: int, out: Console, cutoff: str = "") -> None:
    """The version timeline and boundary, the ranked sources (chosen or not, and why) and the bundle line."""
    from rich.table import Table

    delta = ranked.delta
    timeline = delta.timeline
    if timeline:
        tl = Table(title=f"Version timeline ({len(timeline)} dated versions)")
        for col in ("version", "released", "source", "url"):
            tl.add_column(col, overflow="fold")
        for row in timeline:
            src = row["source"] + (" (conflicting dates: earliest kept)" if row.get("conflict") else "")
            tl.add_row(row["version"], row["date"], src, row.get("url") or "-")
        out.print(tl)
    else:
        out.print("version timeline: no dated version (markers of undated versions are never fresh)", markup=False)
    b = delta.boundary or {}
    last, first = b.get("last_pre_cutoff"), b.get("first_post_cutoff")
    out.print(
        f"cutoff {cutoff} → version boundary: last pre-cutoff {last['version'] + ' (' + last['date'] + ')' if last else 'unknown'}, "
        f"first post-cutoff {first['version'] + ' (' + first['date'] + ')' if first else 'none known'}; {b.get('rule', '')}",
        markup=False,
    )
    since = ranked.changes.since_version if ranked.changes else None
    versions = [v for v in (ranked.changes.version_rows() if ranked.changes else []) if v["state"] != "pre"]
    if versions:
        vt = Table(title=f"Versions after the cutoff or undated ({len(versions)}; --since-version {since})"
                   if since else f"Versions after the cutoff or undated ({len(versions)})")
        for col in ("version", "state", "date or bound", "why"):
            vt.add_column(col, overflow="fold")
        for v in versions[:60]:
            vt.add_row(v["version"], v["state"], v["date"] or "-", v["how"])
        out.print(vt)
    for host, info in delta.build_dated_hosts.items():
        out.print(f"build-dated host {host}: {info['date']} ({info['how']}): its pages' freshness comes from their change entries", markup=False)
    table = Table(title=f"Ranked sources ({len(ranked.candidates)} candidates of {ranked.report.items} items)")
    for col in ("#", "score", "authority", "date", "signal", "consensus", "tokens", "in bundle", "URL", "why"):
        table.add_column(col, overflow="fold")
    chosen = {c.url for c in sel.sources}
    for i, c in enumerate(ranked.candidates, 1):
        table.add_row(
            str(i), f"{c.rank_score:.3f}", f"{c.authority:.2f}", c.item.published or "undated",
            c.item.date_source or "-", str(c.consensus_count), str(estimate_tokens_of(c)),
            "yes" if c.url in chosen else "no", c.url, "; ".join(c.reasons()),
        )
    out.print(table)
    out.print(
        f"bundle: {len(sel.sources)} source(s), ~{sel.tokens} tokens, budget {budget} of --context-tokens {ctx_tokens}, "
        f"mode {sel.mode}" + (f" ({sel.note})" if sel.note else ""),
        markup=False,
    )
    if ranked.report.malformed:
        out.print(f"malformed lines: {ranked.report.malformed}", markup=False)
    out.print("dry run: no model called, nothing written", markup=False)


def estimate_tokens_of(c: Candidate) -> int:
    """A candidate's size in the bundle, in estimated tokens."""
    return source_tokens(c)
