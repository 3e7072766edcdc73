"""The package-archive source's throughput (docs/packages.md): printed, never asserted.

    PYTHONPATH=$PWD .venv/bin/python bench/bench_packages.py --runs 3
    PYTHONPATH=$PWD .venv/bin/python bench/bench_packages.py --packages attrs,w3lib --runs 5

Release archives are built here, in a temporary folder, from the Python packages installed in this interpreter (no
network, no registry): for each package an sdist (``NAME-VERSION.tar.gz``: the package's sources under
``NAME-VERSION/``, a README, a CHANGELOG.md with one heading a release, a docs/ folder) and a wheel
(``NAME-VERSION-py3-none-any.whl``: the package and its ``.dist-info``), for two releases: the installed sources
(the baseline) and the same with one public function added to every module and one parameter added to the first
public function of each (the later release, so the delta has changes to find).

1. **archives a second** — :func:`skill3crawl.packages.archive.read_archive` with the crawl's own file selection
   (``files.wanted(path, api=True)``) and limits, in this process, over every archive built (what the ``learn``
   spider runs off its reactor thread for each archive it downloads): archives/s and MB/s over the whole set, and
   the time of each package's sdist.
2. **API delta per package** — :func:`skill3crawl.packages.spider.run_api_delta` on the two sdists read (their
   Python files written out, griffe in its child process, statically): wall clock and the child's CPU time, the
   objects of each release and the changes found.

Each figure is the median (min–max) of ``--runs`` runs, with the load average at the start and end: the machine
may be shared, and the wall-clock figures move with it (at load 18 on 2 cores a child process waited ~15× its CPU
time for a core); the CPU times move much less.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import io
import os
import re
import resource
import statistics
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skill3crawl.packages.archive import Limits, read_archive  # noqa: E402
from skill3crawl.packages.files import wanted  # noqa: E402
from skill3crawl.packages.spider import run_api_delta  # noqa: E402

MB = 2**20
DEFAULT_PACKAGES = "attrs,w3lib,parsel,rich,scrapy,twisted"
_DEF = re.compile(r"^def ([a-z][A-Za-z0-9_]*)\(", re.M)
ADDED = '\n\ndef bench_added_{n}(value: int = 0, *, strict: bool = False) -> int:\n    """Added in the later release."""\n    return value\n'


def spread(values: list[float], digits: int = 2) -> str:
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}–{max(values):.{digits}f})"


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def sources(dist: str) -> tuple[str, dict[str, bytes]]:
    """(version, {path: bytes}) of an installed distribution's Python files (its top-level packages)."""
    meta = importlib.metadata.distribution(dist)
    files: dict[str, bytes] = {}
    for f in meta.files or []:
        path = str(f)
        if path.endswith((".py", ".pyi")) and ".dist-info" not in path and not path.startswith(".."):
            full = Path(str(f.locate()))
            if full.is_file():
                files[path] = full.read_bytes()
    return meta.version, files


def later(files: dict[str, bytes]) -> dict[str, bytes]:
    """The next release: a public function added to every module, a keyword parameter to each first public one."""
    out = {}
    for n, (path, body) in enumerate(sorted(files.items())):
        text = body.decode("utf-8", "replace")
        m = _DEF.search(text)
        if m and not path.endswith(".pyi"):
            start = text.index("(", m.start()) + 1
            close = text.find(")", start)
            inner = text[start:close]
            if close > 0 and "*" not in inner and "\n" not in inner:
                text = text[:close] + (", " if inner.strip() else "") + "bench_flag=None" + text[close:]
        if not path.endswith(".pyi"):
            text += ADDED.format(n=n)
        out[path] = text.encode()
    return out


def extras(name: str, versions: list[str]) -> dict[str, bytes]:
    changelog = "# Changelog\n\n" + "".join(
        f"## {v}\n\n" + "".join(f"- Change {i} of {name} {v}: a sentence long enough to read as an entry.\n" for i in range(12)) + "\n"
        for v in reversed(versions))
    return {"README.md": f"# {name}\n\nThe {name} package.\n".encode(), "CHANGELOG.md": changelog.encode(),
            "docs/index.md": f"# {name}\n\nUsage of {name}.\n".encode(), "docs/api.rst": b"API\n===\n\nSee the modules.\n"}


