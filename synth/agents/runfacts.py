"""The lint facts a run folder holds, so that lint and vet of a learned skill (the MCP server's ``lint`` and
``vet``) run the rules the run itself ran instead of reporting them as "did not run" (X1).

- ``used_sources``: run.json ``used_sources`` (else the skill's Sources section, as before);
- ``stale`` (rule D1): run.json ``lint.facts.stale`` — the constructs the run's fresh sources mark
  deprecated, recorded by the run since this field exists; for an older run, recomputed with the run's
  own function (:func:`synth.evidence.conflicts.stale_constructs`) from the feed (``run.jsonl``) items of
  the sources it used (bounded read);
- ``tools``, ``mcp``, ``catalogue``: a run does not record them; those rules stay "did not run".
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from synth.agents.runview import RunView
from synth.lint import Facts
from synth.lint.facts import StaleConstruct

MAX_FEED_BYTES = 256 << 20
MAX_FEED_LINE = 8 << 20


def _stale_from_manifest(man: dict[str, Any]) -> list[dict] | None:
    lint = man.get("lint")
    facts = lint.get("facts") if isinstance(lint, dict) else None
    stale = facts.get("stale") if isinstance(facts, dict) else None
    if not isinstance(stale, list):
        return None
    return [s for s in stale[:1000] if isinstance(s, dict) and isinstance(s.get("pattern"), str) and _compiles(s["pattern"])]


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return len(pattern) <= 1000


def _stale_from_feed(out_dir: Path, used: set[str]) -> list[dict] | None:
    from synth.evidence.conflicts import stale_constructs

    feed = out_dir / "run.jsonl"
    try:
        if not feed.is_file() or feed.is_symlink():
            return None
        items: dict[str, dict] = {}
        read = 0
        with feed.open("rb") as fh:
            for raw in fh:
                read += len(raw)
                if read > MAX_FEED_BYTES:
                    break
                if len(raw) > MAX_FEED_LINE:
                    continue
                try:
                    item = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(item, dict) and item.get("url") in used and item["url"] not in items:
                    items[item["url"]] = item
    except OSError:
        return None
    if not items:
        return None
    return stale_constructs(items.values())


def run_facts(view: RunView) -> Facts:
    """The facts for linting ``view``'s skill (see the module docstring)."""
    used = view.sources()
    stale: list[dict] | None = None
    if view.manifest is not None:
        stale = _stale_from_manifest(view.manifest)
        if stale is None and view.out_dir is not None:
            stale = _stale_from_feed(view.out_dir, set(used))
    constructs = None
    if stale is not None:
        constructs = tuple(StaleConstruct(pattern=s["pattern"], what=str(s.get("what") or ""), instead=str(s.get("instead") or ""))
                           for s in stale)
    return Facts(used_sources=frozenset(used), stale=constructs)
