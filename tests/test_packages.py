"""The layering rule: which package may import which (:data:`ALLOWED`, checked on every import the code makes),
``synth`` imports no Scrapy and nothing of ``skill3crawl`` or ``skill3``, and ``skill3.cli`` (the console script)
is the one place the commands of both sides meet."""

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


# Which first-party packages each package may import (besides its own modules). A key or an entry names a
# package or one module; an importer takes the row of the longest key it falls under, so a module's own row
# (``synth.skill.postprocess``) is the exception its package's row does not make. Bottom up:
ALLOWED: dict[str, frozenset[str]] = {k: frozenset(v) for k, v in {
    # exit codes, the exception base, console output: imports nothing of skill3
    "synth.core": (),
    # the SKILL.md format (spec, frontmatter, markdown reader, names, size, fixers)
    "synth.skill": ("synth.core",),
    # the evidence model: item, URL identity, scoring, cutoff, consensus, conflicts, delta; reads snippets and writes
    # the delta's reference files with the SKILL.md reader
    "synth.evidence": ("synth.core", "synth.skill.markdown", "synth.skill.names"),
    # the delta: change records, versions, the timeline, the ledger and its reference files; scores with the evidence
    # model's freshness, writes references with the SKILL.md reader
    "synth.delta": ("synth.core", "synth.skill.markdown", "synth.skill.names", "synth.skill.quote", "synth.evidence"),
    # lint reads skills through synth.skill; a link's page key is the crawl's (urls)
    "synth.lint": ("synth.core", "synth.skill", "synth.evidence.urls"),
    # the chat models and the planner; the endpoint's host (urls)
    "synth.llm": ("synth.core", "synth.skill", "synth.evidence.urls"),
    # vetting: the input screen reads source items; the output check runs lint
    "synth.vet": ("synth.core", "synth.skill", "synth.lint", "synth.evidence.item"),
    # what a run writes (run.json reads the evidence selected through a protocol of its own, index.html renders the
    # refresh panel from run.json)
    "synth.output": ("synth.core", "synth.skill", "synth.evidence", "synth.delta"),
    # keeping a skill current and putting it where agents look (lint: the facts a run recorded, for the MCP lint/vet)
    "synth.agents": ("synth.core", "synth.skill", "synth.evidence", "synth.delta", "synth.lint", "synth.vet", "synth.output"),
    # the synthesis run in its steps; a refresh is one of them (agents.refresh reads the run through protocols)
    "synth.pipeline": ("synth.core", "synth.skill", "synth.evidence", "synth.delta", "synth.lint", "synth.llm", "synth.vet", "synth.output",
                       "synth.agents"),
    "synth": (),  # synth/__init__.py
    # the crawl: the evidence model, its exit codes and errors, what the spider asks a model (the planner, the provider
    # choice), the SKILL.md reader and names, secret redaction, the output folder's lock and atomic writes, and the
    # SynthOptions it hands to synthesis (which it calls through the SKILL3_SYNTH_FUNCTION setting, loaded lazily)
    "skill3crawl": ("synth.core", "synth.evidence", "synth.delta", "synth.llm", "synth.skill.markdown", "synth.skill.names", "synth.skill.quote", "synth.vet.redact",
                    "synth.output.outdir", "synth.output.writing", "synth.pipeline.options"),
    # every command: the one place both sides meet
    "skill3.cli": ("synth", "skill3crawl", "skill3.mcp_server"),
    # the MCP server and python -m skill3
    "skill3": ("synth", "skill3.cli"),
}.items()}
FIRST_PARTY = ("synth", "skill3", "skill3crawl")


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def row_of(module: str) -> str | None:
    """The :data:`ALLOWED` key a module falls under: the longest."""
    keys = [k for k in ALLOWED if _under(module, k)]
    return max(keys, key=len) if keys else None


def own_package(module: str) -> str:
    """The package a module belongs to: ``synth.X``, ``skill3.cli``, ``skill3`` or ``skill3crawl``."""
    parts = module.split(".")
    if parts[0] == "synth":
        return ".".join(parts[:2])
    return "skill3.cli" if parts[:2] == ["skill3", "cli"] else parts[0]


