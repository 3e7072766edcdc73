"""What changed between two runs of a skill: versions, claims (by citation and text) and sources.

Pure functions over two :class:`~synth.agents.runview.RunView`; used by ``skill3 diff OLD NEW`` and by a
refresh (run.json ``refresh.diff``, the preview's "since last learn" panel, the printed summary).

- versions: by version string; a version whose date or state changed is "changed";
- claims: an entry is keyed by its citation URL and its normalised text. Identical keys are the same claim;
  of the rest, an old and a new claim citing the same URL whose texts are similar (difflib ratio ≥
  ``SIMILAR``) are one claim "changed"; what is left is "added" or "removed";
- sources: the URLs the skill was built from, added or gone.
"""

from __future__ import annotations

import re
from collections import defaultdict
from difflib import SequenceMatcher
from typing import Any

from synth.agents.runview import Entry, RunView

SIMILAR = 0.6
MAX_LISTED = 200  # rows kept per list in the record (the counts are exact)
MAX_FUZZY_PAIRS = 40_000  # per citation URL: beyond this, leftover claims are added/removed without pairing
_WORDS = re.compile(r"[\w.]+", re.U)


def norm(text: str) -> str:
    """A claim's text for comparison: lowercased words, punctuation and spacing ignored."""
    return " ".join(w.strip(".") for w in _WORDS.findall(text.lower()) if w.strip("."))


def _ident(view: RunView) -> dict[str, Any]:
    return {"path": str(view.out_dir or view.skill_dir), "skill": view.name, "version": view.version,
            "learned_date": view.learned_date}


def diff_versions(old: list[dict], new: list[dict]) -> dict[str, list]:
    o = {v["version"]: v for v in old}
    n = {v["version"]: v for v in new}
    changed = [{"version": k, "from": o[k], "to": n[k]} for k in n if k in o
               and (o[k].get("date"), o[k].get("state")) != (n[k].get("date"), n[k].get("state"))]
    return {"added": [n[k] for k in n if k not in o], "removed": [o[k] for k in o if k not in n], "changed": changed}


def diff_claims(old: list[Entry], new: list[Entry]) -> dict[str, list]:
    okeys = {(e.url, norm(e.text)): e for e in old}
    nkeys = {(e.url, norm(e.text)): e for e in new}
    rest_old = [e for k, e in okeys.items() if k not in nkeys]
    rest_new = [e for k, e in nkeys.items() if k not in okeys]
    by_url_old: dict[str, list[Entry]] = defaultdict(list)
    for e in rest_old:
        by_url_old[e.url].append(e)
    changed, added, paired = [], [], set()
    by_url_new: dict[str, list[Entry]] = defaultdict(list)
    for e in rest_new:
        by_url_new[e.url].append(e)
    for url, news in by_url_new.items():
        olds = by_url_old.get(url, [])
        if not olds or len(olds) * len(news) > MAX_FUZZY_PAIRS:
            added += news
            continue
        scored = sorted(((SequenceMatcher(None, norm(o.text), norm(nw.text)).ratio(), i, j)
                         for i, o in enumerate(olds) for j, nw in enumerate(news)), reverse=True)
        used_o, used_n = set(), set()
        for ratio, i, j in scored:
            if ratio < SIMILAR:
                break
            if i in used_o or j in used_n:
                continue
            used_o.add(i)
            used_n.add(j)
            paired.add(id(olds[i]))
            changed.append({"from": olds[i].brief(), "to": news[j].brief(), "similarity": round(ratio, 3)})
        added += [nw for j, nw in enumerate(news) if j not in used_n]
    removed = [e for e in rest_old if id(e) not in paired]
    return {"added": [e.brief() for e in added], "removed": [e.brief() for e in removed], "changed": changed}


def diff_sources(old: list[str], new: list[str]) -> dict[str, list]:
    o, n = set(old), set(new)
    return {"added": [u for u in dict.fromkeys(new) if u not in o], "removed": [u for u in dict.fromkeys(old) if u not in n]}


def skill_files_identical(old: RunView, new: RunView) -> bool:
    return old.files() == new.files()


def diff_runs(old: RunView, new: RunView) -> dict[str, Any]:
    """The whole comparison as a JSON-able record (lists capped at ``MAX_LISTED``, counts exact)."""
    versions = diff_versions(old.versions(), new.versions())
    claims = diff_claims(old.entries(), new.entries())
    sources = diff_sources(old.sources(), new.sources())
    counts = {f"{part}_{k}": len(v) for part, d in (("versions", versions), ("claims", claims), ("sources", sources))
              for k, v in d.items()}
    identical = skill_files_identical(old, new)
    record = {
        "old": _ident(old), "new": _ident(new),
        "unchanged": identical and not any(counts.values()),
        "skill_files_identical": identical,
        "claims_from": {"old": old.entries_source, "new": new.entries_source},
        "counts": counts,
        "versions": {k: v[:MAX_LISTED] for k, v in versions.items()},
        "claims": {k: v[:MAX_LISTED] for k, v in claims.items()},
        "sources": {k: v[:MAX_LISTED] for k, v in sources.items()},
    }
    return record


def _short(text: str, n: int = 110) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1].rsplit(" ", 1)[0] + "…"


def summary_lines(record: dict[str, Any], *, examples: int = 3) -> list[str]:
    """A few lines for the terminal: the headline counts, then a few added/removed claims and sources."""
    c = record["counts"]
    old, new = record["old"], record["new"]
    head = f"since {old.get('version') or 'the previous run'}"
    if new.get("version") and new.get("version") != old.get("version"):
        head += f" → {new['version']}"
    if record["unchanged"]:
        return [f"{head}: no change (same sources, same claims; the skill's files are byte-identical)"]
    added_versions = [v["version"] for v in record["versions"]["added"]]
    parts = [f"versions +{c['versions_added']}" + (f" ({', '.join(added_versions[:6])})" if added_versions else "")
             + (f" −{c['versions_removed']}" if c["versions_removed"] else "")] if c["versions_added"] or c["versions_removed"] else []
    parts += [f"claims +{c['claims_added']} −{c['claims_removed']} ~{c['claims_changed']}",
             f"sources +{c['sources_added']} −{c['sources_removed']}"]
    lines = [f"{head}: " + "; ".join(parts)]
    if c["versions_changed"]:
        lines[0] += f"; {c['versions_changed']} version date(s)/state(s) changed"
    if not any(c.values()) and not record["skill_files_identical"]:
        lines[0] += " (the skill's text changed, its claims did not)"
    for label, rows in (("+", record["claims"]["added"]), ("−", record["claims"]["removed"])):
        for e in rows[:examples]:
            lines.append(f"  {label} {(e['version'] + ': ') if e.get('version') else ''}{_short(e['text'])}")
    for e in record["claims"]["changed"][:examples]:
        lines.append(f"  ~ {_short(e['to']['text'])}")
    for label, urls in (("+ source", record["sources"]["added"]), ("− source", record["sources"]["removed"])):
        for u in urls[:examples]:
            lines.append(f"  {label} {u}")
    return lines
