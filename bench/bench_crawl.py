"""Crawl benchmarks: numbers printed as medians of several runs, never asserted.

    PYTHONPATH=$PWD python bench/bench_crawl.py            # everything (≈45 min on 2 quiet cores)
    PYTHONPATH=$PWD python bench/bench_crawl.py --only throughput,seekers --runs 3
    PYTHONPATH=$PWD python bench/bench_crawl.py --only scaling  # 1 vs 2 pinned workers, 5,000 pages

Sites, served on 127.0.0.1 by :class:`tests.mockserver.MockServer`:
Debian's ``python3.11-doc`` HTML (``/usr/share/doc/python3.11/html``, ~530 pages)
and generated Sphinx-shaped sites of 2,000 and 20,000 pages. Delays, AutoThrottle
and the HTTP cache are off for measurement only (``-s`` overrides), per-domain
concurrency 16.

1. throughput — pages/s of the full pipeline (``scrapy crawl docs``: content +
   dates in the process pool, scoring, duplicates, consensus), of a bare crawl
   (a plain Scrapy spider following the same links, ``bench/bare_spider.py``), and of the extraction alone on the
   same files on all cores (``multiprocessing.Pool``): trafilatura+htmldate (the
   libraries) and skill3's own pure functions (``extract_content`` + ``page_dates``).
2. seekers — Skill Seekers (``skill-seekers create URL --enhance-level 0 --async
   --workers 10 --no-rate-limit``, its fastest mode, no LLM) on the same site,
   from a separate venv (``--seekers-bin``, default /tmp/skillseekers-venv/bin/skill-seekers;
   ``python -m venv /tmp/skillseekers-venv && /tmp/skillseekers-venv/bin/pip install skill-seekers``).
3. rss — memory of the crawl for the 2,000- and 20,000-page sites: the whole process tree
   (crawler + extraction workers + browser processes, summed, sampled every 0.2 s) and the
   largest single process (the crawler's own peak RSS); throughput prints both too.
4. redis — one vs two scrapy-redis workers on the 20,000-page site, unpinned: combined
   pages/s, duplicates, lost, pages fetched twice.
5. scaling — one vs two scrapy-redis workers, each pinned to its own core (``taskset`` on the
   worker, inherited by its extraction process; ``SKILL3_EXTRACT_WORKERS=1``), on the generated
   site served from its own process; with 3+ cores the site server and Redis are pinned to the
   cores the workers do not use, with 2 they share the workers' cores (the output says which).

Every row prints the median and the range of its runs (``--runs``, ``--large-runs``,
``--scaling-runs``; 3 by default), the runs of a section's rows interleaved.
Sections 4 and 5 start their own ``redis-server`` on 127.0.0.1:``--redis-port`` (6391) and
stop it; ``--redis-url`` uses a running one for section 4 instead.
"""

from __future__ import annotations

import argparse
import contextlib
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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.mockserver import MockServer, bind, generated_site  # noqa: E402
from tests.proctree import TreeSampler  # noqa: E402

