"""Run the SkillSpector CLI on a folder and turn its report into a ScanResult.

    skillspector scan <dir> --no-llm --format json -o <tmp>/report.json

Exit 0 and 1 both mean "report produced" (1 = risk score > 50); 2 or
``execution_successful: false`` is an error. A scanner that is missing, times
out or crashes gives status ``not_run`` - never a clean result.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, TypedDict

from synth.core.errors import (
    ScannerUnavailable,  # noqa: F401 - defined with every error (synth.core.errors)
    )
from synth.vet.findings import MAX_REPORT_CHARS, ReportError, ScanResult, findings_from_report, parse_report
from synth.vet.record import RecordError, home_dir, load_record, record_path

DEFAULT_TIMEOUT = 300.0
STOP_GRACE = 2.0  # seconds a timed-out scanner's process group gets between SIGTERM and SIGKILL
MAX_OUTPUT_BYTES = 4 * 2**20  # of the scanner's stdout and stderr each (a report on stdout: parse_report caps it)
BIN_ENV = "SKILLSPECTOR_BIN"
_SECRET_ENV_MARKERS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL")

# A scan function: target folder -> ScanResult. `run_scan` is the real one;
# library callers take one of these so tests and pipelines can choose.
Scan = Callable[[Path], ScanResult]


@dataclass(frozen=True)
class Scanner:
    binary: str
    origin: str  # "SKILLSPECTOR_BIN", "skill3 setup" or "PATH"
    version: str | None = None


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def resolve_scanner(env: Mapping[str, str] | None = None, home: Path | None = None) -> Scanner:
    """Find the binary: ``SKILLSPECTOR_BIN``, else the `skill3 setup` record,
    else ``skillspector`` on PATH. Raises ScannerUnavailable with the reason."""
    env = os.environ if env is None else env
    explicit = env.get(BIN_ENV)
    if explicit:
        path = Path(explicit).expanduser()
        if not _is_executable(path):
            raise ScannerUnavailable(f"{BIN_ENV}={explicit} is not an executable file; fix the path or unset it")
        return Scanner(str(path), BIN_ENV)
    rec_path = record_path(home or home_dir(env))
    try:
        record = load_record(rec_path)
    except RecordError as exc:
        raise ScannerUnavailable(str(exc)) from None
    if record is not None:
        if not _is_executable(Path(record.binary)):
            raise ScannerUnavailable(f"the binary recorded in {rec_path} ({record.binary}) is gone; re-run `skill3 setup`")
        missing = record.missing_options()
        if missing:
            raise ScannerUnavailable(
                f"SkillSpector {record.version} at {record.binary} lacks {', '.join(missing)}; "
                "update it and re-run `skill3 setup`"
            )
        return Scanner(record.binary, "skill3 setup", record.version)
    found = shutil.which("skillspector", path=env.get("PATH"))
    if found:
        return Scanner(found, "PATH")
    raise ScannerUnavailable("SkillSpector is not installed; run `skill3 setup` (or set SKILLSPECTOR_BIN)")


def scanner_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The child's environment: no credentials (we scan with --no-llm, the
    scanner needs none), wide plain output so nothing is wrapped or coloured."""
    env = os.environ if env is None else env
    clean = {k: v for k, v in env.items() if not any(m in k.upper() for m in _SECRET_ENV_MARKERS)}
    clean.update({"COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb", "PYTHONIOENCODING": "utf-8"})
    return clean


def scan_argv(binary: str, target: Path, report: Path) -> list[str]:
    return [binary, "scan", str(target), "--no-llm", "--format", "json", "-o", str(report)]


def _last_line(text: str, limit: int = 200) -> str:
    for line in reversed(text.strip().splitlines()):
        if line.strip():
            line = line.strip()
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""


def _first_line(text: str, limit: int = 200) -> str:
    for line in text.strip().splitlines():
        if line.strip():
            line = line.strip()
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""


def _error_reason(data: dict, exit_code: int) -> str:
    meta = data.get("metadata") or {}
    if isinstance(meta, dict) and isinstance(meta.get("llm_error"), str):
        return _first_line(meta["llm_error"])
    completeness = data.get("analysis_completeness") or {}
    for exc in (completeness.get("ledger_exceptions") or []) if isinstance(completeness, dict) else []:
        if isinstance(exc, dict) and exc.get("reason_code"):
            return f"{exc.get('reason_code')} ({exc.get('error_class') or 'error'})"
    return f"scanner reported execution_successful=false (exit {exit_code})"


