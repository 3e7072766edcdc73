"""What the target model knows, resolved once: its training cutoff and, for sites that print no release dates,
the newest version it knows (``since_version``).

:func:`resolve_scope` is the one place both are resolved. The crawl resolves them from its arguments
(``skill3crawl.args.LearnArgs``) and writes the result into ``crawl.json`` (:meth:`Scope.crawl_json`);
synthesis reads that record back through the same function, and resolves from its own options only what
its command line gives (``skill3 synth --cutoff-time``, ``--target-model``, ``--since-version``), or
everything when it runs alone on a feed without a ``crawl.json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from synth.delta.versions import check_since_version
from synth.evidence.cutoff import Cutoff, default_model, parse_month, resolve_cutoff


@dataclass(frozen=True)
class Scope:
    """The resolved cutoff (month, where it came from), the target model (the cutoff table's default when none was
    given) and the since-version (``None``: the delta is by date)."""

    cutoff: Cutoff
    target_model: str
    since_version: str | None = None

    def crawl_json(self) -> dict[str, Any]:
        """The record the crawl writes into ``crawl.json`` (top level), read back by :func:`resolve_scope`."""
        return {"cutoff": self.cutoff.month, "cutoff_source": self.cutoff.source, "target_model": self.target_model,
                "since_version": self.since_version}


def _recorded_since(value: Any) -> str | None:
    try:
        return check_since_version(value)
    except ValueError:  # a recorded one that is malformed is ignored
        return None


def resolve_scope(target_model: str | None, cutoff_time: str | None, since_version: str | None, *,
                  today: date | None = None, recorded: Mapping[str, Any] | None = None,
                  recorded_from: str = "") -> Scope:
    """The one resolution of the cutoff and the since-version.

    Given values (a command line's, the crawl's arguments) win: ``cutoff_time`` (not after ``today``'s month), else
    ``target_model``'s entry in the cutoff table. Else the ``recorded`` cutoff (``crawl.json``'s ``cutoff``, or the
    items'), its source ``recorded_from``; else the default model's. The target model: the given one, else the
    recorded one, else the table's default. ``since_version``: the given one (ValueError naming the fix when it is
    not a version), else the recorded one (ignored when malformed). A cutoff that cannot be resolved raises
    :class:`~synth.core.errors.CutoffError`."""
    recorded = recorded or {}
    since = check_since_version(since_version) if since_version else _recorded_since(recorded.get("since_version"))
    model = target_model or recorded.get("target_model") or None
    month = recorded.get("cutoff")
    if cutoff_time or target_model or not month:
        cutoff = resolve_cutoff(model, cutoff_time, today=today)
    else:
        cutoff = Cutoff(parse_month(str(month)), recorded_from or "recorded")
    return Scope(cutoff, str(model or default_model()), since)
