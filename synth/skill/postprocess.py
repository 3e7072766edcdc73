"""The deterministic SKILL.md post-processor: the generator, not the model, guarantees the format.

Whatever the model wrote (chatter, a skill wrapped in a code fence, two frontmatter
blocks, a reserved or invalid name, a 3000-character description with tags,
unclosed fences, extra keys), ``postprocess`` returns a skill that satisfies the
Agent Skills spec and skill3's format rules below, or raises ``PostProcessError`` with
the problems it could not fix (the caller re-prompts once, then fails loudly).

Rules:
- exactly one YAML frontmatter block, at the top; keys limited to the spec's;
  ``allowed-tools`` and ``license`` from a model are dropped (a skill learned from
  the web never pre-approves tools, and sources do not state a licence);
  ``metadata`` holds exactly the string values version, learned-date,
  target-model, cutoff (set by the generator, never by the model);
- ``name``: ``[a-z0-9-]``, ≤64, no leading/trailing/double hyphen, reserved words
  ``anthropic``/``claude`` removed, fallback ``<topic>-skill`` (``learned-skill``);
- ``description``: no tags or angle brackets, each sentence once, no ``---`` (the reference parser ends the
  frontmatter there), ≤1024, derived from the body when the model's is degenerate;
- every code fence closed; a Sources section listing exactly the cited sources (a draft that cites
  nothing keeps the sources its own Sources section named, and its claim lines are cited by the
  source whose text holds them); lines echoing the prompt's section template removed;
- no link with a script-running scheme (``javascript:`` …) and no raw HTML outside code (``safety``);
- a body over ~500 lines is split into ``references/`` linked one level deep.

This module is the ordered pipeline only. The steps live in ``synth.skill``: names
(``names``), the deterministic fixers (``fixers``), citations and the Sources section
(``sources``), the ``references/`` split (``references``); the format itself (limits,
frontmatter, fences, headings, citations) is read through the same package lint and the
output vetting use. The last guard, ``validate_skill``, runs lint's structural rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from synth.core.errors import (
    PostProcessError,  # noqa: F401 - defined with every error (synth.core.errors)
)
from synth.skill import echoes, fixers, references, safety, sources, stale
from synth.skill.frontmatter import read_frontmatter
from synth.skill.names import sanitize_name
from synth.skill.spec import ALLOWED_KEYS, DROPPED_KEYS, FOOTER_PREFIX, MAX_BODY_LINES, MAX_COMPATIBILITY, MAX_DESCRIPTION
from synth.skill.structure import STRUCTURAL, structural_problems

MIN_CONTENT_WORDS = 15


@dataclass
class SkillContext:
    topic: str
    target_model: str
    cutoff: str  # YYYY-MM
    learned_date: str  # YYYY-MM-DD
    sources: list[dict]  # bundle sources: {"n", "url", "title", ...}
    version: str = "1.0.0"
    references: dict[str, str] = field(default_factory=dict)  # the delta's reference files, written deterministically
    reference_index: list[str] = field(default_factory=list)  # SKILL.md's index of them, one line per file
    superseded: list[Any] = field(default_factory=list)  # claims fresh sources say no longer hold (synth.evidence.conflicts)


@dataclass
class Skill:
    name: str
    frontmatter: dict
    body: str
    references: dict[str, str] = field(default_factory=dict)  # "references/x.md" -> text
    cited: list[int] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)
    superseded: list[dict] = field(default_factory=list)  # statements removed: a post-cutoff source says they no longer hold

    def skill_md(self) -> str:
        fm = yaml.safe_dump(self.frontmatter, sort_keys=False, allow_unicode=True, width=10**6, default_flow_style=False)
        return f"---\n{fm}---\n{self.body.rstrip()}\n"

    def files(self) -> dict[str, str]:
        return {"SKILL.md": self.skill_md(), **self.references}


# --------------------------------------------------------------------------- the pipeline


def postprocess(raw: str, ctx: SkillContext) -> Skill:
    """Fix the draft deterministically, or raise ``PostProcessError`` listing what cannot be fixed."""
    fixes: list[str] = []
    text, f = fixers.recover_skill_text(raw)
    fixes += f
    fm, body, f = read_frontmatter(text)
    fixes += f
    body, f = fixers.remove_extra_frontmatter(body)
    fixes += f

    extra = sorted(k for k in fm if k not in ALLOWED_KEYS)
    if extra:
        fixes.append(f"removed frontmatter keys outside the spec: {', '.join(map(str, extra))}")
    dropped = [k for k in DROPPED_KEYS if k in fm]
    if dropped:
        fixes.append(f"removed model-written {', '.join(dropped)}")

    raw_name = fm.get("name") if isinstance(fm.get("name"), str) else None
    name = sanitize_name(raw_name, ctx.topic)
    if raw_name != name:
        fixes.append(f"name {raw_name!r} → {name!r}")

    body = body.strip("\n")
    for step in (fixers.remove_scaffolding, echoes.remove_template_echoes, fixers.strip_trailing_chatter, fixers.close_fences,
                 fixers.drop_empty_fences, fixers.normalize_rules, fixers.drop_degenerate_lines, safety.neutralize):
        body, f = step(body)
        fixes += f
    body, f = fixers.ensure_title(body, ctx.topic, ctx.cutoff)
    fixes += f
    body, f, superseded = stale.drop_superseded_lines(body, ctx.superseded)
    fixes += f
    urls = {s["url"]: int(s.get("n", i)) for i, s in enumerate(ctx.sources, 1)}
    listed = sources.listed_sources(body, len(ctx.sources), urls)  # before the draft's own Sources section goes
    body, removed = sources.remove_section(body, re.compile(r"^sources\b|^references\s*$", re.I))
    body = "\n".join(l for l in body.split("\n") if not l.startswith(FOOTER_PREFIX)).rstrip()
    if fixers.content_words(body) < MIN_CONTENT_WORDS:
        raise PostProcessError([f"the draft has no skill content (fewer than {MIN_CONTENT_WORDS} words outside headings)"])

    body, cited, f = sources.fix_citations(body, len(ctx.sources), urls)
    fixes += f
    if not cited and ctx.sources:  # a draft that cites nothing: the sources its Sources named, the lines they hold
        body, cited, f = _cite_uncited(body, listed, ctx)
        fixes += f
    if removed:
        fixes.append("rebuilt the Sources section from the cited sources")

    desc, f = _description(fm.get("description"), body, name, ctx)
    fixes += f

    out: dict = {"name": name, "description": desc}
    compat = fm.get("compatibility")
    if isinstance(compat, str) and compat.strip():
        out["compatibility"] = fixers.truncate(fixers.clean_text(compat), MAX_COMPATIBILITY)
    out["metadata"] = {key: fixers.frontmatter_safe(str(value)) for key, value in (
        ("version", ctx.version), ("learned-date", ctx.learned_date), ("target-model", ctx.target_model),
        ("cutoff", ctx.cutoff))}

    body, refs, f = references.split_references(body)
    fixes += f
    if ctx.references:
        body, refs, f = references.attach_delta(body, refs, ctx.references, ctx.reference_index)
        fixes += f
    by_n = {int(s.get("n", i)): s for i, s in enumerate(ctx.sources, 1)}
    account = stale.source_account([by_n[n] for n in sorted(cited) if n in by_n], ctx.cutoff, ctx.target_model)
    body = (f"{body.rstrip()}\n\n{sources.sources_section(sorted(cited), ctx.sources)}\n\n"
            f"{sources.footer(ctx.learned_date, ctx.cutoff, ctx.target_model, account)}\n")
    skill = Skill(name=name, frontmatter=out, body=body, references=refs, cited=sorted(cited), fixes=fixes,
                  superseded=superseded)
    problems = validate_skill(skill)
    if problems:
        raise PostProcessError(problems)
    return skill


def _cite_uncited(body: str, listed: set[int], ctx: SkillContext) -> tuple[str, set[int], list[str]]:
    """A draft that cites nothing: the sources its own Sources section named, and its claim lines cited by the source
    whose text holds them (``synth.skill.sources.attribute_claims``)."""
    fixes = [f"kept the source(s) [{', '.join(map(str, sorted(listed)))}] the draft's Sources section named"] if listed else []
    body, attributed, f = sources.attribute_claims(body, ctx.sources)
    return body, set(listed) | attributed, fixes + f


def _description(raw_desc: object, body: str, name: str, ctx: SkillContext) -> tuple[str, list[str]]:
    """The description: cleaned, each sentence once, derived from the body when the model's is degenerate or the
    prompt's placeholder."""
    fixes: list[str] = []
    desc = fixers.clean_text(str(raw_desc)) if isinstance(raw_desc, (str, int, float)) else ""
    if echoes.repeated_sentences(desc):
        desc = echoes.dedupe_sentences(desc)
        fixes.append("kept each sentence of the description once (it repeated itself)")
    problems = echoes.description_problems(desc)
    if fixers.is_degenerate_description(desc, name, ctx.topic) or echoes.is_placeholder(desc) or problems:
        derived = fixers.derive_description(body, ctx.topic, ctx.cutoff)
        if problems and echoes.description_problems(derived):  # the body's reads no better: keep the model's words
            derived = fixers.derive_description("", ctx.topic, ctx.cutoff)
        desc = derived
        fixes.append("derived the description from the body (the model's " + ("; ".join(problems) if problems else
                     "was missing or degenerate") + ")")
    elif desc != raw_desc or len(desc) > MAX_DESCRIPTION:
        desc = fixers.truncate(desc, MAX_DESCRIPTION)
        fixes.append("cleaned the description (tags, angle brackets, length)")
    return desc, fixes


def validate_skill(skill: Skill) -> list[str]:
    """Re-read what would be written with lint's structural rules (a last guard; the fixes above should make this empty).

    SKILL.md gets ``synth.skill.structure.structural_problems`` (frontmatter, keys, metadata, fences,
    body, name, description, compatibility) and lint's line budget B1 with
    ``MAX_BODY_LINES + 40`` lines of room; each reference file gets the same fence rule (S5).
    A problem reads ``<rule> <message>`` (``references/x.md: S5 …`` for a reference file).
    """
    text = skill.skill_md()
    problems = [f"{f.rule} {f.message}" for f in structural_problems(text, STRUCTURAL + ("B1",), MAX_BODY_LINES + 40)]
    for path, content in skill.references.items():
        problems += [f"{path}: {f.rule} {f.message}" for f in structural_problems(content, ("S5",))]
    return problems
