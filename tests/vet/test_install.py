"""`skill3 setup` with fake interpreters, git and pip (no network)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skill3.cli.app import app
from synth.vet.install import (
    SetupError,
    find_python,
    parse_scan_options,
    parse_version,
    setup,
    venv_binary,
    venv_python,
)
from synth.vet.record import load_record, record_path
from synth.vet.runner import resolve_scanner

from .helpers import FAKE_SOURCE, install_executable

HERE = Path(__file__).resolve().parent


def interpreter(bin_dir: Path, name: str, **config) -> Path:
    path = install_executable(bin_dir, name, HERE / "fake_python.py")
    Path(str(path) + ".fake.json").write_text(json.dumps(config))
    return path


@pytest.fixture
def world(tmp_path, monkeypatch):
    """A PATH holding only fake tools; a SKILL3_HOME; a SkillSpector checkout."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("HOME", str(tmp_path / "user"))  # no real ~/.pyenv
    monkeypatch.delenv("PYENV_ROOT", raising=False)
    monkeypatch.delenv("PYENV_VERSION", raising=False)
    monkeypatch.setenv("SKILL3_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("SKILLSPECTOR_BIN", raising=False)
    monkeypatch.setenv("FAKE_SS_SOURCE", str(FAKE_SOURCE))
    monkeypatch.setenv("FAKE_SS_PYTHON", sys.executable)
    monkeypatch.setenv("FAKE_PY_LOG", str(tmp_path / "py.log"))
    for var in ("FAKE_PIP_FAIL", "FAKE_GIT_FAIL", "FAKE_SS_HELP_WITHOUT", "FAKE_SS_LOG", "FAKE_SS_LIBRARY"):
        monkeypatch.delenv(var, raising=False)
    checkout = tmp_path / "SkillSpector"
    checkout.mkdir()
    (checkout / "pyproject.toml").write_text('[project]\nname = "skillspector"\nversion = "2.9.6"\n')
    return {"bin": bin_dir, "home": tmp_path / "home", "source": checkout, "log": tmp_path / "py.log"}


def pip_installs(world) -> int:
    if not world["log"].exists():
        return 0
    return sum("install" in json.loads(line) for line in world["log"].read_text().splitlines())


# fake interpreters on PATH, chosen one (or error text)
PROBES = [
    ({"python3.12": {"version": "3.12.1"}}, "python3.12"),
    ({"python3.14": {"version": "3.14.0"}, "python3.12": {"version": "3.12.1"}}, "python3.14"),
    ({"python3.13": {"exit": 127}, "python3.12": {"version": "3.12.1"}}, "python3.12"),  # pyenv shim without a version
    ({"python3": {"version": "3.13.2"}}, "python3"),
    (
        {"python3.13": {"exit": 127}, "python3": {"version": "3.11.7"}},
        "no compatible Python (>=3.12,<3.15) found (probed python3.14: not found; python3.13: exit 127; "
        "python3.12: not found; python3: 3.11.7 (too old)); install Python 3.12-3.14 or pass --python PATH",
    ),
    ({"python3": {"version": "3.15.0"}}, "python3: 3.15.0 (too new)"),
]


@pytest.mark.parametrize("tools,expected", PROBES)
def test_find_python(world, tools, expected):
    for name, config in tools.items():
        interpreter(world["bin"], name, **config)
    if expected.startswith("python"):
        if " " not in expected:
            assert find_python(windows=False).argv == (expected,)
            return
    with pytest.raises(SetupError) as info:
        find_python(windows=False)
    assert expected in str(info.value) and "\n" not in str(info.value)


def pyenv_version(root: Path, release: str, **config) -> Path:
    """An installed pyenv version: ``<root>/versions/<release>/bin/python3.N`` (a fake interpreter)."""
    minor = ".".join(release.split(".")[:2])
    return interpreter(root / "versions" / release / "bin", f"python{minor}", **({"version": release} | config))


def fake_pyenv(bin_dir: Path, root: Path, tmp_path: Path) -> None:
    script = tmp_path / "pyenv.py"
    script.write_text(f"import sys\nif sys.argv[1:] == ['root']:\n    print({str(root)!r})\nelse:\n    sys.exit(1)\n")
    install_executable(bin_dir, "pyenv", script)


# how pyenv is found (PYENV_ROOT, `pyenv root`, ~/.pyenv), installed versions, the chosen one
PYENV = [
    ("PYENV_ROOT", ["3.12.1"], {}, "3.12.1"),
    ("pyenv root", ["3.12.1"], {}, "3.12.1"),
    ("~/.pyenv", ["3.12.1"], {}, "3.12.1"),
    ("PYENV_ROOT", ["3.11.7", "3.12.1", "3.13.0"], {}, "3.13.0"),
    ("PYENV_ROOT", ["3.12.1", "3.12.8"], {}, "3.12.8"),
    ("PYENV_ROOT", ["3.12.1", "3.13.0"], {"3.13.0": {"exit": 1}}, "3.12.1"),  # listed but does not run
    ("PYENV_ROOT", ["3.11.7", "3.15.0"], {}, None),
]


@pytest.mark.parametrize("how, releases, broken, chosen", PYENV)
def test_find_python_finds_pyenv_versions_behind_its_shims(world, tmp_path, monkeypatch, how, releases, broken, chosen):
    for shim in ("python3.14", "python3.13", "python3.12", "python3"):  # pyenv shims without PYENV_VERSION
        interpreter(world["bin"], shim, exit=127)
    root = tmp_path / "user" / ".pyenv" if how == "~/.pyenv" else tmp_path / "pyenv-root"
    for release in releases:
        pyenv_version(root, release, **broken.get(release, {}))
    if how == "PYENV_ROOT":
        monkeypatch.setenv("PYENV_ROOT", str(root))
    elif how == "pyenv root":
        fake_pyenv(world["bin"], root, tmp_path)
    if chosen is None:
        with pytest.raises(SetupError) as info:
            find_python(windows=False)
        assert "python3.12: exit 127" in str(info.value) and "\n" not in str(info.value)
        return
    probe = find_python(windows=False)
    assert probe.version == tuple(int(x) for x in chosen.split("."))
    assert probe.argv[0].startswith(str(root / "versions" / chosen / "bin"))


def test_setup_with_only_a_pyenv_python(world, tmp_path, monkeypatch):
    interpreter(world["bin"], "python3.12", exit=127)
    root = tmp_path / "pyenv-root"
    pyenv_version(root, "3.12.1")
    monkeypatch.setenv("PYENV_ROOT", str(root))
    record = setup(world["home"], source=world["source"], windows=False)
    assert record.python_version == "3.12.1" and Path(record.binary).is_file()


def test_find_python_windows_launcher(world):
    interpreter(world["bin"], "py", py={"-3.13": "3.13.0"})
    probe = find_python(windows=True)
    assert probe.argv == ("py", "-3.13") and probe.version == (3, 13, 0)


@pytest.mark.parametrize(
    "windows,python,binary",
    [(False, "v/bin/python", "v/bin/skillspector"), (True, "v/Scripts/python.exe", "v/Scripts/skillspector.exe")],
)
def test_venv_paths(windows, python, binary):
    assert venv_python(Path("v"), windows).as_posix() == python
    assert venv_binary(Path("v"), windows=windows).as_posix() == binary


@pytest.mark.parametrize("text,version", [("SkillSpector v2.9.6\n", "2.9.6"), ("skillspector 3.0.0rc1", "3.0.0rc1"), ("nothing", None)])
def test_parse_version(text, version):
    assert parse_version(text) == version


def test_parse_scan_options():
    text = (
        "│ --format  -f  [terminal|json|markdown|sarif]  Output format. [default: terminal] │\n"
        "│ --output  -o  PATH  Output file path. If not specified, prints to stdout.        │\n"
        "│ --no-llm          Skip LLM analysis (faster, less accurate).                      │\n"
        "│ --transitive-depth  INTEGER  Maximum transitive depth to scan for external refs.  │\n"
        "│ Usage: see --recursive.  e.g. foo--bar is not an option                           │\n"
    )
    assert parse_scan_options(text) == ["--format", "--no-llm", "--output", "--recursive", "--transitive-depth"]


def test_setup_with_source_end_to_end_and_idempotent(world, tmp_path):
    interpreter(world["bin"], "python3.12", version="3.12.1")
    lines: list[str] = []
    record = setup(world["home"], source=world["source"], windows=False, log=lines.append)
    assert record.version == "2.9.6" and record.python_version == "3.12.1"
    assert record.binary == str((world["home"] / ".venv" / "bin" / "skillspector").resolve())
    assert {"--no-llm", "--format", "--output"} <= set(record.scan_options)
    assert load_record(record_path(world["home"])) == record
    assert pip_installs(world) == 1
    # the runner now finds it through the record
    assert resolve_scanner().origin == "skill3 setup"
    # again: reuses the venv and the editable install
    lines.clear()
    setup(world["home"], source=world["source"], windows=False, log=lines.append)
    assert pip_installs(world) == 1
    assert any("reusing virtualenv" in l for l in lines) and any("already installed" in l for l in lines)
    # --force reinstalls
    setup(world["home"], source=world["source"], windows=False, force=True)
    assert pip_installs(world) == 2


def test_setup_clones_when_no_source(world):
    interpreter(world["bin"], "python3.13", version="3.13.0")
    install_executable(world["bin"], "git", HERE / "fake_git.py")
    record = setup(world["home"], windows=False)
    assert record.source == str((world["home"] / "skillspector-src").resolve())
    lines: list[str] = []
    setup(world["home"], windows=False, log=lines.append)
    assert any(l.startswith("reusing clone") for l in lines)


@pytest.mark.parametrize(
    "prepare,kwargs,message",
    [
        (lambda w: None, {"source": "missing"}, "is not a directory; pass the path of a SkillSpector checkout"),
        (lambda w: (w["source"] / "pyproject.toml").write_text('[project]\nname = "other"\n'), {},
         "is not a SkillSpector checkout"),
        (lambda w: None, {"source": None}, "git not found on PATH; install git, or clone SkillSpector yourself and pass --source PATH"),
        (lambda w: (install_executable(w["bin"], "git", HERE / "fake_git.py"), w["monkeypatch"].setenv("FAKE_GIT_FAIL", "1")),
         {"source": None}, "Could not resolve host: github.com); clone it yourself and pass --source PATH"),
        (lambda w: w["monkeypatch"].setenv("FAKE_PIP_FAIL", "1"), {},
         "failed (exit 1): ERROR: Could not find a version that satisfies the requirement yara-python>=4.5.0 | "
         "ERROR: No matching distribution found for yara-python>=4.5.0"),
        (lambda w: w["monkeypatch"].setenv("FAKE_SS_HELP_WITHOUT", "--no-llm"), {}, "lacks scan option(s) --no-llm"),
        (lambda w: interpreter(w["home"] / ".venv" / "bin", "python", version="3.11.7"), {},
         "exists but its Python is unusable"),
        (lambda w: None, {"python": "python3.11"}, "--python python3.11: not found"),
    ],
    ids=["source-missing", "source-not-checkout", "no-git", "clone-failed", "pip-failed", "old-scanner", "old-venv", "bad-python"],
)
def test_setup_errors_are_one_line(world, monkeypatch, prepare, kwargs, message):
    interpreter(world["bin"], "python3.12", version="3.12.1")
    world["monkeypatch"] = monkeypatch
    prepare(world)
    source = kwargs.get("source", world["source"])
    if source == "missing":
        source = world["source"] / "nope"
    with pytest.raises(SetupError) as info:
        setup(world["home"], source=source, python=kwargs.get("python"), windows=False)
    assert message in str(info.value)
    assert "\n" not in str(info.value)
    assert not record_path(world["home"]).exists()


def test_setup_cli(world):
    interpreter(world["bin"], "python3.12", version="3.12.1")
    runner = CliRunner()
    bad = runner.invoke(app, ["setup", "--source", str(world["source"] / "nope")])
    assert bad.exit_code == 2 and bad.stderr.startswith("skill3 setup: --source ") and bad.stderr.count("\n") == 1
    assert "Traceback" not in bad.output
    good = runner.invoke(app, ["setup", "--source", str(world["source"])])
    assert good.exit_code == 0, good.output
    assert "SkillSpector 2.9.6 ready" in good.stderr
    assert json.loads(record_path(world["home"]).read_text())["version"] == "2.9.6"
