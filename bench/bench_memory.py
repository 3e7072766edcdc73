"""Where the docs crawl's memory goes, per process: printed, never asserted.

    PYTHONPATH=$PWD .venv/bin/python bench/bench_memory.py --runs 3                 # python docs + 2,000, 5,000, 20,000 pages
    PYTHONPATH=$PWD .venv/bin/python bench/bench_memory.py --sites pydocs --runs 1  # one site
    PYTHONPATH=$PWD .venv/bin/python bench/bench_memory.py --only baselines         # imports only (≈30 s)

1. baselines — what each kind of process holds before it sees a page, each in a fresh interpreter:
   the interpreter alone; every heavy library alone (RSS over the bare interpreter, modules loaded);
   the crawler's imports (Scrapy, the spiders, the pipelines: what ``scrapy crawl docs`` loads before its
   first request); an extraction worker started by :class:`skill3crawl.extract.executor.Extractor` itself
   (its RSS and modules after start, then after one page of the Python docs through ``process_page``).
2. crawl — ``scrapy crawl docs`` (the full pipeline, as ``bench_crawl.py`` runs it) on the Python docs
   (``/usr/share/doc/python3.11/html`` on loopback) and on the generated sites, each process of the tree
   sampled from ``/proc`` every 0.2 s: *whole tree* = peak of the summed RSS (what the issue's targets
   count), *largest process* = peak RSS of the single largest process, and per role (crawler, extraction
   worker, multiprocessing's resource tracker) its peak RSS and PSS (shared pages divided among the
   processes that share them: the memory the tree really costs). The crawler runs with ``tracemalloc``
   (started before Scrapy is imported; it slows the crawler, not the workers) and reports the Python
   allocations it held at its largest, by file: the item, scheduling and consensus state.

Every figure is the median (min–max) of ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_crawl import MEASURE, PYDOCS, env_for  # noqa: E402
from tests.mockserver import MockServer, bind, generated_site  # noqa: E402
from tests.proctree import command_name, descendants, rss_bytes  # noqa: E402

MB = 2**20
HEAVY = ("lxml.html", "w3lib.url", "twisted.internet.reactor", "scrapy", "trafilatura", "htmldate", "dateparser",
         "extruct", "detect_secrets.core.scan", "datasketch", "tldextract", "justext", "charset_normalizer",
         "scrapy_playwright.handler", "rdflib", "numpy")
# What `scrapy crawl docs` imports before its first request (the settings' components by name).
CRAWLER_IMPORTS = ("scrapy.cmdline", "scrapy.crawler", "skill3crawl.settings", "skill3crawl.spiders.docs",
                   "skill3crawl.spiders.learn", "skill3crawl.pipelines", "skill3crawl.sitecrawl.pipelines",
                   "skill3crawl.extensions", "skill3crawl.logformatter", "skill3crawl.middlewares")


def pss_bytes(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def role(pid: int, root: int) -> str:
    if pid == root:
        return "crawler"
    cmd = cmdline(pid)
    if "resource_tracker" in cmd:
        return "resource tracker"
    if command_name(pid).startswith(("python", "scrapy")) or "multiprocessing" in cmd:
        return "extraction worker"
    return command_name(pid) or "other"


class PerProcess:
    """Samples a tree every ``interval`` s: peak summed RSS and PSS, and each process's peak RSS/PSS and role."""

    def __init__(self, root: int, interval: float = 0.2):
        import threading

        self.root, self.interval = root, interval
        self.peak_tree = self.peak_pss = self.peak_single = 0
        self.procs: dict[int, dict[str, Any]] = {}
        self.at_peak: dict[str, float] = {}  # role → the RSS its processes held together when the tree's sum peaked
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def sample(self) -> None:
        tree = pss = 0
        now: dict[str, float] = {}
        for pid in descendants(self.root):
            rss = rss_bytes(pid)
            if not rss:
                continue
            p = self.procs.get(pid)
            if p is None:
                p = self.procs[pid] = {"role": role(pid, self.root), "rss": 0, "pss": 0, "first": rss}
            s = pss_bytes(pid)
            p["rss"], p["pss"] = max(p["rss"], rss), max(p["pss"], s)
            tree, pss = tree + rss, pss + s
            now[p["role"]] = now.get(p["role"], 0) + rss
            self.peak_single = max(self.peak_single, rss)
        if tree > self.peak_tree:
            self.at_peak = now
        self.peak_tree, self.peak_pss = max(self.peak_tree, tree), max(self.peak_pss, pss)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def __enter__(self) -> PerProcess:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


