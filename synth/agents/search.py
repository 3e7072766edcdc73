"""``search_delta``: Okapi BM25 (:class:`synth.evidence.relevance.BM25`) over a skill's change entries.

Each entry is a document (its area, version and text); a result is a cited snippet: the entry's version,
kind, area, text (cut to ``SNIPPET`` characters) and the URL it cites (``[n]`` numbers the distinct URLs of
the results). A query term that looks like a version (``3.11``) also matches the entries of that version.
"""

from __future__ import annotations

import re
from typing import Any

from synth.agents.runview import Entry
from synth.evidence.relevance import BM25, query_terms

SNIPPET = 400
MAX_RESULTS = 50
MAX_QUERY = 500
_VERSION = re.compile(r"\b\d+(?:\.\d+)+\b")


def _snippet(text: str, n: int = SNIPPET) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1].rsplit(" ", 1)[0] + "…"


def search_entries(entries: list[Entry], query: str, limit: int = 10) -> dict[str, Any]:
    """The ``limit`` best entries for ``query`` with their citations; no match → an empty result list."""
    query = (query or "")[:MAX_QUERY]
    limit = max(1, min(int(limit), MAX_RESULTS))
    bm = BM25(query_terms(query))
    versions = set(_VERSION.findall(query))
    stats = [bm.observe(f"{e.area} {e.version} {e.text} {e.use or ''} {e.instead_of or ''}") for e in entries]
    scored = []
    for i, (e, (tf, n)) in enumerate(zip(entries, stats)):
        s = bm.score(tf, n) + (1.0 if versions and any(e.version == v or e.version.startswith(v + ".") for v in versions) else 0.0)
        if s > 0:
            scored.append((s, i))
    scored.sort(key=lambda t: (-t[0], t[1]))
    citations: dict[str, int] = {}
    results = []
    for s, i in scored[:limit]:
        e = entries[i]
        cite = citations.setdefault(e.url, len(citations) + 1) if e.url else None
        results.append({"score": round(s, 4), "version": e.version, "kind": e.kind, "area": e.area,
                        "snippet": _snippet(e.text), "use": e.use, "instead_of": e.instead_of, "file": e.file,
                        "citation": cite, "url": e.url or None})
    return {"query": query, "terms": list(bm.terms), "results": results,
            "sources": [{"n": n, "url": u} for u, n in citations.items()]}
