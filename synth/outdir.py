"""Is an output folder usable? Checked before any page is fetched or any model is called."""

from __future__ import annotations

import os
from pathlib import Path


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
