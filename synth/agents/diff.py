"""What changed between two runs of a skill: versions, claims (by citation and text) and sources.

Pure functions over two :class:`~synth.agents.runview.RunView`; used by ``skill3 diff OLD NEW`` and by a
refresh (run.json ``refresh.diff``, the preview's "since last learn" panel, the printed summary).

- versions: by version string; a version whose date or state changed is "changed";
- claims: an entry is keyed by its citation URL and its normalised text. Identical keys are the same claim;
  of the rest, an old and a new claim citing the same URL whose texts are similar (difflib ratio over their
  words ≥ ``SIMILAR``) are one claim "changed"; what is left is "added" or "removed". The pairing's work is
  bounded by cost (``MAX_FUZZY_COST``, words × words), the cheapest URLs first;
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
# The fuzzy pairing's work is bounded by its cost, not its count of pairs: words × words over every pair compared
# (a claim's first MAX_COMPARED_WORDS words). The URLs whose claims are cheapest to pair go first; a URL whose
# pairing would pass what is left of MAX_FUZZY_COST keeps its claims added/removed, counted as "not compared".
MAX_COMPARED_WORDS = 300
MAX_FUZZY_COST = 20_000_000
_WORDS = re.compile(r"\w(?:[\w.]*\w)?", re.U)  # a run of word characters and dots, without its outer dots


def norm(text: str) -> str:
    """A claim's text for comparison: lowercased words, punctuation and spacing ignored."""
    return " ".join(_WORDS.findall(text.lower()))


def _ident(view: RunView) -> dict[str, Any]:
    return {"path": str(view.out_dir or view.skill_dir), "skill": view.name, "version": view.version,
            "learned_date": view.learned_date}


def diff_versions(old: list[dict], new: list[dict]) -> dict[str, list]:
    o = {v["version"]: v for v in old}
    n = {v["version"]: v for v in new}
    changed = [{"version": k, "from": o[k], "to": n[k]} for k in n if k in o
               and (o[k].get("date"), o[k].get("state")) != (n[k].get("date"), n[k].get("state"))]
    return {"added": [n[k] for k in n if k not in o], "removed": [o[k] for k in o if k not in n], "changed": changed}


def _words(normed: str) -> list[str]:
    return normed.split(" ", MAX_COMPARED_WORDS)[:MAX_COMPARED_WORDS]


def _best_pairs(ow: list[list[str]], nw: list[list[str]]) -> list[tuple[float, int, int]]:
    """(similarity, i, j) of every old/new pair at least ``SIMILAR`` alike, best first: word sequences compared,
    each pair first through difflib's cheap upper bounds (length, then word counts)."""
    scored = []
    for j, b in enumerate(nw):
        sm = SequenceMatcher(None, autojunk=False)
        sm.set_seq2(b)  # difflib caches what it learns about the second sequence
        for i, a in enumerate(ow):
            sm.set_seq1(a)
            if sm.real_quick_ratio() >= SIMILAR and sm.quick_ratio() >= SIMILAR:
                ratio = sm.ratio()
                if ratio >= SIMILAR:
                    scored.append((ratio, i, j))
    return sorted(scored, reverse=True)


def diff_claims(old: list[Entry], new: list[Entry]) -> dict[str, Any]:
    okeys = {(e.url, norm(e.text)): e for e in old}
    nkeys = {(e.url, norm(e.text)): e for e in new}
    rest_old = [(k[1], e) for k, e in okeys.items() if k not in nkeys]
    rest_new = [(k[1], e) for k, e in nkeys.items() if k not in okeys]
    by_url_old: dict[str, list[tuple[list[str], Entry]]] = defaultdict(list)
    for normed, e in rest_old:
        by_url_old[e.url].append((_words(normed), e))
    changed, added, paired = [], [], set()
    by_url_new: dict[str, list[tuple[list[str], Entry]]] = defaultdict(list)
    for normed, e in rest_new:
        by_url_new[e.url].append((_words(normed), e))
    budget, unpaired = MAX_FUZZY_COST, 0
    # the cheapest URLs first (words × words over every pair): the budget pairs as many claims as it can
    cost_of = lambda rows: sum(len(w) for w, _ in rows)  # noqa: E731
    blocks = sorted(((cost_of(by_url_old.get(url, [])) * cost_of(rows), url, rows) for url, rows in by_url_new.items()),
                    key=lambda t: t[0])
    for cost, url, rows in blocks:
        news = [e for _, e in rows]
        olds = [e for _, e in by_url_old.get(url, [])]
        if not olds or cost > budget:
            unpaired += len(news) if olds else 0
            added += news
            continue
        budget -= cost
        used_o, used_n = set(), set()
        for ratio, i, j in _best_pairs([w for w, _ in by_url_old[url]], [w for w, _ in rows]):
            if i in used_o or j in used_n:
                continue
            used_o.add(i)
            used_n.add(j)
            paired.add(id(olds[i]))
            changed.append({"from": olds[i].brief(), "to": news[j].brief(), "similarity": round(ratio, 3)})
        added += [nw for j, nw in enumerate(news) if j not in used_n]
    removed = [e for _, e in rest_old if id(e) not in paired]
    return {"added": [e.brief() for e in added], "removed": [e.brief() for e in removed], "changed": changed,
            "not_compared": unpaired}


def diff_sources(old: list[str], new: list[str]) -> dict[str, list]:
    o, n = set(old), set(new)
    return {"added": [u for u in dict.fromkeys(new) if u not in o], "removed": [u for u in dict.fromkeys(old) if u not in n]}


def skill_files_identical(old: RunView, new: RunView) -> bool:
    return old.files() == new.files()


def diff_runs(old: RunView, new: RunView) -> dict[str, Any]:
    """The whole comparison as a JSON-able record (lists capped at ``MAX_LISTED``, counts exact)."""
    versions = diff_versions(old.versions(), new.versions())
    claims = diff_claims(old.raw_entries(), new.raw_entries())
    not_compared = claims.pop("not_compared")
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
        "claims_not_compared": not_compared,  # left unpaired: comparing them would pass the diff's cost bound
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
