"""A synthesis into an output folder that holds a previous run is a refresh.

:func:`prepare` (after ranking, before any model call) finds the previous run (skill3's ``run.json`` and
its skill folder) and fingerprints what this run would synthesise from: the sources' text and dates and
the options that shape the skill. Then:

- the fingerprint equals the previous run's (``run.json`` ``refresh.fingerprint``): **unchanged**. No model
  is called, the skill folder is not touched (same bytes), ``run.json`` gets ``refresh.status =
  "unchanged"`` and the preview its panel; the exit code is the previous gate's;
- otherwise the skill is synthesised at the previous ``metadata.version``; when its files come out
  byte-identical to the previous skill's, it is unchanged all the same (nothing is rewritten);
- else the version is bumped (minor: 1.0.0 → 1.1.0), the previous run (skill folder, run.json,
  index.html) is copied to ``<output_dir>/.history/<previous version>/`` before anything is replaced (never
  deleted), and run.json's ``refresh`` section records the diff (:mod:`synth.agents.diff`) against it.

``--fresh`` skips the unchanged short cut and the diff (the crawl also ignores its HTTP cache); the
previous run is still archived and the version still goes up, so installed copies see a newer skill.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from synth.agents import AgentsError
from synth.agents.diff import diff_runs, summary_lines
from synth.agents.runview import RunView, load

if TYPE_CHECKING:  # pragma: no cover
    from synth.evidence.cutoff import Cutoff
    from synth.evidence.item import SourceItem
    from synth.skill.postprocess import Skill

_Result = TypeVar("_Result", covariant=True)


# What a refresh reads of the run it is part of (synth.pipeline's SynthOptions, Inputs, Ranked and RunState are
# these): the run calls the refresh, the refresh does not import the run.
class _Options(Protocol):
    @property
    def strict_cutoff(self) -> bool: ...
    @property
    def llm_provider(self) -> str: ...
    @property
    def llm_model(self) -> str | None: ...
    @property
    def llm_endpoint(self) -> str | None: ...
    @property
    def verify(self) -> bool: ...
    @property
    def fresh(self) -> bool: ...


class _Inputs(Protocol):
    @property
    def topic(self) -> str: ...
    @property
    def target_model(self) -> str: ...
    @property
    def cutoff(self) -> Cutoff: ...
    @property
    def context_tokens(self) -> int: ...
    @property
    def out_dir(self) -> Path: ...


class _Candidate(Protocol):
    @property
    def url(self) -> str: ...
    @property
    def item(self) -> SourceItem: ...
    @property
    def post_cutoff(self) -> bool: ...
    @property
    def excerpts(self) -> list[str]: ...
    @property
    def code_blocks(self) -> list[dict]: ...


class _Ranked(Protocol):
    @property
    def candidates(self) -> Sequence[_Candidate]: ...


class _RunState(Protocol[_Result]):
    def result(self, exit_code: int, **fields: Any) -> _Result: ...

HISTORY = ".history"
FIRST_VERSION = "1.0.0"
FINGERPRINT_SCHEMA = "skill3.refresh/1"
_SEMVER = re.compile(r"^(\d+)(?:\.(\d+))?")


def bump(version: str | None) -> str:
    """The next minor version: ``1.0.0`` → ``1.1.0``, ``2.3`` → ``2.4.0``; no previous version → ``1.0.0``."""
    if not version:
        return FIRST_VERSION
    m = _SEMVER.match(version.strip())
    if not m:
        return "1.1.0"
    return f"{int(m.group(1))}.{int(m.group(2) or 0) + 1}.0"


def fingerprint(options: _Options, inputs: _Inputs, ranked: _Ranked) -> str:
    """sha256 of what shapes the skill: every candidate's URL, title, dates and text (order-free), the cutoff,
    the target model, the provider and model asked for, and the options that change the output."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        tool = version("skill3")
    except PackageNotFoundError:  # pragma: no cover
        tool = "0"
    h = hashlib.sha256()
    head = {"schema": FINGERPRINT_SCHEMA, "skill3": tool, "topic": inputs.topic, "cutoff": inputs.cutoff.month,
            "target_model": inputs.target_model, "strict": options.strict_cutoff, "provider": options.llm_provider,
            "model": options.llm_model, "endpoint": options.llm_endpoint, "verify": options.verify,
            "context_tokens": inputs.context_tokens}
    h.update(json.dumps(head, sort_keys=True).encode())
    rows = []
    for c in ranked.candidates:
        it = c.item
        body = json.dumps([c.excerpts, [cb.get("text", "") for cb in c.code_blocks]], ensure_ascii=False)
        rows.append(json.dumps([c.url, it.title, it.published, it.modified, c.post_cutoff,
                                hashlib.sha256(body.encode()).hexdigest()], ensure_ascii=False))
    for row in sorted(rows):
        h.update(row.encode())
        h.update(b"\n")
    return h.hexdigest()


