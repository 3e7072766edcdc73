"""Background ``skill3 learn`` jobs for the MCP server: start, watch, cancel, and end them all on exit.

Each job is one child process (``python -m skill3 learn …``, an argv list, never a shell) started in a
session of its own (``start_new_session``), so it leads its own process group: the crawl and anything it
starts are ended together (``SIGTERM`` to the group, ``SIGKILL`` after a grace period) when the job is
cancelled, when it runs past its time limit, and when the server exits or its client disconnects
(:meth:`Jobs.close`, and :func:`kill_groups` from a signal handler or ``finally``).

The job's output lines (at most ``MAX_LINES`` kept, each at most 1000 characters) are its progress;
waiters (``job_status(wait_seconds=…)``) are woken on each new line.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

MAX_LINES = 10_000
MAX_JOBS = 100  # finished jobs kept for job_status; the oldest finished are forgotten first
MAX_RUNNING = 2
GRACE = 5.0
_ids = itertools.count(1)


def _alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - a recycled id owned by someone else
        return False
    return True


def kill_groups(pgids: list[int], grace: float = GRACE) -> None:
    """SIGTERM each process group, then SIGKILL what is left after ``grace`` seconds (synchronous: usable in a
    signal handler or a ``finally`` after the event loop is gone)."""
    live = []
    for pgid in pgids:
        try:
            os.killpg(pgid, signal.SIGTERM)
            live.append(pgid)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + grace
    while live and time.monotonic() < deadline:
        time.sleep(0.05)
        live = [g for g in live if _alive(g)]
        for g in list(live):  # reap our own children so their group disappears
            try:
                os.waitpid(g, os.WNOHANG)
            except ChildProcessError:
                pass
    for pgid in live:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@dataclass
class Job:
    id: str
    topic: str
    output_dir: str
    argv: list[str]
    timeout: float
    started: float = field(default_factory=time.time)
    status: str = "starting"  # starting, running, done, failed, cancelled, timed_out
    exit_code: int | None = None
    finished: float | None = None
    lines: deque[str] = field(default_factory=lambda: deque(maxlen=MAX_LINES))
    count: int = 0
    proc: asyncio.subprocess.Process | None = None
    task: asyncio.Task | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def pgid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None  # the child leads its own group

    @property
    def running(self) -> bool:
        return self.status in ("starting", "running")

    def line_added(self, line: str) -> None:
        self.count += 1
        self.lines.append(line[:1000])
        self._wake()

    def _wake(self) -> None:
        self.changed.set()
        self.changed = asyncio.Event()

    def to_dict(self, tail: int = 40) -> dict[str, Any]:
        end = self.finished or time.time()
        return {"job_id": self.id, "topic": self.topic, "status": self.status, "exit_code": self.exit_code,
                "output_dir": self.output_dir, "pid": self.pgid, "seconds": round(end - self.started, 1),
                "lines": self.count, "log": list(self.lines)[-max(0, min(tail, 500)):]}


class Jobs:
    """The server's learn jobs (see the module docstring)."""

    def __init__(self) -> None:
        self.jobs: dict[str, Job] = {}

    def running(self) -> list[Job]:
        return [j for j in self.jobs.values() if j.running]

    async def start(self, topic: str, output_dir: str, argv: list[str], timeout: float) -> Job:
        if len(self.running()) >= MAX_RUNNING:
            raise RuntimeError(f"{MAX_RUNNING} learn jobs are running; wait for one (job_status) or cancel one (cancel_job)")
        if any(j.running and j.output_dir == output_dir for j in self.jobs.values()):
            raise RuntimeError(f"a learn job is already writing {output_dir}; wait for it or cancel it")
        self._forget()
        job = Job(id=f"learn-{next(_ids)}-{os.urandom(3).hex()}", topic=topic, output_dir=output_dir, argv=argv, timeout=timeout)
        job.proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
            env={**os.environ, "TERM": "dumb"}, start_new_session=True)
        job.status = "running"
        self.jobs[job.id] = job
        job.task = asyncio.ensure_future(self._run(job))
        return job

    async def _run(self, job: Job) -> None:
        proc = job.proc
        assert proc is not None and proc.stdout is not None
        stdout = proc.stdout

        async def pump() -> None:
            async for raw in stdout:
                line = raw.decode("utf-8", errors="replace").rstrip()
                if line:
                    job.line_added(line)

        try:
            await asyncio.wait_for(pump(), timeout=job.timeout)
            job.exit_code = await asyncio.wait_for(proc.wait(), timeout=60)
            if job.status == "running":
                job.status = "done" if job.exit_code in (0, 3) else "failed"
        except asyncio.TimeoutError:
            job.status = "timed_out"
            await self._end(job)
            job.line_added(f"skill3 mcp: learn did not finish within {job.timeout:.0f} s; ended (what it gathered is kept)")
        except asyncio.CancelledError:
            await self._end(job)
            raise
        finally:
            job.finished = job.finished or time.time()
            job._wake()

    async def _end(self, job: Job) -> None:
        if job.proc is None or job.proc.returncode is not None:
            return
        pgid = job.pgid
        assert pgid is not None
        try:
            os.killpg(pgid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            await asyncio.wait_for(job.proc.wait(), timeout=GRACE)
        except asyncio.TimeoutError:
            pass
        try:
            os.killpg(pgid, signal.SIGKILL)  # the group: grandchildren that outlived the leader too
        except ProcessLookupError:
            pass
        job.exit_code = await job.proc.wait()

    async def cancel(self, job_id: str) -> Job:
        job = self.get(job_id)
        if job.running:
            job.status = "cancelled"
            await self._end(job)
            job.line_added("skill3 mcp: cancelled; what the crawl gathered is kept in the output folder")
        return job

    def get(self, job_id: str) -> Job:
        job = self.jobs.get(str(job_id or ""))
        if job is None:
            known = ", ".join(self.jobs) or "none"
            raise KeyError(f"no learn job {job_id!r} (jobs: {known})")
        return job

    async def wait(self, job: Job, seconds: float) -> None:
        """Until the job has a new line or ends, at most ``seconds``."""
        if job.running:
            try:
                await asyncio.wait_for(job.changed.wait(), timeout=max(0.0, seconds))
            except asyncio.TimeoutError:
                pass

    def pgids(self) -> list[int]:
        return [j.pgid for j in self.running() if j.pgid is not None]

    async def close(self) -> None:
        """End every running job (the server is stopping or its client went away)."""
        for job in self.running():
            job.status = "cancelled"
            await self._end(job)
            if job.task is not None:
                job.task.cancel()

    def _forget(self) -> None:
        done = [j for j in self.jobs.values() if not j.running]
        for j in done[: max(0, len(self.jobs) - MAX_JOBS + 1)]:
            del self.jobs[j.id]