# The crawler's wrapper: tracemalloc from the first import, a snapshot every few seconds, the largest kept
# and written as the top files at exit. `-c`, so spawned workers do not re-run it (no main file to import).
TRACED = textwrap.dedent("""
    import atexit, json, os, runpy, sys, threading, tracemalloc
    tracemalloc.start(1)
    best = {"size": 0, "top": []}
    def snap():
        s = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
        stats = s.statistics("filename")
        size = sum(x.size for x in stats)
        if size > best["size"]:
            best["size"] = size
            best["top"] = [(x.traceback[0].filename, x.size) for x in stats[:25]]
    def loop():
        while True:
            threading.Event().wait(float(os.environ.get("BENCH_SNAP_EVERY", "4")))
            snap()
    threading.Thread(target=loop, daemon=True).start()
    def dump():
        snap()
        cur, peak = tracemalloc.get_traced_memory()
        mods = sorted({m.split(".")[0] for m in sys.modules})
        with open(os.environ["BENCH_TRACE_FILE"], "w") as f:
            json.dump({"traced_peak": peak, "snapshot": best, "modules": len(sys.modules), "packages": mods}, f)
    atexit.register(dump)
    sys.argv = ["scrapy"] + sys.argv[1:]
    runpy.run_module("scrapy", run_name="__main__", alter_sys=True)
""")


def crawl(start_url: str, traced: bool, root: Path = ROOT, workers: int | None = None) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="skill3mem-"))
    env = env_for(tmp / "stats.json", root)
    env["BENCH_TRACE_FILE"] = str(tmp / "trace.json")
    args = ["crawl", "docs", "-a", f"start_urls={start_url}", "-a", f"output_dir={tmp / 'out'}", "-a", "max_pages=100000",
            "-a", "synth=0"]
    for k, v in MEASURE.items():
        args += ["-s", f"{k}={v}"]
    if workers is not None:
        args += ["-s", f"SKILL3_EXTRACT_WORKERS={workers}"]
    cmd = [sys.executable, "-c", TRACED, *args] if traced else [sys.executable, "-m", "scrapy", *args]
    with open(tmp / "crawl.log", "w") as log:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=log)
        with PerProcess(proc.pid) as tree:
            _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"crawl failed, log: {tmp / 'crawl.log'}")
    stats = json.loads((tmp / "stats.json").read_text())
    trace = json.loads((tmp / "trace.json").read_text()) if traced else None
    roles: dict[str, dict[str, float]] = {}
    for p in tree.procs.values():
        r = roles.setdefault(p["role"], {"n": 0, "rss": 0.0, "pss": 0.0, "first": 0.0})
        r["n"] += 1
        r["rss"], r["pss"] = max(r["rss"], p["rss"] / MB), max(r["pss"], p["pss"] / MB)
        r["first"] = max(r["first"], p["first"] / MB)
    items = sum(1 for f in (tmp / "out").glob("run*.jsonl") for line in f.open() if line.strip())
    shutil.rmtree(tmp, ignore_errors=True)
    return {"pages": int(stats.get("skill3/pages_fetched", 0)), "items": items, "tree": tree.peak_tree / MB,
            "pss": tree.peak_pss / MB, "largest": max(tree.peak_single, usage.ru_maxrss * 1024) / MB,
            "roles": roles, "at_peak": {k: v / MB for k, v in tree.at_peak.items()}, "trace": trace}


