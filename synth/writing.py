"""Every file skill3 writes goes through here: atomically (a temporary file in the same folder, flushed
and ``fsync``-ed, renamed over the target, then the folder ``fsync``-ed), so a crash, a full disk or an
error half-way leaves the previous file whole.

Used for the skill folder (:func:`write_skill`), ``run.json`` and ``index.html``, and on the crawl side
for the feed rewrite and ``crawl.json``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from synth.options import SynthFailure

if TYPE_CHECKING:  # pragma: no cover
    from synth.postprocess import Skill


def fsync_dir(path: Path) -> None:
    """Make a rename or a new entry in ``path`` durable (skipped where the platform cannot open a folder)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems refuse fsync on a folder (EINVAL): the file's own fsync stands
        pass
    finally:
        os.close(fd)


def _default_mode() -> int:
    """The mode ``open()`` would give a new file (0o666 less the umask). Read from /proc where it can be:
    setting the umask to read it would briefly change it for every thread of the process (the crawl has several)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            umask = next(int(line.split()[1], 8) for line in fh if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError, IndexError):
        umask = os.umask(0)
        os.umask(umask)
    return 0o666 & ~umask


@contextmanager
def atomic_open(path: Path) -> Iterator[TextIO]:
    """Write ``path`` through the yielded text file (UTF-8); it replaces ``path`` only when the block ends
    without an error. The temporary file is removed on any error (``path`` is then unchanged)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, _default_mode())
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) atomically and durably."""
    with atomic_open(path) as fh:
        fh.write(text)


def _write_synced(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())


def write_skill(out_dir: Path, skill: Skill, owned: set[str] | frozenset[str] = frozenset()) -> tuple[Path, dict]:
    """Write the skill folder atomically; validate it with the reference validator before it replaces anything.

    An existing folder of the same name is replaced only when skill3 wrote it (``owned``, from its run.json);
    anything else there is never moved or deleted (``SynthFailure``; the caller picks a free name first)."""
    from importlib.metadata import version

    from skills_ref.validator import validate

    out_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".skill3-", dir=out_dir))
    try:
        tmp_skill = staging / skill.name
        for rel, text in skill.files().items():
            _write_synced(tmp_skill / rel, text)
        for folder in sorted({(tmp_skill / rel).parent for rel in skill.files()}, reverse=True):
            fsync_dir(folder)
        errors = validate(tmp_skill)
        if errors:
            raise SynthFailure(1, f"the skill failed the Agent Skills validator: {'; '.join(errors)}")
        dest = out_dir / skill.name
        backup = None
        if (dest.exists() or dest.is_symlink()) and (skill.name not in owned or dest.is_symlink() or not dest.is_dir()):
            raise SynthFailure(1, f"{dest} exists and was not written by skill3; it was left alone "
                                  "(move it away or pass another --output-dir)")
        if dest.exists():
            backup = staging / ".previous"
            os.rename(dest, backup)
        try:
            os.rename(tmp_skill, dest)
        except OSError:
            if backup is not None:
                os.rename(backup, dest)
            raise
        fsync_dir(out_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return dest, {"validator": f"skills-ref {version('skills-ref')}", "errors": []}
