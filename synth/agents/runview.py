"""A run folder (``run.json`` + skill folder) or a bare skill folder, read back for diff, export, search and MCP.

:func:`load` takes either: a skill folder (holding ``SKILL.md``; its run is the parent folder when that
folder's skill3 ``run.json`` names it), a ``SKILL.md`` file, or a run folder (holding skill3's ``run.json``,
whose ``written.skill_dir`` names the skill folder). Every read is bounded (file sizes, file counts, entry
counts); a path that is neither is an :class:`~synth.agents.AgentsError` naming the fix.

Change entries come from run.json ``delta.entries`` (the delta's contract: version, kind, area, text, url,
file, use, instead_of). An older run.json without them falls back to the skill's own bullet lines
(SKILL.md and ``references/*.md``), their ``[n]`` citations resolved through the Sources section.
Versions come from ``delta.versions``, else the older ``delta.timeline``; sources from ``used_sources``,
else the Sources section.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from synth.agents import AgentsError
from synth.delta.model import ENTRY_KINDS, MAX_ROW_TEXT, DeltaEntry
from synth.output.ownership import skill3_manifest
from synth.skill.frontmatter import split_frontmatter
from synth.skill.markdown import CITATION, citation_numbers, fence_state, find_sources, heading_title

MAX_SKILL_BYTES = 2 << 20  # one SKILL.md or reference file
MAX_REFERENCE_FILES = 200
MAX_RUN_JSON_BYTES = 256 << 20
MAX_ENTRIES = 5000
MAX_TEXT = MAX_ROW_TEXT
KINDS = ENTRY_KINDS
_BULLET = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+(?P<text>.+)$")
_VERSION = re.compile(r"\b(?:in|since|version|v)\s*(\d+(?:\.\d+){1,3}(?:[a-z]+\d*)?)\b", re.I)
_USE = re.compile(r"\buse\s+(`[^`\n]{1,120}`)", re.I)
_INSTEAD_OF = re.compile(r"\binstead\s+of\s+(`[^`\n]{1,120}`)", re.I)
_SKIP_HEADINGS = re.compile(r"^(?:sources|references)\b", re.I)


Entry = DeltaEntry  # a change of the delta as run.json's ``delta.entries`` row or a skill's bullet line states it


@dataclass
class RunView:
    """A skill read back: its folder, files and frontmatter, and (when there is one) its run.json."""

    skill_dir: Path
    skill_md: str
    references: dict[str, str]
    frontmatter: dict[str, Any]
    out_dir: Path | None = None
    manifest: dict[str, Any] | None = None
    entries_source: str = ""
    _entries: list[Entry] | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        name = self.frontmatter.get("name")
        return name if isinstance(name, str) and name else self.skill_dir.name

    @property
    def metadata(self) -> dict[str, Any]:
        meta = self.frontmatter.get("metadata")
        return meta if isinstance(meta, dict) else {}

    @property
    def version(self) -> str:
        return str(self.metadata.get("version") or "")

    @property
    def description(self) -> str:
        d = self.frontmatter.get("description")
        return d if isinstance(d, str) else ""

    @property
    def cutoff(self) -> str:
        if self.metadata.get("cutoff"):
            return str(self.metadata["cutoff"])
        cut = (self.manifest or {}).get("cutoff")
        return str(cut.get("month") or "") if isinstance(cut, dict) else ""

    @property
    def learned_date(self) -> str:
        return str(self.metadata.get("learned-date") or (self.manifest or {}).get("today") or "")

    @property
    def target_model(self) -> str:
        return str(self.metadata.get("target-model") or (self.manifest or {}).get("target_model") or "")

    @property
    def topic(self) -> str:
        topic = (self.manifest or {}).get("topic")
        return topic if isinstance(topic, str) and topic else self.name

    def files(self) -> dict[str, str]:
        """The skill's text files by path relative to the skill folder."""
        return {"SKILL.md": self.skill_md, **self.references}

    def delta(self) -> dict[str, Any]:
        d = (self.manifest or {}).get("delta")
        return d if isinstance(d, dict) else {}

    def entries(self) -> list[Entry]:
        """The post-cutoff change entries (``delta.entries``, else the skill's bullet lines)."""
        if self._entries is None:
            raw = self.delta().get("entries")
            if isinstance(raw, list):
                self._entries, self.entries_source = entries_from_manifest(raw), "run.json delta.entries"
            else:
                self._entries, self.entries_source = entries_from_skill(self.files()), "the skill's bullet lines"
        return self._entries

    def versions(self) -> list[dict[str, Any]]:
        """``{"version", "date", "state", "how"}`` rows: ``delta.versions``, else the older ``delta.timeline``."""
        d = self.delta()
        rows: list[dict[str, Any]] = []
        if isinstance(d.get("versions"), list):
            for v in d["versions"][:MAX_ENTRIES]:
                if isinstance(v, dict) and isinstance(v.get("version"), str):
                    rows.append({"version": v["version"], "date": v.get("date") if isinstance(v.get("date"), str) else None,
                                 "state": str(v.get("state") or "undated"), "how": str(v.get("how") or "")})
            return rows
        start = f"{self.cutoff}-01" if re.fullmatch(r"\d{4}-\d{2}", self.cutoff) else ""
        for v in (d.get("timeline") or [])[:MAX_ENTRIES] if isinstance(d.get("timeline"), list) else []:
            if isinstance(v, dict) and isinstance(v.get("version"), str):
                date = v.get("date") if isinstance(v.get("date"), str) else None
                state = "undated" if not date or not start else ("post" if date >= start else "pre")
                rows.append({"version": v["version"], "date": date, "state": state, "how": "delta.timeline"})
        return rows

    def sources(self) -> list[str]:
        """The URLs the skill was built from: run.json ``used_sources``, else its Sources section."""
        used = (self.manifest or {}).get("used_sources")
        if isinstance(used, list):
            return [u for u in used[:MAX_ENTRIES] if isinstance(u, str)]
        sec = find_sources(_body(self.skill_md))
        return sec.urls() if sec else []


