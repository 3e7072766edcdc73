"""A deterministic run.jsonl for the bundle-equivalence test, and the outputs compared.

Near-duplicate, variant and exact copies of a pool of snippets spread across hosts of mixed
authority (authoritative ones publish variants that low-authority copies conflict with), change
entries for the delta, dates before/after the cutoff, undated and future pages, short snippets,
non-ASCII text, duplicate URLs and a few malformed lines. ``snapshot`` is everything the bundle
decides: the ranked candidates (order, scores, consensus counts, kept and dropped snippets, change
entries), the read report, the delta record, and the bundles of both selection modes.

Regenerate the fixture (only when a change is *meant* to alter the results):
    PYTHONPATH=. python -m tests.pipeline.bundle.bundle_equivalence
"""

from __future__ import annotations

import json
import random
from datetime import date
from pathlib import Path

from synth.evidence.consensus import item_snippets
from synth.evidence.shingles import snippet_tokens
from synth.pipeline.bundle import Subject, rank_sources, ranking_rows, select_evidence, to_bundle

FIXTURE = Path(__file__).parent / "fixtures" / "bundle_equivalence.json"
CUTOFF_START = date(2026, 1, 1)
TODAY = date(2026, 11, 29)
TOPIC = "quill"
QUERIES = ("quill transport session 2026", "quill stateless server")
_SYL = "ka lo mi ne ru ta so vi pe".split()
WORDS = tuple(a + b + c for a in _SYL for b in _SYL for c in _SYL) + tuple(
    "quill transport session stateless server client tool resource stream token release deprecated added removed "
    "schema version cache request response über straße ΣΟΦΙΑΣ".split())
AUTHORITATIVE = ("spec.quill.example", "docs.quill.example")


def _sentence(rng: random.Random, lo: int = 8, hi: int = 20) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi))).capitalize() + "."


def _mutate(rng: random.Random, text: str, changes: int) -> str:
    words = text.split(" ")
    for _ in range(changes):
        words[rng.randrange(len(words))] = rng.choice(WORDS)
    return " ".join(words)