def sdist(name: str, version: str, files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for path, body in sorted(files.items()):
            info = tarfile.TarInfo(f"{name}-{version}/{path}")
            info.size, info.mtime, info.mode = len(body), 1_700_000_000, 0o644
            tar.addfile(info, io.BytesIO(body))
    return buf.getvalue()


def wheel(name: str, version: str, files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for path, body in sorted(files.items()):
            z.writestr(path, body)
        z.writestr(f"{name}-{version}.dist-info/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    return buf.getvalue()


def build(dist: str) -> dict:
    version, base = sources(dist)
    newer = f"{version}.post1"
    notes = extras(dist, [version, newer])
    return {"name": dist, "versions": (version, newer), "py_files": len(base),
            "sdists": [sdist(dist, version, {**base, **notes}), sdist(dist, newer, {**later(base), **notes})],
            "wheels": [wheel(dist, version, base), wheel(dist, newer, later(base))]}


def read_all(pkgs: list[dict]) -> tuple[float, float, dict[str, float]]:
    """Every archive read once: (wall seconds for all, CPU seconds for all, CPU seconds of each package's first sdist)."""
    each: dict[str, float] = {}
    start, cpu = time.perf_counter(), time.process_time()
    for p in pkgs:
        for i, data in enumerate(p["sdists"] + p["wheels"]):
            t = time.process_time()
            read_archive(data, lambda path: wanted(path, api=True), Limits())
            if i == 0:
                each[p["name"]] = time.process_time() - t
    return time.perf_counter() - start, time.process_time() - cpu, each


def api_delta(p: dict) -> tuple[float, float, dict]:
    archives = [read_archive(d, lambda path: wanted(path, api=True), Limits()) for d in p["sdists"]]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = run_api_delta(p["name"], list(zip(p["versions"], archives)), 600.0)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="runs of each measure (median and range)")
    ap.add_argument("--packages", default=DEFAULT_PACKAGES, help="installed distributions to build archives of, comma-separated")
    ap.add_argument("--only", default="archives,api", help="archives, api or both")
    a = ap.parse_args()
    only = set(a.only.split(","))
    print(f"skill3 package archives — {os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"load {load()}")
    with tempfile.TemporaryDirectory(prefix="skill3-benchpkg-") as tmp:  # written out and read back, as downloaded
        pkgs = []
        for name in a.packages.split(","):
            try:
                p = build(name)
            except importlib.metadata.PackageNotFoundError:
                raise SystemExit(f"{name}: not installed in this interpreter; name installed distributions (--packages)") from None
            for kind in ("sdists", "wheels"):
                for i, data in enumerate(p[kind]):
                    f = Path(tmp) / f"{name}-{p['versions'][i]}.{'tar.gz' if kind == 'sdists' else 'whl'}"
                    f.write_bytes(data)
                    p[kind][i] = f.read_bytes()
            pkgs.append(p)
    n_archives = sum(len(p["sdists"]) + len(p["wheels"]) for p in pkgs)
    total = sum(len(d) for p in pkgs for d in p["sdists"] + p["wheels"])
    print(f"\n{len(pkgs)} packages, {n_archives} archives built ({total / MB:.1f} MB): " + ", ".join(
        f"{p['name']} {p['versions'][0]} ({p['py_files']} .py, sdist {len(p['sdists'][0]) / 1024:.0f} KB)" for p in pkgs))
    if "archives" in only:
        read_all(pkgs)  # warm-up: imports, first allocations
        runs = [read_all(pkgs) for _ in range(a.runs)]
        print(f"\n## archives read (read_archive + the crawl's file selection, one process), median (min–max) of {a.runs}")
        print(f"wall clock: archives/s {spread([n_archives / r[0] for r in runs], 1)}, MB/s "
              f"{spread([total / MB / r[0] for r in runs], 1)}; per CPU second (what load does not stretch): archives "
              f"{spread([n_archives / r[1] for r in runs], 1)}, MB {spread([total / MB / r[1] for r in runs], 1)}")
        for p in pkgs:
            print(f"  {p['name']:10s} sdist {len(p['sdists'][0]) / 1024:7.0f} KB ({p['py_files']} .py): "
                  f"{spread([r[2][p['name']] * 1000 for r in runs], 1)} ms of CPU")
    if "api" in only:
        print(f"\n## API delta per package (two releases, griffe in its child process), median (min–max) of {a.runs}")
        for p in pkgs:
            got = [api_delta(p) for _ in range(a.runs)]
            out = got[-1][2]
            print(f"  {p['name']:10s} wall {spread([g[0] for g in got])} s, child CPU {spread([g[1] for g in got])} s; "
                  f"objects {out.get('objects')}, changes {len(out.get('changes', []))}")
    print(f"\nload at the end {load()}")


if __name__ == "__main__":
    main()
