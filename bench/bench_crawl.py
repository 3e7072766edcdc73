"""Crawl benchmarks (issue 6): numbers printed as medians of several runs, never asserted.

    PYTHONPATH=$PWD python bench/bench_crawl.py            # everything (≈25 min on 2 cores)
    PYTHONPATH=$PWD python bench/bench_crawl.py --only throughput,seekers --runs 3

Sites, served on 127.0.0.1 by :class:`tests.mockserver.MockServer`:
Debian's ``python3.11-doc`` HTML (``/usr/share/doc/python3.11/html``, ~530 pages)
and generated Sphinx-shaped sites of 2,000 and 20,000 pages. Delays, AutoThrottle
and the HTTP cache are off for measurement only (``-s`` overrides), per-domain
concurrency 16.

1. throughput — pages/s of the full pipeline (``scrapy crawl docs``: content +
   dates in the process pool, scoring, duplicates, consensus), of a bare crawl
   (the same spider, ``ITEM_PIPELINES={}``), and of the extraction alone on the
   same files on all cores (``multiprocessing.Pool``): trafilatura+htmldate (the
   libraries) and skill3's own pure functions (``extract_content`` + ``page_dates``).
2. seekers — Skill Seekers (``skill-seekers create URL --enhance-level 0 --async
   --workers 10 --no-rate-limit``, its fastest mode, no LLM) on the same site,
   from a separate venv (``--seekers-bin``, default /tmp/skillseekers-venv/bin/skill-seekers;
   ``python -m venv /tmp/skillseekers-venv && /tmp/skillseekers-venv/bin/pip install skill-seekers``).
3. rss — memory of the crawl for the 2,000- and 20,000-page sites: the whole process tree
   (crawler + extraction workers + browser processes, summed, sampled every 0.2 s) and the
   largest single process (the crawler's own peak RSS); throughput prints both too.
4. redis — one vs two scrapy-redis workers on the 20,000-page site (needs
   ``--redis-url``, default redis://127.0.0.1:6390/0): combined pages/s, duplicates, lost.
"""

from __future__ import annotations

import argparse
import glob
import json
import multiprocessing
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.docs.proctree import TreeSampler  # noqa: E402
from tests.mockserver import MockServer, bind, generated_site  # noqa: E402

PYDOCS = Path("/usr/share/doc/python3.11/html")
MEASURE = {
    "DOWNLOAD_DELAY": "0",
    "DOWNLOAD_DELAY_JITTER": "0",
    "AUTOTHROTTLE_ENABLED": "0",
    "HTTPCACHE_ENABLED": "0",
    "CONCURRENT_REQUESTS": "32",
    "CONCURRENT_REQUESTS_PER_DOMAIN": "16",
    "LOG_LEVEL": "INFO",
    "SKILL3_PROGRESS_INTERVAL": "30",
    "STATS_CLASS": "tests.docs.statsdump.JsonFileStatsCollector",
}


def crawl_cmd(start_url: str | None, out: Path | None, extra: dict | None = None, args: dict | None = None) -> list[str]:
    """``scrapy crawl docs``; a redis worker (start_url None) takes its arguments from the main process."""
    cmd = [sys.executable, "-m", "scrapy", "crawl", "docs"]
    if start_url:
        cmd += ["-a", f"start_urls={start_url}", "-a", f"output_dir={out}", "-a", "max_pages=100000", "-a", "synth=0"]
    for k, v in (args or {}).items():
        cmd += ["-a", f"{k}={v}"]
    for k, v in {**MEASURE, **(extra or {})}.items():
        cmd += ["-s", f"{k}={v}"]
    return cmd


