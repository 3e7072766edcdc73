"""Bundle building over a generated 100,000-item run.jsonl: wall time and peak RSS,
against a plain ``json.loads`` pass over the same file. Each measurement runs in its
own subprocess so the peak RSS figures are clean. Numbers are printed, not asserted.

    PYTHONPATH=. python bench/bench_bundle.py [--items 100000] [--runs 3] [--text ascii|docs] [--keep FILE]
    PYTHONPATH=. python bench/bench_bundle.py --run out/run.jsonl [--cutoff 2022-06] [--runs 3]

With ``--runs N`` the plain pass and the bundle alternate N times over the same file (interleaved, so
machine load hits both alike); the medians and ranges are printed.

``--text ascii`` writes plain ASCII words only (the figure bench/README.md has tracked since the first round);
``--text docs`` writes what real documentation runs hold: every page has characters beyond ASCII (a '¶' after
headings, dashes, curly quotes, accented words: the nine dev-set crawls have them on 98% of their pages), and
9% of the pages carry version markers, a few of them release notes with dated version sections. ``--run FILE``
times an existing run (a real crawl's run.jsonl) instead of a generated one. Each generated page carries its
``snippet_tokens`` as the crawl writes them (the last field; synth.evidence.shingles); ``--no-tokens`` leaves them
out, as in a run written before they existed (the vote then reads every line's text).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

from synth.evidence.consensus import item_snippets
from synth.evidence.shingles import snippet_tokens

_SYLLABLES = "ka lo mi ne ru ta so vi pe da ge fo hu ji ze".split()
# ~3,400 distinct words (a technical page's vocabulary is thousands of words; a tiny vocabulary would make
# every snippet look like a near-duplicate of every other and measure a pathological case)
WORDS = tuple(a + b + c for a in _SYLLABLES for b in _SYLLABLES for c in _SYLLABLES) + tuple(("protocol server client transport session tool resource prompt registry token stream http stateless "
         "request response schema version release deprecated removed added stable task result cache publisher "
         "authorization metadata endpoint sdk python typescript model context capability notification sampling").split())


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(10, 24))).capitalize() + "."


_DOCS_WORDS = ("café", "naïve", "façade", "Zürich", "“quoted”", "—", "…", "→", "déjà")


def docs_sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(10, 24))]
    for _ in range(rng.randint(0, 2)):
        words.insert(rng.randrange(len(words)), rng.choice(_DOCS_WORDS))
    return " ".join(words).capitalize() + "."


def _version(rng: random.Random) -> str:
    return f"{rng.randint(1, 4)}.{rng.randint(0, 12)}"


def docs_changes(rng: random.Random, i: int) -> tuple[str, list[dict]]:
    """A page's change entries, as the crawl writes them: version markers on an API page (most), or the dated version
    sections of release notes (a few)."""
    if rng.random() < 0.02:
        out = []
        for v in range(rng.randint(3, 8)):
            version, day = f"{rng.randint(1, 4)}.{v}.0", f"202{rng.randint(4, 6)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
            section = rng.choice(["New features", "Bug fixes", "Deprecations", "Removals", "Improved modules"])
            for _ in range(rng.randint(5, 20)):
                out.append({"kind": "release", "version": version, "date": day, "text": docs_sentence(rng) + f" (gh-{rng.randint(1, 9999)})",
                            "anchor": f"#v{v}", "heading": section, "path": ["Changelog", f"{version} — {day}", section],
                            "api": None, "code": []})
        return "change", out
    out = []
    for _ in range(rng.randint(1, 10)):
        kind = rng.choice(["added", "added", "changed", "deprecated"])
        name = f"pkg.{rng.choice(WORDS)}.{rng.choice(WORDS)}"
        out.append({"kind": kind, "version": _version(rng), "date": None,
                    "text": f"{name}() {docs_sentence(rng)} New in version {_version(rng)}.", "anchor": f"#{name}",
                    "heading": f"{name}() ¶", "path": [f"Page {i}", f"{name}() ¶"], "api": name, "code": []})
    return "doc", out


def generate(path: str, n: int, seed: int = 7, text: str = "ascii", tokens: bool = True) -> None:
    rng = random.Random(seed)
    docs = text == "docs"
    make = docs_sentence if docs else sentence
    shared_code = ["from mcp.server.mcpserver import MCPServer\nserver = MCPServer('w')\nserver.run(transport='streamable-http')"]
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            host = f"site{rng.randint(0, 5000)}.example.org" if rng.random() > 0.1 else "github.com"
            day = f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}" if rng.random() > 0.2 else None
            excerpts = ["## " + " ".join(rng.choice(WORDS) for _ in range(4)) + (" ¶" if docs else "")]
            excerpts += [" ".join(make(rng) for _ in range(rng.randint(2, 4))) for _ in range(rng.randint(2, 5))]
            code = [{"text": rng.choice(shared_code) if rng.random() < 0.05 else "\n".join(make(rng) for _ in range(3)), "language": "python"}]
            auth = 0.7 if host == "github.com" else 0.5
            item = {"url": f"https://{host}/page/{i}", "final_url": f"https://{host}/page/{i}", "host": host,
                    "title": f"Page {i}", "topic": "mcp", "cutoff": "2026-01", "published": day, "date_source": "meta" if day else None,
                    "discovery": "brave", "query": "mcp 2026", "authority": auth, "authority_reason": "bench",
                    "post_cutoff": bool(day), "recency_weight": 0.8 if day else 0.3, "combined_score": 0.0,
                    "excerpts": excerpts, "code_blocks": code, "consensus_count": 1}
            if docs and rng.random() < 0.09:
                item["page_kind"], item["changes"] = docs_changes(rng, i)
            if tokens:  # as the crawl writes them, the last field
                item["snippet_tokens"] = snippet_tokens(item_snippets(excerpts, code))
            fh.write(json.dumps(item, ensure_ascii=not docs) + "\n")


CHILD_PLAIN = """
import json, sys, time, resource
t = time.perf_counter(); n = 0
with open(sys.argv[1], encoding="utf-8") as fh:
    for line in fh:
        json.loads(line); n += 1
