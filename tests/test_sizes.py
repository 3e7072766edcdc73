"""Size limits on the three packages: no module over :data:`MAX_MODULE_LINES` lines and no function over
:data:`MAX_FUNCTION_LINES` lines, unless a ``# long: <reason>`` comment says why (on the line above the ``def`` or
its decorators, or in its body before its first statement that is not the docstring)."""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("synth", "skill3", "skill3crawl")
MAX_MODULE_LINES = 550
MAX_FUNCTION_LINES = 80
LONG = "# long:"
# Modules over the limit, each with the reason; an entry no longer over the limit fails (remove it).
LONG_MODULES: dict[str, str] = {}  # a module allowed over the limit, with the reason


def _comments(source: str) -> dict[int, str]:
    """Line number → the comment on it."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return {t.start[0]: t.string for t in tokens if t.type == tokenize.COMMENT}


def _says_why(node: ast.FunctionDef | ast.AsyncFunctionDef, comments: dict[int, str]) -> bool:
    """A ``# long:`` comment with a reason above the function or at the start of its body."""
    top = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    body = node.body
    docstring = isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)
    first = body[1] if docstring and len(body) > 1 else body[0]
    lines = [top - 1, *range(node.lineno + 1, first.lineno)]
    return any(comments.get(n, "").startswith(LONG) and comments[n][len(LONG):].strip() for n in lines)


def oversized(source: str, name: str, *, long_module: bool = False) -> list[str]:
    """The limits a module breaks: ``name: N lines`` (unless ``long_module``: its length has a reason) and
    ``name:LINE function: N lines`` for each long function whose length no comment explains."""
    found = []
    lines = len(source.splitlines())
    if lines > MAX_MODULE_LINES and not long_module:
        found.append(f"{name}: {lines} lines")
    comments = _comments(source)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES and not _says_why(node, comments):
                found.append(f"{name}:{node.lineno} {node.name}: {length} lines")
    return found


def _function(lines: int, *, head: str = "", first: str = "", docstring: bool = False, kind: str = "def") -> str:
    """A function of ``lines`` lines (its def line included)."""
    body = ['    """Doc."""'] if docstring else []
    body += [first] if first else []
    body += ["    x = 1"] * (lines - 1 - len(body))
    return "\n".join([*([head] if head else []), f"{kind} f():", *body]) + "\n"


@pytest.mark.parametrize("source, found", [
    (_function(MAX_FUNCTION_LINES), []),
    (_function(MAX_FUNCTION_LINES + 1), ["m.py:1 f: 81 lines"]),
    (_function(MAX_FUNCTION_LINES + 1, kind="async def"), ["m.py:1 f: 81 lines"]),
    (_function(MAX_FUNCTION_LINES + 1, head="# long: one branch per field of the record"), []),
    (_function(MAX_FUNCTION_LINES + 1, first="    # long: one branch per field of the record"), []),
    (_function(MAX_FUNCTION_LINES + 1, docstring=True, first="    # long: one branch per field"), []),
    (_function(MAX_FUNCTION_LINES + 1, head="# long:"), ["m.py:2 f: 81 lines"]),  # a reason is needed
    (_function(MAX_FUNCTION_LINES + 1, head="# too long: sorry"), ["m.py:2 f: 81 lines"]),
    (_function(MAX_FUNCTION_LINES + 1, first="    x = '# long: inside a string is no comment'"), ["m.py:1 f: 81 lines"]),
    ("@decorated\n" + _function(MAX_FUNCTION_LINES + 1), ["m.py:2 f: 81 lines"]),
    ("# long: above the decorators\n@decorated\n" + _function(MAX_FUNCTION_LINES + 1), []),
    ("class C:\n" + "".join("    " + ln + "\n" for ln in _function(MAX_FUNCTION_LINES + 1).splitlines()),
     ["m.py:2 f: 81 lines"]),  # a method
    ("x = 1\n" * MAX_MODULE_LINES, []),
    ("x = 1\n" * (MAX_MODULE_LINES + 1), ["m.py: 551 lines"]),
])
def test_the_checker_finds_what_is_over_the_limits(source, found) -> None:
    assert oversized(source, "m.py") == found


def test_a_long_module_with_a_reason_still_has_its_functions_checked() -> None:
    source = "x = 1\n" * MAX_MODULE_LINES + _function(MAX_FUNCTION_LINES + 1)
    assert oversized(source, "m.py", long_module=True) == ["m.py:551 f: 81 lines"]
    assert oversized(source, "m.py") == ["m.py: 631 lines", "m.py:551 f: 81 lines"]


def modules() -> list[Path]:
    return [p for top in PACKAGES for p in sorted((ROOT / top).rglob("*.py"))]


def test_no_module_or_function_over_the_limits() -> None:
    paths = modules()
    assert len(paths) > 150  # the three packages, sub-packages included
    found = [f for p in paths for name in [p.relative_to(ROOT).as_posix()]
             for f in oversized(p.read_text(encoding="utf-8"), name, long_module=name in LONG_MODULES)]
    assert found == []


def test_each_long_module_is_still_over_the_limit() -> None:
    stale = [name for name in LONG_MODULES if not (ROOT / name).is_file()
             or len((ROOT / name).read_text(encoding="utf-8").splitlines()) <= MAX_MODULE_LINES]
    assert stale == []