PYDOCS = Path("/usr/share/doc/python3.11/html")
SKIP_EXTRACTION_ROWS = False
MEASURE = {
    "DOWNLOAD_DELAY": "0",
    "DOWNLOAD_DELAY_JITTER": "0",
    "AUTOTHROTTLE_ENABLED": "0",
    "HTTPCACHE_ENABLED": "0",
    "CONCURRENT_REQUESTS": "32",
    "CONCURRENT_REQUESTS_PER_DOMAIN": "16",
    "LOG_LEVEL": "INFO",
    "SKILL3_PROGRESS_INTERVAL": "30",
    "STATS_CLASS": "tests.crawl.statsdump.JsonFileStatsCollector",
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


def env_for(stats_file: Path, root: Path = ROOT) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    env["SKILL3_ALLOW_PRIVATE_NETWORKS"] = "1"
    env["SKILL3_TEST_STATS_FILE"] = str(stats_file)
    return env


# The per-page CPU profile (``skill3/profile/*_us`` in the crawl's stats): the extraction worker's stages, then the
# crawler thread's; "fetch+engine" is the rest of the crawler process's CPU over the crawl (downloads, the
# scheduler, the middlewares, the callbacks' own work, Twisted/asyncio).
WORKER_STAGES = ("parse", "content", "versions", "redact", "dates", "links")
CRAWLER_STAGES = ("schedule", "scoring", "feed")


def profile_of(stats: dict, pages: int) -> dict[str, float]:
    """ms per page by stage (empty when the crawl kept no profile: an older revision)."""
    if not stats.get("skill3/profile/pages") or not pages:
        return {}
    n = stats["skill3/profile/pages"]
    out = {k: stats.get(f"skill3/profile/{k}_us", 0) / 1000 / n for k in WORKER_STAGES}
    out.update({k: stats.get(f"skill3/profile/{k}_us", 0) / 1000 / pages for k in CRAWLER_STAGES})
    crawler = stats.get("skill3/profile/crawler_cpu_us", 0) / 1000 / pages
    out["fetch+engine"] = crawler - sum(out[k] for k in CRAWLER_STAGES)
    out["crawler total"] = crawler
    out["worker total"] = sum(out[k] for k in WORKER_STAGES)
    return out


def bare_cmd(start_url: str) -> list[str]:
    """A plain Scrapy spider (``bench/bare_spider.py``: Scrapy's defaults, no project settings, no pipelines)."""
    cmd = [sys.executable, "-m", "scrapy", "runspider", str(ROOT / "bench" / "bare_spider.py"), "-a", f"start_url={start_url}"]
    for k, v in MEASURE.items():
        cmd += ["-s", f"{k}={v}"]
    return cmd


def run_crawl(start_url: str, extra: dict | None = None, args: dict | None = None, root: Path = ROOT,
              bare: bool = False) -> dict:
    """One crawl in a fresh process; → pages, crawl-phase and wall-clock pages/s, memory (MB).

    Memory, two figures: ``rss_mb`` is the peak RSS of the largest single process (the
    kernel's ``ru_maxrss`` for the crawl's process, what ``/usr/bin/time -v`` reports);
    ``tree_mb`` is the peak of the RSS summed over the crawler and all its children
    (extraction workers, Playwright's node driver and Chromium when they run), sampled from
    ``/proc`` every 0.2 s (:class:`tests.proctree.TreeSampler`), so a shorter peak can
    slip between samples. ``tree_procs``: most processes seen at once.
    """
    tmp = Path(tempfile.mkdtemp(prefix="skill3bench-"))
    stats_file = tmp / "stats.json"
    cmd = bare_cmd(start_url) if bare else crawl_cmd(start_url, tmp / "out", extra, args)
    t = time.monotonic()
    with open(tmp / "crawl.log", "w") as log:  # the bare spider runs outside the project (no scrapy.cfg in its cwd)
        proc = subprocess.Popen(cmd, cwd=tmp if bare else root, env=env_for(stats_file, root), stdout=subprocess.DEVNULL,
                                stderr=log)
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
    cpu_s = usage.ru_utime + usage.ru_stime
    return {"pages": pages, "items": items, "crawl_pps": pages / elapsed, "wall_pps": pages / wall,
            "rss_mb": usage.ru_maxrss / 1024, "tree_mb": tree.peak_tree / 2**20, "tree_procs": tree.peak_processes,
            "crawler_cpu_s": cpu_s, "profile": profile_of(stats, pages), "load": os.getloadavg()[0]}


def median(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def spread(values: list[float], digits: int = 1) -> str:
    """``median (min–max)`` of the runs; the range is what a reader needs to judge a median of few runs."""
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}–{max(values):.{digits}f})"


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
def col(rows: list[dict], key: str) -> list[float]:
    return [r[key] for r in rows]


def print_profile(rows: list[dict], label: str) -> None:
    """The per-stage CPU profile, ms per page: median (range) of the runs."""
    profiles = [r["profile"] for r in rows if r.get("profile")]
    if not profiles:
        print(f"  {label}: no per-stage profile (this revision keeps none)")
        return
    parts = [f"{k} {spread([p[k] for p in profiles])}" for k in profiles[0]]
    print(f"  {label} CPU ms/page: " + ", ".join(parts))


def print_cpu(rows: list[dict], label: str) -> None:
    """CPU per page of the whole tree: the crawler's ``wait4`` usage, which holds its reaped children (the extraction
    workers) — CPU time, not wall time, so it moves less than pages/s when other jobs share the cores."""
    print(f"  {label} CPU ms/page, whole tree: " + spread([r["crawler_cpu_s"] * 1000 / max(1, r["pages"]) for r in rows]))


