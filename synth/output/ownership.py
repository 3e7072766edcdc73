"""What in an output folder skill3 wrote, so it never deletes or overwrites anything else.

skill3 writes three things into ``<output_dir>``: ``run.json`` (recognised by its ``schema``
``skill3.run/...``), ``index.html`` (recognised by its ``<meta name="generator" content="skill3">``
tag, or the ``— skill3 preview`` title of earlier versions) and one skill folder, whose name its
own ``run.json`` records (``written`` and ``skill.name``). The skill folder carries no marker of
its own: it must hold nothing but skill files.

- a ``run.json`` or ``index.html`` that skill3 did not write: refuse (one line naming the file and
  the fix), before any model call;
- a skill folder named like a folder (or file) skill3 did not write: the skill is written beside
  it as ``<name>-2`` (``-3``, ...), its frontmatter ``name`` changed to match, with a warning.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from synth.core.errors import (
    OwnershipError,  # noqa: F401 - defined with every error (synth.core.errors)
    SynthFailure,
)
from synth.output.manifest import SCHEMA
from synth.skill.spec import MAX_NAME

GENERATOR_META = '<meta name="generator" content="skill3">'
_OLD_PREVIEW = re.compile(r"<title>[^<]*— skill3 preview</title>")
_SCHEMA_FAMILY = SCHEMA.split("/", 1)[0] + "/"  # "skill3.run/"


def _read_head(path: Path, limit: int = 1 << 20) -> str | None:
    try:
        with path.open("rb") as fh:
            return fh.read(limit).decode("utf-8", errors="replace")
    except OSError:
        return None


def skill3_manifest(out_dir: Path) -> dict | None:
    """``<out_dir>/run.json`` when skill3 wrote it, else None."""
    try:
        data = json.loads((out_dir / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(data, dict) and isinstance(data.get("schema"), str) and data["schema"].startswith(_SCHEMA_FAMILY):
        return data
    return None


def is_skill3_preview(path: Path) -> bool:
    head = _read_head(path, 4096)
    return head is not None and (GENERATOR_META in head or _OLD_PREVIEW.search(head) is not None)


def check_outputs(out_dir: Path) -> None:
    """Raise OwnershipError when ``run.json`` or ``index.html`` exists in ``out_dir`` and skill3 did not write it."""
    run_json = out_dir / "run.json"
    if (run_json.exists() or run_json.is_symlink()) and (run_json.is_symlink() or skill3_manifest(out_dir) is None):
        raise OwnershipError(f"{run_json} exists and was not written by skill3 (no skill3 schema); "
                             "move it away or pass another --output-dir")
    index = out_dir / "index.html"
    if (index.exists() or index.is_symlink()) and (index.is_symlink() or not is_skill3_preview(index)):
        raise OwnershipError(f"{index} exists and was not written by skill3 (no skill3 generator tag); "
                             "move it away or pass another --output-dir")


def owned_skill_dirs(out_dir: Path) -> set[str]:
    """Names of the skill folders in ``out_dir`` that skill3's own run.json says it wrote."""
    man = skill3_manifest(out_dir)
    if man is None:
        return set()
    names: set[str] = set()
    skill = man.get("skill")
    if isinstance(skill, dict) and isinstance(skill.get("name"), str):
        names.add(skill["name"])
    written = man.get("written")
    if isinstance(written, dict) and isinstance(written.get("skill_dir"), str):
        names.add(written["skill_dir"])
    return {n for n in names if n and "/" not in n and "\\" not in n and not n.startswith(".")}


def free_skill_name(out_dir: Path, name: str, owned: set[str]) -> str:
    """``name`` when ``out_dir/name`` is free or skill3's own; else the first free or owned ``name-2``, ``name-3``..."""
    def usable(candidate: str) -> bool:
        path = out_dir / candidate
        return candidate in owned and path.is_dir() and not path.is_symlink() or not (path.exists() or path.is_symlink())

    if usable(name):
        return name
    for k in range(2, 1000):
        suffix = f"-{k}"
        base = name[: MAX_NAME - len(suffix)].rstrip("-")
        candidate = base + suffix
        if usable(candidate):
            return candidate
    raise OwnershipError(f"{out_dir} holds {name} and {name}-2..{name}-999 that skill3 did not write; pass another --output-dir")


def check_owned_outputs(out_dir: Path) -> None:
    """Refuse (exit 2) a run.json/index.html in ``out_dir`` that skill3 did not write."""
    try:
        check_outputs(out_dir)
    except OwnershipError as exc:
        raise SynthFailure(2, str(exc)) from None