print(json.dumps({"seconds": time.perf_counter() - t, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "items": n}))
"""

CHILD_BUNDLE = """
import json, sys, time, resource
from datetime import date
t0 = time.perf_counter()
from synth.pipeline.bundle import rank_sources, select_evidence, to_bundle
t = time.perf_counter()
r = rank_sources([sys.argv[1]], cutoff_start=date.fromisoformat(sys.argv[2]), today=date(2026, 11, 29))
sel = select_evidence(r.candidates, 5500, can_condense=True)
b = to_bundle(sel, skill_name="mcp", target_model="claude-opus-4-8", cutoff="2026-01")
print(json.dumps({"seconds": time.perf_counter() - t, "import_seconds": t - t0,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "items": r.report.items,
                  "candidates": len(r.candidates), "bundle_sources": len(b["sources"]), "mode": sel.mode}))
"""

CHILD_BASELINE = """
import json, resource, sys
import synth.pipeline.bundle
print(json.dumps({"rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def child(code: str, *args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [os.getcwd(), os.environ.get("PYTHONPATH")]))}
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _median(runs: list[dict]) -> dict:
    return sorted(runs, key=lambda r: r["seconds"])[len(runs) // 2]


def _spread(runs: list[dict]) -> str:
    secs = sorted(r["seconds"] for r in runs)
    return f" ({secs[0]:.2f}–{secs[-1]:.2f}, n={len(secs)})" if len(secs) > 1 else ""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--keep", help="write the generated JSONL here instead of a temp file")
    ap.add_argument("--runs", type=int, default=1, help="interleaved runs of the plain pass and the bundle")
    ap.add_argument("--text", choices=("ascii", "docs"), default="ascii", help="what the generated pages hold (see above)")
    ap.add_argument("--no-tokens", action="store_true", help="generated pages without snippet_tokens (an older run)")
    ap.add_argument("--run", help="time this run.jsonl instead of a generated one")
    ap.add_argument("--cutoff", default="2026-01", help="the cutoff month for --run (YYYY-MM)")
    args = ap.parse_args()
    path = args.run or args.keep or tempfile.mkstemp(suffix=".jsonl")[1]
    cutoff = f"{args.cutoff}-01" if args.run else "2026-01-01"
    try:
        t = time.perf_counter()
        if args.run:
            print(f"timing {path}: {os.path.getsize(path) / 1e6:.1f} MB")
        else:
            generate(path, args.items, text=args.text, tokens=not args.no_tokens)
            print(f"generated {args.items} items ({args.text}{', no tokens' if args.no_tokens else ''}), {os.path.getsize(path) / 1e6:.1f} MB in "
                  f"{time.perf_counter() - t:.1f}s: {path}")
        base = child(CHILD_BASELINE)
        plains, bundles = [], []
        for _ in range(max(1, args.runs)):
            plains.append(child(CHILD_PLAIN, path))
            bundles.append(child(CHILD_BUNDLE, path, cutoff))
        plain, bundle = _median(plains), _median(bundles)
        ratios = sorted(b["seconds"] / p["seconds"] for p, b in zip(plains, bundles))
        print(f"json.loads pass     : {plain['seconds']:7.2f} s{_spread(plains)}  peak RSS {plain['rss_mb']:6.1f} MB")
        print(f"bundle (2 passes)   : {bundle['seconds']:7.2f} s{_spread(bundles)}  peak RSS {bundle['rss_mb']:6.1f} MB "
              f"(imports alone {base['rss_mb']:.1f} MB; {bundle['candidates']} candidates kept, "
              f"{bundle['bundle_sources']} in the bundle, mode {bundle['mode']})")
        print(f"ratio               : {bundle['seconds'] / plain['seconds']:7.1f}x time"
              f"{f' (per run {ratios[0]:.1f}–{ratios[-1]:.1f}x)' if len(ratios) > 1 else ''}, "
              f"+{bundle['rss_mb'] - base['rss_mb']:.1f} MB over the imports")
    finally:
        if not (args.keep or args.run):
            os.unlink(path)


if __name__ == "__main__":
    main()
