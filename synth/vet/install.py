"""`skill3 setup`: install NVIDIA SkillSpector into its own virtualenv.

Steps: probe for a Python the scanner accepts (>=3.12,<3.15) -
``python3.14``..``python3`` on PATH, then pyenv's installed versions (``$PYENV_ROOT``,
``pyenv root``, ``~/.pyenv``; its shims exit 127 without ``PYENV_VERSION``), each run to verify -,
clone the source (or use ``--source``), create ``.venv``, ``pip install -e``,
resolve the venv's binary per platform, run it and record its version and its
real ``scan`` options in ``skillspector.json`` (see ``record``). Each failure
is a SetupError with one line that names the problem and the fix. Re-running
reuses what is there (the clone, the venv, an editable install of the same
source). Every subprocess gets an explicit argv list, never a shell string.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

from synth.core.errors import (
    SetupError,  # noqa: F401 - defined with every error (synth.core.errors)
    )
from synth.vet.record import REQUIRED_SCAN_OPTIONS, SetupRecord, record_path, save_record

REPO_URL = "https://github.com/NVIDIA/SkillSpector.git"
SOURCE_DIR = "skillspector-src"
VENV_DIR = ".venv"
MIN_VERSION = (3, 12)
MAX_VERSION = (3, 15)  # exclusive
POSIX_CANDIDATES: tuple[tuple[str, ...], ...] = (("python3.14",), ("python3.13",), ("python3.12",), ("python3",))
WINDOWS_CANDIDATES: tuple[tuple[str, ...], ...] = (("py", "-3.14"), ("py", "-3.13"), ("py", "-3.12"), ("python3",), ("python",))
_PROBE_CODE = "import sys; print('%d.%d.%d' % sys.version_info[:3]); print(sys.executable)"
_PROBE_TIMEOUT = 30
_CLONE_TIMEOUT = 600
_PIP_TIMEOUT = 1800


def is_windows() -> bool:
    return os.name == "nt"


def _tail(text: str, lines: int = 3, limit: int = 300) -> str:
    kept = [line.strip() for line in text.strip().splitlines() if line.strip()][-lines:]
    joined = " | ".join(kept)
    return joined if len(joined) <= limit else "…" + joined[-limit:]


def _run(argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(argv), capture_output=True, text=True, encoding="utf-8", errors="replace",
        timeout=timeout, env=None if env is None else dict(env), cwd=cwd, stdin=subprocess.DEVNULL, check=False,
    )


@dataclass
class Probe:
    argv: tuple[str, ...]
    version: tuple[int, int, int] | None = None
    executable: str | None = None
    problem: str | None = None  # "not found", "exit 127", "timed out"...

    @property
    def compatible(self) -> bool:
        return self.version is not None and MIN_VERSION <= self.version[:2] < MAX_VERSION

    def label(self) -> str:
        name = " ".join(self.argv)
        if self.problem:
            return f"{name}: {self.problem}"
        assert self.version is not None
        text = ".".join(map(str, self.version))
        return f"{name}: {text}" + ("" if self.compatible else (" (too old)" if self.version[:2] < MIN_VERSION else " (too new)"))


def probe_python(argv: Sequence[str], env: Mapping[str, str] | None = None) -> Probe:
    """Ask one interpreter for its version; never raises."""
    argv = tuple(argv)
    env = os.environ if env is None else env
    exe = shutil.which(argv[0], path=env.get("PATH"))
    if exe is None:
        return Probe(argv, problem="not found")
    try:
        proc = _run([exe, *argv[1:], "-c", _PROBE_CODE], timeout=_PROBE_TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        return Probe(argv, problem="timed out")
    except OSError as exc:
        return Probe(argv, problem=f"cannot run ({exc.strerror or exc})")
    if proc.returncode != 0:
        return Probe(argv, problem=f"exit {proc.returncode}")
    lines = proc.stdout.strip().splitlines()
    m = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", lines[0].strip()) if lines else None
    if not m:
        return Probe(argv, problem="unrecognised version output")
    version = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
    return Probe(argv, version=version, executable=lines[1].strip() if len(lines) > 1 else exe)


def pyenv_roots(env: Mapping[str, str]) -> list[Path]:
    """Where pyenv keeps its Pythons: ``$PYENV_ROOT``, what ``pyenv root`` answers, ``~/.pyenv``."""
    roots: list[Path] = []
    if env.get("PYENV_ROOT"):
        roots.append(Path(env["PYENV_ROOT"]).expanduser())
    pyenv = shutil.which("pyenv", path=env.get("PATH"))
    if pyenv:
        try:
            proc = _run([pyenv, "root"], timeout=_PROBE_TIMEOUT, env=env)
        except (subprocess.TimeoutExpired, OSError):
            proc = None
        if proc is not None and proc.returncode == 0 and proc.stdout.strip():
            roots.append(Path(proc.stdout.strip().splitlines()[-1]).expanduser())
    if env.get("HOME"):
        roots.append(Path(env["HOME"]) / ".pyenv")
    unique: list[Path] = []
    for root in roots:
        if root not in unique:
            unique.append(root)
    return unique


def pyenv_candidates(env: Mapping[str, str]) -> list[tuple[str]]:
    """``<root>/versions/*/bin/python3.N`` for every compatible N, newest first. pyenv's shims on PATH
    exit 127 unless ``PYENV_VERSION`` (or a .python-version) selects a version; the interpreters
    themselves run without it."""
    found: list[tuple[tuple[int, ...], str]] = []
    for root in pyenv_roots(env):
        for exe in sorted((root / "versions").glob("*/bin/python3.*")):
            m = re.fullmatch(r"python3\.(\d+)", exe.name)
            if not m or not MIN_VERSION <= (3, int(m.group(1))) < MAX_VERSION:
                continue
            release = tuple(int(x) for x in re.findall(r"\d+", exe.parent.parent.name)[:3])
            found.append(((int(m.group(1)), *release), str(exe)))
    found.sort(key=lambda pair: pair[0], reverse=True)
    out: list[tuple[str]] = []
    for _key, path in found:
        if (path,) not in out:
            out.append((path,))
    return out


