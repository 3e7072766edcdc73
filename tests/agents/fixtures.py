"""Run folders as skill3 writes them, built from tables: the delta's contract (``delta.entries``,
``delta.versions``), a skill folder (SKILL.md + references/*.md) and a skill3 run.json."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from mcp.client.stdio import StdioServerParameters

from synth.output.manifest import SCHEMA

ROOT = Path(__file__).resolve().parents[2]


def params(root: Path | None, *extra: str, env: dict | None = None, cwd: Path = ROOT) -> StdioServerParameters:
    """`skill3 mcp` over stdio as a child process, with its own SKILL3_HOME (under ``root``, else ``cwd``)."""
    args = ["-m", "skill3", "mcp", *(["--root", str(root)] if root is not None else []), *extra]
    return StdioServerParameters(command=sys.executable, args=args, cwd=str(cwd),
                                 env={"SKILL3_HOME": str((root or cwd) / ".skill3-home"), "PATH": os.environ.get("PATH", ""),
                                      **(env or {})})


def data(result) -> dict:
    """A tool result's JSON, failing the test with the server's own message when the call errored."""
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


def entry(version: str, kind: str, text: str, url: str, *, area: str = "", file: str | None = None,
          use: str | None = None, instead_of: str | None = None) -> dict:
    return {"version": version, "kind": kind, "area": area, "text": text, "url": url, "file": file,
            "use": use, "instead_of": instead_of}


FROB_CHANGES, FROB_WHATSNEW = "https://frob.example/changes", "https://frob.example/whatsnew/3.0"


def frob_entries() -> list[dict]:
    """The frob skill's delta the MCP tests serve: an addition and a removal in 3.0, a deprecation with its
    replacement in 2.9."""
    a, b = FROB_CHANGES, FROB_WHATSNEW
    return [
        entry("3.0", "added", "`frob.stream()` streams frames from a channel as an asynchronous iterator.", a, area="streams",
              file="references/streams.md"),
        entry("3.0", "removed", "The `frob.legacy` module is gone.", a),
        entry("2.9", "deprecated", "`frob.open()` is deprecated in favour of `frob.connect()`.", b,
              use="`frob.connect()`", instead_of="`frob.open()`")]


def make_run(out: Path, *, name: str = "frob", topic: str = "frob", cutoff: str = "2026-01", version: str = "1.0.0",
             learned: str = "2026-11-01", entries: list[dict] | None = None, versions: list[dict] | None = None,
             used_sources: list[str] | None = None, references: dict[str, str] | None = None,
             body: str | None = None, with_entries: bool = True) -> Path:
    """Write ``out/run.json`` and ``out/<name>/`` (SKILL.md + references); returns ``out``."""
    entries = entries or []
    used = used_sources if used_sources is not None else sorted({e["url"] for e in entries})
    skill = out / name
    (skill / "references").mkdir(parents=True, exist_ok=True)
    cites = {u: i for i, u in enumerate(used, 1)}
    lines = body or "\n".join(f"- {e['text']} [{cites[e['url']]}]" for e in entries if e["url"] in cites)
    sources = "\n".join(f"- [{i}] Source {i} — {u}" for u, i in cites.items())
    (skill / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: What changed in {topic} after the {cutoff} cutoff.\nmetadata:\n"
        f"  version: {version}\n  learned-date: '{learned}'\n  target-model: claude-opus-4-8\n  cutoff: {cutoff}\n---\n"
        f"# {topic}: what changed after {cutoff}\n\n## Instructions\n\n{lines}\n\n## Sources\n\n{sources}\n", encoding="utf-8")
    for rel, text in (references or {}).items():
        (skill / rel).write_text(text, encoding="utf-8")
    delta: dict = {"timeline": [], "boundary": {}}
    if with_entries:
        delta["entries"] = entries
        delta["versions"] = versions or []
    man = {"schema": SCHEMA, "topic": topic, "target_model": "claude-opus-4-8", "cutoff": {"month": cutoff, "source": "test"},
           "today": learned, "used_sources": used, "delta": delta, "skill": {"name": name},
           "written": {"skill_dir": name, "files": ["run.json", f"{name}/SKILL.md"]}, "gate": {"blocking": 0}}
    (out / "run.json").write_text(json.dumps(man, indent=2), encoding="utf-8")
    return out
