"""Snapshot check of the delta dev set: the skill a case produces, byte for byte, against recorded digests.

A refactor that must not change behaviour runs this before it is merged: each case of the delta development set
(``$DELTA_DEV``, by default ``/work/shared/delta-dev``) is crawled with this checkout's code (``run_case.sh``), and the
sha256 of SKILL.md, every file under references/ and run.json's ``delta`` section is compared with the
digests recorded in ``bench/expect/delta-dev.sha256``.

Usage::

    python bench/delta_snapshot.py check CASE [CASE ...]             # run each case with this checkout, compare
    python bench/delta_snapshot.py record --code /work/main CASE ... # run each case with another checkout, record
    python bench/delta_snapshot.py check --out DIR CASE ...          # compare DIR/CASE/out without running
    python bench/delta_snapshot.py record --out DIR CASE ...         # record the digests of DIR/CASE/out

The cases are run by ``run_case.sh`` (cwd: the checkout, its ``.venv``), one request at a time: the ``scrapy``
it finds is a shim that appends ``-s CONCURRENT_REQUESTS=1 -s CONCURRENT_REQUESTS_PER_DOMAIN=1``. Since the
ledger reads a crawl's pages in URL order and breaks every tie by URL (synth/delta/ledger.py), the pages a crawl
fetched decide the skill, not the order they arrived in: the recorded digests come from the dev set's own
16-request ``run_all.sh`` run (``record --out``) and a re-synthesis of each saved crawl matches them byte for byte.
``--any-order`` (each file also recorded with its non-blank lines sorted, ``<file>#lines``) remains for a crawl
that fetched a different set of pages (a page budget cut elsewhere): a difference then says whether only the order
differs.

What is normalised before hashing (the only run-to-run differences, checked by running a case twice):

- the loopback port the dev server is given (``127.0.0.1:NNNNN`` becomes ``127.0.0.1:PORT``): each run
  picks a free port, and URLs are written into SKILL.md, references and run.json;
- the run's date (run.json ``today``, written as ``learned-date`` and "Created with skill3 on ...") becomes
  ``TODAY``;
- the order of lists of records in run.json's ``delta`` section (``entries``, ...): they follow the order the
  pages were crawled in, and the crawl fetches concurrently, so two runs of one case list the same entries in
  different orders. Each such list is compared as a sorted list (its members byte for byte).

Nothing else is excluded: run.json's ``delta`` section holds no timing or wall-clock field.
Exit status: 0 when every case matches, 1 when any differs or is missing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
EXPECT = HERE / "expect" / "delta-dev.sha256"
DEV = Path(os.environ.get("DELTA_DEV", "/work/shared/delta-dev"))
_PORT = re.compile(rb"127\.0\.0\.1:\d+")
LINES = "#lines"  # a file's lines sorted: the same lines, whatever their order


def _normalise(data: bytes, today: str) -> bytes:
    data = _PORT.sub(b"127.0.0.1:PORT", data)
    if today:
        data = data.replace(today.encode(), b"TODAY")
    return data


def _canonical(value: object) -> object:
    """``value`` with every list of objects sorted by its members' JSON (crawl order is not deterministic)."""
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        items = [_canonical(v) for v in value]
        if items and all(isinstance(v, dict) for v in items):
            items.sort(key=lambda v: json.dumps(v, sort_keys=True, ensure_ascii=False))
        return items
    return value


def digests(out: Path) -> dict[str, str]:
    """The digests of one run's output folder: SKILL.md, references/**, run.json's delta section."""
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    today = str(run.get("today") or "")
    found: dict[str, str] = {}
    delta = json.loads(_normalise(json.dumps(run.get("delta"), ensure_ascii=False).encode(), today))
    canonical = json.dumps(_canonical(delta), sort_keys=True, ensure_ascii=False).encode()
    found["run.json#delta"] = hashlib.sha256(canonical).hexdigest()
    for skill_md in sorted(out.glob("*/SKILL.md")):
        skill = skill_md.parent
        for path in [skill_md, *sorted(p for p in (skill / "references").rglob("*") if p.is_file())]:
            rel = path.relative_to(out).as_posix()
            data = _normalise(path.read_bytes(), today)
            found[rel] = hashlib.sha256(data).hexdigest()
            lines = sorted(line for line in data.split(b"\n") if line.strip())  # blank lines follow the blocks' order
            found[rel + LINES] = hashlib.sha256(b"\n".join(lines)).hexdigest()
    return found


def read_expect() -> dict[str, dict[str, str]]:
    cases: dict[str, dict[str, str]] = {}
    if EXPECT.exists():
        for line in EXPECT.read_text(encoding="utf-8").splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            digest, name = line.split(None, 1)
            case, rel = name.split("/", 1)
            cases.setdefault(case, {})[rel] = digest
    return cases