def env_for(stats_file: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["SKILL3_ALLOW_PRIVATE_NETWORKS"] = "1"
    env["SKILL3_TEST_STATS_FILE"] = str(stats_file)
    return env


def run_crawl(start_url: str, extra: dict | None = None, args: dict | None = None) -> dict:
    """One crawl in a fresh process; → pages, crawl-phase and wall-clock pages/s, memory (MB).

    Memory, two figures: ``rss_mb`` is the peak RSS of the largest single process (the
    kernel's ``ru_maxrss`` for the crawl's process, what ``/usr/bin/time -v`` reports);
    ``tree_mb`` is the peak of the RSS summed over the crawler and all its children
    (extraction workers, Playwright's node driver and Chromium when they run), sampled from
    ``/proc`` every 0.2 s (:class:`tests.docs.proctree.TreeSampler`), so a shorter peak can
    slip between samples. ``tree_procs``: most processes seen at once.
    """
    tmp = Path(tempfile.mkdtemp(prefix="skill3bench-"))
    stats_file = tmp / "stats.json"
    cmd = crawl_cmd(start_url, tmp / "out", extra, args)
    t = time.monotonic()
    with open(tmp / "crawl.log", "w") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env_for(stats_file), stdout=subprocess.DEVNULL, stderr=log)
        with TreeSampler(proc.pid, interval=0.2) as tree:
            _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"crawl failed ({proc.returncode}), log: {tmp / 'crawl.log'}")
    stats = json.loads(stats_file.read_text())
    pages = int(stats.get("skill3/pages_fetched", 0))
    elapsed = float(stats.get("elapsed_time_seconds", wall))
    items = sum(1 for f in (tmp / "out").glob("run*.jsonl") for line in f.open() if line.strip())
    shutil.rmtree(tmp, ignore_errors=True)
    return {"pages": pages, "items": items, "crawl_pps": pages / elapsed, "wall_pps": pages / wall,
            "rss_mb": usage.ru_maxrss / 1024, "tree_mb": tree.peak_tree / 2**20, "tree_procs": tree.peak_processes}


def median(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows)


# ---------------------------------------------------------------- extraction alone
def _libs(path: str) -> int:
    import trafilatura
    from htmldate import find_date

    html = Path(path).read_text(encoding="utf-8", errors="replace")
    trafilatura.extract(html, url="http://127.0.0.1/" + path, output_format="markdown")
    find_date(html, url="http://127.0.0.1/" + path, extensive_search=True, original_date=True)
    return 1


def _skill3(path: str) -> int:
    from skill3crawl.extract.content import extract_content
    from skill3crawl.extract.dates import page_dates

    html = Path(path).read_text(encoding="utf-8", errors="replace")
    url = "http://127.0.0.1/" + path
    extract_content(html, url)
    page_dates(html, url, {}, today=__import__("datetime").date.today())
    return 1


def _warm(_):
    import htmldate  # noqa: F401
    import trafilatura  # noqa: F401

    from skill3crawl.extract import content, dates  # noqa: F401


def extraction_pps(fn, files: list[str], procs: int) -> float:
    with multiprocessing.get_context("spawn").Pool(procs) as pool:
        pool.map(_warm, range(procs))  # imports are not part of the measurement
        t = time.monotonic()
        n = sum(pool.imap_unordered(fn, files, chunksize=4))
        return n / (time.monotonic() - t)


# --------------------------------------------------------------------- sections
def bench_throughput(site_url: str, runs: int) -> dict:
    files = [f for f in glob.glob(str(PYDOCS / "**" / "*.html"), recursive=True) if "/_" not in f]
    cores = os.cpu_count() or 1
    full = [run_crawl(site_url + "/index.html") for _ in range(runs)]
    bare = [run_crawl(site_url + "/index.html", {"ITEM_PIPELINES": "{}"}) for _ in range(runs)]
    libs = [extraction_pps(_libs, files, cores) for _ in range(runs)]
    own = [extraction_pps(_skill3, files, cores) for _ in range(runs)]
    libs1 = [extraction_pps(_libs, files, 1) for _ in range(max(1, runs - 1))]
    out = {
        "pages": int(median(full, "pages")),
        "full_crawl_pps": median(full, "crawl_pps"),
        "full_wall_pps": median(full, "wall_pps"),
        "full_tree_mb": median(full, "tree_mb"),
        "full_rss_mb": median(full, "rss_mb"),
        "bare_crawl_pps": median(bare, "crawl_pps"),
        "libs_pps_all_cores": statistics.median(libs),
        "libs_pps_one_core": statistics.median(libs1),
        "skill3_extract_pps_all_cores": statistics.median(own),
        "cores": cores,
        "files": len(files),
    }
    print(f"\n## 1. throughput — python3.11-doc ({out['pages']} pages crawled, {len(files)} files for extraction), medians of {runs}")
    print(f"full pipeline (scrapy crawl docs)          {out['full_crawl_pps']:6.1f} pages/s crawl phase, {out['full_wall_pps']:6.1f} pages/s wall clock")
    print(f"  memory: whole process tree {out['full_tree_mb']:.0f} MB peak (sum over {max(r['tree_procs'] for r in full)} processes), "
          f"largest single process {out['full_rss_mb']:.0f} MB")
    print(f"bare Scrapy (same spider, no pipelines)    {out['bare_crawl_pps']:6.1f} pages/s")
    print(f"trafilatura+htmldate alone, {cores} processes   {out['libs_pps_all_cores']:6.1f} pages/s   (1 process: {out['libs_pps_one_core']:.1f})")
    print(f"skill3 extract_content+page_dates, {cores} proc.  {out['skill3_extract_pps_all_cores']:6.1f} pages/s")
    print(f"full pipeline / libraries floor            {out['full_crawl_pps'] / out['libs_pps_all_cores']:6.0%}   (target ≥80%)")
    return out