class _ResultFields(TypedDict, total=False):
    """The :class:`ScanResult` fields every outcome of one scan shares (the report's, once it is read)."""

    target: str
    exit_code: int
    scanner: str
    scanner_version: str | None
    risk_score: int | None
    recommendation: str | None
    completeness: str | None


def _section(data: dict[str, Any], key: str) -> dict[Any, Any]:
    """A section of the report, {} when it is missing or not an object."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def result_from_output(
    target: Path, exit_code: int, stdout: str, stderr: str, report_text: str | None, scanner: Scanner
) -> ScanResult:
    """Classify one finished scanner process. Pure: tested with recorded runs."""
    base = _ResultFields(target=str(target), exit_code=exit_code, scanner=scanner.binary, scanner_version=scanner.version)
    if exit_code not in (0, 1, 2):
        detail = _last_line(stderr) or "no message"
        return ScanResult(status="not_run", reason=f"scanner crashed (exit {exit_code}): {detail}", **base)
    text = report_text if report_text is not None else stdout
    try:
        data = parse_report(text)
    except ReportError as exc:
        if exit_code == 2:
            return ScanResult(status="error", reason=_first_line(stderr) or f"scanner failed (exit 2): {exc}", **base)
        return ScanResult(status="not_run", reason=f"{exc} (exit {exit_code})", **base)
    findings = findings_from_report(data)
    meta, risk = _section(data, "metadata"), _section(data, "risk_assessment")
    completeness = _section(data, "analysis_completeness")
    base.update({
        "scanner_version": meta.get("skillspector_version") or scanner.version,
        "risk_score": risk.get("score") if isinstance(risk.get("score"), int) else None,
        "recommendation": risk.get("recommendation"),
        "completeness": completeness.get("status"),
    })
    if exit_code == 2 or data.get("execution_successful") is False:
        return ScanResult(status="error", reason=_error_reason(data, exit_code), findings=findings, **base)
    return ScanResult(status="ran", findings=findings, **base)


def run_scan(
    target: Path,
    *,
    scanner: Scanner | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    env: Mapping[str, str] | None = None,
) -> ScanResult:
    """Scan one folder. Never raises for scanner trouble: returns not_run/error."""
    target = Path(target).resolve()
    if scanner is None:
        try:
            scanner = resolve_scanner(env)
        except ScannerUnavailable as exc:
            return ScanResult(status="not_run", target=str(target), reason=str(exc))
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="skill3-scan-") as tmp:
        report = Path(tmp) / "report.json"
        argv = scan_argv(scanner.binary, target, report)
        try:
            code, stdout, stderr = run_bounded(argv, cwd=Path(tmp), env=scanner_env(env), timeout=timeout)
        except subprocess.TimeoutExpired:
            return ScanResult(
                status="not_run", target=str(target), scanner=scanner.binary,
                reason=f"scanner timed out after {timeout:g}s (it and its child processes were stopped)",
                duration_s=round(time.monotonic() - started, 3),
            )
        except OSError as exc:
            return ScanResult(
                status="not_run", target=str(target), scanner=scanner.binary,
                reason=f"could not start {scanner.binary}: {exc.strerror or exc}",
            )
        report_text = read_capped(report, MAX_REPORT_CHARS + 1) if report.is_file() else None
    result = result_from_output(target, code, stdout, stderr, report_text, scanner)
    result.duration_s = round(time.monotonic() - started, 3)
    return result


def read_capped(path: Path, limit: int) -> str:
    """At most ``limit`` bytes of ``path``, decoded (a report past the cap is refused by ``parse_report``)."""
    with path.open("rb") as fh:
        return fh.read(limit).decode("utf-8", errors="replace")


def _stop_group(proc: subprocess.Popen) -> None:
    """Stop the scanner and every process it started: its own process group (POSIX), SIGTERM then SIGKILL."""
    if os.name != "posix":
        proc.kill()
        return
    for sig, grace in ((signal.SIGTERM, STOP_GRACE), (signal.SIGKILL, None)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        if grace is not None:
            try:
                proc.wait(grace)
            except subprocess.TimeoutExpired:
                continue
            try:  # the leader is gone: its children may not be
                os.killpg(proc.pid, 0)
            except (ProcessLookupError, PermissionError):
                return


def run_bounded(argv: list[str], *, cwd: Path, env: Mapping[str, str], timeout: float) -> tuple[int, str, str]:
    """Run the scanner in its own session (a process group of its own), its output in files read back at
    most :data:`MAX_OUTPUT_BYTES` each. On ``timeout`` the whole group is stopped (a hanging scanner leaves
    no child behind) and :class:`subprocess.TimeoutExpired` raised."""
    with tempfile.TemporaryFile(dir=cwd) as out, tempfile.TemporaryFile(dir=cwd) as err:
        proc = subprocess.Popen(argv, cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                start_new_session=os.name == "posix")
        try:
            code = proc.wait(timeout)
        except subprocess.TimeoutExpired:
            _stop_group(proc)
            proc.wait()
            raise
        except BaseException:  # Ctrl-C while scanning: leave nothing running
            _stop_group(proc)
            proc.wait()
            raise
        if os.name == "posix":  # the scanner exited: what it left running in its group goes too
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        texts = []
        for fh in (out, err):
            fh.seek(0)
            texts.append(fh.read(MAX_OUTPUT_BYTES).decode("utf-8", errors="replace"))
    return code, texts[0], texts[1]


MAX_COPY_FILES = 2000
MAX_COPY_BYTES = 64 << 20
SCAN_DROPPED = "SKILL3-SCAN-DROPPED"


def _copy_for_scan(folder: Path, dest: Path) -> dict[str, str]:
    """Copy ``folder``'s regular files (links are not followed: a link is the user's, and the scanner must not read
    through it) into ``dest``; → relative path → sha256 of what was copied. Bounded: ``MAX_COPY_FILES`` files,
    ``MAX_COPY_BYTES`` in all (ValueError past them)."""
    import hashlib

    copied: dict[str, str] = {}
    total = 0
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not Path(root, d).is_symlink())
        for n in sorted(names):
            src = Path(root, n)
            if src.is_symlink() or not src.is_file():
                continue
            total += src.stat().st_size  # checked before anything is read (a sparse 1 GiB file costs nothing)
            if len(copied) >= MAX_COPY_FILES or total > MAX_COPY_BYTES:
                raise ValueError(f"{folder} holds more than {MAX_COPY_FILES} files or {MAX_COPY_BYTES >> 20} MiB")
            data = src.read_bytes()
            rel = src.relative_to(folder)
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            (dest / rel).write_bytes(data)
            copied[rel.as_posix()] = hashlib.sha256(data).hexdigest()
    return copied


def _dropped_findings(copy: Path, copied: dict[str, str]) -> list[Any]:
    """A HIGH finding for each file of the scanned copy that the scanner removed or changed: what it took away was
    not reported as a finding, so it is reported here (the user's own folder was never touched)."""
    import hashlib

    from synth.vet.findings import Finding, stable_hash

    out = []
    for rel, digest in sorted(copied.items()):
        p = copy / rel
        what = "removed" if not p.is_file() else ("changed" if hashlib.sha256(p.read_bytes()).hexdigest() != digest else "")
        if what:
            out.append(Finding(
                rule_id=SCAN_DROPPED, category="Unvetted Content", severity="HIGH", confidence=None,
                message=f"the scanner {what} {rel} in the copy it scanned (not reported as a finding): review that file",
                file=rel, line=None, fingerprint=stable_hash(SCAN_DROPPED, rel, what), title=f"File {what} by the scanner",
                occurrences=[(rel, None)], tool="skill3"))
    return out


def scan_copy(folder: Path, *, scanner: Scanner | None = None, timeout: float = DEFAULT_TIMEOUT,
              env: Mapping[str, str] | None = None) -> tuple[ScanResult, list[Any]]:
    """:func:`run_scan` on a copy of ``folder`` (the scanner is a third-party program that may write where it scans;
    synthesis scans a staging copy too) and the findings for the files it removed or changed there. The result
    names ``folder`` as its target."""
    folder = Path(folder).resolve()
    if scanner is None:
        try:
            scanner = resolve_scanner(env)
        except ScannerUnavailable as exc:  # nothing to copy for
            return ScanResult(status="not_run", target=str(folder), reason=str(exc)), []
    with tempfile.TemporaryDirectory(prefix="skill3-vet-") as tmp:
        copy = Path(tmp) / folder.name
        copy.mkdir()
        try:
            copied = _copy_for_scan(folder, copy)
        except (ValueError, OSError) as exc:
            return ScanResult(status="not_run", target=str(folder), reason=f"could not copy the skill to scan it: {exc}"), []
        result = run_scan(copy, scanner=scanner, timeout=timeout, env=env)
        dropped = _dropped_findings(copy, copied) if result.status != "not_run" else []
    result.target = str(folder)
    return result, dropped