def disallowed(importer: str, imported: str) -> bool:
    """Whether ``importer`` may not import ``imported`` under :data:`ALLOWED`."""
    if imported.split(".")[0] not in FIRST_PARTY or own_package(imported) == own_package(importer):
        return False
    row = row_of(importer)
    return row is None or not any(_under(imported, allowed) for allowed in ALLOWED[row])


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@pytest.mark.parametrize(
    "importer, imported, refused",
    [
        ("synth.evidence.item", "synth.pipeline.run", True),  # the evidence model knows no run
        ("synth.delta.render", "synth.output.writing", True),
        ("synth.evidence.consensus", "synth.skill.markdown", False),
        ("synth.evidence.consensus", "synth.skill.postprocess", True),
        ("synth.delta.ledger", "synth.delta.timeline", False),
        ("synth.core.errors", "synth.evidence.urls", True),
        ("synth.skill.names", "synth.lint.rules", True),
        ("synth.skill.postprocess", "synth.lint.rules", True),  # the structural rules are synth.skill.structure's
        ("synth.lint.rules", "synth.skill.structure", False),
        ("synth.skill.postprocess", "synth.skill.spec", False),
        ("synth.output.writing", "synth.pipeline.options", True),  # SynthFailure is synth.core's
        ("synth.output.writing", "synth.core.errors", False),
        ("synth.output.manifest", "synth.pipeline.bundle", True),
        ("synth.output.preview", "synth.agents.refresh", True),
        ("synth.output.ownership", "synth.pipeline.options", True),
        ("synth.pipeline.run", "skill3crawl.runner", True),
        ("synth.pipeline.run", "skill3.cli.app", True),
        ("skill3crawl.spiders.learn", "synth.pipeline.run", True),  # the crawl calls synthesis through a setting
        ("skill3crawl.args", "synth.pipeline.options", False),
        ("skill3crawl.extract.content", "synth.vet.redact", False),
        ("skill3crawl.extract.content", "synth.vet.screen", True),
        ("skill3crawl.runner", "skill3.cli.learn", True),
        ("skill3.cli.learn", "skill3crawl.runner", False),
        ("skill3.mcp_server", "skill3.cli.vet", False),
        ("skill3.mcp_server", "skill3crawl.runner", True),
        ("synth.agents.refresh", "synth.pipeline.bundle", True),  # the run calls the refresh, not the other way
        ("synth.pipeline.run", "synth.agents.refresh", False),
        ("synth.vet.screen", "scrapy", False),  # third parties: the scan above
        ("synth.newpackage.x", "synth.core.errors", True),  # a package not in the table
    ],
)
def test_the_table_decides_each_import(importer, imported, refused) -> None:
    assert disallowed(importer, imported) is refused


def test_every_import_between_packages_is_allowed_by_the_table() -> None:
    paths = [p for top in FIRST_PARTY for p in sorted((ROOT / top).rglob("*.py"))]
    assert len(paths) > 130
    offenders = [f"{path.relative_to(ROOT)}:{line} imports {name} (row {row_of(module_name(path))!r})"
                 for path in paths for line, name in imported_modules(ast.parse(path.read_text(encoding="utf-8")))
                 if disallowed(module_name(path), name)]
    assert offenders == []


def test_synth_has_no_loose_modules_and_every_command_is_in_skill3_cli() -> None:
    """Modules are grouped by what they are: none beside synth/__init__.py; no command module outside skill3/cli/."""
    assert sorted(p.name for p in (ROOT / "synth").glob("*.py")) == ["__init__.py"]
    commands = sorted(str(p.relative_to(ROOT)) for top in FIRST_PARTY for p in (ROOT / top).rglob("*.py")
                      if "import typer" in p.read_text(encoding="utf-8") and p.parent != ROOT / "skill3" / "cli")
    assert commands == []
    assert {p.stem for p in (ROOT / "skill3" / "cli").glob("*.py")} >= {"learn", "synth", "lint", "vet", "models", "agents"}