def write_expect(cases: dict[str, dict[str, str]]) -> None:
    lines = ["# sha256 of the delta dev set's outputs (bench/delta_snapshot.py; port and date normalised)"]
    for case in sorted(cases):
        lines += [f"{cases[case][rel]}  {case}/{rel}" for rel in sorted(cases[case])]
    EXPECT.parent.mkdir(parents=True, exist_ok=True)
    EXPECT.write_text("\n".join(lines) + "\n", encoding="utf-8")


SHIM = """#!/bin/sh
exec {scrapy} "$@" -s CONCURRENT_REQUESTS=1 -s CONCURRENT_REQUESTS_PER_DOMAIN=1
"""


def run_case(case: str, keep: Path, code: Path) -> Path:
    """Run one case with the checkout ``code`` (its .venv's scrapy, one request at a time); its output folder."""
    scrapy = code / ".venv" / "bin" / "scrapy"
    if not scrapy.exists():
        raise SystemExit(f"{scrapy} missing: create the checkout's venv (python3 -m venv .venv; pip install -e .)")
    shim = keep / "shim"
    (shim / "bin").mkdir(parents=True, exist_ok=True)
    (shim / "bin" / "scrapy").write_text(SHIM.format(scrapy=scrapy), encoding="utf-8")
    (shim / "bin" / "scrapy").chmod(0o755)
    env = dict(os.environ, DELTA_DEV_KEEP=str(keep), SKILL3_VENV=str(shim))
    subprocess.run(["bash", str(DEV / "run_case.sh"), case], cwd=code, env=env, check=False,
                   stdout=subprocess.DEVNULL)
    return keep / case / "out"


def compare(case: str, got: dict[str, str], want: dict[str, str], *, any_order: bool = False) -> list[str]:
    """What differs; with ``any_order`` a file whose lines are the same in another order passes (said on stdout)."""
    problems = []
    for rel in sorted(k for k in set(got) | set(want) if not k.endswith(LINES)):
        if rel not in want:
            problems.append(f"{case}: {rel} is new (not recorded)")
        elif rel not in got:
            problems.append(f"{case}: {rel} is missing")
        elif got[rel] != want[rel]:
            same_lines = rel + LINES in want and got.get(rel + LINES) == want[rel + LINES]
            if same_lines and any_order:
                print(f"{case}: {rel} has the same lines in another order (crawl order)")
                problems.append("")  # not a problem: counted as reordered
            else:
                problems.append(f"{case}: {rel} differs" + (" (the same lines in another order)" if same_lines else ""))
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["check", "record"])
    parser.add_argument("cases", nargs="+")
    parser.add_argument("--out", type=Path, help="folder holding CASE/out (default: run each case)")
    parser.add_argument("--code", type=Path, default=REPO, help="the checkout to run the cases with (default: this one)")
    parser.add_argument("--keep", type=Path, help="keep the runs under this folder (default: a temporary one)")
    parser.add_argument("--any-order", action="store_true",
                        help="a file whose lines are the recorded ones in another order passes (crawl order varies)")
    args = parser.parse_args(argv)
    expect = read_expect()
    failed = False
    with tempfile.TemporaryDirectory(prefix="delta-snapshot-") as tmp:
        keep = args.keep or Path(tmp)
        if args.action == "record":
            for case in args.cases:
                out = args.out / case / "out" if args.out else run_case(case, keep, args.code.resolve())
                if not (out / "run.json").exists():
                    print(f"{case}: no run.json in {out} (the run failed); not recorded")
                    failed = True
                    continue
                expect[case] = digests(out)
                print(f"{case}: recorded ({len(expect[case])} digests)")
            write_expect(expect)
            return 1 if failed else 0
        for case in args.cases:
            if case not in expect:
                print(f"{case}: no digests recorded in {EXPECT.relative_to(REPO)}")
                failed = True
                continue
            out = args.out / case / "out" if args.out else run_case(case, keep, args.code.resolve())
            if not (out / "run.json").exists():
                print(f"{case}: no run.json in {out} (the run failed)")
                failed = True
                continue
            problems = compare(case, digests(out), expect[case], any_order=args.any_order)
            files = sum(1 for k in expect[case] if not k.endswith(LINES))
            reordered = problems.count("")
            problems = [p for p in problems if p]
            print("\n".join(problems) if problems else f"{case}: identical ({files - reordered} of {files} byte for byte, "
                  f"{reordered} the same lines in another order)" if reordered else f"{case}: identical ({files} digests)")
            failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
