"""A fake `skillspector` CLI that replays real recorded SkillSpector runs.

Installed on PATH by the tests (see conftest). Controlled by environment:

- FAKE_SS_CASE=<case dir> [FAKE_SS_VARIANT=-o|-rerun|...]: replay that
  recording (stdout, stderr, exit code). With ``-o FILE`` the report is written
  to FILE (from the case's report.json, else from the JSON in stdout) and
  stdout becomes what the real tool prints: any warnings, then
  ``Report saved to: FILE``.
- FAKE_SS_IGNORE_O=1: behave as if ``-o`` were not given (stdout JSON only).
- FAKE_SS_LIBRARY=<fixtures root>: line replay. Every issue recorded in any
  case is emitted when the exact (distinctive) line it was recorded at appears
  in a scanned file, with that file and line. Editing the line away removes
  the finding, as with the real scanner.
- FAKE_SS_MODE=hang|crash|garbage: misbehave. hang-children: start two child processes (a
  shell and a sleeping Python, pids written to FAKE_SS_PIDS) and hang. deep: write a report
  nested 100,000 arrays deep. huge-stdout: print 64 MiB of noise, then the report.
- FAKE_SS_DROP=<relative path>: delete that file of the scanned folder first (a scanner that removes what it
  dislikes), and FAKE_SS_SCANNED=<file>: write the scanned folder's path there.
- FAKE_SS_LOG=<file>: append {"argv": [...], "secret_env": [...]} per call.
- FAKE_SS_HELP_WITHOUT=<option>: leave an option out of `scan --help`.
"""

import json
import os
import sys
import time
from pathlib import Path

HELP = """
 Usage: skillspector scan [OPTIONS] INPUT_PATH

 Scan a skill for security vulnerabilities.

+- Options ---------------------------------------------------------------+
| --format        -f   [terminal|json|markdown|sarif]  Output format.      |
| --output        -o   PATH   Output file path.                            |
| --no-llm             Skip LLM analysis. Uses static analysis only.       |
| --recursive     -r   Scan immediate subdirectories as skills.            |
| --baseline      -b   PATH   Baseline file of suppressed findings.        |
| --help               Show this message and exit.                         |
+-------------------------------------------------------------------------+
"""


def log_call(argv):
    path = os.environ.get("FAKE_SS_LOG")
    if path:
        secret_env = sorted(k for k in os.environ if "KEY" in k or "TOKEN" in k)
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"argv": argv, "secret_env": secret_env, "cwd": os.getcwd()}) + "\n")


def read(case, name, variant, default=""):
    for candidate in (f"{name}{variant}.txt", f"{name}.txt"):
        path = Path(case) / candidate
        if path.is_file():
            return path.read_text(encoding="utf-8")
    return default


def split_stdout(stdout):
    lines = stdout.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith("{"):
            return "".join(lines[:i]), "".join(lines[i:]).rstrip("\n")
    return stdout, ""


def option(argv, *names):
    for i, arg in enumerate(argv):
        if arg in names and i + 1 < len(argv):
            return argv[i + 1]
    return None


def replay(argv):
    case = os.environ["FAKE_SS_CASE"]
    variant = os.environ.get("FAKE_SS_VARIANT", "")
    stdout = read(case, "stdout", variant)
    stderr = read(case, "stderr", variant)
    code = int(read(case, "exitcode", variant, "0").strip())
    out_file = None if os.environ.get("FAKE_SS_IGNORE_O") else option(argv, "-o", "--output")
    if out_file:
        noise, report = split_stdout(stdout)
        recorded = Path(case) / "report.json"
        if report and recorded.is_file() and variant in ("", "-o"):
            report = recorded.read_text(encoding="utf-8")
        if report:
            Path(out_file).write_text(report, encoding="utf-8")
            stdout = noise + f"Report saved to: {out_file}\n"
    return stdout, stderr, code


