"""The skills under an output root as one library an agent queries: find a skill by a fuzzy name
(:func:`resolve`), search all of them (:func:`search_skills`), read one within a token budget (:func:`budgeted`).

Scrapy-free and pure over :class:`~synth.agents.runview.RunView` objects (the MCP server's ``resolve_skill``,
``search`` and ``get_skill``).

- **Blocks.** A skill's text (SKILL.md's body and each ``references/*.md``) is cut into blocks: a bullet
  item, a paragraph or a fenced code block, each with the heading it sits under and its line. The Sources
  section is not a block (it is where citations point). A block's *version* is the technology version it
  states ("Removed in 3.11", "since 2.0") or, failing that, the one its heading starts with ("## 3.11
  (released …)"); its *citations* are its ``[n]`` markers resolved through SKILL.md's Sources section and
  its inline ``[title](https://…)`` links.
- **Search** is Okapi BM25 (:class:`synth.evidence.relevance.BM25`, the ranking the bundle uses)
  over the blocks of every skill, the block's heading counted with its text; a version in the query
  (``3.11``) also matches the blocks of that version.
- **Resolve** scores each skill's name, topic and folder name against the query (normalised equality,
  containment, difflib ratio) and its description and versions by shared words.
- **Budget**: :func:`synth.skill.size.estimate_tokens` (the one estimate the bundle and lint use).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any

from synth.agents.runview import RunView
from synth.evidence.relevance import BM25, query_terms, tokens
from synth.skill.frontmatter import split_frontmatter
from synth.skill.markdown import CITATION, citation_numbers, fence_state, find_sources, heading_title
from synth.skill.size import CHARS_PER_TOKEN, estimate_tokens

SCHEME = "skill://"
MAX_QUERY = 500
MAX_RESULTS = 50
SNIPPET = 500
MAX_BLOCK = 4000
MIN_TOKENS, DEFAULT_TOKENS, MAX_TOKENS = 500, 5000, 100_000
RESOLVE_FLOOR = 0.35

_VERSION_PHRASE = re.compile(r"\b(?:in|since|version|v)\s*(\d+(?:\.\d+){1,3}(?:[a-z]+\d*)?)\b", re.I)
_HEADING_VERSION = re.compile(r"^\s*v?(\d+(?:\.\d+){1,3}(?:[a-z]+\d*)?)\b", re.I)
_QUERY_VERSION = re.compile(r"\b\d+(?:\.\d+)+\b")
_INLINE_LINK = re.compile(r"\[([^\]\n]{1,300})\]\((https?://[^)\s]{1,2000})\)")
_BULLET = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+")
_SKIP = re.compile(r"^(?:sources|references)\s*$", re.I)


def uri(name: str, rel: str) -> str:
    """The resource URI of one file of a skill: ``skill://<name>/SKILL.md``, ``skill://<name>/references/<file>``."""
    return f"{SCHEME}{name}/{rel}"


def served(view: RunView, rel: str) -> str:
    """File ``rel`` of ``view`` as the server may hand it to an agent: the view's ``published`` text when it has
    that gate (redaction and the screen over everything served), else the file as read."""
    published = getattr(view, "published", None)
    return published(rel) if callable(published) else view.files()[rel]


def _norm(s: str) -> str:
    return "".join(ch for ch in s.lower() if ch.isalnum())


# --------------------------------------------------------------------------- blocks


@dataclass(frozen=True)
class Block:
    """One searchable piece of a skill (see the module docstring)."""

    skill: str
    file: str
    heading: str
    line: int
    text: str
    version: str | None
    citations: tuple[tuple[int | None, str], ...]  # (number in the Sources section or None, URL)


def _citations(text: str, numbered: dict[int, str]) -> tuple[tuple[int | None, str], ...]:
    out: dict[str, int | None] = {}
    for m in CITATION.finditer(text):
        for n in citation_numbers(m.group(1)):
            if n in numbered:
                out.setdefault(numbered[n], n)
    for m in _INLINE_LINK.finditer(text):
        out.setdefault(m.group(2), None)
    return tuple((n, u) for u, n in out.items())


def _version(text: str, heading: str) -> str | None:
    m = _VERSION_PHRASE.search(text) or _HEADING_VERSION.match(heading) or _VERSION_PHRASE.search(heading)
    return m.group(1) if m else None


MAX_MATCH_CHECKS = 2_000_000


def _entry_keys(view: RunView) -> list[tuple[str, str, str]]:
    """(normalised start of the text, version, url) of the change entries that have a version."""
    out = []
    for e in view.entries():
        key = _norm(e.text)[:50]
        if e.version and len(key) >= 20:
            out.append((key, e.version, e.url))
    return out


def _from_entries(blocks_: list[Block], keys: list[tuple[str, str, str]]) -> list[Block]:
    """A block without a stated version that renders a change entry takes the entry's version (and its URL when
    it cites none): run.json's entries know versions the skill's wording may leave out."""
    if not keys:
        return blocks_
    budget = MAX_MATCH_CHECKS
    out = []
    for b in blocks_:
        if b.version is None and budget > 0:
            text = _norm(b.text)
            budget -= len(keys)
            hit = next(((v, u) for k, v, u in keys if k in text), None)
            if hit is not None:
                b = Block(b.skill, b.file, b.heading, b.line, b.text, hit[0], b.citations or ((None, hit[1]),) if hit[1] else b.citations)
        out.append(b)
    return out


