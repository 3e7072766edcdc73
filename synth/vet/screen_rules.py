"""The built-in screen's rules (their ids, categories and titles) and a hit: one match of a rule in a markdown text."""

from __future__ import annotations

from dataclasses import dataclass

OVERRIDE = "SKILL3-INJECT-OVERRIDE"
ROLE = "SKILL3-INJECT-ROLE"
ADDRESS = "SKILL3-INJECT-ADDRESS"
CONCEAL = "SKILL3-INJECT-CONCEAL"
PIPE = "SKILL3-PIPE-SHELL"
EXFIL = "SKILL3-EXFIL"
HIDDEN_TAGS = "SKILL3-HIDDEN-TAGS"
HIDDEN_HTML = "SKILL3-HIDDEN-HTML"
HIDDEN_UNICODE = "SKILL3-HIDDEN-UNICODE"
OVERSIZED = "SKILL3-OVERSIZED"  # skill3 vet: a markdown file too large to screen

CATEGORY = {
    OVERRIDE: "Prompt Injection", ROLE: "Prompt Injection", ADDRESS: "Prompt Injection",
    CONCEAL: "Prompt Injection", PIPE: "Remote Code Execution", EXFIL: "Data Exfiltration",
    HIDDEN_TAGS: "Hidden Instructions", HIDDEN_HTML: "Hidden Instructions", HIDDEN_UNICODE: "Hidden Instructions",
}
TITLE = {
    OVERRIDE: "Instruction override aimed at an AI assistant",
    ROLE: "Role reassignment aimed at an AI assistant",
    ADDRESS: "Text addressed to AI assistants",
    CONCEAL: "Request to hide actions from the user",
    PIPE: "Pipe-to-shell (remote script executed unread)",
    EXFIL: "Request to send credentials or secrets elsewhere",
    HIDDEN_TAGS: "Text hidden in Unicode tag characters",
    HIDDEN_HTML: "Instructions hidden in an HTML comment or hidden element",
    HIDDEN_UNICODE: "Invisible or bidirectional control characters",
}


@dataclass
class Hit:
    rule: str
    severity: str
    start: int  # offsets in the original text
    end: int
    text: str  # the matched text (normalised), for the record
    note: str = ""
    obfuscated: bool = False