def bench_throughput(site_url: str, runs: int, against: Path | None = None) -> dict:
    files = [f for f in glob.glob(str(PYDOCS / "**" / "*.html"), recursive=True) if "/_" not in f]
    cores = os.cpu_count() or 1
    full, bare, libs, own, libs1, base = [], [], [], [], [], []
    for _ in range(runs):  # interleaved, so a change in the machine's load touches every row alike
        full.append(run_crawl(site_url + "/index.html"))
        if against is not None:
            base.append(run_crawl(site_url + "/index.html", root=against))
        bare.append(run_crawl(site_url + "/index.html", bare=True))
        if not SKIP_EXTRACTION_ROWS:
            libs.append(extraction_pps(_libs, files, cores))
            own.append(extraction_pps(_skill3, files, cores))
            libs1.append(extraction_pps(_libs, files, 1))
    out = {
        "pages": int(median(full, "pages")),
        "full_crawl_pps": median(full, "crawl_pps"),
        "full_wall_pps": median(full, "wall_pps"),
        "full_wall_pps_runs": col(full, "wall_pps"),
        "full_tree_mb": median(full, "tree_mb"),
        "full_rss_mb": median(full, "rss_mb"),
        "bare_crawl_pps": median(bare, "crawl_pps"),
        "libs_pps_all_cores": statistics.median(libs) if libs else None,
        "libs_pps_one_core": statistics.median(libs1) if libs1 else None,
        "skill3_extract_pps_all_cores": statistics.median(own) if own else None,
        "cores": cores,
        "files": len(files),
    }
    print(f"\n## 1. throughput — python3.11-doc ({out['pages']} pages crawled, {len(files)} files for extraction), "
          f"medians of {runs} (range), interleaved")
    print(f"full pipeline (scrapy crawl docs)          {spread(col(full, 'crawl_pps'))} pages/s crawl phase, "
          f"{spread(col(full, 'wall_pps'))} wall clock")
    print(f"  memory: whole process tree {spread(col(full, 'tree_mb'), 0)} MB peak (sum over up to "
          f"{max(r['tree_procs'] for r in full)} processes), largest single process {spread(col(full, 'rss_mb'), 0)} MB")
    loads = ", ".join(f"{r['load']:.1f}" for r in full)
    print(f"  load average (1 min) at the end of each run: {loads}")
    print_cpu(full, "this revision")
    print_profile(full, "this revision")
    if base:
        ratio = [f["crawl_pps"] / b["crawl_pps"] for f, b in zip(full, base)]
        print(f"full pipeline, {against} (baseline)   {spread(col(base, 'crawl_pps'))} pages/s crawl phase, "
              f"{spread(col(base, 'wall_pps'))} wall clock; whole tree {spread(col(base, 'tree_mb'), 0)} MB, "
              f"largest process {spread(col(base, 'rss_mb'), 0)} MB")
        print(f"  this revision / baseline, crawl phase: {statistics.median(ratio):.2f}× (per run {min(ratio):.2f}–{max(ratio):.2f}×)")
        print_cpu(base, "baseline")
        print_profile(base, "baseline")
        out["baseline_crawl_pps"] = median(base, "crawl_pps")
    print(f"bare Scrapy (plain spider, LinkExtractor)  {spread(col(bare, 'crawl_pps'))} pages/s; whole tree "
          f"{spread(col(bare, 'tree_mb'), 0)} MB, largest process {spread(col(bare, 'rss_mb'), 0)} MB")
    if libs:
        print(f"trafilatura+htmldate alone, {cores} processes   {spread(libs)} pages/s   (1 process: {spread(libs1)})")
        print(f"skill3 extract_content+page_dates, {cores} proc.  {spread(own)} pages/s")
        floor = [f["crawl_pps"] / lib for f, lib in zip(full, libs)]
        print(f"full pipeline / libraries floor            {statistics.median(floor):6.0%} (per run {min(floor):.0%}–{max(floor):.0%})   (target ≥80%)")
    return out


