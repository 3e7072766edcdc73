"""docs/settings.md against the one module of defaults, ``synth.core.default_settings``, both ways: every setting
the module defines is documented with the module's default and every ``SKILL3_*`` name documented (outside the
tests' table) is the module's; every ``SKILL3_*`` name the packages read is defined there, and a default given
beside a read is the module's (taken from it, not written again); every environment variable the code reads is
in the doc; the tests' own ``SKILL3_*`` names are in the doc's tests table."""

from __future__ import annotations

import ast
import importlib
import json
import re
from pathlib import Path
from typing import Any, Iterator

import pytest

from synth.core import default_settings

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "settings.md"
PACKAGES = ("synth", "skill3", "skill3crawl")
NAME = re.compile(r"\bSKILL3_[A-Z0-9_]+\b")
STANDARD_ENV = {"PATH", "HOME"}  # the operating system's, not skill3's
GETTERS = {"get", "getint", "getfloat", "getbool", "getdict", "getlist", "setdefault"}
UNSET = {"—", "0", "off"}
TESTS_SECTION = "## Tests and benchmarks"


def package_modules() -> list[Path]:
    """The packages' modules (``__main__`` runs a command when imported, and reads no setting)."""
    return [p for top in PACKAGES for p in sorted((ROOT / top).rglob("*.py")) if p.name != "__main__.py"]


def code_files() -> list[Path]:
    """Everything that may read a ``SKILL3_*`` name: the packages, scripts, benchmarks, CI and the tests."""
    files = package_modules() + sorted((ROOT / "scripts").glob("*.sh")) + sorted((ROOT / "bench").glob("*.py"))
    files += [ROOT / ".ci" / "run"] + [p for p in sorted((ROOT / "tests").rglob("*.py")) if p != Path(__file__)]
    return files


def doc_rows(tests: bool | None = None) -> dict[str, str]:
    """name → default cell, from every table of the doc whose first cell names variables in backticks (``tests``:
    only the tests' table, or only the others; ``None``: all)."""
    rows = {}
    text = DOC.read_text(encoding="utf-8")
    if tests is not None:
        head, _, tail = text.partition(TESTS_SECTION)
        text = tail if tests else head
    for line in text.splitlines():
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


def code_defaults() -> dict[str, list[tuple[str, Any, bool]]]:
    """name → (where, the default value given beside a read, whether it is taken from the module), for every read of
    a ``SKILL3_*`` name that gives a default: ``default_settings.NAME`` itself (or ``list(…)``/``dict(…)`` of it), or
    a constant bound to the module's very object (``PAGE_WINDOW = default_settings.SKILL3_PAGE_WINDOW``)."""
    found: dict[str, list[tuple[str, Any, bool]]] = {}
    for path in package_modules():
        namespace = vars(module_of(path))
        for _kind, name, default in reads(path):
            if default is None or not name.startswith("SKILL3_"):
                continue
            if isinstance(default, ast.Constant) and default.value == "":  # os.environ.get(NAME, ""): unset, not a default
                continue
            where = f"{path.relative_to(ROOT)}:{default.lineno}"
            try:
                value = eval(compile(ast.Expression(default), str(path), "eval"), dict(namespace))
            except NameError:  # computed from local names (f"skill3:{spider_name}"): the module's default is None
                if getattr(default_settings, name, 0) is None:
                    continue
                raise
            direct = f"default_settings.{name}" in ast.unparse(default)
            aliased = isinstance(default, (ast.Name, ast.Attribute)) and value is getattr(default_settings, name, object())
            found.setdefault(name, []).append((where, value, direct or aliased))
    from skill3crawl.discovery import registries

    for key, name in registries.SETTINGS.items():  # the registry base URLs: a table of name → default
        value = registries.DEFAULT_URLS[key]
        found.setdefault(name, []).append(("registries.DEFAULT_URLS", value, value is getattr(default_settings, name)))
    return found


def same_default(cell: str, value: Any) -> bool:
    if value is None:  # no fixed default: the doc says what applies in words (or — for off)
        return cell == "—" or not cell.startswith("`") or "<" in cell
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


def test_every_setting_of_the_module_is_in_the_doc_and_back() -> None:
    in_module = set(default_settings.defaults())
    in_doc = {n for n in doc_rows(tests=False) if n.startswith("SKILL3_")}
    assert len(in_module) >= 40
    assert sorted(in_module - in_doc) == [], "add these to docs/settings.md"
    assert sorted(in_doc - in_module) == [], "docs/settings.md names what synth/core/default_settings.py does not define"


def test_every_skill3_name_the_packages_read_is_defined_in_the_module() -> None:
    in_packages = {n for p in package_modules() for n in NAME.findall(p.read_text(encoding="utf-8"))}
    assert sorted(in_packages - set(default_settings.defaults())) == [], "define these in synth/core/default_settings.py"


def test_the_tests_own_names_are_in_the_docs_tests_table() -> None:
    in_code = {n for p in code_files() for n in NAME.findall(p.read_text(encoding="utf-8"))} - set(default_settings.defaults())
    in_doc = {n for n in doc_rows(tests=True) if n.startswith("SKILL3_")}
    assert sorted(in_code - in_doc) == [], "add these to the tests' table of docs/settings.md"
    assert sorted(in_doc - in_code) == [], "the tests' table of docs/settings.md names what nothing reads"


def test_every_environment_variable_the_code_reads_is_in_the_doc() -> None:
    env = {name for p in package_modules() for kind, name, _ in reads(p) if kind == "env"} - STANDARD_ENV
    assert {"ANTHROPIC_API_KEY", "LLM_API_KEY", "BRAVE_SEARCH_API_KEY", "SKILLSPECTOR_BIN", "SKILL3_HOME"} <= env
    assert sorted(env - set(doc_rows())) == []


def test_the_docs_defaults_are_the_modules() -> None:
    rows = doc_rows(tests=False)
    wrong = {name: (rows.get(name), value) for name, value in default_settings.defaults().items()
             if not same_default(rows.get(name, ""), value)}
    assert wrong == {}


def test_a_default_beside_a_read_is_taken_from_the_module() -> None:
    reads_ = code_defaults()
    assert sum(map(len, reads_.values())) >= 20
    module = default_settings.defaults()
    written_again = [where for name, sites in reads_.items() for where, _value, taken in sites if not taken]
    differing = [(name, where, value, module.get(name)) for name, sites in reads_.items() for where, value, _ in sites
                 if value != module.get(name) and not (isinstance(value, list) and tuple(value) == module.get(name))]
    assert written_again == [] and differing == []


@pytest.mark.parametrize("cell, value, same", [
    ("`5`", 5, True), ("`60`", 60.0, True), ("`0.6`", 0.6, True), ("`6`", 5, False), ("—", None, True), ("`0`", "", True),
    ("`auto`", "auto", True), ("`pypi,npm,crates`", ["pypi", "npm", "crates"], True), ("`pypi`", ["pypi", "npm"], False),
    ("`{}`", {}, True), ("`WARNING`", "WARNING", True), ("`INFO`", "WARNING", False), ("`pypi,npm`", ("pypi", "npm"), True),
    ("today (UTC)", None, True), ("`skill3:<spider>`", None, True), ("`60`", None, False),
])
def test_same_default(cell: str, value: Any, same: bool) -> None:
    assert same_default(cell, value) is same
