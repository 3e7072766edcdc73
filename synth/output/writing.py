"""Every file skill3 writes goes through here: atomically (a temporary file in the same folder, flushed
and ``fsync``-ed, renamed over the target, then the folder ``fsync``-ed), so a crash, a full disk or an
error half-way leaves the previous file whole.

A run's outputs — the skill folder, ``run.json`` and ``index.html`` — are committed together
(:class:`OutputTransaction`): staged in full, then renamed into place all or none. On the crawl side
the feed rewrite and ``crawl.json`` use :func:`atomic_open`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from synth.core.errors import SynthFailure

if TYPE_CHECKING:  # pragma: no cover
    from synth.skill.postprocess import Skill


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


class OutputTransaction:
    """A run's outputs — the skill folder, ``run.json``, ``index.html`` — staged in full, then committed together.

    Staging writes everything (``fsync``-ed) into a hidden folder inside the output folder: a full disk
    or any error there leaves the previous outputs untouched. :meth:`commit` is renames only (no new
    data): every old output is moved aside, every staged one into place; if a rename fails, what was
    moved is moved back, so the folder holds the previous run's outputs or the new ones, never a mix.
    The staging folder (and the outputs it replaced) is removed by :meth:`close`."""

    def __init__(self, out_dir: Path) -> None:
        out_dir.mkdir(parents=True, exist_ok=True)
        self.out_dir = out_dir
        self.staging = Path(tempfile.mkdtemp(prefix=".skill3-", dir=out_dir))
        self.staged: list[str] = []  # names inside out_dir, in staging order
        self.replaced: list[str] = []  # extra names to move away on commit (a previous skill folder of another name)

    def _named(self, exc: OSError, rel: str) -> OSError:
        """The error of a staged write, naming the output it was for (not the hidden staging folder)."""
        return OSError(exc.errno, exc.strerror or str(exc), str(self.out_dir / rel))

    def stage_file(self, name: str, text: str) -> None:
        """``out_dir/name`` as it will be after the commit."""
        try:
            _write_synced(self.staging / name, text)
        except OSError as exc:
            raise self._named(exc, name) from None
        self.staged.append(name)

    def stage_skill(self, skill: Skill, owned: set[str] | frozenset[str] = frozenset()) -> tuple[Path, dict]:
        """Write the skill folder into staging and validate it with the reference validator; refuse (``SynthFailure``)
        to replace a folder of that name skill3 did not write (``owned``, from its run.json). → (destination, validation)."""
        from importlib.metadata import version

        from skills_ref.validator import validate

        tmp_skill = self.staging / skill.name
        for rel, text in skill.files().items():
            try:
                _write_synced(tmp_skill / rel, text)
            except OSError as exc:
                raise self._named(exc, f"{skill.name}/{rel}") from None
        for folder in sorted({(tmp_skill / rel).parent for rel in skill.files()}, reverse=True):
            fsync_dir(folder)
        errors = validate(tmp_skill)
        if errors:
            raise SynthFailure(1, f"the skill failed the Agent Skills validator: {'; '.join(errors)}")
        dest = self.out_dir / skill.name
        if (dest.exists() or dest.is_symlink()) and (skill.name not in owned or dest.is_symlink() or not dest.is_dir()):
            raise SynthFailure(1, f"{dest} exists and was not written by skill3; it was left alone "
                                  "(move it away or pass another --output-dir)")
        self.staged.append(skill.name)
        return dest, {"validator": f"skills-ref {version('skills-ref')}", "errors": []}

    def replace(self, name: str) -> None:
        """Also move ``out_dir/name`` away on commit (removed with the staging folder)."""
        if name not in self.replaced:
            self.replaced.append(name)

    def commit(self) -> None:
        """Move the previous outputs aside and the staged ones into place, all or none (see the class)."""
        previous = self.staging / ".previous"
        previous.mkdir()
        moved_aside: list[str] = []
        placed: list[str] = []
        try:
            for name in dict.fromkeys([*self.staged, *self.replaced]):
                target = self.out_dir / name
                if target.exists() or target.is_symlink():
                    os.rename(target, previous / name)
                    moved_aside.append(name)
            for name in self.staged:
                os.rename(self.staging / name, self.out_dir / name)
                placed.append(name)
        except BaseException:
            for name in reversed(placed):
                os.rename(self.out_dir / name, self.staging / name)
            for name in reversed(moved_aside):
                os.rename(previous / name, self.out_dir / name)
            raise
        fsync_dir(self.out_dir)

    def close(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)

    def __enter__(self) -> "OutputTransaction":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_skill(out_dir: Path, skill: Skill, owned: set[str] | frozenset[str] = frozenset()) -> tuple[Path, dict]:
    """Write the skill folder alone (an :class:`OutputTransaction` of one): validated before it replaces anything.

    An existing folder of the same name is replaced only when skill3 wrote it (``owned``, from its run.json);
    anything else there is never moved or deleted (``SynthFailure``; the caller picks a free name first)."""
    with OutputTransaction(out_dir) as tx:
        dest, validation = tx.stage_skill(skill, owned)
        tx.commit()
    return dest, validation
