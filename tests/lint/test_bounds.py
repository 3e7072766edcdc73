"""`skill3 lint` and `skill3 vet` on hostile skill folders: a 1 GB sparse SKILL.md, a 1 KB "billion laughs"
frontmatter, 100,000 frontmatter keys, 100,000 nested lists. Each is a finding, never a crash, in bounded memory
and time: the commands run as child processes and their peak RSS is read from the kernel."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from synth.lint import lint_skill
from synth.skill.postprocess import SkillContext, postprocess
from tests.harness import crawl_env

REPO = Path(__file__).resolve().parents[2]
BODY = "# Demo\n\n## Instructions\n1. Call `demo.new()` to create a client; it replaced `demo.old()` in 2.0.\n"
LAUGHS = "\n".join(
    ["name: demo", "description: Use when testing.", "metadata:", "  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [f"  {chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
       f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]" for i in range(8)]
    + ["  version: *i"]
)


def skill(tmp_path: Path, frontmatter: str, body: str = BODY, name: str = "demo") -> Path:
    folder = tmp_path / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\n{frontmatter}\n---\n{body}", encoding="utf-8")
    return folder


# `python -m skill3.cli.app ARGS` that writes its own peak RSS (KiB) to the file named by the first argument: VmHWM
# of /proc/self/status (ru_maxrss would keep the peak of the forking pytest worker across exec)
_MEASURED = """
import re, runpy, sys
out = sys.argv.pop(1)
try:
    runpy.run_module("skill3.cli.app", run_name="__main__")
finally:
    with open("/proc/self/status") as status, open(out, "w") as fh:
        fh.write(re.search(r"VmHWM:\\s+(\\d+)", status.read()).group(1))