def bench_seekers(site_url: str, runs: int, seekers_bin: str, skill3_wall: list[float] | None) -> dict:
    if not os.access(seekers_bin, os.X_OK):
        print(f"\n## 2. Skill Seekers — not run: {seekers_bin} missing (python -m venv /tmp/skillseekers-venv && /tmp/skillseekers-venv/bin/pip install skill-seekers)")
        return {}
    rows = []
    for _ in range(runs):
        out = Path(tempfile.mkdtemp(prefix="seekers-"))
        cmd = [seekers_bin, "create", site_url + "/", "--name", "pydocs", "-o", str(out / "pydocs"), "--enhance-level", "0",
               "--async", "--workers", "10", "--no-rate-limit", "--max-pages", "100000"]
        t = time.monotonic()
        with open(out / "seekers.log", "w") as log:
            proc = subprocess.Popen(cmd, cwd=out, stdout=log, stderr=subprocess.STDOUT)
            with TreeSampler(proc.pid, interval=0.2) as tree:
                try:
                    _, status, usage = os.wait4(proc.pid, 0)
                except BaseException:
                    proc.kill()
                    raise
        wall = time.monotonic() - t
        summary = out / "pydocs_data" / "summary.json"
        pages = json.loads(summary.read_text())["total_pages"] if summary.exists() else 0
        if not pages:
            tail = (out / "seekers.log").read_text(errors="replace")[-2000:]
            raise SystemExit(f"Skill Seekers wrote no {summary.relative_to(out)} (exit {os.waitstatus_to_exitcode(status)}):\n{tail}")
        rows.append({"pages": pages, "pps": pages / wall, "tree_mb": tree.peak_tree / 2**20, "rss_mb": usage.ru_maxrss / 1024})
        shutil.rmtree(out, ignore_errors=True)
    res = {"pages": int(median(rows, "pages")), "pps": median(rows, "pps"), "pps_runs": col(rows, "pps")}
    print(f"\n## 2. Skill Seekers 'create --enhance-level 0 --async --workers 10 --no-rate-limit', medians of {runs} (range)")
    print(f"Skill Seekers                               {spread(col(rows, 'pps'))} pages/s wall clock ({res['pages']} pages); "
          f"whole tree {spread(col(rows, 'tree_mb'), 0)} MB, largest process {spread(col(rows, 'rss_mb'), 0)} MB")
    if skill3_wall:
        ratio = statistics.median(skill3_wall) / res["pps"]
        print(f"skill3 full pipeline / Skill Seekers       {ratio:6.2f}× (medians; extremes {min(skill3_wall) / max(res['pps_runs']):.2f}–"
              f"{max(skill3_wall) / min(res['pps_runs']):.2f}×)   (target ≥3×, both wall clock)")
    return res


def bench_rss(runs: int, small: int, large: int) -> dict:
    res = {}
    for n in (small, large):
        server = MockServer()
        server.routes = bind(generated_site(n, sitemap=True), server.url)
        with server:
            rows = [run_crawl(server.url + "/docs/") for _ in range(runs)]
        res[n] = {"tree_mb": median(rows, "tree_mb"), "tree_runs": col(rows, "tree_mb"), "rss_mb": median(rows, "rss_mb"),
                  "rss_runs": col(rows, "rss_mb"), "procs": max(r["tree_procs"] for r in rows),
                  "pps": median(rows, "crawl_pps"), "pps_runs": col(rows, "crawl_pps"), "pages": int(median(rows, "pages"))}
    print(f"\n## 3. memory of the crawl (full pipeline), generated sites, medians of {runs} (range)")
    print("whole tree = peak of the RSS summed over the crawler and all its children (sampled every 0.2 s);")
    print("largest process = peak RSS of the single largest process (ru_maxrss, as /usr/bin/time -v reports)")
    for n, r in res.items():
        print(f"{n:6d} pages: whole tree {spread(r['tree_runs'])} MB ({r['procs']} processes), "
              f"largest process {spread(r['rss_runs'])} MB, {spread(r['pps_runs'])} pages/s ({r['pages']} fetched)")
    print(f"ratio {large}/{small}: whole tree {res[large]['tree_mb'] / res[small]['tree_mb']:.2f}×, "
          f"largest process {res[large]['rss_mb'] / res[small]['rss_mb']:.2f}×   (target ≤1.2× whole tree)")
    return res