_CACHE: dict[int, tuple[RunView, list[Block]]] = {}
MAX_CACHED = 1000


def blocks(view: RunView) -> list[Block]:
    """The blocks of one skill (SKILL.md first, then its references in name order); bounded by the view's files.
    Kept per view object (the server re-reads a skill into a new view when its files change)."""
    hit = _CACHE.get(id(view))
    if hit is not None and hit[0] is view:
        return hit[1]
    found = _from_entries(_blocks(view), _entry_keys(view))
    if len(_CACHE) >= MAX_CACHED:
        del _CACHE[next(iter(_CACHE))]
    _CACHE[id(view)] = (view, found)
    return found


def _blocks(view: RunView) -> list[Block]:
    sec = find_sources(split_frontmatter(served(view, "SKILL.md")).body)
    numbered = {e.number: e.url for e in sec.entries if e.number is not None and e.url} if sec else {}
    out: list[Block] = []
    for rel in view.files():
        raw = served(view, rel)
        body = split_frontmatter(raw).body if rel == "SKILL.md" else raw
        offset = raw.count("\n", 0, len(raw) - len(body)) if rel == "SKILL.md" else 0
        lines = body.split("\n")
        fenced = fence_state(body)
        heading, start = "", 0
        buf: list[str] = []

        def flush() -> None:
            text = "\n".join(buf).strip()
            if text and not _SKIP.match(heading):
                out.append(Block(view.name, rel, heading, start + 1 + offset, text[:MAX_BLOCK], _version(text, heading),
                                 _citations(text, numbered)))
            buf.clear()

        in_code = False
        for i, (line, fence) in enumerate(zip(lines, fenced)):
            if fence != in_code:  # a fence opens or closes: a code block is a block of its own
                flush()
                in_code = fence
                start = i
            if not fence:
                title = heading_title(line)
                if title is not None:
                    flush()
                    heading = title.strip()
                    continue
                if not line.strip() or _BULLET.match(line):
                    flush()
                    start = i
                    if not line.strip():
                        continue
            if not buf:
                start = i
            buf.append(line)
        flush()
    return out


# --------------------------------------------------------------------------- search