def _read_text(path: Path, limit: int = MAX_SKILL_BYTES) -> str:
    try:
        with path.open("rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise AgentsError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise AgentsError(f"{path} is larger than {limit >> 20} MB; not a skill3 skill file")
    return data.decode("utf-8", errors="replace")


def _body(skill_md: str) -> str:
    return split_frontmatter(skill_md).body


def read_frontmatter_map(skill_md: str) -> dict[str, Any]:
    """The parsed frontmatter, or {} when it is missing or not a mapping."""
    split = split_frontmatter(skill_md)
    if not split.has_frontmatter or split.error:
        return {}
    try:
        data = yaml.safe_load(split.yaml_text)
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def _manifest(out_dir: Path) -> dict[str, Any] | None:
    path = out_dir / "run.json"
    try:
        if not path.is_file() or path.stat().st_size > MAX_RUN_JSON_BYTES:
            return None
    except OSError:
        return None
    return skill3_manifest(out_dir)


def _written_skill(man: dict[str, Any]) -> str | None:
    w = man.get("written")
    name = w.get("skill_dir") if isinstance(w, dict) else None
    if not isinstance(name, str) or not name or "/" in name or "\\" in name or name.startswith("."):
        return None
    return name


def load(path: str | Path) -> RunView:
    """The run or skill at ``path`` (see the module docstring)."""
    p = Path(path)
    if not p.exists():
        raise AgentsError(f"{p} does not exist; pass a skill folder (holding SKILL.md) or a skill3 run folder (holding run.json)")
    if p.is_file():
        if p.name != "SKILL.md":
            raise AgentsError(f"{p} is a file; pass a skill folder (holding SKILL.md) or a skill3 run folder (holding run.json)")
        p = p.parent
    out_dir: Path | None = None
    man: dict[str, Any] | None = None
    if (p / "SKILL.md").is_file():
        skill_dir = p
        parent = _manifest(p.parent)
        if parent is not None and _written_skill(parent) == p.name:
            out_dir, man = p.parent, parent
    else:
        man = _manifest(p)
        name = _written_skill(man) if man else None
        if man is None:
            raise AgentsError(f"{p} holds neither a SKILL.md nor skill3's run.json; pass a skill folder or a skill3 run folder")
        if name is None or not (p / name / "SKILL.md").is_file():
            raise AgentsError(f"{p}/run.json names no skill folder holding a SKILL.md (was it moved?); pass the skill folder itself")
        skill_dir, out_dir = p / name, p
    skill_md = _read_text(skill_dir / "SKILL.md")
    refs: dict[str, str] = {}
    ref_dir = skill_dir / "references"
    if ref_dir.is_dir() and not ref_dir.is_symlink():
        files = sorted(f for f in ref_dir.glob("*.md") if f.is_file() and not f.is_symlink())
        for f in files[:MAX_REFERENCE_FILES]:
            refs[f"references/{f.name}"] = _read_text(f)
    return RunView(skill_dir=skill_dir, skill_md=skill_md, references=refs, frontmatter=read_frontmatter_map(skill_md),
                   out_dir=out_dir, manifest=man)


# --------------------------------------------------------------------------- entries


def _str(value: Any, limit: int = MAX_TEXT) -> str:
    return " ".join(value.split())[:limit] if isinstance(value, str) else ""


def _opt(value: Any) -> str | None:
    s = _str(value, 300)
    return s or None


def entries_from_manifest(raw: list[Any]) -> list[Entry]:
    """run.json ``delta.entries`` as :class:`Entry` rows (:meth:`DeltaEntry.from_dict`); malformed rows are skipped,
    text capped."""
    return [e for row in raw[:MAX_ENTRIES] if (e := DeltaEntry.from_dict(row)) is not None]


def _source_urls(skill_md: str) -> dict[int, str]:
    sec = find_sources(_body(skill_md))
    return {e.number: e.url for e in sec.entries if e.number is not None and e.url} if sec else {}


_REMOVED = re.compile(r"^removed\b|\b(?:is|are|was|were|has been|have been)\s+(?:now\s+)?removed\b", re.I)
# the skill's own section names say nothing about a change's area
_STANDARD_SECTIONS = re.compile(r"^(?:overview|when to use|instructions|examples?|modern vs\.? deprecated|usage)\b", re.I)


_LABEL = re.compile(r"^(?:added|new|changed|deprecated|removed)\s+in\s+[\w.]+(?:,\s*removed\s+in\s+[\w.]+)?\s*:\s*", re.I)
_ISSUE = re.compile(r"^\[?[\w-]*\d+\]?(?:\([^)]*\))?\s*:\s*")  # "[gh-123](url): " before a changelog entry


def _kind(heading: str, text: str) -> str:
    label = _LABEL.match(text)
    low = _ISSUE.sub("", text[label.end():] if label else text).lower()
    if low.startswith(("fix ", "fixes ", "fixed ", "fix:")):
        return "fixed"
    if label:
        word = label.group(0).split()[0].lower()
        return {"new": "added"}.get(word, word) if word != "deprecated" or not _REMOVED.search(text) else "deprecated"
    low = text.lower()
    if _REMOVED.search(text):
        return "removed"
    if re.search(r"deprecat|modern", heading, re.I) or re.search(r"\bdeprecat", low):
        return "deprecated"
    if low.startswith(("added", "new ")):
        return "added"
    return "changed"


def entries_from_skill(files: dict[str, str]) -> list[Entry]:
    """The skill's bullet lines (outside fences and the Sources section) as entries, their ``[n]`` citations
    resolved through SKILL.md's Sources section (the first cited URL is the entry's ``url``)."""
    urls = _source_urls(files.get("SKILL.md", ""))
    out: list[Entry] = []
    for rel, text in files.items():
        body = _body(text) if rel == "SKILL.md" else text
        heading = ""
        for line, fenced in zip(body.split("\n"), fence_state(body)):
            if fenced:
                continue
            title = heading_title(line)
            if title is not None:
                heading = title.strip()
                continue
            if _SKIP_HEADINGS.match(heading):
                continue
            m = _BULLET.match(line)
            if not m:
                continue
            raw = m.group("text")
            nums = [n for c in CITATION.finditer(raw) for n in citation_numbers(c.group(1))]
            clean = " ".join(CITATION.sub("", raw).split())
            if len(clean) < 12:
                continue
            version = _VERSION.search(clean)
            use, instead = _USE.search(clean), _INSTEAD_OF.search(clean)
            area = "" if _STANDARD_SECTIONS.match(heading) else heading
            out.append(Entry.stated(version=version.group(1) if version else "", kind=_kind(heading, clean), area=area,
                             text=clean[:MAX_TEXT], url=next((urls[n] for n in nums if n in urls), ""), file=rel,
                             use=use.group(1) if use else None, instead_of=instead.group(1) if instead else None))
            if len(out) >= MAX_ENTRIES:
                return out
    return out


def load_json(path: Path) -> Any:
    """A JSON file (bounded), or AgentsError."""
    return json.loads(_read_text(path, MAX_RUN_JSON_BYTES))


MAX_SKILLS = 500


def discover(root: str | Path) -> list[RunView]:
    """The skills under an output root: the root itself when it is a run or skill folder, else each child folder
    that is one (hidden folders such as ``.history`` skipped; at most ``MAX_SKILLS``). Unreadable ones are skipped."""
    return [v for v in (_try_load(c) for c in candidates(root)) if v is not None][:MAX_SKILLS]


def candidates(root: str | Path) -> list[Path]:
    """The folders :func:`discover` looks at (the root, or its visible child folders; bounded)."""
    root = Path(root)
    if not root.is_dir():
        raise AgentsError(f"{root} is not a folder; pass the output root holding the run folders (default output/)")
    if (root / "SKILL.md").is_file() or (root / "run.json").is_file():
        return [root]
    return sorted(c for c in root.iterdir() if c.is_dir() and not c.is_symlink() and not c.name.startswith("."))[: MAX_SKILLS * 4]


def _try_load(path: Path) -> RunView | None:
    try:
        return load(path)
    except AgentsError:
        return None


def stamp(path: Path) -> tuple:
    """What changes when a run or skill folder is rewritten (run.json and SKILL.md times and sizes)."""
    out: list[tuple[int, int] | None] = []
    for f in (path / "run.json", path / "SKILL.md"):
        try:
            st = f.stat()
            out.append((st.st_mtime_ns, st.st_size))
        except OSError:
            out.append(None)
    return tuple(out)
