"""``skill3 install``: copy a skill folder where an agent loads skills, and take back out only what was copied.

Where each agent loads skills (``AGENTS``), from its own documentation:

- Claude Code: ``.claude/skills/<name>/`` in a project, ``~/.claude/skills/<name>/`` for the user — Claude
  Code docs, "Extend Claude with skills" (code.claude.com/docs/en/skills);
- Codex: ``.agents/skills/<name>/`` in a repository (Codex scans ``.agents/skills`` from the working
  directory up to the repository root), ``~/.agents/skills/<name>/`` for the user — OpenAI Codex docs,
  "Agent Skills" (developers.openai.com/codex/skills), the same two folders in the Codex row of VS Code's
  "Agent Skills reference";
- Cursor: ``.cursor/skills/<name>/`` in a project, ``~/.cursor/skills/<name>/`` for the user — Cursor docs,
  "Agent Skills" (cursor.com/docs/context/skills), section "Skill directories".

What skill3 installed is recorded in ``<skills folder>/.skill3-installed.json`` (per skill: the files with
their sha256, the source, the version, when). Install refuses a folder of that name it did not install, a
file there that it did not write, and a file it wrote that was changed since; ``--uninstall`` removes only
the recorded files that are unchanged (and the folders left empty), so the user's own files stay.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from synth.agents import AgentsError, linked_part, no_links
from synth.agents.runview import load

RECORD = ".skill3-installed.json"
RECORD_SCHEMA = "skill3.install/1"
MAX_FILES = 500
MAX_TOTAL_BYTES = 32 << 20


@dataclass(frozen=True)
class Agent:
    name: str
    project: str  # relative to the project folder
    user: str  # relative to the home folder
    doc: str


AGENTS = {
    "claude-code": Agent("claude-code", ".claude/skills", ".claude/skills",
                         "Claude Code docs, 'Extend Claude with skills' (code.claude.com/docs/en/skills)"),
    "codex": Agent("codex", ".agents/skills", ".agents/skills",
                   "OpenAI Codex docs, 'Agent Skills' (developers.openai.com/codex/skills)"),
    "cursor": Agent("cursor", ".cursor/skills", ".cursor/skills",
                    "Cursor docs, 'Agent Skills', Skill directories (cursor.com/docs/context/skills)"),
}


@dataclass
class InstallResult:
    dest: Path
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # files left alone (the user's own, or changed since install)
    doc: str = ""


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def skills_root(agent: str, *, project: Path | None = None, user: bool = False, home: Path | None = None) -> Path:
    """The folder ``agent`` loads skills from: in ``project`` (default: the working folder) or, ``user``, in the home folder."""
    if agent not in AGENTS:
        raise AgentsError(f"unknown agent {agent!r}; use one of {', '.join(AGENTS)}")
    a = AGENTS[agent]
    if user:
        if project is not None:
            raise AgentsError("give --project DIR or --user, not both")
        base = home or Path.home()
        return base / a.user
    base = project or Path.cwd()
    if not base.is_dir():
        raise AgentsError(f"project folder {base} does not exist; pass an existing --project DIR (or --user)")
    return base / a.project


def _source_files(skill_dir: Path) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    total = 0
    for root, dirs, names in os.walk(skill_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not Path(root, d).is_symlink())
        for n in sorted(names):
            p = Path(root, n)
            if n.startswith(".") or p.is_symlink() or not p.is_file():
                continue
            rel = p.relative_to(skill_dir).as_posix()
            data = p.read_bytes()
            total += len(data)
            files[rel] = data
            if len(files) > MAX_FILES or total > MAX_TOTAL_BYTES:
                raise AgentsError(f"{skill_dir} holds more than {MAX_FILES} files or {MAX_TOTAL_BYTES >> 20} MB; not a skill folder")
    return files


def read_record(root: Path) -> dict[str, Any]:
    path = root / RECORD
    if path.is_symlink():
        raise AgentsError(f"{path} is a symbolic link; skill3 does not trust it")
    if not path.exists():
        return {"schema": RECORD_SCHEMA, "skills": {}}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise AgentsError(f"{path} is not skill3's install record ({exc}); move it away") from None
    if not isinstance(data, dict) or data.get("schema") != RECORD_SCHEMA or not isinstance(data.get("skills"), dict):
        raise AgentsError(f"{path} is not skill3's install record (no {RECORD_SCHEMA} schema); move it away")
    return data


def _write_record(root: Path, data: dict[str, Any]) -> None:
    from synth.output.writing import atomic_write_text

    if not data["skills"]:
        (root / RECORD).unlink(missing_ok=True)
        return
    atomic_write_text(root / RECORD, json.dumps(data, indent=2, sort_keys=True) + "\n")


def _safe_rel(rel: str) -> bool:
    parts = Path(rel).parts
    return bool(parts) and not Path(rel).is_absolute() and ".." not in parts


def install(skill: str | Path, agent: str, *, project: Path | None = None, user: bool = False,
            home: Path | None = None) -> InstallResult:
    """Copy the skill (a skill folder or a run folder) into ``agent``'s skills folder; see the module docstring."""
    from skills_ref.validator import validate

    view = load(skill)
    src = view.skill_dir
    errors = validate(src)
    if errors:
        raise AgentsError(f"{src} is not a valid Agent Skill ({'; '.join(errors)}); nothing was installed")
    name = src.name
    root = skills_root(agent, project=project, user=user, home=home)
    files = _source_files(src)
    root.mkdir(parents=True, exist_ok=True)
    record = read_record(root)
    dest = root / name
    mine = record["skills"].get(name)
    result = InstallResult(dest=dest, doc=AGENTS[agent].doc)
    if dest.is_symlink() or (dest.exists() and not dest.is_dir()):
        raise AgentsError(f"{dest} exists and is not a folder skill3 installed; it was left alone")
    if dest.exists():
        _replace(dest, _recorded_files(dest, mine, files, root), files, result)
    else:
        staging = Path(tempfile.mkdtemp(prefix=".skill3-install-", dir=root))
        try:
            for rel, data in files.items():
                p = staging / rel
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_bytes(data)
            os.rename(staging, dest)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        result.written = sorted(files)
    record["skills"][name] = {
        "agent": agent, "scope": "user" if user else "project", "source": str(src.resolve()), "version": view.version,
        "installed_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "files": {rel: _sha(data) for rel, data in files.items()},
    }
    _write_record(root, record)
    return result