def _snippet(text: str, terms: tuple[str, ...], n: int = SNIPPET) -> str:
    text = " ".join(text.split())
    if len(text) <= n:
        return text
    low = text.lower()
    first = min((i for i in (low.find(t) for t in terms) if i >= 0), default=0)
    lo = max(0, min(first - n // 4, len(text) - n))
    cut = text[lo: lo + n]
    return ("…" if lo else "") + cut.rsplit(" ", 1)[0] + "…"


def search_skills(views: list[RunView], query: str, limit: int = 10) -> dict[str, Any]:
    """The ``limit`` best blocks of ``views`` for ``query``, each with its skill (name, version, cutoff), file,
    heading, line, resource URI, snippet, the technology version it states and its citations."""
    query = (query or "")[:MAX_QUERY]
    limit = max(1, min(int(limit), MAX_RESULTS))
    bm = BM25(query_terms(query))
    versions = set(_QUERY_VERSION.findall(query))
    docs: list[tuple[RunView, Block]] = [(v, b) for v in views for b in blocks(v)]
    stats = [bm.observe(f"{b.heading} {b.text}") for _, b in docs]
    scored = []
    for i, ((_, b), (tf, n)) in enumerate(zip(docs, stats)):
        s = bm.score(tf, n)
        if versions and b.version and any(b.version == q or b.version.startswith(q + ".") for q in versions):
            s += 1.0
        if s > 0:
            scored.append((s, i))
    scored.sort(key=lambda t: (-t[0], t[1]))
    results = []
    for s, i in scored[:limit]:
        v, b = docs[i]
        results.append({"score": round(s, 4), "skill": v.name, "skill_version": v.version, "cutoff": v.cutoff,
                        "file": b.file, "uri": uri(v.name, b.file), "heading": b.heading or None, "line": b.line,
                        "version": b.version, "snippet": _snippet(b.text, bm.terms),
                        "citations": [{"n": n, "url": u} for n, u in b.citations]})
    return {"query": query, "terms": list(bm.terms), "skills_searched": len(views), "blocks_searched": len(docs),
            "results": results}


# --------------------------------------------------------------------------- resolve


def _versions_covered(view: RunView) -> list[str]:
    rows = [r["version"] for r in view.versions() if r.get("state") != "pre"]
    if not rows:
        rows = sorted({e.version for e in view.entries() if e.version})
    return rows[:50]


def _score(view: RunView, query: str) -> float:
    q = _norm(query)
    if not q:
        return 0.0
    best = 0.0
    for key in {_norm(view.name), _norm(view.topic), _norm((view.out_dir or view.skill_dir).name)}:
        if not key:
            continue
        if key == q:
            return 1.0
        if q in key or key in q:
            best = max(best, 0.6 + 0.3 * min(len(q), len(key)) / max(len(q), len(key)))
        best = max(best, difflib.SequenceMatcher(None, q, key).ratio() * 0.9)
    words = set(tokens(query))
    if words:
        described = set(tokens(f"{view.description} {view.topic} {' '.join(_versions_covered(view))}"))
        best = max(best, 0.6 * len(words & described) / len(words))
    return round(best, 4)


def resolve(views: list[RunView], query: str, limit: int = 5) -> dict[str, Any]:
    """The skills that best match a fuzzy name or topic, best first, with their versions and cutoffs."""
    query = (query or "")[:MAX_QUERY]
    limit = max(1, min(int(limit), MAX_RESULTS))
    scored = sorted(((_score(v, query), i) for i, v in enumerate(views)), key=lambda t: (-t[0], t[1]))
    matches: list[dict[str, Any]] = []
    for s, i in scored:
        if s < RESOLVE_FLOOR or len(matches) >= limit:
            break
        v = views[i]
        matches.append({"id": v.name, "score": s, "name": v.name, "topic": v.topic, "version": v.version,
                        "cutoff": v.cutoff, "learned_date": v.learned_date, "target_model": v.target_model,
                        "versions": _versions_covered(v), "entries": len(v.entries()),
                        "description": v.description[:500], "uri": uri(v.name, "SKILL.md")})
    return {"query": query, "matches": matches}


def best_match(views: list[RunView], query: str) -> RunView | None:
    """The one skill ``query`` names: an exact (normalised) name, topic or folder name, else the single best fuzzy
    match when it is clearly ahead (score ≥ 0.8 and no other within 0.1)."""
    scored = sorted(((_score(v, query), i) for i, v in enumerate(views)), key=lambda t: (-t[0], t[1]))
    if not scored or scored[0][0] < 0.8:
        return None
    if len(scored) > 1 and scored[1][0] > scored[0][0] - 0.1 and scored[0][0] < 1.0:
        return None
    return views[scored[0][1]]


# --------------------------------------------------------------------------- budget


def clamp_tokens(tokens_: int | None) -> int:
    return DEFAULT_TOKENS if tokens_ is None else max(MIN_TOKENS, min(int(tokens_), MAX_TOKENS))


def _cut(text: str, budget: int) -> str:
    if estimate_tokens(text) <= budget:
        return text
    room = max(0, int(budget * CHARS_PER_TOKEN) - 2)  # the "\n…" mark
    cut = text[:room]
    nl = cut.rfind("\n")
    return cut[: nl if nl > room // 2 else room].rstrip() + "\n…"


def budgeted(view: RunView, tokens_: int | None = None, query: str | None = None, file: str | None = None) -> dict[str, Any]:
    """A skill's text within ``tokens_`` (default 5000, 500..100 000; the estimate of :mod:`synth.skill.size`).

    ``file`` given: that file, cut to the budget. Otherwise SKILL.md first, then the reference files — those
    ``query`` matches best first (BM25 over their blocks), else in name order — each whole while it fits;
    the first one that does not fit is cut to what is left, the rest are listed as ``omitted`` with their URIs."""
    budget = clamp_tokens(tokens_)
    order = [file] if file else ["SKILL.md", *_reference_order(view, query)]
    parts, included, omitted = [], [], []
    left = budget
    for rel in order:
        text = served(view, rel)
        header = "" if rel == "SKILL.md" and not file else f"<!-- {uri(view.name, rel)} -->\n"
        cost = estimate_tokens(header + text) + 1  # + the blank line between parts
        if left >= cost:
            parts.append(header + text)
            included.append({"file": rel, "tokens": estimate_tokens(text), "truncated": False})
            left -= cost
        elif left >= MIN_TOKENS // 5 or not parts:
            cut = _cut(text, max(left - estimate_tokens(header) - 1, 1))
            parts.append(header + cut)
            included.append({"file": rel, "tokens": estimate_tokens(cut), "truncated": True})
            left = 0
        else:
            omitted.append({"file": rel, "uri": uri(view.name, rel), "tokens": estimate_tokens(text)})
    text = "\n\n".join(parts)
    return {"name": view.name, "version": view.version, "cutoff": view.cutoff, "learned_date": view.learned_date,
            "tokens": estimate_tokens(text), "budget": budget, "truncated": any(p["truncated"] for p in included) or bool(omitted),
            "included": included, "omitted": omitted, "text": text}


def _reference_order(view: RunView, query: str | None) -> list[str]:
    refs = sorted(view.references)
    if not query or not query.strip():
        return refs
    found = search_skills([view], query, MAX_RESULTS)["results"]
    best: dict[str, float] = {}
    for r in found:
        if r["file"] != "SKILL.md":
            best[r["file"]] = max(best.get(r["file"], 0.0), r["score"])
    return sorted(refs, key=lambda rel: (-best.get(rel, 0.0), rel))