def find_python(
    candidates: Sequence[Sequence[str]] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    windows: bool | None = None,
) -> Probe:
    """The first compatible interpreter that really runs, or SetupError listing everything probed.
    On POSIX, pyenv's installed versions are candidates after those on PATH."""
    env = os.environ if env is None else env
    if candidates is None:
        if is_windows() if windows is None else windows:
            candidates = WINDOWS_CANDIDATES
        else:
            candidates = list(POSIX_CANDIDATES) + pyenv_candidates(env)
    probes = []
    for argv in candidates:
        probe = probe_python(argv, env)
        if probe.compatible:
            return probe
        probes.append(probe)
    probed = "; ".join(p.label() for p in probes)
    raise SetupError(
        f"no compatible Python (>=3.12,<3.15) found (probed {probed}); install Python 3.12-3.14 or pass --python PATH"
    )


def venv_python(venv: Path, windows: bool | None = None) -> Path:
    windows = is_windows() if windows is None else windows
    return venv / ("Scripts/python.exe" if windows else "bin/python")


def venv_binary(venv: Path, name: str = "skillspector", windows: bool | None = None) -> Path:
    windows = is_windows() if windows is None else windows
    return venv / ("Scripts" if windows else "bin") / (f"{name}.exe" if windows else name)


def parse_version(text: str) -> str | None:
    m = re.search(r"\bv?(\d+\.\d+(?:\.\d+)?(?:[-.+]\w+)*)\b", text)
    return m.group(1) if m else None


def parse_scan_options(help_text: str) -> list[str]:
    """Long options in ``skillspector scan --help`` (rich/typer layout)."""
    found = re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*[a-z0-9])", help_text)
    return sorted(set(found))


