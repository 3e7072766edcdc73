"""skill3 lint: a rule catalogue for Agent Skill folders (SKILL.md), in the manner of skill-lint.

    from synth.lint import lint_skill, Facts
    result = lint_skill("output/mcp/mcp-delta", Facts(used_sources=frozenset(urls)))
    for f in result.errors: ...          # Finding(rule, severity, message, file, line)

``lint_skill`` raises ``LintError`` only when the check cannot run; "the skill
is bad" is always findings. Severity belongs to the rules (``RULES``); what
blocks is the caller's policy (``result.fails("error")``).
"""

from synth.lint.catalogue import RULES, SEVERITIES, Rule, Severity, rules
from synth.lint.engine import discover_skills, lint_paths, lint_skill, lint_text
from synth.lint.facts import Facts, StaleConstruct, load_facts, run_source_urls
from synth.lint.model import FAIL_ON, Finding, LintError, LintResult, Skip, fails

__all__ = [
    "FAIL_ON",
    "RULES",
    "SEVERITIES",
    "Facts",
    "Finding",
    "LintError",
    "LintResult",
    "Rule",
    "Severity",
    "Skip",
    "StaleConstruct",
    "discover_skills",
    "fails",
    "lint_paths",
    "lint_skill",
    "lint_text",
    "load_facts",
    "rules",
    "run_source_urls",
]
