"""Round four, items 6 and 7: corpus inputs that are not regular files are refused in one line (a FIFO would block
the read, /dev/zero never end it), and a file name that is not UTF-8 in a corpus folder is named in a one-line
warning and skipped — the run goes on (real files, FIFOs and devices; the real ``skill3 learn``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skill3crawl.corpus import CorpusError
from skill3crawl.corpus_formats import open_corpus
from tests.harness import skill3

PAGE = ("<html><head><title>Alpha {n}</title></head><body><main><h1>Alpha {n}</h1><p>"
        + "The alpha toolkit streams frames to every client after the upgrade. " * 20 + "</p></main></body></html>")


def _fifo(tmp_path: Path) -> Path:
    p = tmp_path / "corpus.sources"
    os.mkfifo(p)
    return p


def _fifo_link(tmp_path: Path) -> Path:
    p = tmp_path / "link.sources"
    p.symlink_to(_fifo(tmp_path))
    return p


NOT_REGULAR = [("fifo", _fifo), ("dev-zero", lambda _: Path("/dev/zero")), ("dev-null", lambda _: Path("/dev/null")),
               ("link-to-fifo", _fifo_link)]


@pytest.mark.parametrize("kind,make", NOT_REGULAR, ids=[k for k, _ in NOT_REGULAR])
def test_a_corpus_that_is_not_a_regular_file_is_refused(tmp_path, kind, make):
    with pytest.raises(CorpusError, match="is not a regular file"):
        open_corpus(make(tmp_path))


@pytest.mark.parametrize("kind,make", NOT_REGULAR[:2], ids=[k for k, _ in NOT_REGULAR[:2]])
def test_learn_refuses_it_in_one_line(tmp_path, kind, make):
    r = skill3("learn", "alpha", "--input-file", str(make(tmp_path)), "--output-dir", str(tmp_path / "out"),
               "--llm-provider", "extractive", timeout=60)
    assert r.returncode == 2, (r.stdout, r.stderr[-2000:])
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "is not a regular file" in lines[0], r.stderr


def _folder(tmp_path: Path) -> Path:
    site = tmp_path / "pages" / "docs.example"
    site.mkdir(parents=True)
    (site / "a.html").write_text(PAGE.format(n=1))
    (site / os.fsdecode(b"b\xff\xfe.html")).write_text(PAGE.format(n=2))
    os.mkfifo(site / "c.html")
    return tmp_path / "pages"


def test_a_non_utf8_name_and_a_fifo_in_a_folder_are_skipped_and_named(tmp_path):
    corpus = open_corpus(_folder(tmp_path))
    assert corpus.skipped == {"non_utf8_name": ["docs.example/b\\xff\\xfe.html"], "not_a_regular_file": ["docs.example/c.html"]}
    assert [s.url for s in corpus] == ["https://docs.example/a.html"]


def test_learn_goes_on_and_warns_in_one_line(tmp_path):
    r = skill3("learn", "alpha", "--input-file", str(_folder(tmp_path)), "--output-dir", str(tmp_path / "out"),
               "--llm-provider", "extractive", "--cutoff-time", "2026-01", env={"SKILL3_HOME": str(tmp_path / "home")}, timeout=180)
    assert r.returncode in (0, 3), r.stderr[-3000:]
    warned = [line for line in r.stderr.splitlines() if "not in UTF-8" in line]
    assert len(warned) == 1 and "b\\xff\\xfe.html" in warned[0]
    assert "Traceback" not in r.stderr and (tmp_path / "out" / "alpha" / "SKILL.md").is_file()
