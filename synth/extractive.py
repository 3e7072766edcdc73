"""Provider ``extractive``: a deterministic skill built only from the selected evidence, no model.

Every statement is a sentence or code block quoted from a source and ends with (or
is introduced by) that source's ``[n]``; the only other text is headings and a
fixed overview line that says how the skill was made. A sentence, heading or code block that
skill3's built-in screen flags (instruction override, text addressed to AI assistants,
concealment, exfiltration, pipe-to-shell, hidden text) is never quoted: the skill must not
carry a page's instructions to its reader's agent. It is the embedded default
when no model answers, not a substitute for synthesis: it cannot summarise,
reconcile or explain.
"""

from __future__ import annotations

import re

from synth.bundle import STRUCTURE_ONLY_BELOW
from synth.consensus import claim_sentences
from synth.postprocess import display_topic
from synth.vet.screen import screen_markdown

MAX_INSTRUCTIONS = 18
MAX_PER_SOURCE = 4
MAX_DEPRECATIONS = 8
MAX_EXAMPLES = 4
MAX_SENTENCE_CHARS = 400
DEPRECATION = re.compile(
    r"\bdeprecat\w*|\bno longer (?:supported|available|works)\b|\b(?:is|are|was|were|be) removed\b|\bremoved in\b|"
    r"\breplaced by\b|\bsupersed\w*|\blegacy\b", re.I
)
_CITE_LIKE = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")


def _flagged(text: str) -> bool:
    """Whether the built-in screen finds anything in a text that would be quoted."""
    return bool(screen_markdown(text, "quote.md"))


def _quote(sentence: str) -> str:
    s = " ".join(sentence.split())
    if len(s) > MAX_SENTENCE_CHARS:
        s = s[: MAX_SENTENCE_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return _CITE_LIKE.sub(r"\\[\1]", s)  # a source's own "[3]" is not our citation


def _headings(excerpts: list[str]) -> list[str]:
    return [e.lstrip("#").strip() for e in excerpts
            if e.lstrip().startswith("#") and e.lstrip("#").strip() and not _flagged(e)]


def _fence_for(code: str) -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", code)), default=2)
    return "`" * max(3, longest + 1)


def extractive_skill(bundle: dict, *, topic: str, name: str) -> str:
    """A SKILL.md draft (frontmatter + body) from the bundle; the post-processor finishes it."""
    cutoff = bundle["cutoff"]
    sources = bundle["sources"]
    # Claims and code only from sources at or above the structure-only line (DESIGN §5), fresh ones first.
    usable = [s for s in sources if float(s.get("authority", 0)) >= STRUCTURE_ONLY_BELOW] or sources
    fresh = [s for s in usable if s.get("post_cutoff")] or usable
    instructions: list[str] = []
    deprecations: list[str] = []
    seen: set[str] = set()
    for s in fresh:
        taken = 0
        for sentence in claim_sentences(s.get("excerpts", []), limit=200):
            key = " ".join(sentence.lower().split())
            if key in seen or _flagged(sentence):
                continue
            seen.add(key)
            line = f"- {_quote(sentence)} [{s['n']}]"
            if DEPRECATION.search(sentence) and s.get("post_cutoff"):
                if len(deprecations) < MAX_DEPRECATIONS:
                    deprecations.append(line)
            elif taken < MAX_PER_SOURCE and len(instructions) < MAX_INSTRUCTIONS:
                instructions.append(line)
                taken += 1
    examples: list[str] = []
    blocks: dict[str, tuple[list[dict], str, str]] = {}  # identical code from several sources is shown once
    for s in fresh:
        langs = s.get("code_languages") or [""] * len(s.get("code_blocks", []))
        for code, lang in zip(s.get("code_blocks", []), langs):
            if _flagged(f"```\n{code}\n```"):
                continue
            key = " ".join(code.split())
            if key in blocks:
                if s not in blocks[key][0]:
                    blocks[key][0].append(s)
            else:
                blocks[key] = ([s], code, lang)
    for srcs, code, lang in list(blocks.values())[:MAX_EXAMPLES]:
        fence = _fence_for(code)
        origin = ", ".join(f"{_quote(' '.join(_title(s).split()))} [{s['n']}]" for s in srcs)
        examples.append(f"From {origin}:\n\n{fence}{re.sub(r'[^A-Za-z0-9_+-]', '', lang or '')}\n{code.rstrip()}\n{fence}")

    topics = []
    for s in fresh[:5]:
        for h in _headings(s.get("excerpts", []))[:2]:
            topics.append(_quote(h))
    topic_title = display_topic(topic)
    covered = "; ".join(dict.fromkeys(topics)) or f"{len(fresh)} fresh source(s)"
    description = (
        f"What changed in {topic_title} after the {cutoff} training cutoff, quoted from fresh sources: {covered}. "
        f"Use when working with {topic_title} features or APIs published after {cutoff}."
    )
    lines = [
        "---",
        f"name: {name}",
        "description: " + _yaml_str(description),
        "---",
        f"# {topic_title}: what changed after {cutoff}",
        "",
        "## Overview / When to use",
        "",
        f"Compiled extractively by skill3, without a language model, from {len(sources)} source(s) about {topic_title} "
        f"ranked by authority and freshness against the {cutoff} cutoff of {bundle['target_model']}. Each statement below "
        "is quoted from the source cited after it. Use it when a task touches what changed after that cutoff.",
        "",
        "## Instructions",
        "",
        *(instructions or ["- The sources contain no claim sentences; see the examples and sources below."]),
        "",
    ]
    if deprecations:
        lines += ["## Modern vs deprecated", "", *deprecations, ""]
    if examples:
        lines += ["## Examples", ""]
        for e in examples:
            lines += [e, ""]
    return "\n".join(lines)


def _title(source: dict) -> str:
    title = source.get("title") or ""
    return source["url"] if not title or _flagged(title) else title


def _yaml_str(text: str) -> str:
    import json

    return json.dumps(" ".join(text.split()), ensure_ascii=False)  # a JSON string is a valid YAML scalar