def generate(path: Path, n: int = 5000, seed: int = 14, *, tokens: bool = False) -> Path:
    """The run; ``tokens``: each line ends with its snippet tokens, as the crawl writes them (the same lines else)."""
    rng = random.Random(seed)
    claims = [_sentence(rng, 14, 22) for _ in range(120)]
    codes = ["\n".join(_sentence(rng, 5, 9) for _ in range(3)) for _ in range(30)] + ["run()", "pip install quill"]
    hosts = [f"site{i}.example.org" for i in range(250)] + ["github.com", "gitlab.com"] + list(AUTHORITATIVE) + \
            [f"blog{i}.quill.example" for i in range(5)]
    versions = ["1.8", "1.9", "2.0", "2.1", "2.2"]
    lines = []
    for i in range(n):
        host = rng.choice(hosts)
        auth = 0.9 if host in AUTHORITATIVE else 0.7 if host in ("github.com", "gitlab.com") else rng.choice((0.3, 0.4, 0.5, 0.6))
        r = rng.random()
        day = (None if r < 0.15 else f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}" if r < 0.35
               else "2027-02-01" if r < 0.37 else f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}")
        paras = ["## " + " ".join(rng.choice(WORDS) for _ in range(3))]
        for _ in range(rng.randint(1, 4)):
            sents = []
            for _ in range(rng.randint(1, 4)):
                k = rng.random()
                base = rng.choice(claims)
                sents.append(base if k < 0.25 else _mutate(rng, base, 1) if k < 0.4 else _mutate(rng, base, 4) if k < 0.5
                             else _sentence(rng))
            paras.append(" ".join(sents))
        if rng.random() < 0.05:
            paras.append("Quill über straße ΣΟΦΙΑΣ. Σίσυφος ΌΣΟΣ λέει ναι εδώ μέσα.")
        blocks = []
        for _ in range(rng.randint(0, 2)):
            k = rng.random()
            base = rng.choice(codes)
            text = base if k < 0.4 else _mutate(rng, base, 2) if k < 0.6 else "\n".join(_sentence(rng, 5, 9) for _ in range(3))
            blocks.append({"text": text, "language": "python"})
        changes = []
        if rng.random() < 0.006:
            for j in range(rng.randint(1, 4)):
                v = rng.choice(versions)
                changes.append({"kind": rng.choice(("added", "changed", "deprecated", "release")), "version": v,
                                "removed_in": None, "date": f"2026-0{versions.index(v) + 1}-15" if rng.random() < 0.3 else None,
                                "text": f"{_sentence(rng)} New in version {v}.", "anchor": None,
                                "heading": "Summary – Release highlights" if j == 0 and rng.random() < 0.3 else ""})
        url = f"https://{host}/p/{i if rng.random() > 0.01 else 7}"
        item = {"url": url, "final_url": url, "host": host, "title": f"{rng.choice(WORDS)} quill page {i}", "topic": TOPIC,
                "cutoff": "2026-01", "published": day, "date_source": "meta" if day else None, "discovery": "brave",
                "query": rng.choice(QUERIES), "authority": auth, "authority_reason": "generated", "post_cutoff": bool(day),
                "recency_weight": 0.5, "combined_score": 0.0, "excerpts": paras, "code_blocks": blocks, "consensus_count": 1,
                "changes": changes, "page_kind": "change" if changes and rng.random() < 0.3 else "doc"}
        ascii_only = rng.random() < 0.5
        if tokens:
            item["snippet_tokens"] = snippet_tokens(item_snippets(paras, blocks))
        lines.append(json.dumps(item, ensure_ascii=ascii_only))
    lines[100] = "{not json"
    lines[200] = json.dumps({"url": "https://x.example/bad", "authority": "high"})
    lines[300] = ""
    data = ("\n".join(lines) + "\n").encode("utf-8")
    data = data.replace(b'"title": "', b'"title": "\xff', 1)  # one line that is not UTF-8
    path.write_bytes(data)
    return path


def snapshot(path: Path) -> dict:
    """Everything the bundle decides over ``path``, as JSON-able data."""
    out = {}
    for name, kw in {"default": {}, "strict": {"strict": True, "max_candidates": 20}}.items():
        r = rank_sources([str(path)], cutoff_start=CUTOFF_START, today=TODAY, subject=Subject(
            TOPIC, QUERIES, crawl_meta={"timeline": [{"version": "2.0", "date": "2026-03-01", "source": "pypi"}]}), **kw)
        cands = [{"url": c.url, "where": c.where, "rank_score": c.rank_score, "consensus_count": c.consensus_count,
                  "relevance": c.relevance, "excerpts": c.excerpts, "code_blocks": c.code_blocks,
                  "dropped_snippets": c.dropped_snippets, "delta": [ch.tag() for ch in c.delta]} for c in r.candidates]
        trimmed = select_evidence(r.candidates, 1500, can_condense=False)
        direct = select_evidence(r.candidates, 10**6, can_condense=True)
        out[name] = {
            "candidates": cands,
            "rows": ranking_rows(r.candidates, trimmed),
            "report": {k: v for k, v in r.report.to_dict().items() if k != "dropped_items"},  # (a list added later)
            "delta": r.delta.ranking_json(),
            "bundles": [to_bundle(s, skill_name="quill", target_model="m", cutoff="2026-01", delta=r.delta.ranking_json())
                        for s in (trimmed, direct)],
            "trimmed": [trimmed.mode, trimmed.trimmed, trimmed.excluded, trimmed.tokens],
        }
    return json.loads(json.dumps(out, default=str).replace(json.dumps(str(path))[1:-1], "run.jsonl"))


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        snap = snapshot(generate(Path(d) / "run.jsonl"))
    FIXTURE.write_text(json.dumps(snap, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE} ({FIXTURE.stat().st_size} bytes)")
