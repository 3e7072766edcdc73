"""docs/settings.md against the code, both ways: every ``SKILL3_*`` name in the code is in the doc and every
name in the doc is in the code; every environment variable the code reads is in the doc; where the code
defines a setting's default (a constant or a literal beside the name it reads), the doc gives that default."""

from __future__ import annotations

import ast
import importlib
import json
import re
from pathlib import Path
from typing import Any, Iterator

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "settings.md"
PACKAGES = ("synth", "skill3", "skill3crawl")
NAME = re.compile(r"\bSKILL3_[A-Z0-9_]+\b")
STANDARD_ENV = {"PATH", "HOME"}  # the operating system's, not skill3's
GETTERS = {"get", "getint", "getfloat", "getbool", "getdict", "getlist", "setdefault"}
UNSET = {"—", "0", "off"}


def package_modules() -> list[Path]:
    """The packages' modules (``__main__`` runs a command when imported, and reads no setting)."""
    return [p for top in PACKAGES for p in sorted((ROOT / top).rglob("*.py")) if p.name != "__main__.py"]


def code_files() -> list[Path]:
    """Everything that may read a ``SKILL3_*`` name: the packages, scripts, benchmarks, CI and the tests."""
    files = package_modules() + sorted((ROOT / "scripts").glob("*.sh")) + sorted((ROOT / "bench").glob("*.py"))
    files += [ROOT / ".ci" / "run"] + [p for p in sorted((ROOT / "tests").rglob("*.py")) if p != Path(__file__)]
    return files


def doc_rows() -> dict[str, str]:
    """name → default cell, from every table of the doc whose first cell names variables in backticks."""
    rows = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        for name in re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", cells[0]):
            rows[name] = cells[1]
    return rows


def module_of(path: Path) -> Any:
    return importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"))


def _name_arg(node: ast.expr, namespace: dict[str, Any]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and isinstance(namespace.get(node.id), str):
        return namespace[node.id]  # e.g. BIN_ENV = "SKILLSPECTOR_BIN"
    return None


def _receiver(func: ast.expr) -> str:
    value = getattr(func, "value", None)
    return getattr(value, "attr", None) or getattr(value, "id", "") or ""


def reads(path: Path) -> Iterator[tuple[str, str, ast.expr | None]]:
    """(kind, name, default expression) for every setting or environment variable the module reads:
    kind "env" (os.environ / env mappings, os.getenv, setting_or_env) or "setting" (a settings getter)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    namespace = vars(module_of(path))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _receiver(ast.Attribute(value=node.value)) in ("environ", "env"):
            name = _name_arg(node.slice, namespace)
            if name:
                yield "env", name, None
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        fname = getattr(func, "attr", getattr(func, "id", ""))
        if fname == "setting_or_env" and len(node.args) >= 2:
            kind, name = "env", _name_arg(node.args[1], namespace)
        elif fname == "getenv" or (fname in GETTERS and _receiver(func) in ("environ", "env")):
            kind, name = "env", _name_arg(node.args[0], namespace)
        elif fname in GETTERS:
            kind, name = "setting", _name_arg(node.args[0], namespace)
            if not name or not name.startswith("SKILL3_"):
                continue
        else:
            continue
        if not name:
            continue
        default = node.args[1] if fname != "setting_or_env" and len(node.args) >= 2 else None
        parent = parents.get(node)
        if default is None and isinstance(parent, ast.BoolOp) and isinstance(parent.op, ast.Or) and parent.values[0] is node:
            default = parent.values[1]  # settings.get("SKILL3_JS") or DEFAULT_MODE
        yield kind, name, default


def code_defaults() -> dict[str, Any]:
    """name → the default value the code gives it, where that is an expression the module can evaluate."""
    found: dict[str, Any] = {}
    for path in package_modules():
        namespace = vars(module_of(path))
        for _kind, name, default in reads(path):
            if default is None:
                continue
            try:
                found[name] = eval(compile(ast.Expression(default), str(path), "eval"), dict(namespace))
            except Exception:  # an f-string of local names, a call with side effects: the doc says it in words
                continue
    from skill3crawl.discovery import registries

    for key, name in registries.SETTINGS.items():  # the registry base URLs: a table of name → default
        found[name] = registries.DEFAULT_URLS[key]
    return found


def same_default(cell: str, value: Any) -> bool:
    cell = cell.strip().strip("`")
    if not value and not isinstance(value, (list, dict)) or value == [] and cell == "—":
        return cell in UNSET
    if isinstance(value, bool):
        return cell in ({"1", "on"} if value else UNSET)
    if isinstance(value, (int, float)):
        try:
            return float(cell) == float(value)
        except ValueError:
            return False
    if isinstance(value, (list, tuple)):
        return cell == ",".join(map(str, value))
    if isinstance(value, dict):
        return json.loads(cell) == value
    return cell == str(value)


def test_every_skill3_name_in_the_code_is_in_the_doc_and_back() -> None:
    in_code = {n for p in code_files() for n in NAME.findall(p.read_text(encoding="utf-8"))}
    in_doc = {n for n in doc_rows() if n.startswith("SKILL3_")}
    assert len(in_code) >= 30
    assert sorted(in_code - in_doc) == [], "add these to docs/settings.md"
    assert sorted(in_doc - in_code) == [], "docs/settings.md names what the code no longer reads"


def test_every_environment_variable_the_code_reads_is_in_the_doc() -> None:
    env = {name for p in package_modules() for kind, name, _ in reads(p) if kind == "env"} - STANDARD_ENV
    assert {"ANTHROPIC_API_KEY", "LLM_API_KEY", "BRAVE_SEARCH_API_KEY", "SKILLSPECTOR_BIN", "SKILL3_HOME"} <= env
    assert sorted(env - set(doc_rows())) == []


def test_the_docs_defaults_are_the_codes() -> None:
    defaults = code_defaults()
    rows = doc_rows()
    assert len(defaults) >= 20
    wrong = {name: (rows.get(name), value) for name, value in defaults.items() if not same_default(rows.get(name, ""), value)}
    assert wrong == {}


@pytest.mark.parametrize("cell, value, same", [
    ("`5`", 5, True), ("`60`", 60.0, True), ("`0.6`", 0.6, True), ("`6`", 5, False), ("—", None, True), ("`0`", "", True),
    ("`auto`", "auto", True), ("`pypi,npm,crates`", ["pypi", "npm", "crates"], True), ("`pypi`", ["pypi", "npm"], False),
    ("`{}`", {}, True), ("`WARNING`", "WARNING", True), ("`INFO`", "WARNING", False),
])
def test_same_default(cell: str, value: Any, same: bool) -> None:
    assert same_default(cell, value) is same