def spread(values: list[float], digits: int = 0) -> str:
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}–{max(values):.{digits}f})"


def report_crawls(name: str, rows: list[dict]) -> dict:
    print(f"\n### {name}: {rows[0]['pages']} pages, {rows[0]['items']} items, median (min–max) of {len(rows)} runs, MB")
    print(f"whole tree peak RSS {spread([r['tree'] for r in rows])}, largest process {spread([r['largest'] for r in rows])}, "
          f"whole tree peak PSS {spread([r['pss'] for r in rows])}")
    at = sorted({k for r in rows for k in r["at_peak"]})
    print("  at the whole tree's peak: " + ", ".join(
        f"{k} {spread([r['at_peak'].get(k, 0.0) for r in rows])}" for k in at) + " (each role's processes summed)")
    for rl in sorted({k for r in rows for k in r["roles"]}):
        got = [r["roles"][rl] for r in rows if rl in r["roles"]]
        print(f"  {rl:18s} ×{got[0]['n']}: peak RSS {spread([g['rss'] for g in got])}, peak PSS "
              f"{spread([g['pss'] for g in got])}, first sample {spread([g['first'] for g in got])}")
    traces = [r["trace"] for r in rows if r["trace"]]
    if traces:
        t = traces[0]
        print(f"  crawler, Python allocations (tracemalloc, first run): peak {t['traced_peak'] / MB:.1f} MB, "
              f"largest snapshot {t['snapshot']['size'] / MB:.1f} MB; {t['modules']} modules loaded at exit (heavy: "
              f"{', '.join(h.split('.')[0] for h in HEAVY if h.split('.')[0] in t['packages'])})")
        late = sorted(set(t["packages"]) - set(probe(list(CRAWLER_IMPORTS), ROOT)["packages"]))
        print(f"    packages the crawler imported after its start: {', '.join(late)}")
        for fn, size in t["snapshot"]["top"][:12]:
            short = fn.split("site-packages/")[-1].replace(str(ROOT) + "/", "")
            print(f"    {size / MB:6.1f} MB  {short}")
    return {"tree": [r["tree"] for r in rows], "largest": [r["largest"] for r in rows], "pss": [r["pss"] for r in rows]}


# ------------------------------------------------------------------------------------------ baselines
PROBE = textwrap.dedent("""
    import importlib, json, os, sys
    def rss():
        return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    before, n = rss(), len(sys.modules)
    for m in sys.argv[1:]:
        importlib.import_module(m)
    print(json.dumps({"rss": rss(), "base": before, "modules": len(sys.modules) - n,
                      "packages": sorted({m.split(".")[0] for m in sys.modules})}))
""")


def probe(mods: list[str], root: Path = ROOT) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE, *mods], capture_output=True, text=True, cwd=root,
                         env=env_for(Path(os.devnull), root), check=True)
    return json.loads(out.stdout)


def _worker_state() -> dict:
    """In an extraction worker: its RSS, modules and top-level packages."""
    return {"rss": rss_bytes(os.getpid()), "modules": len(sys.modules), "packages": sorted({m.split(".")[0] for m in sys.modules})}


def _one_page(html: str, url: str) -> dict:
    from skill3crawl.extract.page import PageContext, process_page

    process_page(html, url, PageContext(today=__import__("datetime").date.today()))
    return _worker_state()


