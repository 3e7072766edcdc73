"""Publication dates on real pages: htmldate alone against skill3's ``page_dates``.

    PYTHONPATH=$PWD python bench/bench_dates.py DIR [DIR ...] [--no-url] [--limit N] [--show-diff]

``DIR`` holds one or more JSON files mapping a page's URL to ``{"file": NAME,
"date": "YYYY-MM-DD" | null}`` and the pages themselves anywhere below ``DIR``
(found by file name). htmldate's own evaluation set has exactly this shape —
``eval_default.json`` and ``eval_mediacloud_2020.json`` next to ``test_set/``,
``cache/`` and ``eval/`` in its ``tests/`` folder (Apache-2.0, github.com/adbar/htmldate):

    git clone --depth 1 https://github.com/adbar/htmldate /tmp/htmldate
    PYTHONPATH=$PWD python bench/bench_dates.py /tmp/htmldate/tests

Pages are read like htmldate's evaluation reads them (UTF-8, else the
detected charset). Both sides get the same HTML text and the page's URL
(``--no-url`` gives neither of them the URL); ``today`` is fixed so the
bound does not move with the calendar. Scores follow htmldate's
``evaluate_result``: a date equal to the reference is a true positive, any
other date a false positive, no date a false negative; accuracy =
(tp + tn) / (tp + tn + fp + fn). Printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from collections import Counter
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TODAY = date(2026, 12, 1)


def fail(message: str) -> None:
    """Bad input: one line, exit 2."""
    print(f"bench_dates: {message}", file=sys.stderr)
    raise SystemExit(2)


def load_cases(dirs: list[Path]) -> list[dict]:
    """[{url, path, date}] from every ``*.json`` truth file directly inside each directory."""
    cases = []
    for d in dirs:
        files = {p.name: p for p in d.rglob("*") if p.is_file() and p.suffix.lower() in (".html", ".htm")}
        for truth in sorted(d.glob("*.json")):
            try:
                data = json.loads(truth.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                fail(f"{truth}: not a JSON truth file ({e}); expected {{url: {{file, date}}}}")
            if not isinstance(data, dict):
                continue
            for url, entry in data.items():
                if not isinstance(entry, dict) or "file" not in entry:
                    continue
                path = files.get(entry["file"])
                if path is None:
                    continue
                cases.append({"url": url, "path": str(path), "date": entry.get("date")})
    return cases


def read_page(path: str) -> str:
    raw = Path(path).read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        from charset_normalizer import from_bytes

        best = from_bytes(raw).best()
        return str(best) if best is not None else raw.decode("utf-8", "replace")


def _one(args: tuple[dict, bool]) -> dict:
    from htmldate import find_date

    from skill3crawl.extract.dates import page_dates

    case, with_url = args
    html = read_page(case["path"])
    url = case["url"] if with_url else None
    t = time.perf_counter()
    try:
        alone = find_date(html, url=url, extensive_search=True, original_date=True, max_date=TODAY.isoformat())
    except Exception:  # a crash on one page is a miss, like any extractor's
        alone = None
    t_alone = time.perf_counter() - t
    t = time.perf_counter()
    out = page_dates(html, url or "", {}, today=TODAY)
    t_ours = time.perf_counter() - t
    return {**case, "htmldate": alone, "page_dates": out["published"], "source": out["date_source"],
            "t_htmldate": t_alone, "t_page_dates": t_ours}


def score(rows: list[dict], key: str) -> dict:
    tp = fp = tn = fn = 0
    for r in rows:
        got, want = r[key], r["date"]
        if got is None:
            tn += want is None
            fn += 1
        elif got == want:
            tp += 1
        else:
            fp += 1
    total = tp + tn + fp + fn
    return {"tp": tp, "fp": fp, "fn": fn, "accuracy": (tp + tn) / total if total else 0.0,
            "precision": tp / (tp + fp) if tp + fp else 0.0, "recall": tp / (tp + fn) if tp + fn else 0.0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", type=Path, help="folders with *.json truth files and the pages below them")
    ap.add_argument("--no-url", action="store_true", help="give neither side the page's URL")
    ap.add_argument("--limit", type=int, default=0, help="only the first N pages (0: all)")
    ap.add_argument("--procs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--show-diff", action="store_true", help="list pages where the two disagree")
    a = ap.parse_args()
    for d in a.dirs:
        if not d.is_dir():
            fail(f"{d}: not a folder; give the folder holding the truth JSON files and the pages")
    cases = load_cases(a.dirs)
    if a.limit:
        cases = cases[: a.limit]
    if not cases:
        fail("no pages found: each folder needs *.json files mapping URL → {file, date} and those files below it")
    t = time.monotonic()
    with multiprocessing.get_context("spawn").Pool(a.procs) as pool:
        rows = pool.map(_one, [(c, not a.no_url) for c in cases], chunksize=8)
    wall = time.monotonic() - t
    print(f"{len(rows)} pages, URL given: {not a.no_url}, today {TODAY}, {a.procs} processes, {wall:.0f} s")
    for key in ("htmldate", "page_dates"):
        s = score(rows, key)
        ms = 1000 * sum(r[f"t_{key}"] for r in rows) / len(rows)
        print(f"{key:11s} accuracy {s['accuracy']:.3f}  precision {s['precision']:.3f}  recall {s['recall']:.3f}  "
              f"(tp {s['tp']}, fp {s['fp']}, fn {s['fn']})  {ms:.0f} ms/page")
    won = Counter(r["source"] for r in rows)
    right = Counter(r["source"] for r in rows if r["page_dates"] == r["date"])
    print("date_source (right/won): " + ", ".join(f"{k or 'none'} {right[k]}/{n}" for k, n in won.most_common()))
    better = sum(r["page_dates"] == r["date"] != r["htmldate"] for r in rows)
    worse = sum(r["htmldate"] == r["date"] != r["page_dates"] for r in rows)
    print(f"page_dates right where htmldate is wrong: {better}; wrong where htmldate is right: {worse}")
    if a.show_diff:
        for r in rows:
            if r["page_dates"] != r["htmldate"]:
                print(f"  want {r['date']}  htmldate {r['htmldate']}  page_dates {r['page_dates']} ({r['source']})  {r['url']}")


if __name__ == "__main__":
    main()
