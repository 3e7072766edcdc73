"""The rule catalogue: one table, used by the code, the docs and `skill3 lint --rules`.

Ids are ours and stable: a retired rule keeps its number unused, a new rule
gets a new number. Letters group the rules: S structure, N name and
description, V the reference validator, B size budget, T trigger, L links and
reference files, P provenance, D deprecated (stale) constructs, M model output
that is well-formed but written to the writer, A tools, C catalogue, X the
linter itself.

``severity`` is what the rule emits (the worst it can emit, when ``emits``
lists more than one). ``needs`` names the facts (``Facts`` fields / facts-file
keys) without which the rule is skipped with an X1 finding. Whether a finding
blocks anything is the caller's policy (``--fail-on``), not the rule's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warn", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warn", "info")  # worst first


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    title: str
    needs: tuple[str, ...] = ()
    emits: tuple[Severity, ...] = ()

    @property
    def severities(self) -> tuple[Severity, ...]:
        return self.emits or (self.severity,)

    def to_dict(self) -> dict:
        return {"id": self.id, "severity": "/".join(self.severities), "title": self.title, "needs": list(self.needs)}


SKIP_RULE = "X1"

# fmt: off
RULES: tuple[Rule, ...] = (
    Rule("S1", "error", "SKILL.md exists (exact name) and is UTF-8 text"),
    Rule("S2", "error", "exactly one YAML frontmatter block at the top, parsing to a mapping without duplicate keys"),
    Rule("S3", "error", "frontmatter has only the spec's keys: name, description, license, compatibility, metadata, allowed-tools"),
    Rule("S4", "error", "metadata is a mapping of strings to strings"),
    Rule("S5", "error", "every fenced code block is closed (``` and ~~~, CommonMark lengths)"),
    Rule("S6", "error", "the body after the frontmatter is not empty"),
    Rule("N1", "error", "name is 1-64 chars of [a-z0-9-], no leading, trailing or double hyphen"),
    Rule("N2", "error", "name equals the skill's folder name"),
    Rule("N3", "error", "name has no reserved word (anthropic, claude)"),
    Rule("N4", "error", "description is a non-empty string of at most 1024 chars"),
    Rule("N5", "error", "description has no XML tags or angle brackets"),
    Rule("N6", "error", "compatibility, when present, is a string of at most 500 chars"),
    Rule("N7", "warn", "description says each sentence once (a repeated one wastes its budget and says nothing more)"),
    Rule("N8", "warn", "description reads as written: no phrase said twice, not cut off mid-sentence or mid-word, no markup "
                       "or template leftovers (HTML entities, {{ }}, **, a stripped tag's name)"),
    Rule("V1", "error", "the Agent Skills reference validator (skills-ref) accepts the skill"),
    Rule("B1", "warn", "body within the line budget (500 lines): it is context weight on every run"),
    Rule("B2", "warn", "body within the token budget (~5000 estimated tokens, offline heuristic)"),
    Rule("T1", "info", "description says when to use the skill (else it is only reachable by being named)"),
    Rule("L1", "error", "relative links and references/, scripts/, assets/ paths point to files inside the skill that exist"),
    Rule("L2", "warn", "markdown references stay one level deep (no nested folders, no reference file linking on to another)"),
    Rule("L3", "warn", "reference files over 100 lines start with a table of contents"),
    Rule("P1", "warn", "a Sources section exists (error when the body cites [n] without one)", emits=("error", "warn")),
    Rule("P2", "error", "every [n] citation resolves to a numbered Sources entry"),
    Rule("P3", "error", "every Sources URL is one the run actually used", needs=("used_sources",)),
    Rule("P4", "error", "a skill built from sources carries them: at least one [n] citation and a Sources URL",
         needs=("used_sources",)),
    Rule("D1", "error", "no deprecated construct recommended outside the 'Modern vs deprecated' section", needs=("stale",)),
    Rule("M1", "error", "the body does not echo the synthesis prompt's template (its headings in list items, its notes "
                        "to the writer, its placeholders)"),
    Rule("A1", "error", "allowed-tools names tools that exist", needs=("tools",)),
    Rule("A2", "error", "MCP servers and tools the body tells the model to call exist", needs=("mcp",)),
    Rule("C1", "error", "no other catalogue skill has the same name (error) or a near-identical description (warn)",
         needs=("catalogue",), emits=("error", "warn")),
    Rule("X1", "info", "a rule did not run, and why"),
)
# fmt: on

BY_ID: dict[str, Rule] = {r.id: r for r in RULES}


def rules() -> tuple[Rule, ...]:
    """The catalogue, in order."""
    return RULES