def bench_seekers(site_url: str, runs: int, seekers_bin: str, skill3_wall_pps: float | None) -> dict:
    if not os.access(seekers_bin, os.X_OK):
        print(f"\n## 2. Skill Seekers — not run: {seekers_bin} missing (python -m venv /tmp/skillseekers-venv && /tmp/skillseekers-venv/bin/pip install skill-seekers)")
        return {}
    rows = []
    for _ in range(runs):
        out = Path(tempfile.mkdtemp(prefix="seekers-"))
        cmd = [seekers_bin, "create", site_url + "/", "--name", "pydocs", "-o", str(out / "pydocs"), "--enhance-level", "0",
               "--async", "--workers", "10", "--no-rate-limit", "--max-pages", "100000"]
        t = time.monotonic()
        subprocess.run(cmd, cwd=out, capture_output=True, text=True, timeout=1800)
        wall = time.monotonic() - t
        summary = out / "pydocs_data" / "summary.json"
        pages = json.loads(summary.read_text())["total_pages"] if summary.exists() else 0
        rows.append({"pages": pages, "pps": pages / wall})
        shutil.rmtree(out, ignore_errors=True)
    res = {"pages": int(median(rows, "pages")), "pps": median(rows, "pps")}
    print(f"\n## 2. Skill Seekers 'create --enhance-level 0 --async --workers 10 --no-rate-limit', medians of {runs}")
    print(f"Skill Seekers                               {res['pps']:6.1f} pages/s wall clock ({res['pages']} pages)")
    if skill3_wall_pps:
        print(f"skill3 full pipeline / Skill Seekers       {skill3_wall_pps / res['pps']:6.1f}×   (target ≥2×, both wall clock)")
    return res


def bench_rss(runs: int, small: int, large: int) -> dict:
    res = {}
    for n in (small, large):
        server = MockServer()
        server.routes = bind(generated_site(n, sitemap=True), server.url)
        with server:
            rows = [run_crawl(server.url + "/docs/") for _ in range(runs)]
        res[n] = {"tree_mb": median(rows, "tree_mb"), "tree_mb_range": (min(r["tree_mb"] for r in rows), max(r["tree_mb"] for r in rows)),
                  "rss_mb": median(rows, "rss_mb"), "procs": max(r["tree_procs"] for r in rows),
                  "pps": median(rows, "crawl_pps"), "pages": int(median(rows, "pages"))}
    print(f"\n## 3. memory of the crawl (full pipeline), generated sites, medians of {runs}")
    print("whole tree = peak of the RSS summed over the crawler and all its children (sampled every 0.2 s);")
    print("largest process = peak RSS of the single largest process (ru_maxrss, as /usr/bin/time -v reports)")
    for n, r in res.items():
        lo, hi = r["tree_mb_range"]
        print(f"{n:6d} pages: whole tree {r['tree_mb']:7.1f} MB ({lo:.0f}–{hi:.0f}, {r['procs']} processes), "
              f"largest process {r['rss_mb']:7.1f} MB, {r['pps']:6.1f} pages/s ({r['pages']} fetched)")
    print(f"ratio {large}/{small}: whole tree {res[large]['tree_mb'] / res[small]['tree_mb']:.2f}×, "
          f"largest process {res[large]['rss_mb'] / res[small]['rss_mb']:.2f}×   (target ≤1.2× whole tree)")
    return res