def is_skillspector_checkout(path: Path) -> bool:
    pyproject = path / "pyproject.toml"
    try:
        return pyproject.is_file() and re.search(r'(?im)^name\s*=\s*"skillspector"', pyproject.read_text("utf-8")) is not None
    except OSError:
        return False


def obtain_source(home: Path, source: Path | None, env: Mapping[str, str], log: Callable[[str], None]) -> Path:
    if source is not None:
        source = source.expanduser().resolve()
        if not source.is_dir():
            raise SetupError(f"--source {source} is not a directory; pass the path of a SkillSpector checkout", 2)
        if not is_skillspector_checkout(source):
            raise SetupError(f"--source {source} is not a SkillSpector checkout (no pyproject.toml naming skillspector)", 2)
        log(f"using source {source}")
        return source
    dest = home / SOURCE_DIR
    if is_skillspector_checkout(dest):
        log(f"reusing clone {dest}")
        return dest.resolve()
    if dest.exists() and any(dest.iterdir()):
        raise SetupError(f"{dest} exists but is not a SkillSpector checkout; remove it or pass --source PATH")
    git = shutil.which("git", path=env.get("PATH"))
    if git is None:
        raise SetupError("git not found on PATH; install git, or clone SkillSpector yourself and pass --source PATH")
    log(f"cloning {REPO_URL} into {dest}")
    home.mkdir(parents=True, exist_ok=True)
    try:
        proc = _run([git, "clone", "--depth", "1", REPO_URL, str(dest)], timeout=_CLONE_TIMEOUT,
                    env={**env, "GIT_TERMINAL_PROMPT": "0"})
    except subprocess.TimeoutExpired:
        raise SetupError(f"cloning {REPO_URL} timed out; clone it yourself and pass --source PATH") from None
    if proc.returncode != 0:
        raise SetupError(f"cloning {REPO_URL} failed ({_tail(proc.stderr, 1) or f'exit {proc.returncode}'}); "
                         "clone it yourself and pass --source PATH")
    if not is_skillspector_checkout(dest):
        raise SetupError(f"the clone in {dest} has no SkillSpector pyproject.toml; pass --source PATH")
    return dest.resolve()


def ensure_venv(venv: Path, python: Probe, env: Mapping[str, str], windows: bool, log: Callable[[str], None]) -> Path:
    py = venv_python(venv, windows)
    if py.exists():
        probe = probe_python([str(py)], env)
        if probe.compatible:
            log(f"reusing virtualenv {venv} ({'.'.join(map(str, probe.version or ()))})")
            return py
        raise SetupError(f"{venv} exists but its Python is unusable ({probe.label()}); delete {venv} and re-run skill3 setup")
    log(f"creating virtualenv {venv} with {python.executable}")
    try:
        proc = _run([python.executable or python.argv[0], "-m", "venv", str(venv)], timeout=300, env=env)
    except subprocess.TimeoutExpired:
        raise SetupError(f"creating {venv} timed out") from None
    if proc.returncode != 0 or not py.exists():
        raise SetupError(f"creating {venv} failed ({_tail(proc.stderr, 1) or f'exit {proc.returncode}'}); "
                         "install the venv module for that Python (e.g. apt install python3-venv) or pass --python PATH")
    return py


def _editable_location(py: Path, env: Mapping[str, str]) -> Path | None:
    try:
        proc = _run([str(py), "-m", "pip", "show", "skillspector"], timeout=120, env=env)
    except (subprocess.TimeoutExpired, OSError):
        return None
    m = re.search(r"(?m)^Editable project location:\s*(.+)$", proc.stdout) if proc.returncode == 0 else None
    return Path(m.group(1).strip()).resolve() if m else None


