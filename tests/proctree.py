"""A process and all its descendants, read from ``/proc`` (Linux): for tests and the benchmarks.

:class:`TreeSampler` samples the tree every ``interval`` seconds in a thread and keeps the
peak of the summed RSS (whole tree), the peak RSS of the largest single process, and every
command name seen.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE")


def _children_map() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        kids.setdefault(ppid, []).append(int(entry.name))
    return kids


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    kids = _children_map()
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out


def rss_bytes(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def command_name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


class TreeSampler:
    """``with TreeSampler(pid) as s: ...`` → ``s.peak_tree``, ``s.peak_single`` (bytes), ``s.names``."""

    def __init__(self, pid: int, interval: float = 0.2):
        self.pid, self.interval = pid, interval
        self.peak_tree = self.peak_single = self.peak_processes = 0
        self.names: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def sample(self) -> None:
        pids = descendants(self.pid)
        sizes = [rss_bytes(p) for p in pids]
        self.names.update(n for n in map(command_name, pids) if n)
        self.peak_tree = max(self.peak_tree, sum(sizes))
        self.peak_single = max(self.peak_single, max(sizes, default=0))
        self.peak_processes = max(self.peak_processes, sum(1 for s in sizes if s))

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def __enter__(self) -> TreeSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