def _redis_round(site_url: str, n_pages: int, workers: int, redis_url: str) -> dict:
    key = f"skill3bench:{uuid.uuid4().hex[:8]}"
    tmp = Path(tempfile.mkdtemp(prefix="skill3redis-"))
    extra = {"SKILL3_REDIS_URL": redis_url, "SKILL3_REDIS_KEY": key, "SKILL3_REDIS_IDLE_GRACE": "2"}
    procs = []
    t = time.monotonic()
    for i in range(workers):
        if i == 0:
            cmd = crawl_cmd(site_url + "/docs/", tmp / "out", extra, {"worker_id": "w0"})
        else:
            cmd = crawl_cmd(None, None, extra, {"role": "worker", "worker_id": f"w{i}"})
        with open(tmp / f"w{i}.log", "w") as log:
            procs.append(subprocess.Popen(cmd, cwd=ROOT, env=env_for(tmp / f"stats{i}.json"), stdout=subprocess.DEVNULL, stderr=log))
        time.sleep(0.5)
    codes = [p.wait() for p in procs]
    wall = time.monotonic() - t
    urls: list[str] = []
    for f in (tmp / "out").glob("run*.jsonl"):
        urls += [json.loads(line)["url"] for line in f.open() if line.strip()]
    fetched = sum(int(json.loads((tmp / f"stats{i}.json").read_text()).get("skill3/pages_fetched", 0)) for i in range(workers))
    expected = n_pages + 1
    import redis

    r = redis.Redis.from_url(redis_url)
    for name in r.scan_iter(key + ":*"):
        r.delete(name)
    shutil.rmtree(tmp, ignore_errors=True)
    return {"codes": codes, "pps": fetched / wall, "fetched": fetched, "items": len(urls),
            "duplicates": len(urls) - len(set(urls)), "lost": expected - len(set(urls))}


def bench_redis(runs: int, n_pages: int, redis_url: str) -> dict:
    server = MockServer()
    server.routes = bind(generated_site(n_pages, sitemap=True), server.url)
    res = {}
    with server:
        for workers in (1, 2):
            rows = [_redis_round(server.url, n_pages, workers, redis_url) for _ in range(runs)]
            refetched = sum(c - runs for c in server.page_hits().values() if c > runs)
            res[workers] = {"pps": median(rows, "pps"), "duplicates": max(r["duplicates"] for r in rows),
                            "lost": max(r["lost"] for r in rows), "codes": [r["codes"] for r in rows],
                            "server_refetches": refetched}
            server.hits.clear()
    print(f"\n## 4. scrapy-redis on the {n_pages}-page site, medians of {runs} (wall clock, first start → last exit)")
    for w, r in res.items():
        print(f"{w} worker{'s' if w > 1 else ' '}: {r['pps']:6.1f} pages/s combined, duplicates {r['duplicates']}, lost {r['lost']}, "
              f"pages fetched more than once per run {r['server_refetches']}, exit codes {r['codes']}")
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="runs per measurement on the python docs (median)")
    ap.add_argument("--large-runs", type=int, default=1, help="runs per measurement on the generated sites")
    ap.add_argument("--only", default="throughput,seekers,rss,redis")
    ap.add_argument("--small", type=int, default=2000)
    ap.add_argument("--large", type=int, default=20000)
    ap.add_argument("--seekers-bin", default="/tmp/skillseekers-venv/bin/skill-seekers")
    ap.add_argument("--redis-url", default="redis://127.0.0.1:6390/0")
    a = ap.parse_args()
    only = set(a.only.split(","))
    if not PYDOCS.is_dir() and only & {"throughput", "seekers"}:
        raise SystemExit(f"{PYDOCS} missing: apt-get install python3.11-doc")
    print(f"skill3 crawl benchmarks — {os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    results = {}
    with MockServer(root=PYDOCS) as pydocs:
        if "throughput" in only:
            results["throughput"] = bench_throughput(pydocs.url, a.runs)
        if "seekers" in only:
            wall = results.get("throughput", {}).get("full_wall_pps")
            results["seekers"] = bench_seekers(pydocs.url, a.runs, a.seekers_bin, wall)
    if "rss" in only:
        results["rss"] = bench_rss(a.large_runs, a.small, a.large)
    if "redis" in only:
        results["redis"] = bench_redis(a.large_runs, a.large, a.redis_url)
    print("\n" + json.dumps(results, default=str))


if __name__ == "__main__":
    main()