@dataclass
class Refresh:
    """What a run knows about the previous run in its output folder, and what it did about it."""

    out_dir: Path
    fresh: bool
    fingerprint: str
    previous: RunView | None = None
    unchanged: bool = False
    version: str = FIRST_VERSION  # the version the new skill is synthesised at (then bumped when it changed)
    history_dir: Path | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def previous_version(self) -> str | None:
        return self.previous.version or None if self.previous else None

    def previous_answers(self) -> dict[str, str]:
        """The previous run's model answers (run.json ``prompts.answers``) by call key, for a refresh to reuse on the
        same call (none with ``--fresh``): the same model asked the same answers the same."""
        if self.previous is None or self.fresh or not self.previous.manifest:
            return {}
        prompts = self.previous.manifest.get("prompts")
        rows = prompts.get("answers") if isinstance(prompts, dict) else None
        return {str(r["key"]): r["text"] for r in rows or [] if isinstance(r, dict) and isinstance(r.get("key"), str)
                and isinstance(r.get("text"), str)}

    # ---------------------------------------------------------------- the unchanged case

    def same_files(self, skill: Skill) -> bool:
        """The new skill's files are byte-identical to the previous skill's (same name, same files)."""
        return (self.previous is not None and not self.fresh and skill.name == self.previous.skill_dir.name
                and skill.files() == self.previous.files())

    def unchanged_result(self, state: _RunState[_Result], reason: str) -> _Result:
        """Leave the skill folder alone; record the check in run.json and the preview; the previous gate's exit code."""
        prev = self.previous
        assert prev is not None and prev.out_dir is not None and prev.manifest is not None
        man = dict(prev.manifest)
        man["refresh"] = {
            "status": "unchanged", "reason": reason, "fingerprint": self.fingerprint,
            "checked_at": _now(), "version": prev.version, "previous_version": prev.version,
            "learned_at": (prev.manifest.get("refresh") or {}).get("learned_at") or prev.manifest.get("created_at"),
            "crawl": _crawl_cache_figures(self.out_dir), "files": files_sha256(prev),
            "summary": [f"no change since {prev.version or 'the previous run'}: {reason}; {prev.skill_dir / 'SKILL.md'} left as it was"],
        }
        from synth.output.writing import atomic_write_text

        atomic_write_text(self.out_dir / "run.json", json.dumps(man, indent=2, ensure_ascii=False) + "\n")
        _rerender_preview(prev, man)
        gate: dict = man["gate"] if isinstance(man.get("gate"), dict) else {}
        blocking = int(gate.get("blocking") or 0)
        fail = bool(gate.get("fail_on_findings", True))
        model: dict = man["model"] if isinstance(man.get("model"), dict) else {}
        from synth.vet.gate import recorded_exit_code

        return state.result(recorded_exit_code(gate), skill_dir=prev.skill_dir, manifest=self.out_dir / "run.json",
                            preview=self.out_dir / "index.html", written=(), sources=len(prev.sources()),
                            provider=model.get("used"), blocking_findings=blocking, fail_on_findings=fail,
                            unchanged=True, summary=tuple(man["refresh"]["summary"]))

    # ---------------------------------------------------------------- the changed case

    def apply_version(self, skill: Skill) -> None:
        """Give a changed skill its new version (bumped from the previous run's)."""
        if self.previous is not None:
            self.version = bump(self.previous_version)
        meta = skill.frontmatter.get("metadata")
        if isinstance(meta, dict):
            meta["version"] = self.version

    def plan_history(self) -> None:
        """Where the previous run will be kept (``.history/<version>/``), decided before anything is written, so the
        new run.json can name it; nothing is created until :meth:`archive`."""
        prev = self.previous
        if prev is None or prev.out_dir is None:
            return
        root = self.out_dir / HISTORY
        if root.is_symlink() or (root.exists() and not root.is_dir()):
            raise AgentsError(f"{root} is not a folder skill3 wrote; move it away to keep the previous skill's history")
        base = re.sub(r"[^A-Za-z0-9._-]", "_", prev.version or "unversioned")[:64] or "unversioned"
        dest = root / base
        k = 2
        while dest.exists() or dest.is_symlink():
            dest = root / f"{base}-{k}"
            k += 1
        self.history_dir = dest

    def archive(self) -> None:
        """Copy the previous run (skill folder, run.json, index.html) to the planned ``.history/<version>/`` — once
        the new outputs are staged, just before they replace it."""
        prev, dest = self.previous, self.history_dir
        if prev is None or prev.out_dir is None or dest is None:
            return
        root = dest.parent
        root.mkdir(exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".skill3-history-", dir=root))
        try:
            shutil.copytree(prev.skill_dir, staging / prev.skill_dir.name, symlinks=True)
            for name in ("run.json", "index.html"):
                if (self.out_dir / name).is_file():
                    shutil.copy2(self.out_dir / name, staging / name)
            staging.rename(dest)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise

    def record(self, skill_dir: Path, man: dict[str, Any], staged: Path | None = None) -> dict[str, Any]:
        """run.json's ``refresh`` section for a run that writes its skill (first run, refresh or --fresh); ``staged``:
        where the new skill's files are while the outputs are staged (they reach ``skill_dir`` at the commit)."""
        rec: dict[str, Any] = {
            "status": "first" if self.previous is None else ("fresh" if self.fresh else "refreshed"),
            "fingerprint": self.fingerprint, "checked_at": _now(), "learned_at": man.get("created_at"),
            "version": self.version, "previous_version": self.previous_version,
            "history": str(self.history_dir.relative_to(self.out_dir)) if self.history_dir else None,
            "crawl": _crawl_cache_figures(self.out_dir), "diff": None, "summary": [],
        }
        try:
            new = load_with_manifest(staged or skill_dir, man, out_dir=skill_dir.parent)
            rec["files"] = files_sha256(new)
        except AgentsError as exc:  # pragma: no cover - the folder was just written
            rec["files_error"] = str(exc)
            return rec
        if self.previous is not None and self.history_dir is not None and not self.fresh:
            try:
                rec["diff"] = diff_runs(self.previous, new)  # the previous run as it is on disk until the commit
                rec["summary"] = summary_lines(rec["diff"])
            except (AgentsError, OSError) as exc:
                rec["diff_error"] = str(exc)
        elif self.fresh and self.previous is not None:
            rec["summary"] = [f"--fresh: learned from scratch; the previous skill ({self.previous_version}) is kept in {rec['history']}"]
        return rec