def baselines(root: Path = ROOT) -> dict:
    import asyncio

    from skill3crawl.extract.executor import Extractor

    res: dict[str, Any] = {}
    bare = probe([])
    print("\n## baselines (fresh interpreters; RSS in MB)")
    print(f"interpreter alone: {bare['rss'] / MB:.1f} MB")
    for m in HEAVY:
        p = probe([m])
        print(f"  + {m:28s} {(p['rss'] - bare['rss']) / MB:6.1f} MB, {p['modules']:4d} modules")
    crawler = probe(list(CRAWLER_IMPORTS), root)
    res["crawler_imports_mb"] = crawler["rss"] / MB
    heavy_in = [h.split(".")[0] for h in HEAVY if h.split(".")[0] in crawler["packages"]]
    print(f"crawler's imports (before the first request): {crawler['rss'] / MB:.1f} MB, {crawler['modules']} modules; "
          f"heavy packages among them: {', '.join(heavy_in)}")
    html = (PYDOCS / "library" / "functions.html").read_text(encoding="utf-8")
    # A worker unpickles a call's function by its module: this script's, imported under its own name there
    # (the worker has this process's sys.path, where the script's directory is first).
    from bench_memory import _one_page as one_page
    from bench_memory import _worker_state as worker_state

    ext = Extractor(1)
    try:
        loop = asyncio.new_event_loop()
        start = loop.run_until_complete(ext.run(worker_state))
        after = loop.run_until_complete(ext.run(one_page, html, "http://127.0.0.1/library/functions.html"))
        loop.close()
    finally:
        ext.close()
    res["worker_start_mb"], res["worker_page_mb"] = start["rss"] / MB, after["rss"] / MB
    heavy_w = [h.split(".")[0] for h in HEAVY if h.split(".")[0] in start["packages"]]
    heavy_after = [h.split(".")[0] for h in HEAVY if h.split(".")[0] in after["packages"]]
    print(f"extraction worker (Extractor's own start): {start['rss'] / MB:.1f} MB, {start['modules']} modules "
          f"({', '.join(heavy_w) or 'no heavy package'}); after one page (library/functions.html): "
          f"{after['rss'] / MB:.1f} MB, {after['modules']} modules ({', '.join(heavy_after)})")
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="crawls per site (median and range)")
    ap.add_argument("--sites", default="pydocs,2000,5000,20000", help="pydocs and/or generated site sizes, comma-separated")
    ap.add_argument("--only", default="baselines,crawl", help="baselines, crawl or both")
    ap.add_argument("--root", default=str(ROOT), help="the checkout whose crawl runs (e.g. an export of an older "
                    "revision: `git archive REV | tar -x -C DIR`), with this Python; the worker baseline is always this one's")
    ap.add_argument("--workers", type=int, help="extraction processes (default: the crawl's own, one a core; 0: inline)")
    ap.add_argument("--no-trace", action="store_true", help="crawl without tracemalloc in the crawler (its RSS as users see it)")
    a = ap.parse_args()
    only = set(a.only.split(","))
    root = Path(a.root).resolve()
    print(f"skill3 memory — {os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"load {os.getloadavg()[0]:.1f}")
    results: dict[str, Any] = {}
    if "baselines" in only:
        results["baselines"] = baselines(root)
    if "crawl" in only:
        print(f"\n## crawls{'' if a.no_trace else ' (run 1 with tracemalloc in the crawler; its RSS figures exclude it)'}")
        for site in a.sites.split(","):
            if site == "pydocs":
                server = MockServer(root=PYDOCS)
                path = "/index.html"
            else:
                server = MockServer()
                server.routes = bind(generated_site(int(site), sitemap=True), server.url)
                path = "/docs/"
            with server:
                rows = [crawl(server.url + path, traced=False, root=root, workers=a.workers) for _ in range(a.runs)]
                if not a.no_trace:
                    traced = crawl(server.url + path, traced=True, root=root, workers=a.workers)
                    rows[0]["trace"] = traced["trace"]
            results[site] = report_crawls(site, rows)
    sizes = sorted(int(k) for k in results if k.isdigit())
    if len(sizes) > 1:  # flatness: each generated site against the smallest
        first = results[str(sizes[0])]
        print(f"\nflatness against {sizes[0]:,} pages (medians): " + "; ".join(
            f"{n:,}: whole tree {statistics.median(results[str(n)]['tree']) / statistics.median(first['tree']):.2f}×, "
            f"largest {statistics.median(results[str(n)]['largest']) / statistics.median(first['largest']):.2f}×"
            for n in sizes[1:]))
    print("\n" + json.dumps(results))


if __name__ == "__main__":
    main()