def test_importing_synth_and_its_cli_loads_no_scrapy() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for modules, banned in (("synth, skill3.cli.app, synth.pipeline.run", ("scrapy", "twisted", "skill3crawl")),
                            ("skill3.cli.main", ("scrapy", "twisted"))):  # Scrapy only once `learn` runs
        check = (f"import sys, {modules}; "
                 f"bad = sorted(m for m in sys.modules if m.startswith({banned!r})); "
                 "assert not bad, bad")
        proc = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
        assert proc.returncode == 0, (modules, proc.stderr[-2000:])


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


def test_the_synthesis_run_keeps_its_names() -> None:
    """``synth.pipeline.run``, split by step (provider, draft, review, write; sizes: tests/test_sizes.py), still offers
    every name it did before the split."""
    import synth.pipeline.run as run

    assert [n for n in run.__all__ if not hasattr(run, n)] == []
    assert {"run_synth", "write_skill", "atomic_write_text", "rank", "vet_input_step", "choose_model", "select",
            "synthesize", "check_output", "write_outputs", "report", "bundle_budget"} <= set(run.__all__)


def import_graph(sources: dict[str, str]) -> dict[str, set[str]]:
    """Module → the first-party modules it imports (anywhere in it: functions and ``TYPE_CHECKING`` blocks too); an
    imported name that is a module (``from a import b``) is an edge to ``a.b``."""
    graph: dict[str, set[str]] = {m: set() for m in sources}
    for module, source in sources.items():
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    target = f"{node.module}.{alias.name}"
                    graph[module].add(target if target in sources else node.module)
            elif isinstance(node, ast.Import):
                graph[module].update(alias.name for alias in node.names)
        graph[module] = {m for m in graph[module] if m in sources and m != module}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[v] = min(low[v], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    cycles.append(sorted(comp))
    return cycles


@pytest.mark.parametrize(
    "sources, cycles",
    [
        ({"a": "import b", "b": "import a", "c": "import a"}, [["a", "b"]]),
        ({"a": "from b import x", "b": "def f():\n    from c import y", "c": "if TYPE_CHECKING:\n    import a"}, [["a", "b", "c"]]),
        ({"p": "from p import q", "p.q": "x = 1", "r": "from p import q"}, []),
        ({"a": "import b", "b": "import c", "c": "x = 1"}, []),
    ],
)
def test_the_cycle_scan_finds_cycles(sources, cycles) -> None:
    assert import_cycles(import_graph(sources)) == cycles


def test_no_import_cycle_between_first_party_modules() -> None:
    """No module imports, through any chain, one that imports it (function-level and TYPE_CHECKING imports count)."""
    paths = [p for pkg in FIRST_PARTY for p in (ROOT / pkg).rglob("*.py")]
    graph = import_graph({module_name(p): p.read_text(encoding="utf-8") for p in paths})
    assert import_cycles(graph) == []


MAX_PRIVATE_IMPORTS = 20  # issue 31: modules share public names; a private name stays in its module


def private_imports(sources: dict[str, str]) -> list[str]:
    """``importer: from module import _name`` for every private first-party name a module imports from another."""
    found = []
    for module, source in sources.items():
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level and node.module != module \
                    and node.module.split(".")[0] in FIRST_PARTY:
                found += [f"{module}: from {node.module} import {a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    return found


@pytest.mark.parametrize("sources, found", [
    ({"synth.a": "from synth.b import _x, y", "synth.b": "_x = 1\ny = 2"}, ["synth.a: from synth.b import _x"]),
    ({"synth.a": "def f():\n    from synth.b import _x", "synth.b": "_x = 1"}, ["synth.a: from synth.b import _x"]),
    ({"synth.a": "from synth.b import __version__, y\nfrom os import _exit", "synth.b": ""}, []),
])
def test_the_private_import_scan(sources, found) -> None:
    assert private_imports(sources) == found


def test_private_names_stay_in_their_module() -> None:
    paths = [p for pkg in FIRST_PARTY for p in (ROOT / pkg).rglob("*.py")]
    found = private_imports({module_name(p): p.read_text(encoding="utf-8") for p in paths})
    assert len(found) <= MAX_PRIVATE_IMPORTS, "make these names public in the module that defines them:\n" + "\n".join(found)
