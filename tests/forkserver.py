"""A fork server for the tests' command runs: `scrapy crawl …` and `skill3 …` without interpreter start-up.

Every crawl test used to start a fresh interpreter that imported Scrapy, Twisted, trafilatura, redis and
the project again (~3 s of CPU each on the test machine). The fork server imports them once; each run is
then a real child process forked from it — its own pid, working directory, environment, reactor, exit
status, stdout and stderr — so tests about exit codes and output still see a real process. Nothing is
run in the server itself, and no reactor is installed before the fork (Scrapy installs its own in the
child).

Protocol (one request at a time, JSON lines on the server's stdin / fd 3): ``{"argv", "env", "cwd",
"stdout", "stderr", "strict"}`` → ``{"pid"}`` at once, then ``{"rc"}`` when the child ends.

Run as a script it is the server; :func:`run` is the client (falls back to a plain subprocess when the
server cannot start, e.g. where ``fork`` does not exist).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]

# What a crawl or a `skill3` run imports anyway (the project's settings name the rest).
ENTRY_POINTS = {"scrapy": "scrapy.cmdline:execute", "skill3": "skill3.cli.main:main"}
PRELOAD = ["scrapy.cmdline", "scrapy.crawler", "scrapy.commands.crawl", "skill3crawl.commands.crawl", "skill3.cli.main", "trafilatura", "htmldate", "extruct"]


# -- the server ---------------------------------------------------------------------------------------------------


def _preload() -> None:
    import importlib
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an import-time warning is an error, as in the strict runs
        for name in PRELOAD:
            importlib.import_module(name)
        from scrapy.spiderloader import SpiderLoader
        from scrapy.utils.misc import load_object
        from scrapy.utils.project import get_project_settings

        settings = get_project_settings()
        loader = SpiderLoader.from_settings(settings)
        for spider in loader.list():
            loader.load(spider)
        for key in ("ITEM_PIPELINES", "EXTENSIONS", "DOWNLOADER_MIDDLEWARES", "SPIDER_MIDDLEWARES", "DOWNLOAD_HANDLERS"):
            table = settings.getdict(key)
            for path in (table.values() if key == "DOWNLOAD_HANDLERS" else table):
                if path and isinstance(path, str):
                    load_object(path)
    # Scrapy installs the reactor the settings name; one installed here would be inherited by every child.
    assert "twisted.internet.reactor" not in sys.modules, "a preloaded module installed a Twisted reactor"


def _child(req: dict) -> None:
    """In the forked child: become the requested command, then exit with its status."""
    code: int = 1
    try:
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        for fd, path in ((1, req["stdout"]), (2, req["stderr"])):
            out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(out, fd)
            os.close(out)
        os.closerange(3, 256)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        sys.path[0] = req["cwd"]  # as `python -m` puts the working directory first
        import runpy
        import warnings

        if req.get("strict"):
            warnings.simplefilter("error")
        argv = list(req["argv"])
        sys.argv = [argv[0], *argv[1:]]
        try:
            if argv[0] in ENTRY_POINTS:  # the console scripts: preloaded, so called rather than run again as __main__
                module, _, func = ENTRY_POINTS[argv[0]].partition(":")
                getattr(sys.modules[module], func)()
            else:
                runpy.run_module(argv[0], run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as stop:
            if stop.code is None:
                code = 0
            elif isinstance(stop.code, int):
                code = stop.code
            else:
                print(stop.code, file=sys.stderr)
                code = 1
        except KeyboardInterrupt:
            code = 130
    except BaseException:  # noqa: BLE001 - the child reports like an interpreter would, then exits
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code & 0xFF)


def serve() -> None:
    proto_in = os.fdopen(os.dup(0), "r")
    proto_out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # stray prints of the server never corrupt the protocol
    _preload()
    proto_out.write(json.dumps({"ready": os.getpid()}) + "\n")
    proto_out.flush()
    for line in proto_in:
        req = json.loads(line)
        pid = os.fork()
        if pid == 0:
            proto_in.close()
            proto_out.close()
            _child(req)
        proto_out.write(json.dumps({"pid": pid}) + "\n")
        proto_out.flush()
        _, status = os.waitpid(pid, 0)
        proto_out.write(json.dumps({"rc": os.waitstatus_to_exitcode(status)}) + "\n")
        proto_out.flush()


# -- the client ---------------------------------------------------------------------------------------------------


class _Server:
    def __init__(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
        env["PYTHONPATH"] = str(REPO)
        self.proc = subprocess.Popen([sys.executable, __file__], cwd=REPO, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)
        assert self.proc.stdout is not None
        ready = self.proc.stdout.readline()
        if not ready:
            self.proc.wait()
            raise RuntimeError("fork server did not start")
        self.lock = threading.Lock()

    def run(self, argv: list[str], env: dict[str, str], cwd: str, timeout: float | None, strict: bool) -> subprocess.CompletedProcess:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        with self.lock, tempfile.TemporaryDirectory(prefix="skill3-fork-") as tmp:
            out, err = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
            req = {"argv": argv, "env": env, "cwd": cwd, "stdout": out, "stderr": err, "strict": strict}
            self.proc.stdin.write(json.dumps(req) + "\n")
            self.proc.stdin.flush()
            pid = json.loads(self.proc.stdout.readline())["pid"]
            expired: list[bool] = []

            def kill() -> None:
                expired.append(True)
                os.kill(pid, signal.SIGKILL)

            killer = threading.Timer(timeout, kill) if timeout else None
            if killer:
                killer.start()
            try:
                rc = json.loads(self.proc.stdout.readline())["rc"]
            finally:
                if killer:
                    killer.cancel()
            timed_out = bool(expired)
            stdout = Path(out).read_text(encoding="utf-8", errors="replace")
            stderr = Path(err).read_text(encoding="utf-8", errors="replace")
        if timed_out:
            raise subprocess.TimeoutExpired(argv, timeout or 0, stdout, stderr)
        return subprocess.CompletedProcess(argv, rc, stdout, stderr)

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)
        if self.proc.stdout:
            self.proc.stdout.close()


_server: _Server | None = None
_failed = False


def _get() -> _Server | None:
    global _server, _failed
    if _server is None and not _failed and hasattr(os, "fork") and os.environ.get("SKILL3_TEST_FORKSERVER", "1") != "0":
        try:
            _server = _Server()
        except (OSError, RuntimeError):
            _failed = True
    return _server


def shutdown() -> None:
    global _server
    if _server is not None:
        _server.close()
        _server = None


def run(argv: list[str], *, env: dict[str, str], cwd: str | Path = REPO, timeout: float | None = None,
        strict: bool = False) -> subprocess.CompletedProcess:
    """Run ``argv`` (``["scrapy", …]``, ``["skill3", …]`` or ``[module, …]`` as ``python -m module``) as a child process and
    capture its output, like ``subprocess.run(…, capture_output=True, text=True)``; ``strict`` makes
    warnings errors (``-W error``)."""
    global _server
    server = _get()
    if server is not None:
        try:
            return server.run(argv, env, str(cwd), timeout, strict)
        except subprocess.TimeoutExpired:  # the child was killed and reaped: the server is in step
            raise
        except BaseException:  # interrupted mid-request (a pytest timeout, Ctrl-C): the protocol is out of step
            _server = None
            server.proc.kill()
            server.close()
            raise
    module = {"scrapy": "scrapy", "skill3": "skill3"}.get(argv[0], argv[0])  # `python -m` forms of ENTRY_POINTS
    cmd = [sys.executable, *(["-W", "error"] if strict else []), "-m", module, *argv[1:]]
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    return subprocess.CompletedProcess(argv, proc.returncode, proc.stdout, proc.stderr)


def _main(argv: list[str]) -> Any:
    serve()


if __name__ == "__main__":
    sys.path[0] = str(REPO)  # the repository, not tests/ (whose sub-packages share the project's names)
    _main(sys.argv)