def _redis_round(site_url: str, n_pages: int, workers: int, redis_url: str) -> dict:
    key = f"skill3bench:{uuid.uuid4().hex[:8]}"
    tmp = Path(tempfile.mkdtemp(prefix="skill3redis-"))
    extra = {"SKILL3_REDIS_URL": redis_url, "SKILL3_REDIS_KEY": key}
    procs = []
    t = time.monotonic()
    for i in range(workers):
        if i == 0:
            cmd = crawl_cmd(site_url + "/docs/", tmp / "out", extra, {"worker_id": "w0"})
        else:
            cmd = crawl_cmd(None, None, extra, {"role": "worker", "worker_id": f"w{i}"})
        with open(tmp / f"w{i}.log", "w") as log:
            procs.append(subprocess.Popen(cmd, cwd=ROOT, env=env_for(tmp / f"stats{i}.json"), stdout=subprocess.DEVNULL, stderr=log))
    with contextlib.ExitStack() as stack:
        samplers = [stack.enter_context(TreeSampler(p.pid, interval=0.5)) for p in procs]
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
            "duplicates": len(urls) - len(set(urls)), "lost": expected - len(set(urls)),
            "tree_mb": max(s.peak_tree for s in samplers) / 2**20, "largest_mb": max(s.peak_single for s in samplers) / 2**20}


def bench_redis(runs: int, n_pages: int, redis_url: str) -> dict:
    server = MockServer()
    server.routes = bind(generated_site(n_pages, sitemap=True), server.url)
    rows: dict[int, list[dict]] = {1: [], 2: []}
    refetched = {1: 0, 2: 0}
    with server:
        for r in range(runs):
            for workers in ((1, 2) if r % 2 == 0 else (2, 1)):  # interleaved
                server.hits.clear()
                rows[workers].append(_redis_round(server.url, n_pages, workers, redis_url))
                refetched[workers] = max(refetched[workers], sum(1 for c in server.page_hits().values() if c > 1))
    print(f"\n## 4. scrapy-redis on the {n_pages}-page site, unpinned (both workers on all cores), medians of {runs} (range), "
          "interleaved (wall clock, first start → last exit)")
    res = {}
    for w, rs in rows.items():
        res[w] = {"pps": median(rs, "pps"), "pps_runs": col(rs, "pps"), "duplicates": max(col(rs, "duplicates")),
                  "lost": max(col(rs, "lost")), "codes": col(rs, "codes"), "server_refetches": refetched[w]}
        print(f"{w} worker{'s' if w > 1 else ' '}: {spread(col(rs, 'pps'))} pages/s combined, duplicates {res[w]['duplicates']}, "
              f"lost {res[w]['lost']}, pages fetched more than once in a run {refetched[w]}, exit codes {res[w]['codes']}; "
              f"per worker: whole tree {spread(col(rs, 'tree_mb'), 0)} MB, largest process {spread(col(rs, 'largest_mb'), 0)} MB")
    return res


# ------------------------------------------------------------------ scaling per core
def _serve_site(n_pages: int, conn: Any, cpus: list[int] | None) -> None:
    """The generated site in its own process (pinned to ``cpus`` when given); answers "hits", "clear", "stop"."""
    if cpus:
        os.sched_setaffinity(0, cpus)
    server = MockServer()
    server.routes = bind(generated_site(n_pages, sitemap=True), server.url)
    with server:
        conn.send(server.url)
        while True:
            cmd = conn.recv()
            if cmd == "hits":
                conn.send(dict(server.page_hits()))
            elif cmd == "clear":
                server.hits.clear()
                conn.send(True)
            else:
                break


class SiteProcess:
    """``with SiteProcess(n, cpus) as site:`` → ``site.url``, ``site.page_hits()``, ``site.clear()``, ``site.pid``."""

    def __init__(self, n_pages: int, cpus: list[int] | None):
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve_site, args=(n_pages, child, cpus), daemon=True)
        self.url = ""

    def __enter__(self) -> "SiteProcess":
        self.proc.start()
        self.pid = self.proc.pid
        self.url = self.conn.recv()
        return self

    def page_hits(self) -> dict[str, int]:
        self.conn.send("hits")
        return self.conn.recv()

    def clear(self) -> None:
        self.conn.send("clear")
        self.conn.recv()

    def __exit__(self, *exc: object) -> None:
        self.conn.send("stop")
        self.proc.join(10)
        if self.proc.is_alive():
            self.proc.kill()