def library_issues(root):
    """[(line text, issue)] for every recorded issue that sits on a distinctive line."""
    out = []
    for case in sorted(Path(root).glob("case-*")):
        noise, report = split_stdout(read(case, "stdout", ""))
        if not report:
            continue
        data = json.loads(report)
        source = data["skill"]["source"].replace("<CASE>", str(case))
        for issue in data["issues"]:
            loc = issue["location"]
            path = Path(source) / loc["file"]
            if not path.is_file() or not loc.get("start_line"):
                continue
            lines = path.read_text(encoding="utf-8").splitlines()
            text = lines[loc["start_line"] - 1] if loc["start_line"] <= len(lines) else ""
            if len(text.strip()) > 20:
                out.append((text, issue))
    return out


def line_replay(argv):
    target = Path(argv[argv.index("scan") + 1])
    if not target.exists():
        return "", f"Error: Cannot determine input type for: {target}\n", 2
    base = json.loads((Path(os.environ["FAKE_SS_LIBRARY"]) / "case-01-clean" / "report.json").read_text("utf-8"))
    known = library_issues(os.environ["FAKE_SS_LIBRARY"])
    issues = []
    files = [target] if target.is_file() else sorted(p for p in target.rglob("*") if p.is_file())
    for path in files:
        rel = path.name if target.is_file() else path.relative_to(target).as_posix()
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError:
            continue
        for number, text in enumerate(lines, start=1):
            for recorded_text, issue in known:
                if text == recorded_text:
                    issue = json.loads(json.dumps(issue))
                    issue["location"].update(file=rel, start_line=number)
                    issue["occurrences"] = [{"file": rel, "start_line": number, "end_line": None}]
                    issues.append(issue)
    base["issues"] = issues
    base["skill"]["source"] = str(target)
    report = json.dumps(base, indent=2)
    code = 1 if any(i["severity"] in ("HIGH", "CRITICAL") for i in issues) else 0
    out_file = option(argv, "-o", "--output")
    if out_file:
        Path(out_file).write_text(report, encoding="utf-8")
        return f"Report saved to: {out_file}\n", "", code
    return report + "\n", "", code


def main(argv):
    log_call(argv)
    mode = os.environ.get("FAKE_SS_MODE", "")
    if argv[:1] in (["--version"], ["-v"]):
        print("SkillSpector v2.9.6")
        return 0
    if argv[:1] == ["scan"] and "--help" in argv:
        without = os.environ.get("FAKE_SS_HELP_WITHOUT")
        text = HELP if not without else "\n".join(l for l in HELP.splitlines() if without not in l)
        print(text)
        return 0
    if argv[:1] != ["scan"] or len(argv) < 2:
        print("Usage: skillspector [OPTIONS] COMMAND [ARGS]...", file=sys.stderr)
        return 2
    if os.environ.get("FAKE_SS_SCANNED"):
        Path(os.environ["FAKE_SS_SCANNED"]).write_text(argv[1], encoding="utf-8")
    if os.environ.get("FAKE_SS_DROP"):
        (Path(argv[1]) / os.environ["FAKE_SS_DROP"]).unlink(missing_ok=True)
    if mode == "hang":
        time.sleep(60)
    if mode == "hang-children":
        import subprocess

        kids = [subprocess.Popen(["sleep", "120"]), subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])]
        Path(os.environ["FAKE_SS_PIDS"]).write_text(" ".join(str(k.pid) for k in kids), encoding="utf-8")
        time.sleep(120)
    if mode == "deep":
        out_file = option(argv, "-o", "--output")
        deep = '{"issues": ' + "[" * 100_000 + "]" * 100_000 + "}"
        if out_file:
            Path(out_file).write_text(deep, encoding="utf-8")
            print(f"Report saved to: {out_file}")
        else:
            print(deep)
        return 0
    if mode == "huge-stdout":
        chunk = "noise " * 1000 + "\n"
        for _ in range(64 * 2**20 // len(chunk)):
            sys.stdout.write(chunk)
    if mode == "crash":
        print("Fatal Python error: Segmentation fault", file=sys.stderr)
        return 139
    if mode == "garbage":
        print("<html>not a report</html>")
        return 0
    if os.environ.get("FAKE_SS_LIBRARY"):
        stdout, stderr, code = line_replay(argv)
    else:
        stdout, stderr, code = replay(argv)
    sys.stdout.write(stdout)
    sys.stderr.write(stderr)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
