"""Does the skill carry the delta? Crawl a real documentation site served on loopback with a cutoff,
synthesize (extractive by default), and count which expected post-cutoff features the skill names.

    PYTHONPATH=$PWD python bench/bench_delta.py --site /usr/share/doc/python3.11/html \
        --cutoff 2021-10 --expect bench/expect/python-3.11.txt
    PYTHONPATH=$PWD python bench/bench_delta.py --site /usr/share/doc/python3.11/html \
        --cutoff 2023-01 --expect bench/expect/python-3.11.txt     # after the release: expect ~0

The expectations file (one feature a line, ``label: regex``, ``#`` comments) is data about one site;
nothing in skill3 reads it. Printed, never asserted: features named (in SKILL.md and references/),
the change pages among ``used_sources``, boilerplate pages (about/copyright/bugs/genindex/search)
among them, and the crawl's pages/s.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.mockserver import MockServer  # noqa: E402

BOILERPLATE = re.compile(r"/(about|copyright|bugs|genindex|search|license|glossary)(\.html|/|$)", re.I)
CHANGE_PAGE = re.compile(r"(whatsnew|what-?s-?new|changelog|release-?notes|changes|news|history|migrat|upgrad)", re.I)


def load_expect(path: Path) -> list[tuple[str, re.Pattern]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        label, _, rx = line.partition(":")
        out.append((label.strip(), re.compile(rx.strip(), re.I)))
    return out


def skill_text(out: Path) -> str:
    texts = [p.read_text(encoding="utf-8") for p in sorted(out.glob("*/SKILL.md"))]
    texts += [p.read_text(encoding="utf-8") for p in sorted(out.glob("*/references/*.md"))]
    return "\n".join(texts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--site", type=Path, required=True, help="directory of the built documentation")
    ap.add_argument("--cutoff", required=True, help="YYYY-MM")
    ap.add_argument("--expect", type=Path, required=True, help="label: regex per line")
    ap.add_argument("--topic", default="")
    ap.add_argument("--max-pages", type=int, default=1500)
    ap.add_argument("--provider", default="extractive")
    ap.add_argument("--keep", type=Path, default=None, help="write the output here instead of a temp dir")
    a = ap.parse_args()
    expect = load_expect(a.expect)
    out = a.keep or Path(tempfile.mkdtemp(prefix="skill3delta-"))
    topic = a.topic or a.expect.stem.split("-")[0]
    with MockServer(root=a.site) as site:
        cmd = [sys.executable, "-m", "scrapy", "crawl", "learn", "-a", f"topic={topic}", "-a", f"start_urls={site.url}/",
               "-a", f"cutoff_time={a.cutoff}", "-a", f"max_pages={a.max_pages}", "-a", f"llm_provider={a.provider}",
               "-a", "fail_on_findings=0", "-a", f"output_dir={out}",
               "-s", "AUTOTHROTTLE_ENABLED=0", "-s", "DOWNLOAD_DELAY=0", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=16",
               "-s", "HTTPCACHE_ENABLED=0", "-s", "LOG_LEVEL=WARNING"]
        env = {**os.environ, "SKILL3_ALLOW_PRIVATE_NETWORKS": "1", "PYTHONPATH": str(ROOT)}
        t = time.monotonic()
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        wall = time.monotonic() - t
    print(f"crawl+synth exit {proc.returncode} in {wall:.1f} s; output {out}")
    if proc.returncode not in (0, 3):
        print(proc.stderr[-3000:])
    text = skill_text(out)
    named = [label for label, rx in expect if rx.search(text)]
    missing = [label for label, rx in expect if not rx.search(text)]
    run = json.loads((out / "run.json").read_text(encoding="utf-8")) if (out / "run.json").exists() else {}
    used = [u if isinstance(u, str) else u.get("url", "") for u in run.get("used_sources", [])]
    crawl = json.loads((out / "crawl.json").read_text(encoding="utf-8")) if (out / "crawl.json").exists() else {}
    fetched = (crawl.get("summary") or {}).get("pages_fetched")
    print(f"features named: {len(named)}/{len(expect)}")
    print(f"  named:   {', '.join(named) or '-'}")
    print(f"  missing: {', '.join(missing) or '-'}")
    print(f"used sources: {len(used)}; change pages: {[u for u in used if CHANGE_PAGE.search(u)]}")
    print(f"boilerplate pages used: {[u for u in used if BOILERPLATE.search(u)]}")
    print(f"pages fetched: {fetched}; skill lines: {len(text.splitlines())}")


if __name__ == "__main__":
    main()