class RedisProcess:
    """A private ``redis-server`` on loopback (no persistence), pinned to ``cpus`` when given; stopped on exit."""

    def __init__(self, binary: str, port: int, cpus: list[int] | None):
        self.cmd = [binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"]
        self.cpus, self.url = cpus, f"redis://127.0.0.1:{port}/0"

    def __enter__(self) -> "RedisProcess":
        import redis

        cmd = ["taskset", "--cpu-list", ",".join(map(str, self.cpus)), *self.cmd] if self.cpus else self.cmd
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"redis-server did not start on {self.url} (port taken? --redis-port)")
                time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def _schedstat(pid: int) -> dict[int, tuple[int, int]]:
    """Per thread of ``pid``: (ns on a CPU, ns runnable but waiting for one), from ``/proc/<pid>/task/*/schedstat``."""
    out = {}
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            run, wait, _ = Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()
        except (OSError, ValueError):
            continue
        out[int(tid)] = (int(run), int(wait))
    return out


class AffinityWatch:
    """Samples every process of the given trees; records any whose CPU affinity is not its tree's set, and the
    CPU time each tree used and spent waiting for its core (last sample of each thread; a thread's last
    ``interval`` can be missed)."""

    def __init__(self, expected: dict[int, set[int]], interval: float = 0.5):
        import threading

        self.expected, self.interval = expected, interval
        self.seen: set[int] = set()
        self.wrong: dict[int, set[int]] = {}
        self.sched: dict[tuple[int, int], tuple[int, int]] = {}  # (root, tid) → (run ns, wait ns)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        from tests.proctree import descendants

        while not self._stop.is_set():
            for root, cpus in self.expected.items():
                for pid in descendants(root):
                    try:
                        got = os.sched_getaffinity(pid)
                    except OSError:
                        continue
                    self.seen.add(pid)
                    if got != cpus:
                        self.wrong[pid] = got
                    for tid, v in _schedstat(pid).items():
                        self.sched[(root, tid)] = v
            self._stop.wait(self.interval)

    def cpu_s(self, root: int) -> tuple[float, float]:
        """(seconds on a CPU, seconds runnable but waiting for a CPU) of every thread of ``root``'s tree."""
        run = sum(v[0] for (r, _), v in self.sched.items() if r == root)
        wait = sum(v[1] for (r, _), v in self.sched.items() if r == root)
        return run / 1e9, wait / 1e9

    def __enter__(self) -> "AffinityWatch":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def pinned(cmd: list[str], cpu: int) -> list[str]:
    """``cmd`` under ``taskset``: the process and every child it starts (extraction pool) stay on ``cpu``."""
    return ["taskset", "--cpu-list", str(cpu), *cmd]


def _scaling_round(site: SiteProcess, n_pages: int, cores: list[int], redis_url: str, keep: bool = False) -> dict:
    """One distributed crawl, worker i pinned to ``cores[i]`` with one extraction process; wall clock from the
    first start to the last exit."""
    key = f"skill3bench:{uuid.uuid4().hex[:8]}"
    tmp = Path(tempfile.mkdtemp(prefix="skill3scale-"))
    extra = {"SKILL3_REDIS_URL": redis_url, "SKILL3_REDIS_KEY": key, "SKILL3_EXTRACT_WORKERS": "1", "SKILL3_JS": "never"}
    site.clear()
    procs = []
    t = time.monotonic()
    for i, cpu in enumerate(cores):
        if i == 0:
            cmd = crawl_cmd(site.url + "/docs/", tmp / "out", extra, {"worker_id": "w0"})
        else:
            cmd = crawl_cmd(None, None, extra, {"role": "worker", "worker_id": f"w{i}"})
        with open(tmp / f"w{i}.log", "w") as log:
            procs.append(subprocess.Popen(pinned(cmd, cpu), cwd=ROOT, env=env_for(tmp / f"stats{i}.json"),
                                          stdout=subprocess.DEVNULL, stderr=log))
    with contextlib.ExitStack() as stack:
        watch = stack.enter_context(AffinityWatch({p.pid: {c} for p, c in zip(procs, cores)}))
        samplers = [stack.enter_context(TreeSampler(p.pid, interval=0.5)) for p in procs]
        codes, ends = [], []
        for p in procs:
            codes.append(p.wait())
            ends.append(time.monotonic() - t)
    wall = max(ends)
    stats = [json.loads(f.read_text()) if f.exists() else {} for f in (tmp / f"stats{i}.json" for i in range(len(cores)))]
    fetched = [int(s.get("skill3/pages_fetched", 0)) for s in stats]
    if codes[0] or any(c and n for c, n in zip(codes, fetched)):  # a worker that got no page exits 1 ("no usable sources")
        raise SystemExit(f"a worker failed ({codes}), logs: {tmp}")
    urls: list[str] = []
    for f in (tmp / "out").glob("run*.jsonl"):
        urls += [json.loads(line)["url"] for line in f.open() if line.strip()]
    hits = site.page_hits()
    import redis

    r = redis.Redis.from_url(redis_url)
    for name in r.scan_iter(key + ":*"):
        r.delete(name)
    if keep:
        print(f"  logs kept: {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"workers": len(cores), "wall_s": wall, "pps": sum(fetched) / wall, "fetched": fetched,
            "items": len(urls), "duplicates": len(urls) - len(set(urls)), "lost": n_pages + 1 - len(set(urls)),
            "twice_fetched": sum(1 for c in hits.values() if c > 1),
            "crawl_s": [float(s.get("elapsed_time_seconds", 0)) for s in stats], "ends_s": ends,
            "tree_mb": [s.peak_tree / 2**20 for s in samplers], "largest_mb": [s.peak_single / 2**20 for s in samplers],
            "processes_checked": len(watch.seen), "unpinned": len(watch.wrong),
            "cpu_s": [watch.cpu_s(p.pid)[0] for p in procs], "waitcpu_s": [watch.cpu_s(p.pid)[1] for p in procs]}


