"""The README stays short and starts with the two set-up commands; every relative link in the README,
docs/ and bench/README.md resolves (file and heading), and so does every file or folder of the repository they name
in backticks (`tests/crawl/conftest.py`: a test moved or a module renamed leaves no stale path); nothing cites a
document outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "bench" / "README.md"]
LINK = re.compile(r"\]\(([^)\s]+)\)")
# A repository path in backticks: a file (with its extension) or a folder (with its slash) under a top-level folder.
NAMED_PATH = re.compile(r"`((?:tests|synth|skill3crawl|skill3|scripts|bench|docs|examples)/[\w./-]*(?:\.\w+|/))`")
# Documents the project was made from that are not in it: citing them sends a reader nowhere.
OUTSIDE = re.compile(r"\bSPEC\s*§|\bseed(?:'s)?\s+(?:SPEC|ARCHITECTURE)|\bthe seed's\b|\bARCHITECTURE\.md\b|\bDESIGN\.md\b|\.\./shared\b")


def anchors(path: Path) -> set[str]:
    """GitHub's heading anchors of a markdown file."""
    out = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"#{1,6} (.+)", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            out.add(slug)
    return out


def test_the_readme_is_short_and_starts_with_the_two_commands() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200
    block = lines[lines.index("```bash") + 1:]
    assert block[0].startswith("bash scripts/install.sh && .venv/bin/skill3 learn mcp --input-file examples/mcp.sources ")
    assert block[1].startswith("bash scripts/test.sh ")
    assert lines.index("```bash") < 5  # at the top


@pytest.mark.parametrize("doc", [README, *DOCS], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(doc: Path) -> None:
    broken = []
    for target in LINK.findall(doc.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        path = (doc.parent / file).resolve() if file else doc
        if not path.exists():
            broken.append(target)
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(target)
    assert broken == []


@pytest.mark.parametrize("doc", [README, *DOCS], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_named_path_exists(doc: Path) -> None:
    named = NAMED_PATH.findall(doc.read_text(encoding="utf-8"))
    assert [p for p in named if not (ROOT / p).exists()] == []


@pytest.mark.parametrize("text, named", [
    ("tested in `tests/crawl/extract/versions/test_versions.py` and `tests/crawl/`", ["tests/crawl/extract/versions/test_versions.py", "tests/crawl/"]),
    ("the stats `skill3/dropped/offsite_redirect` and `skill3/js/static`", []),  # stats keys, not paths
    ("`synth/delta/model.py`: the record; `scripts/test.sh`", ["synth/delta/model.py", "scripts/test.sh"]),
])
def test_the_named_path_pattern(text: str, named: list[str]) -> None:
    assert NAMED_PATH.findall(text) == named


def test_the_readme_links_every_doc() -> None:
    text = README.read_text(encoding="utf-8")
    assert [d for d in DOCS if str(d.relative_to(ROOT)) not in text] == []


def test_no_reference_to_documents_outside_the_repository() -> None:
    files = [README, *DOCS] + [p for top in ("synth", "skill3", "skill3crawl", "scripts", "bench")
                               for p in sorted((ROOT / top).rglob("*")) if p.suffix in (".py", ".sh", ".md")]
    found = [f"{p.relative_to(ROOT)}:{n}" for p in files
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if OUTSIDE.search(line)]
    assert found == []


@pytest.mark.parametrize("text, hit", [
    ("Output side (seed SPEC §4.3): scan", True),
    ("not amnesty (seed ARCHITECTURE)", True),
    ("the seed's === SOURCE === format", True),
    ("the bundle (SPEC §4.1.1 shape)", True),
    ("plans and seeds the queue", False),
    ("a seed phrase or recovery phrase", False),
])
def test_the_outside_reference_pattern(text: str, hit: bool) -> None:
    assert bool(OUTSIDE.search(text)) is hit