def _recorded_files(dest: Path, mine: Any, files: dict[str, bytes], root: Path) -> dict[str, str]:
    """The files skill3 installed at ``dest`` (relative path → digest), when every one of them is unchanged and
    no file of the new version would replace one skill3 did not install; AgentsError otherwise."""
    if not isinstance(mine, dict):
        raise AgentsError(f"{dest} exists and was not installed by skill3 (not in {root / RECORD}); it was left alone "
                          "(move it away to install there)")
    recorded: dict[str, str] = {k: v for k, v in (mine.get("files") or {}).items() if isinstance(k, str) and _safe_rel(k)}
    for rel in sorted(set(recorded) | set(files)):  # nothing is read, written or removed through a link in the folder
        no_links(dest, dest / rel, "write")
    for rel, digest in recorded.items():
        p = dest / rel
        if p.is_file() and not p.is_symlink() and _sha(p.read_bytes()) != digest:
            raise AgentsError(f"{p} was changed after skill3 installed it; nothing was replaced "
                              "(move your changes away, or uninstall and install again)")
    for rel in files:
        p = dest / rel
        if (p.exists() or p.is_symlink()) and rel not in recorded:
            raise AgentsError(f"{p} exists and was not installed by skill3; nothing was replaced (move it away)")
    return recorded


def _replace(dest: Path, recorded: dict[str, str], files: dict[str, bytes], result: InstallResult) -> None:
    """Install the new version over the previous one skill3 installed: its files written, the ones it no
    longer has removed."""
    for rel in sorted(set(recorded) - set(files)):  # a file the previous version had and this one has not
        p = dest / rel
        if p.is_file() and not p.is_symlink():
            p.unlink()
            result.removed.append(rel)
    for rel, data in files.items():
        _atomic_bytes(dest / rel, data)
        result.written.append(rel)
    _prune_empty(dest, set(recorded) - set(files))


def _atomic_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _prune_empty(dest: Path, rels: set[str]) -> None:
    """Remove the folders of ``rels`` under ``dest`` that are now empty (deepest first)."""
    folders = sorted({(dest / r).parent for r in rels if (dest / r).parent != dest}, key=lambda p: len(p.parts), reverse=True)
    for d in folders:
        try:
            d.rmdir()
        except OSError:
            pass


def uninstall(name_or_skill: str | Path, agent: str, *, project: Path | None = None, user: bool = False,
              home: Path | None = None) -> InstallResult:
    """Remove what skill3 installed for the skill (by name, or the skill folder it was installed from)."""
    root = skills_root(agent, project=project, user=user, home=home)
    name = str(name_or_skill)
    p = Path(name_or_skill)
    if p.is_dir() and ((p / "SKILL.md").is_file() or (p / "run.json").is_file()):
        name = load(p).skill_dir.name
    record: dict[str, Any] = read_record(root) if root.exists() else {"schema": RECORD_SCHEMA, "skills": {}}
    mine = record["skills"].get(name)
    dest = root / name
    if not isinstance(mine, dict):
        raise AgentsError(f"skill3 has not installed {name} in {root} (nothing in {root / RECORD}); nothing was removed")
    result = InstallResult(dest=dest, doc=AGENTS[agent].doc)
    recorded = {k: v for k, v in (mine.get("files") or {}).items() if isinstance(k, str) and _safe_rel(k)}
    if dest.is_dir() and not dest.is_symlink():
        for rel, digest in sorted(recorded.items()):
            f = dest / rel
            if linked_part(dest, f) is not None:  # a link (or a file under a linked folder): never removed through
                result.kept.append(rel)
                continue
            if not f.is_file():
                continue
            if _sha(f.read_bytes()) == digest:
                f.unlink()
                result.removed.append(rel)
            else:
                result.kept.append(rel)
        _prune_empty(dest, set(recorded))
        result.kept += sorted(q.relative_to(dest).as_posix() for q in dest.rglob("*") if q.is_file() or q.is_symlink()
                              if q.relative_to(dest).as_posix() not in result.kept)
        try:
            dest.rmdir()
        except OSError:
            pass
    del record["skills"][name]
    _write_record(root, record)
    return result
