"""synth.output.writing: every write replaces its file atomically (a failed write leaves the old file whole, no
temporary file behind) and durably (the file and its folder are fsync-ed)."""

import os
import stat

import pytest

from synth.output import writing
from synth.output.writing import atomic_open, atomic_write_text


def _raise(exc):
    def f(*_a, **_k):
        raise exc
    return f


def _fail_mid_stream(path):
    with atomic_open(path) as fh:
        fh.write("half of the new ")
        raise RuntimeError("the writer failed")


# (case, what breaks: (module attribute to patch, replacement) or None, how the write is made, error raised)
FAILURES = [
    ("fsync fails (disk full)", ("fsync", _raise(OSError(28, "No space left on device"))),
     lambda p: atomic_write_text(p, "new"), OSError),
    ("rename fails", ("replace", _raise(OSError(13, "Permission denied"))), lambda p: atomic_write_text(p, "new"), OSError),
    ("text not encodable", None, lambda p: atomic_write_text(p, "new \ud800"), UnicodeEncodeError),
    ("writer fails mid-stream", None, _fail_mid_stream, RuntimeError),
    ("interrupted", ("fsync", _raise(KeyboardInterrupt())), lambda p: atomic_write_text(p, "new"), KeyboardInterrupt),
]


@pytest.mark.parametrize("patch, write, error", [c[1:] for c in FAILURES], ids=[c[0] for c in FAILURES])
def test_a_failed_write_leaves_the_old_file_intact(tmp_path, monkeypatch, patch, write, error):
    path = tmp_path / "run.json"
    path.write_text("old", encoding="utf-8")
    if patch:
        monkeypatch.setattr(writing.os, patch[0], patch[1])
    with pytest.raises(error):
        write(path)
    monkeypatch.undo()
    assert path.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json"]  # no temporary file left


# (case, path under the test folder, file there before, text written)
WRITES = [
    ("new file", "run.json", None, "{}\n"),
    ("replaces a file", "index.html", "old", "new ✓\n"),
    ("new file in a new folder", "sub/crawl.json", None, "x"),
]


@pytest.mark.parametrize("rel, before, text", [c[1:] for c in WRITES], ids=[c[0] for c in WRITES])
def test_a_write_fsyncs_the_file_and_its_folder(tmp_path, monkeypatch, rel, before, text):
    path = tmp_path / rel
    if before is not None:
        path.write_text(before, encoding="utf-8")
    synced = []
    real_fsync = os.fsync

    def fsync(fd):
        mode = os.fstat(fd).st_mode
        synced.append("dir" if stat.S_ISDIR(mode) else "file")
        real_fsync(fd)

    monkeypatch.setattr(writing.os, "fsync", fsync)
    atomic_write_text(path, text)
    assert path.read_text(encoding="utf-8") == text
    assert synced == ["file", "dir"]  # the data before the rename, the folder's entry after it
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask  # an ordinary file's mode, not mkstemp's 0600


def test_the_feed_rewrite_is_atomic(tmp_path, monkeypatch):
    from skill3crawl.extensions import rewrite_feed

    feed = tmp_path / "run.jsonl"
    original = '{"url": "https://a.example/"}\n{"url": "https://b.example/"}\n'
    feed.write_text(original, encoding="utf-8")
    monkeypatch.setattr(writing.os, "fsync", _raise(OSError(28, "No space left on device")))
    with pytest.raises(OSError):
        rewrite_feed(feed, {"https://a.example/"}, {})
    monkeypatch.undo()
    assert feed.read_text(encoding="utf-8") == original and sorted(p.name for p in tmp_path.iterdir()) == ["run.jsonl"]
    assert rewrite_feed(feed, {"https://a.example/"}, {"https://b.example/": ["https://c.example/"]}) == 1
    assert feed.read_text(encoding="utf-8") == '{"url": "https://b.example/", "agreeing_urls": ["https://c.example/"]}\n'


def test_write_skill_fsyncs_its_files_and_leaves_nothing_on_failure(tmp_path, monkeypatch):
    from synth.skill.postprocess import SkillContext, postprocess

    skill = postprocess("---\nname: mcp\ndescription: MCP. Use when x.\n---\n# MCP\nCall the server with the new streaming transport and check the session header on every request [1].\n",
                        SkillContext(topic="mcp", target_model="m", cutoff="2026-01", learned_date="2026-02-01",
                                     sources=[{"n": 1, "url": "https://a.example/", "title": "A"}]))
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(writing.os, "fsync", lambda fd: (synced.append(stat.S_ISDIR(os.fstat(fd).st_mode)), real_fsync(fd)))
    dest, _ = writing.write_skill(tmp_path, skill)
    assert (dest / "SKILL.md").is_file() and synced.count(False) == len(skill.files()) and synced[-1] is True
    monkeypatch.setattr(writing.os, "rename", _raise(OSError(28, "No space left on device")))
    with pytest.raises(OSError):
        writing.write_skill(tmp_path, skill, owned={"mcp"})
    monkeypatch.undo()
    assert (dest / "SKILL.md").is_file() and sorted(p.name for p in tmp_path.iterdir()) == ["mcp"]
