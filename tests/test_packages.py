"""One-way package dependency: ``skill3crawl`` may import ``synth``, never the reverse, and ``synth``
imports no Scrapy; the ``skill3`` console script is the one place both meet."""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CRAWL_SIDE = ("scrapy", "twisted", "skill3crawl", "skill3", "scrapy_playwright", "scrapy_redis", "itemadapter")


def imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    """Every module an ``import`` or ``from … import`` names, wherever it is (functions included)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in ("import_module", "__import__"):
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                found.append((node.lineno, node.args[0].value))
    return found


def crawl_side_imports(source: str) -> list[tuple[int, str]]:
    return [(line, name) for line, name in imported_modules(ast.parse(source)) if name.split(".")[0] in CRAWL_SIDE]


@pytest.mark.parametrize(
    "source, found",
    [
        ("import scrapy", [(1, "scrapy")]),
        ("def f():\n    from skill3crawl.args import parse_args", [(2, "skill3crawl.args")]),
        ("from twisted.internet import reactor", [(1, "twisted.internet")]),
        ("import importlib\nimportlib.import_module('scrapy.crawler')", [(2, "scrapy.crawler")]),
        ("from skill3.cli.main import app", [(1, "skill3.cli.main")]),
        ("import scrapyd_client, skill3crawler_x\nfrom synth.evidence.item import SourceItem\nfrom . import scrapy", []),
    ],
)
def test_the_scan_finds_crawl_side_imports(source, found) -> None:
    assert crawl_side_imports(source) == found


def test_no_synth_module_imports_scrapy_or_the_crawl_side() -> None:
    modules = sorted((ROOT / "synth").rglob("*.py"))
    assert len(modules) > 50  # the whole package, sub-packages included
    offenders = [f"{path.relative_to(ROOT)}:{line} imports {name}"
                 for path in modules for line, name in crawl_side_imports(path.read_text(encoding="utf-8"))]
    assert offenders == []


def test_importing_synth_and_its_cli_loads_no_scrapy() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    check = ("import sys, synth, skill3.cli.app, synth.pipeline.run; "
             "bad = sorted(m for m in sys.modules if m.startswith(('scrapy', 'twisted', 'skill3crawl'))); "
             "assert not bad, bad")
    proc = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_the_console_script_has_learn_beside_synths_commands() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    module, _, func = scripts["skill3"].partition(":")
    cli = importlib.import_module(module)
    assert callable(getattr(cli, func))
    names = [c.name for c in cli.app.registered_commands]
    assert names[0] == "learn" and {"synth", "lint", "vet", "setup", "models"} <= set(names)
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]["find"]["include"]
    assert module.split(".")[0] in packages  # installed with the distribution


def test_every_third_party_module_the_packages_import_is_a_declared_dependency() -> None:
    """pyproject.toml declares what the code imports, not only what happens to come with something else."""
    import re
    from importlib.metadata import packages_distributions

    declared = {re.split(r"[<>=!~\[ ;]", d, maxsplit=1)[0].lower().replace("_", "-")
                for d in tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]}
    dists = packages_distributions()
    modules = [path for top in ("synth", "skill3", "skill3crawl") for path in sorted((ROOT / top).rglob("*.py"))]
    found = {name.split(".")[0] for path in modules for _line, name in imported_modules(ast.parse(path.read_text(encoding="utf-8")))}
    third_party = sorted(m for m in found if m not in sys.stdlib_module_names and m not in ("synth", "skill3", "skill3crawl"))
    assert {"httpx2", "tldextract", "lxml", "twisted"} <= set(third_party)
    undeclared = [m for m in third_party if not {d.lower().replace("_", "-") for d in dists.get(m, [])} & declared]
    assert undeclared == []