def load_with_manifest(skill_dir: Path, man: dict[str, Any], out_dir: Path | None = None) -> RunView:
    """The skill just written (or staged), with the manifest not yet on disk."""
    view = load(skill_dir)
    view.out_dir, view.manifest = out_dir or skill_dir.parent, man
    return view


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _crawl_cache_figures(out_dir: Path) -> dict[str, Any] | None:
    """The crawl's HTTP cache counts from crawl.json (conditional requests answered 304, pages refetched)."""
    try:
        crawl = json.loads((out_dir / "crawl.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    summary = crawl.get("summary") if isinstance(crawl, dict) else None
    figs = summary.get("httpcache") if isinstance(summary, dict) else None
    return figs if isinstance(figs, dict) and figs else None


def _rerender_preview(prev: RunView, man: dict[str, Any]) -> None:
    """index.html again with the refresh panel (the skill read back from disk; nothing in the skill folder is written)."""
    from synth.output.ownership import is_skill3_preview
    from synth.output.preview import render_preview
    from synth.output.writing import atomic_write_text
    from synth.skill.frontmatter import split_frontmatter
    from synth.skill.postprocess import Skill

    index = prev.out_dir / "index.html" if prev.out_dir else None
    if index is None or (index.exists() and not is_skill3_preview(index)):
        return
    skill = Skill(name=prev.name, frontmatter=prev.frontmatter, body=split_frontmatter(prev.skill_md).body,
                  references=dict(prev.references))
    atomic_write_text(index, render_preview(skill, man))


def prepare(options: _Options, inputs: _Inputs, ranked: _Ranked) -> Refresh:
    """The refresh state of this run (see the module docstring); ``unchanged`` when the fingerprint matches."""
    fp = fingerprint(options, inputs, ranked)
    fresh = bool(getattr(options, "fresh", False))
    ref = Refresh(out_dir=inputs.out_dir, fresh=fresh, fingerprint=fp)
    try:
        prev = load(inputs.out_dir) if (inputs.out_dir / "run.json").is_file() else None
    except AgentsError:
        prev = None  # no usable previous run: this is a first run (ownership is checked before anything is written)
    if prev is None or prev.out_dir is None:
        return ref
    ref.previous = prev
    ref.version = prev.version or FIRST_VERSION
    prior = prev.manifest.get("refresh") if prev.manifest else None
    if (not fresh and isinstance(prior, dict) and prior.get("fingerprint") == fp
            and prior.get("files") == files_sha256(prev)):  # and the skill on disk is still the one skill3 wrote
        ref.unchanged = True
    return ref


def files_sha256(view: RunView) -> dict[str, str]:
    """sha256 of each of the skill's files (SKILL.md and references/*.md), as written."""
    return {rel: hashlib.sha256(text.encode("utf-8")).hexdigest() for rel, text in sorted(view.files().items())}
