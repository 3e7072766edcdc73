"""skill3's built-in first screen: prompt-injection and exfiltration patterns, before any model.

It runs on every corpus, whether or not SkillSpector is installed (the scanner stays the real
check and a scanner that did not run is still reported as NOT RUN). Pure functions over
markdown text; findings use the same :class:`Finding` type as the scanner, ``tool="skill3"``,
rule ids namespaced ``SKILL3-…``.

Rules (each phrasing family is generic, never one string; text is matched after NFKC
normalisation with invisible characters removed, so ``ig<U+200B>nore`` and full-width
letters do not hide a phrase):

==========================  ========  =====================================================
rule                        alone     what
==========================  ========  =====================================================
SKILL3-INJECT-OVERRIDE      HIGH      "ignore/disregard/forget all previous instructions",
                                      "disregard the system prompt", "ignore your rules",
                                      "reveal your system prompt", "bypass your safety rules"
                                      (MEDIUM when quoted in a sentence that explains it:
                                      "attackers write 'ignore previous instructions'")
SKILL3-INJECT-ROLE          HIGH      "you are now in developer mode / an unrestricted AI",
                                      "from now on you will respond/act/pretend ..."
SKILL3-EXFIL                HIGH      a request to send/post/upload the environment, ~/.ssh,
                                      private keys, .env, cloud credential files, "all your
                                      tokens" ... to a URL, address or endpoint; code that posts
                                      such files (curl -d @~/.ssh/id_rsa, env | curl ...)
SKILL3-HIDDEN-TAGS          HIGH      text smuggled in Unicode tag characters (U+E0000 block)
SKILL3-HIDDEN-HTML          HIGH      any finding of these rules inside an HTML comment or a
                                      CSS/attribute-hidden element (outside code blocks)
SKILL3-INJECT-ADDRESS       MEDIUM    text addressed to AI assistants ("note for AI assistants",
                                      "if you are an AI", "these lines are for you only",
                                      chat-template markers such as ``<|im_start|>``)
SKILL3-INJECT-CONCEAL       MEDIUM    "do not tell the user", "without telling the user",
                                      "silently run/send ..."
SKILL3-PIPE-SHELL           MEDIUM    ``curl … | bash``, ``wget -O- … | sh``, ``bash <(curl …)``,
                                      ``iex (iwr …)``, ``base64 -d … | sh``
SKILL3-EXFIL (weak)         MEDIUM    sending "your API key/token/password" (singular) to a URL
SKILL3-HIDDEN-UNICODE       MEDIUM    zero-width characters between letters, bidi controls
==========================  ========  =====================================================

Combinations: in one text, an assistant-addressed finding (ADDRESS) together with a
concealment request, a pipe-to-shell or a weak exfiltration request makes all of them HIGH;
so does a concealment request within 300 characters of a pipe-to-shell or exfiltration; any
ADDRESS/CONCEAL/PIPE/EXFIL phrase that only matches once invisible characters are removed
(obfuscated) is HIGH; hidden Unicode beside any other finding but a lone pipe-to-shell is HIGH.
A pipe-to-shell alone —
an install guide's ``curl … | sh`` — stays MEDIUM: recorded, not quarantined.

What is checkable where: the crawl path hands over extracted excerpts, from which trafilatura
has already dropped HTML comments and ``display:none`` elements (they never reach a model);
text hidden by the ``hidden`` attribute or ``font-size:0`` arrives as plain text, so only its
phrasing can be screened. Corpus files and markdown pages keep HTML comments and inline HTML,
which the HIDDEN-HTML rule checks.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable

from synth.vet.findings import BLOCKING, Finding, stable_hash
from synth.vet.hidden import hidden_spans, invisible_hits, tag_hits
from synth.vet.phrasings import phrase_hits
from synth.vet.screen_rules import ADDRESS, CATEGORY, CONCEAL, EXFIL, HIDDEN_HTML, HIDDEN_TAGS, HIDDEN_UNICODE, OVERSIZED, PIPE, TITLE, Hit


def _escalate(hits: list[Hit], text: str) -> None:
    """The combination rules (see the module docstring); edits severities in place."""
    by_rule: dict[str, list[Hit]] = {}
    for h in hits:
        by_rule.setdefault(h.rule, []).append(h)
    actions = by_rule.get(PIPE, []) + [h for h in by_rule.get(EXFIL, []) if h.severity != "HIGH"]
    if by_rule.get(ADDRESS) and (by_rule.get(CONCEAL) or actions):
        for h in by_rule.get(ADDRESS, []) + by_rule.get(CONCEAL, []) + actions:
            if h.severity != "HIGH":
                h.severity, h.note = "HIGH", _join(h.note, "combined with text addressed to AI assistants")
    for c in by_rule.get(CONCEAL, []):
        near = [a for a in actions if abs(a.start - c.start) <= 300]
        for h in [c, *near] if near else []:
            if h.severity != "HIGH":
                h.severity, h.note = "HIGH", _join(h.note, "combined with a request to hide it from the user")
    for h in hits:
        if h.obfuscated and h.severity != "HIGH" and h.rule != HIDDEN_UNICODE:
            h.severity, h.note = "HIGH", _join(h.note, "obfuscated with invisible characters")
    others = [h for h in hits if h.rule not in (HIDDEN_UNICODE, PIPE) or h.severity == "HIGH"]
    if others:
        for h in by_rule.get(HIDDEN_UNICODE, []):
            h.severity, h.note = "HIGH", _join(h.note, "beside other injection findings")


def _join(a: str, b: str) -> str:
    return f"{a}; {b}" if a else b


# a list marker or quote marker at a line's start: blanked (same length) for the phrase rules, so an injection
# split over two list items or quoted lines ("- first disregard" / "- your system prompt ...") reads as one
_LINE_MARKERS = re.compile(r"(?m)^[ \t]{0,3}(?:(?:[-*+]|\d{1,9}[.)]|>)[ \t]+|>)+")


# a citation ("[1]", "[2, 5]") or a hard break ("\\") at a line's end: blanked the same way
_LINE_ENDS = re.compile(r"(?m)(?:[ \t]*\[\d{1,4}(?:\s*[,\u2013-]\s*\d{1,4})*\])+[ \t]*$|\\$")


def unmarked(text: str) -> str:
    """``text`` with the list and quote markers at line starts and the citations at line ends replaced by spaces
    (offsets unchanged). Pure."""
    if not text:
        return text
    blank = lambda m: " " * len(m.group())  # noqa: E731
    return _LINE_ENDS.sub(blank, _LINE_MARKERS.sub(blank, text))


def screen_hits(text: str) -> list[Hit]:
    """Every hit in one markdown text, after the combination rules; the phrase rules read the text with its
    list and quote markers blanked, so a phrase split over list items or quoted lines is one phrase. Pure."""
    hits = phrase_hits(unmarked(text)) + tag_hits(text) + invisible_hits(text)
    hidden = hidden_spans(text)
    for a, b, kind in hidden:
        inside = [h for h in hits if a <= h.start < b and h.rule not in (HIDDEN_UNICODE, HIDDEN_TAGS)]
        if inside:
            rules = ", ".join(sorted({h.rule for h in inside}))
            hits.append(Hit(HIDDEN_HTML, "HIGH", a, b, " ".join(text[a:b].split())[:160], f"{rules} inside {kind}"))
    _escalate(hits, text)
    return sorted(hits, key=lambda h: (h.start, h.rule))


def screen_markdown(text: str, file: str) -> list[Finding]:
    """Findings for one markdown file (line numbers 1-based, ``tool="skill3"``). Pure."""
    from synth.vet.redact import redact_text

    findings = []
    for h in screen_hits(text):
        first = text.count("\n", 0, h.start) + 1
        last = first + text.count("\n", h.start, max(h.start, h.end - 1))
        h.text = redact_text(h.text)[0]  # the record never carries a secret the matched text held
        message = TITLE[h.rule] + (f" ({h.note})" if h.note else "") + f": {h.text!r}"
        # a phrase over two lines is a finding on each, so a fix that drops flagged lines drops both halves
        for line in sorted({first, last}):
            findings.append(Finding(
                rule_id=h.rule, category=CATEGORY[h.rule], severity=h.severity, confidence=None, message=message,
                file=file, line=line, fingerprint=stable_hash(h.rule, file, line, h.text), title=TITLE[h.rule],
                matched=h.text, occurrences=[(file, line)], tool="skill3",
            ))
    return findings


MAX_SCREEN_BYTES = 4 * 2**20  # a markdown file of a skill larger than this is not screened (lint's S1/L3 report it)


def screen_folder(folder: Path) -> list[Finding]:
    """The screen over every markdown file of a skill folder (``skill3 vet``'s built-in check)."""
    findings = []
    for path in sorted(Path(folder).rglob("*.md")):
        rel = path.relative_to(folder)
        if any(part.startswith(".") for part in rel.parts) or not path.is_file() or path.is_symlink():
            continue
        try:
            size = path.stat().st_size
            if size > MAX_SCREEN_BYTES:  # not read: a skill file this large cannot be vetted whole
                file = rel.as_posix()
                findings.append(Finding(
                    rule_id=OVERSIZED, category="Unvetted Content", severity="HIGH", confidence=None,
                    message=f"{file} is {size:,} bytes, more than the {MAX_SCREEN_BYTES // 2**20} MiB the screen reads: "
                            "not screened; a skill file this large cannot be vetted",
                    file=file, line=None, fingerprint=stable_hash(OVERSIZED, file, size), title="File too large to screen",
                    occurrences=[(file, None)], tool="skill3"))
                continue
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        findings += screen_markdown(text, rel.as_posix())
    return findings


def is_blocking(findings: Iterable[Finding]) -> bool:
    return any(f.severity in BLOCKING for f in findings)
