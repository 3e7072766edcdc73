"""The crawl side of the delta, measured on the development set (no synthesis): what the extraction reads.

    PYTHONPATH=$PWD .venv/bin/python bench/extract_report.py                    # every case
    PYTHONPATH=$PWD .venv/bin/python bench/extract_report.py flask22 attrs222   # some
    ... --project /path/to/other/checkout      # crawl with another checkout's code (a before/after)
    ... --keep DIR                             # keep each case's output under DIR/CASE
    ... --analyze DIR                          # no crawl: report on the outputs kept under DIR/CASE

Each case of the development set's ``cases.json`` (``--cases``; default ``$DELTA_DEV/cases.json``, else the
set in the ``shared`` folder beside the checkout) is served on loopback by the set's
``serve_static.py`` and crawled as ``run_case.sh`` does (``scrapy crawl learn``, ``max_pages=1500``,
delays off) but with ``-a synth=0``. Reported per case, for its release R (the version in the case's
``_notes.release``):

* **date** — R's date in crawl.json's ``timeline`` as the pages print it (sources changelog, whatsnew,
  release-page; a registry's dates left out) and whether it is right: the date in
  ``_notes.release`` for a site that prints dates; for a site that prints none (the case has a
  ``since_version``) the right answer is no date;
* **page** — the ``page_kind`` / ``page_version`` of R's change page (the first ``change_page`` URL
  crawled; ``page_version`` is R on a page about one release, none on a changelog of many);
* **entries** — how many change entries (all pages) carry R's version;
* **features** — how many of the case's features have an alias (exact substring) in those entries' text
  (``+code``: in their text, API names and code examples).

Versions compare with trailing ``.0`` parts dropped (``3.11.0`` = ``3.11``, ``25.0`` = ``25``).
Numbers are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEV = Path(os.environ["DELTA_DEV"]) if os.environ.get("DELTA_DEV") else ROOT.parent / "shared" / "delta-dev"


PAGE_SOURCES = {"changelog", "whatsnew", "release-page"}  # crawl.json timeline sources read on the pages


def norm(v: str | None) -> str:
    parts = (v or "").lower().lstrip("v").split(".")
    while len(parts) > 1 and parts[-1] == "0":
        parts.pop()
    return ".".join(parts)


def release_of(case: dict) -> tuple[str, str | None]:
    """(R's version, R's date or None when the site prints none) from the case's notes."""
    note = case.get("_notes", {}).get("release", "")
    ver = re.search(r"(?<![\w.])v?(\d+(?:\.\d+)*)(?![\w.])", note)
    date = re.search(r"\d{4}-\d{2}-\d{2}", note)
    printed = not case.get("since_version")
    return (ver.group(1) if ver else ""), (date.group(0) if date and printed else None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def crawl(name: str, case: dict, out: Path, project: Path, scrapy: str, timeout: int) -> float:
    out.mkdir(parents=True, exist_ok=True)
    port = free_port()
    server = subprocess.Popen([sys.executable, str(DEV / "serve_static.py"), case["root"], "--port", str(port),
                               "--pidfile", str(out / "pid")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if (out / "pid").exists() and (out / "pid").stat().st_size:
                break
            time.sleep(0.1)
        cmd = [scrapy, "crawl", "learn", "-a", f"topic={case['topic']}", "-a", f"start_urls=http://127.0.0.1:{port}/",
               "-a", f"cutoff_time={case['cutoff']}", "-a", "max_pages=1500", "-a", f"output_dir={out / 'out'}",
               "-a", "synth=0", "-s", "AUTOTHROTTLE_ENABLED=0", "-s", "DOWNLOAD_DELAY=0",
               "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=16", "-s", "HTTPCACHE_ENABLED=0", "-s", "LOG_LEVEL=WARNING"]
        env = dict(os.environ, SKILL3_ALLOW_PRIVATE_NETWORKS="1", PYTHONPATH=str(project))
        t = time.monotonic()
        with open(out / "log", "w") as log:
            rc = subprocess.run(cmd, cwd=project, env=env, stdout=log, stderr=subprocess.STDOUT, timeout=timeout).returncode
        if rc not in (0, 3):
            print(f"{name}: crawl exited {rc} (log {out / 'log'})", file=sys.stderr)
        return time.monotonic() - t
    finally:
        server.terminate()
        server.wait()


def analyze(name: str, case: dict, out: Path) -> dict:
    ver, want_date = release_of(case)
    r = norm(ver)
    crawl_json = json.loads((out / "crawl.json").read_text()) if (out / "crawl.json").exists() else {}
    # the dates the crawled pages print (a registry's or repository's dates are no extraction's)
    dates = sorted({e["date"] for e in crawl_json.get("timeline", [])
                    if norm(e.get("version")) == r and e.get("source") in PAGE_SOURCES})
    items = [json.loads(line) for f in sorted(out.glob("run*.jsonl")) for line in f.open() if line.strip()]
    page = next((i for p in case["change_page"] for i in items if p in i.get("final_url") or p in i["url"]), None)
    entries = [c for i in items for c in i.get("changes", []) if norm(c.get("version")) == r]
    text = "\n".join(c.get("text", "") for c in entries)
    hits = [f for f, aliases in case["features"].items() if any(a in text for a in aliases)]
    more = text + "\n".join(f"{c.get('api') or ''}\n" + "\n".join(b.get("text", "") for b in c.get("code") or []) for c in entries)
    more_hits = [f for f, aliases in case["features"].items() if any(a in more for a in aliases)]
    date_ok = (dates == [want_date]) if want_date else not dates
    return {
        "case": name, "R": ver, "pages": len(items),
        "timeline": sum(1 for e in crawl_json.get("timeline", []) if e.get("source") in PAGE_SOURCES),
        "dates": dates, "want": want_date, "date_ok": date_ok,
        "page": (page.get("page_kind"), page.get("page_version")) if page else None,
        "entries": len(entries), "features": (len(hits), len(case["features"])), "features_code": len(more_hits),
        "missed": [f for f in case["features"] if f not in hits],
    }


def show(rows: list[dict]) -> None:
    print(f"{'case':<10} {'R':<7} {'pages':>5} {'tl':>4}  {'R date (want)':<26} {'ok':<3} {'change page':<18} {'entries':>7} {'features':>8} {'+code':>5}")
    for row in rows:
        d = ",".join(row["dates"]) or "-"
        page = f"{row['page'][0]}/{row['page'][1]}" if row["page"] else "not crawled"
        f = row["features"]
        print(f"{row['case']:<10} {row['R']:<7} {row['pages']:>5} {row['timeline']:>4}  {d + ' (' + (row['want'] or 'none') + ')':<26} "
              f"{'yes' if row['date_ok'] else 'NO':<3} {page:<18} {row['entries']:>7} {f[0]:>4}/{f[1]:<3} {row.get('features_code', f[0]):>5}")
    ok = sum(r["date_ok"] for r in rows)
    feats = sum(r["features"][0] for r in rows), sum(r["features"][1] for r in rows)
    code = sum(r.get("features_code", r["features"][0]) for r in rows)
    print(f"dates right: {ok}/{len(rows)}; features in R's entries: {feats[0]}/{feats[1]} (with API names and code: {code})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cases", nargs="*")
    ap.add_argument("--cases-file", default=str(DEV / "cases.json"))
    ap.add_argument("--project", default=str(ROOT), help="the checkout whose code crawls (default: this one)")
    ap.add_argument("--scrapy", default=str(ROOT / ".venv" / "bin" / "scrapy"))
    ap.add_argument("--keep", help="keep each case's output under DIR/CASE")
    ap.add_argument("--analyze", help="no crawl: report on DIR/CASE outputs of an earlier --keep")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--json", help="also write the rows to this file")
    a = ap.parse_args()
    cases = {k: v for k, v in json.loads(Path(a.cases_file).read_text()).items() if not k.startswith("_")}
    names = a.cases or list(cases)
    rows = []
    for name in names:
        case = cases[name]
        if a.analyze:
            base = Path(a.analyze) / name
        else:
            if not Path(case["root"]).is_dir():
                print(f"{name}: {case['root']} missing (apt-get install {case['apt']})", file=sys.stderr)
                continue
            base = Path(a.keep) / name if a.keep else Path(tempfile.mkdtemp(prefix=f"extract-{name}-"))
            secs = crawl(name, case, base, Path(a.project), a.scrapy, a.timeout)
            print(f"{name}: crawled in {secs:.0f} s -> {base / 'out'}", file=sys.stderr)
        rows.append(analyze(name, case, base / "out"))
        print(json.dumps(rows[-1]), file=sys.stderr)
    show(rows)
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
