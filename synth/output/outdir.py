"""Is an output folder usable (checked before any page is fetched or any model is called), and one run
at a time in it (:func:`lock_output_dir`)."""

from __future__ import annotations

import os
from pathlib import Path

from synth.core.errors import (
    OutputDirLocked,  # noqa: F401 - defined with every error (synth.core.errors)
    )


def output_dir_problem(path: str | Path) -> str | None:
    """One line naming the folder and the fix when ``path`` cannot hold the output, else None.

    Unusable: a regular file at ``path`` or at one of its ancestors (the folder
    cannot be created), or the nearest existing ancestor not writable (a
    read-only file system, missing permissions). Nothing is created or written.
    """
    folder = Path(path).expanduser()
    probe = folder
    while not probe.exists() and probe.parent != probe:
        if probe.is_symlink():  # a dangling link: creating the folder would fail
            return f"output folder {str(path)!r}: {probe} is a broken symbolic link; pass another folder"
        probe = probe.parent
    if not probe.is_dir():
        if probe == folder:
            return f"output folder {str(path)!r} is a file, not a folder; pass a folder"
        return f"output folder {str(path)!r} cannot be created: {probe} is a file; pass a folder outside it"
    if not os.access(probe, os.W_OK | os.X_OK):
        where = "it" if probe == folder else str(probe)
        return f"output folder {str(path)!r} is not writable ({where}: read-only or no permission); pass a writable folder"
    return None


# --------------------------------------------------------------------------- one run per folder


class OutputLock:
    """A run's hold on its output folder: ``flock`` on the folder itself (no lock file is created or
    left behind), re-entrant within the process (``skill3 learn`` crawls, then synthesises, into one
    folder), released by :meth:`release` and by the kernel when the process ends, however it ends."""

    _held: dict[str, list] = {}  # real path → [file descriptor, holders]

    def __init__(self, key: str) -> None:
        self.key = key
        self.released = False

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        entry = self._held.get(self.key)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] <= 0:
            del self._held[self.key]
            os.close(entry[0])  # closing the descriptor drops the lock

    def __enter__(self) -> "OutputLock":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def lock_output_dir(path: str | Path) -> OutputLock:
    """Hold ``path`` (created when missing) for this run, or raise :class:`OutputDirLocked` at once when another
    run holds it: two runs into one folder would splice one feed from both and lose one run's results."""
    import fcntl

    folder = Path(path).expanduser()
    folder.mkdir(parents=True, exist_ok=True)
    key = os.path.realpath(folder)
    entry = OutputLock._held.get(key)
    if entry is not None:
        entry[1] += 1
        return OutputLock(key)
    fd = os.open(key, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise OutputDirLocked(f"output folder {str(path)!r} is in use by another skill3 run; wait for it to end or pass "
                              "another output folder (--output-dir, -a output_dir=)") from None
    OutputLock._held[key] = [fd, 1]
    return OutputLock(key)