def bench_scaling(runs: int, n_pages: int, redis_bin: str, redis_port: int, keep: bool = False) -> dict:
    """1 pinned worker against 2, each on its own core with one extraction process, runs interleaved."""
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        print("\n## 5. scaling per core — not run: needs at least 2 cores")
        return {}
    measured, spare = cores[:2], cores[2:]
    service = spare or None  # site server + redis: on the other cores, or sharing the measured ones
    placement = (f"site server and redis pinned to cores {','.join(map(str, spare))} (off the measured cores)" if spare else
                 f"only {len(cores)} cores: the site server and redis are NOT pinned and share the measured cores "
                 "with the workers (and with this benchmark's own process), so the 2-worker runs lend them CPU "
                 "the 1-worker runs leave idle — a lower bound on the ratio")
    rows: dict[int, list[dict]] = {1: [], 2: []}
    with RedisProcess(redis_bin, redis_port, service) as rds, SiteProcess(n_pages, service) as site:
        for r in range(runs):
            for w in ((1, 2) if r % 2 == 0 else (2, 1)):  # interleaved, alternating order
                rows[w].append(_scaling_round(site, n_pages, measured[:w], rds.url, keep))
                last = rows[w][-1]
                busy = ", ".join(f"{c:.0f} s on its core + {q:.0f} s waiting for it" for c, q in zip(last["cpu_s"], last["waitcpu_s"]))
                print(f"  run {r + 1} {w} worker{'s' if w > 1 else ''}: {last['pps']:.1f} pages/s, {last['wall_s']:.1f} s, "
                      f"pages per worker {last['fetched']}, CPU per worker: {busy}", flush=True)
    print(f"\n## 5. scaling per core — {n_pages}-page site, scrapy-redis, each worker pinned to its own core "
          f"(taskset on the worker and all its children), SKILL3_EXTRACT_WORKERS=1, medians of {runs} (range), interleaved")
    print(f"placement: workers on cores {','.join(map(str, measured))}; {placement}")
    res = {}
    for w, rs in rows.items():
        pps = [x["pps"] for x in rs]
        tree = [max(x["tree_mb"]) for x in rs]
        largest = [max(x["largest_mb"]) for x in rs]
        overhead = [x["wall_s"] - statistics.mean(x["crawl_s"]) for x in rs]
        cpu_ms = [1000 * sum(x["cpu_s"]) / max(1, sum(x["fetched"])) for x in rs]
        starved = [sum(x["waitcpu_s"]) / (x["wall_s"] * w) for x in rs]
        res[w] = {"pps": statistics.median(pps), "pps_range": (min(pps), max(pps)),
                  "wall_s": statistics.median(x["wall_s"] for x in rs),
                  "duplicates": max(x["duplicates"] for x in rs), "lost": max(x["lost"] for x in rs),
                  "twice_fetched": max(x["twice_fetched"] for x in rs), "tree_mb": statistics.median(tree),
                  "largest_mb": statistics.median(largest), "overhead_s": statistics.median(overhead),
                  "unpinned": sum(x["unpinned"] for x in rs), "checked": min(x["processes_checked"] for x in rs),
                  "cpu_ms_per_page": statistics.median(cpu_ms), "waiting_for_core": statistics.median(starved)}
        q = res[w]
        print(f"{w} worker{'s' if w > 1 else ' '}: {spread(pps)} pages/s combined, wall {q['wall_s']:.1f} s "
              f"(of it start-up + close ≈{q['overhead_s']:.1f} s), duplicates {q['duplicates']}, lost {q['lost']}, "
              f"fetched twice {q['twice_fetched']}; per worker: whole tree {spread(tree, 0)} MB, largest process "
              f"{spread(largest, 0)} MB; {q['checked']}+ processes checked, {q['unpinned']} off their core; "
              f"CPU {spread(cpu_ms, 1)} ms per page, runnable but waiting for its core {spread([100 * x for x in starved], 0)}% "
              "of the wall clock (other load on the core)")
    ratios = [b["pps"] / a["pps"] for a, b in zip(rows[1], rows[2])]
    res["ratio"] = res[2]["pps"] / res[1]["pps"]
    print(f"2 workers / 1 worker: {res['ratio']:.2f}× (medians; per interleaved pair {spread(ratios, 2)}×)   (target ≥1.8×)")
    res["placement"] = placement
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="runs per measurement on the python docs (median)")
    ap.add_argument("--large-runs", type=int, default=3, help="runs per measurement on the generated sites (median and range)")
    ap.add_argument("--only", default="throughput,seekers,rss,redis,scaling")
    ap.add_argument("--small", type=int, default=2000)
    ap.add_argument("--large", type=int, default=20000)
    ap.add_argument("--seekers-bin", default="/tmp/skillseekers-venv/bin/skill-seekers")
    ap.add_argument("--redis-url", default="", help="a running Redis for the redis section (default: a private one)")
    ap.add_argument("--scaling-pages", type=int, default=5000, help="generated site of the scaling section")
    ap.add_argument("--scaling-runs", type=int, default=3, help="interleaved runs of 1 and 2 pinned workers")
    ap.add_argument("--redis-server", default="redis-server", help="binary the scaling section starts its own Redis with")
    ap.add_argument("--redis-port", type=int, default=6391, help="loopback port of the private Redis (sections 4, 5)")
    ap.add_argument("--against", default="", help="another checkout (e.g. a worktree of main) whose full pipeline runs "
                    "interleaved with this one in the throughput section, with this Python")
    ap.add_argument("--skip-extraction-rows", action="store_true", help="throughput: only the crawls (not the "
                    "extraction-alone rows)")
    ap.add_argument("--keep-logs", action="store_true", help="keep the scaling section's crawl logs and feeds")
    a = ap.parse_args()
    global SKIP_EXTRACTION_ROWS
    SKIP_EXTRACTION_ROWS = a.skip_extraction_rows
    only = set(a.only.split(","))
    if not PYDOCS.is_dir() and only & {"throughput", "seekers"}:
        raise SystemExit(f"{PYDOCS} missing: apt-get install python3.11-doc")
    print(f"skill3 crawl benchmarks — {os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    results = {}
    with MockServer(root=PYDOCS) as pydocs:
        if "throughput" in only:
            results["throughput"] = bench_throughput(pydocs.url, a.runs, Path(a.against) if a.against else None)
        if "seekers" in only:
            wall = results.get("throughput", {}).get("full_wall_pps_runs")
            results["seekers"] = bench_seekers(pydocs.url, a.runs, a.seekers_bin, wall)
    if "rss" in only:
        results["rss"] = bench_rss(a.large_runs, a.small, a.large)
    if "redis" in only:
        with contextlib.ExitStack() as stack:
            url = a.redis_url or stack.enter_context(RedisProcess(a.redis_server, a.redis_port, None)).url
            results["redis"] = bench_redis(a.large_runs, a.large, url)
    if "scaling" in only:
        results["scaling"] = bench_scaling(a.scaling_runs, a.scaling_pages, a.redis_server, a.redis_port, a.keep_logs)
    print("\n" + json.dumps(results, default=str))


if __name__ == "__main__":
    main()
