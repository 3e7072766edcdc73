"""A fake Python interpreter (and `py` launcher) for `skill3 setup` tests.

Behaviour comes from ``<this file>.fake.json`` beside the installed copy:
``{"version": "3.12.1", "exit": 0, "py": {"-3.13": "3.13.0"}}``. It answers
the version probe (``-c``), ``-m venv DIR`` (creates DIR/bin/python, a copy
of itself), ``-m pip show skillspector`` and ``-m pip install -e SRC`` (which
installs the fake skillspector from FAKE_SS_SOURCE into the venv). Every call
is appended to FAKE_PY_LOG. FAKE_PIP_FAIL=1 makes pip install fail.
"""

import json
import os
import sys
from pathlib import Path

me = Path(sys.argv[0])
config = json.loads(Path(str(me) + ".fake.json").read_text())
args = sys.argv[1:]
if os.environ.get("FAKE_PY_LOG"):
    with open(os.environ["FAKE_PY_LOG"], "a") as fh:
        fh.write(json.dumps([me.name, *args]) + "\n")
if config.get("exit"):
    print(f"pyenv: {me.name}: command not found", file=sys.stderr)
    sys.exit(config["exit"])
version = config.get("version")
if me.name in ("py", "py.exe"):
    version = config.get("py", {}).get(args[0] if args else "")
    if version is None:
        print(f"Python {args[0][1:] if args else ''} not found!", file=sys.stderr)
        sys.exit(103)
    args = args[1:]


def install(target: Path, source: Path, extra: dict) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(source.read_text())
    target.chmod(0o755)
    Path(str(target) + ".fake.json").write_text(json.dumps(extra))


venv_root = me.parent.parent
if args[:1] == ["-c"]:
    print(version)
    print(me)
elif args[:2] == ["-m", "venv"]:
    if config.get("venv_fails"):
        print("Error: ensurepip is not available", file=sys.stderr)
        sys.exit(1)
    install(Path(args[2]) / "bin" / "python", me, {"version": version})
elif args[:4] == ["-m", "pip", "show", "skillspector"]:
    marker = venv_root / ".installed"
    if not marker.exists():
        print("WARNING: Package(s) not found: skillspector", file=sys.stderr)
        sys.exit(1)
    print(f"Name: skillspector\nVersion: 2.9.6\nEditable project location: {marker.read_text()}")
elif args[:4] == ["-m", "pip", "install", "-e"]:
    if os.environ.get("FAKE_PIP_FAIL"):
        print("Collecting yara-python>=4.5.0", file=sys.stderr)
        print("ERROR: Could not find a version that satisfies the requirement yara-python>=4.5.0", file=sys.stderr)
        print("ERROR: No matching distribution found for yara-python>=4.5.0", file=sys.stderr)
        sys.exit(1)
    fake = Path(os.environ["FAKE_SS_SOURCE"])
    target = venv_root / "bin" / "skillspector"
    target.write_text(f"#!{os.environ['FAKE_SS_PYTHON']}\n" + fake.read_text())
    target.chmod(0o755)
    (venv_root / ".installed").write_text(args[4])
else:
    print(f"fake python: unsupported {args}", file=sys.stderr)
    sys.exit(2)
