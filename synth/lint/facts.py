"""Facts: what the caller knows and the skill cannot say — the run's sources, the
deprecations the fresh sources state, the tools and MCP servers that exist, the
catalogue of neighbouring skills.

Every field is optional. A rule whose fact is missing does not run and says so
as an X1 finding. The facts file (``skill3 lint --facts FILE``) is one JSON
object, every key optional, unknown keys refused (a typo would otherwise
silently skip a rule), keys starting with ``_`` or ``$`` ignored (comments);
paths are relative to the facts file. Keys: ``run`` (path to a run.json, or
the object), ``used_sources`` (URLs), ``stale`` (list of {pattern, what,
instead}; pattern is a regex), ``tools`` (tool names), ``mcp`` (server ->
tool names), ``catalogue`` (folder of skill folders), ``budget`` ({lines,
tokens}). docs/lint.md has an example.

A run (``run.json``) is read tolerantly: URLs come from ``sources`` (objects
with ``url`` and/or ``final_url``, or plain strings) and from ``used_sources``
(a list of URLs or of such objects); a bare JSON list of URLs is accepted too.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synth.lint.model import LintError
from synth.skill.structure import DEFAULT_MAX_LINES

DEFAULT_MAX_TOKENS = 5000


@dataclass(frozen=True)
class StaleConstruct:
    """A construct the fresh sources mark removed or deprecated. ``pattern`` is a regex."""

    pattern: str
    what: str
    instead: str = ""

    @property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.pattern)


@dataclass(frozen=True)
class Facts:
    """What the caller knows. ``None`` means "not known": the rules needing it are skipped (X1)."""

    used_sources: frozenset[str] | None = None
    stale: tuple[StaleConstruct, ...] | None = None
    tools: frozenset[str] | None = None
    mcp: dict[str, frozenset[str]] | None = None
    catalogue: Path | None = None
    max_lines: int = DEFAULT_MAX_LINES
    max_tokens: int = DEFAULT_MAX_TOKENS

    def has(self, name: str) -> bool:
        return getattr(self, name) is not None

    @classmethod
    def for_run(cls, run: Any, stale: Any = None, **fields: Any) -> "Facts":
        """Facts for a synthesis draft: the URLs of ``run`` (a run.json object) plus optional
        ``stale`` constructs (StaleConstruct or {pattern, what, instead} dicts) and other fields."""
        constructs = None
        if stale is not None:
            constructs = tuple(s if isinstance(s, StaleConstruct) else _stale(s, i) for i, s in enumerate(stale))
        return cls(used_sources=frozenset(run_source_urls(run)), stale=constructs, **fields)

    @classmethod
    def from_dict(cls, data: Any, base_dir: Path | None = None) -> "Facts":
        """Build facts from the facts-file object; raises LintError with a one-line reason."""
        base = base_dir or Path.cwd()
        if not isinstance(data, dict):
            raise LintError("facts must be a JSON object")
        known = {"run", "used_sources", "stale", "tools", "mcp", "catalogue", "budget"}
        unknown = sorted(k for k in data if k not in known and not str(k).startswith(("_", "$")))
        if unknown:
            raise LintError(f"unknown facts key(s): {', '.join(unknown)} (known: {', '.join(sorted(known))})")

        used = _used_sources(base, data)
        stale = tuple(_stale(entry, i) for i, entry in enumerate(_list(data["stale"], "stale"))) if "stale" in data else None
        tools = frozenset(_strings(data["tools"], "tools")) if "tools" in data else None
        mcp = _mcp(data["mcp"]) if "mcp" in data else None
        catalogue = _catalogue(base, data["catalogue"]) if "catalogue" in data else None
        budget = _budget(data.get("budget", {}))

        return cls(
            used_sources=frozenset(used) if used is not None else None,
            stale=stale,
            tools=tools,
            mcp=mcp,
            catalogue=catalogue,
            max_lines=budget.get("lines", DEFAULT_MAX_LINES),
            max_tokens=budget.get("tokens", DEFAULT_MAX_TOKENS),
        )



def _used_sources(base: Path, data: dict) -> set[str] | None:
    """The URLs the run used: its run.json's (``run``: the object or a path to it) and ``used_sources``."""
    used: set[str] | None = None
    if "run" in data:
        run = data["run"]
        if isinstance(run, str):
            run = _read_json(_resolve(base, run), "run")
        used = set(run_source_urls(run))
    if "used_sources" in data:
        used = (used or set()) | set(_urls(data["used_sources"], "used_sources"))
    return used