def ensure_installed(py: Path, source: Path, env: Mapping[str, str], force: bool, log: Callable[[str], None]) -> None:
    if not force and _editable_location(py, env) == source:
        log(f"skillspector already installed (editable) from {source}")
        return
    log(f"pip install -e {source}")
    try:
        proc = _run([str(py), "-m", "pip", "install", "-e", str(source)], timeout=_PIP_TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        raise SetupError(f"pip install -e {source} timed out after {_PIP_TIMEOUT}s; check network access to PyPI") from None
    if proc.returncode != 0:
        output = proc.stderr or proc.stdout
        errors = "\n".join(line for line in output.splitlines() if line.lstrip().startswith("ERROR"))
        raise SetupError(f"pip install -e {source} failed (exit {proc.returncode}): {_tail(errors or output, 2, 400)}")


def inspect_binary(binary: Path, env: Mapping[str, str]) -> tuple[str, list[str]]:
    """Run the installed CLI: its version and its real ``scan`` options."""
    plain = {**env, "COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}
    try:
        ver = _run([str(binary), "--version"], timeout=120, env=plain)
        helptext = _run([str(binary), "scan", "--help"], timeout=120, env=plain)
    except subprocess.TimeoutExpired:
        raise SetupError(f"{binary} did not answer within 120s; re-run skill3 setup --force") from None
    except OSError as exc:
        raise SetupError(f"cannot run {binary} ({exc.strerror or exc}); re-run skill3 setup --force") from None
    version = parse_version(ver.stdout) if ver.returncode == 0 else None
    if version is None:
        raise SetupError(f"{binary} --version failed ({_tail(ver.stderr or ver.stdout, 1) or f'exit {ver.returncode}'}); "
                         "re-run skill3 setup --force")
    if helptext.returncode != 0:
        raise SetupError(f"{binary} scan --help failed (exit {helptext.returncode}); this SkillSpector has no scan command")
    options = parse_scan_options(helptext.stdout)
    missing = [o for o in REQUIRED_SCAN_OPTIONS if o not in options]
    if missing:
        raise SetupError(f"SkillSpector {version} lacks scan option(s) {', '.join(missing)} that skill3 needs; "
                         "use a newer checkout (--source PATH)")
    return version, options


def setup(
    home: Path,
    *,
    source: Path | None = None,
    python: str | None = None,
    force: bool = False,
    env: Mapping[str, str] | None = None,
    windows: bool | None = None,
    log: Callable[[str], None] = lambda _line: None,
) -> SetupRecord:
    """Install (or re-verify) SkillSpector under ``home``; write and return the record."""
    env = dict(os.environ if env is None else env)
    windows = is_windows() if windows is None else windows
    home = home.expanduser().resolve()
    if source is not None:  # bad input first, before probing or building anything
        source = obtain_source(home, source, env, log)
    if python:
        probe = probe_python([python], env)
        if not probe.compatible:
            raise SetupError(f"--python {probe.label()}; SkillSpector needs Python >=3.12,<3.15", 2)
    else:
        probe = find_python(env=env, windows=windows)
    log(f"Python {'.'.join(map(str, probe.version or ()))}: {probe.executable}")
    src = source if source is not None else obtain_source(home, None, env, log)
    venv = home / VENV_DIR
    py = ensure_venv(venv, probe, env, windows, log)
    ensure_installed(py, src, env, force, log)
    binary = venv_binary(venv, windows=windows)
    if not binary.exists():
        raise SetupError(f"pip finished but {binary} is missing; re-run skill3 setup --force")
    version, options = inspect_binary(binary, env)
    record = SetupRecord(
        binary=str(binary),
        version=version,
        scan_options=options,
        python=str(py),
        python_version=".".join(map(str, probe.version or ())),
        source=str(src),
        venv=str(venv),
        recorded_at=dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(),
    )
    save_record(record, record_path(home))
    log(f"SkillSpector {version} ready: {binary} (recorded in {record_path(home)})")
    return record