"""


def run_child(*args: str, env: dict | None = None, timeout: float = 120) -> tuple[subprocess.CompletedProcess, float, float]:
    """`python -m skill3.cli.app ARGS` as a child: (result, seconds, its own peak RSS in MB)."""
    import tempfile

    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        t0 = time.monotonic()
        r = subprocess.run([sys.executable, "-c", _MEASURED, rss.name, *args], capture_output=True, text=True,
                           timeout=timeout, env=crawl_env(env), cwd=REPO)
        took = time.monotonic() - t0
        rss_mb = int(Path(rss.name).read_text() or 0) / 1024
    assert rss_mb > 0, r.stderr
    return r, took, rss_mb


def findings(result) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in result.findings:
        out.setdefault(f.rule, []).append(f.message)
    return out


@pytest.mark.slow
def test_billion_laughs_is_refused_before_it_expands(tmp_path):
    assert len(LAUGHS) < 1100
    folder = skill(tmp_path, LAUGHS)
    got = findings(lint_skill(folder))
    assert any("a YAML anchor (&a) is not allowed in frontmatter" in m for m in got["S2"])
    assert any(m.startswith("V1 did not run: not run: its frontmatter was refused") for m in got["X1"])
    r, took, rss = run_child("lint", str(folder), "--format", "json")
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert took < 30 and rss < 400, (took, rss)  # before: 8.4 GB


@pytest.mark.parametrize("frontmatter, message", [
    ("name: demo\ndescription: x\n" + "\n".join(f"k{i}: v" for i in range(100_000)), "more than 64 KiB; not read"),
    ("name: demo\ndescription: x\n" + "\n".join(f"k{i}: v" for i in range(2_000)), "more than 1,000 keys and values"),
    ("name: demo\ndescription: x\nmetadata: " + "[" * 30_000 + "]" * 30_000, "nested more than 20 levels deep"),
    ("name: demo\ndescription: x\nmetadata:\n" + "".join("  " * i + "- \n" for i in range(1, 40)), "nested more than 20 levels"),
    ("name: demo\ndescription: x\nmetadata: " + "[" * 100_000 + "]" * 100_000, "more than 64 KiB"),
    ("name: &n demo\ndescription: *n", "a YAML anchor (&n)"),
], ids=["100k-keys", "2k-keys", "deep-flow", "deep-block", "100k-deep", "anchor"])
def test_frontmatter_past_a_bound_is_an_s2_finding(tmp_path, frontmatter, message):
    t0 = time.monotonic()
    got = findings(lint_skill(skill(tmp_path, frontmatter)))
    assert time.monotonic() - t0 < 10
    assert any(message in m for m in got["S2"]), got
    assert "V1" not in got and any("V1 did not run" in m for m in got["X1"])


@pytest.mark.slow
def test_a_1_gb_sparse_skill_md_is_a_finding_and_costs_no_memory(tmp_path):
    folder = tmp_path / "big"
    folder.mkdir()
    with (folder / "SKILL.md").open("wb") as fh:
        fh.write(b"---\nname: big\ndescription: Use when testing.\n---\n# Big\n")
        fh.truncate(2**30)  # 1 GiB, sparse: nothing on disk
    got = findings(lint_skill(folder))
    assert got["S1"] == ["SKILL.md is 1,073,741,824 bytes, more than the 4 MiB lint reads: not read"]
    assert any("V1 did not run: not run: SKILL.md is 1,073,741,824 bytes" in m for m in got["X1"])
    r, took, rss = run_child("lint", str(folder))
    assert r.returncode == 1 and "S1 error: SKILL.md is 1,073,741,824 bytes" in r.stdout, r.stdout + r.stderr
    assert took < 30 and rss < 400, (took, rss)  # before: 14.7 GB


@pytest.mark.slow
def test_vet_reports_the_oversized_file_and_the_refused_frontmatter(tmp_path):
    folder = tmp_path / "demo"
    folder.mkdir()
    with (folder / "SKILL.md").open("wb") as fh:
        fh.write(f"---\n{LAUGHS}\n---\n{BODY}".encode())
    refs = folder / "references"
    refs.mkdir()
    with (refs / "huge.md").open("wb") as fh:
        fh.write(b"# Huge\n")
        fh.truncate(2**30)
    env = {"SKILL3_HOME": str(tmp_path / "home"), "PATH": str(tmp_path / "empty"), "SKILLSPECTOR_BIN": ""}
    r, took, rss = run_child("vet", str(folder), "--format", "json", env=env)
    # the scanner is not installed (NOT RUN), and the file too large to vet is a HIGH finding: gated, exit 3
    assert r.returncode == 3 and "NOT RUN" in r.stderr, r.stderr
    text = json.dumps(json.loads(r.stdout))
    assert "SKILL3-OVERSIZED" in text and "references/huge.md is 1,073,741,824 bytes" in text, text[:3000]
    assert "a YAML anchor (&a) is not allowed" in text
    assert "references/huge.md is more than 4 MiB: not read" in text  # lint's L3
    assert took < 60 and rss < 400, (took, rss)


def test_the_post_processor_never_expands_a_models_aliases():
    ctx = SkillContext(topic="demo", target_model="m", cutoff="2026-01", learned_date="2026-02-01",
                       sources=[{"n": 1, "url": "https://demo.example/", "title": "Demo"}])
    draft = f"---\n{LAUGHS}\n---\n# Demo\n\n## Instructions\n" + "Create the client with demo.new() and close it after use. " * 3 + "[1]\n"
    t0 = time.monotonic()
    out = postprocess(draft, ctx)
    assert time.monotonic() - t0 < 10
    assert out.name == "demo" and "lol" not in out.skill_md()
    assert "frontmatter was not valid YAML: recovered name/description line by line" in out.fixes


def test_the_bounds_let_real_frontmatter_through(tmp_path):
    fm = "name: demo\ndescription: Use when testing.\nmetadata:\n" + "\n".join(f"  k{i}: 'v{i}'" for i in range(200))
    got = findings(lint_skill(skill(tmp_path, fm)))
    assert "S2" not in got and "S4" not in got


@pytest.mark.skipif(not hasattr(os, "truncate"), reason="sparse files")
def test_a_huge_reference_is_an_l3_warning(tmp_path):
    folder = skill(tmp_path, "name: demo\ndescription: Use when testing.", BODY + "\nSee [notes](references/notes.md).\n")
    (folder / "references").mkdir()
    with (folder / "references" / "notes.md").open("wb") as fh:
        fh.write(b"# Notes\n")
        fh.truncate(8 * 2**20)
    got = findings(lint_skill(folder))
    assert got["L3"] == ["references/notes.md is more than 4 MiB: not read"]