def _mcp(value: Any) -> dict[str, frozenset[str]]:
    if not isinstance(value, dict):
        raise LintError("facts 'mcp' must be an object: server name -> list of tool names")
    return {str(s): frozenset(_strings(t, f"mcp.{s}")) for s, t in value.items()}


def _catalogue(base: Path, value: Any) -> Path:
    if not isinstance(value, str):
        raise LintError("facts 'catalogue' must be a folder path")
    catalogue = _resolve(base, value)
    if not catalogue.is_dir():
        raise LintError(f"facts 'catalogue' is not a folder: {catalogue}")
    return catalogue


def _budget(budget: Any) -> dict:
    if not isinstance(budget, dict) or set(budget) - {"lines", "tokens"}:
        raise LintError("facts 'budget' must be an object with 'lines' and/or 'tokens'")
    for key in budget:
        if not isinstance(budget[key], int) or isinstance(budget[key], bool) or budget[key] < 1:
            raise LintError(f"facts 'budget.{key}' must be a positive integer")
    return budget


def load_facts(path: str | Path) -> Facts:
    """Read a facts file; raises LintError (one line) when it cannot be used."""
    path = Path(path)
    return Facts.from_dict(_read_json(path, "facts"), base_dir=path.parent)


def run_source_urls(run: Any) -> list[str]:
    """The URLs a run used, from a tolerant reading of run.json (see module doc)."""
    if isinstance(run, list):
        return _urls(run, "run")
    if not isinstance(run, dict):
        raise LintError("run must be a JSON object with 'sources' or 'used_sources'")
    if "sources" not in run and "used_sources" not in run:
        raise LintError("run has neither 'sources' nor 'used_sources'")
    out: list[str] = []
    for key in ("sources", "used_sources"):
        if key in run:
            out.extend(_urls(run[key], f"run.{key}"))
    return out


def _resolve(base: Path, value: str) -> Path:
    p = Path(value).expanduser()
    return p if p.is_absolute() else base / p


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LintError(f"{what} file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LintError(f"cannot read {what} file {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise LintError(f"{what} file {path} is not valid JSON: {exc.msg} at line {exc.lineno}") from None


def _list(value: Any, key: str) -> list:
    if not isinstance(value, list):
        raise LintError(f"facts '{key}' must be a list")
    return value


def _strings(value: Any, key: str) -> list[str]:
    items = _list(value, key)
    if not all(isinstance(v, str) for v in items):
        raise LintError(f"facts '{key}' must be a list of strings")
    return items


def _urls(value: Any, key: str) -> list[str]:
    out = []
    for item in _list(value, key):
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            for k in ("url", "final_url"):
                if isinstance(item.get(k), str) and item[k]:
                    out.append(item[k])
        else:
            raise LintError(f"'{key}' entries must be URLs or objects with 'url'")
    return out


def _stale(entry: Any, i: int) -> StaleConstruct:
    if not isinstance(entry, dict) or not isinstance(entry.get("pattern"), str) or not entry["pattern"]:
        raise LintError(f"facts 'stale[{i}]' must be an object with a non-empty 'pattern'")
    try:
        re.compile(entry["pattern"])
    except re.error as exc:
        raise LintError(f"facts 'stale[{i}].pattern' is not a valid regex: {exc}") from None
    what = entry.get("what") or entry["pattern"]
    instead = entry.get("instead") or ""
    if not isinstance(what, str) or not isinstance(instead, str):
        raise LintError(f"facts 'stale[{i}]' 'what' and 'instead' must be strings")
    return StaleConstruct(entry["pattern"], what, instead)
