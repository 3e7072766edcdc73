"""Model output that is well-formed but says nothing to the agent: the writer's template echoed back, and
one sentence said over and over. Read by the post-processor (which removes them) and by lint (rules M1,
N7, which report what is left). Pure functions, no I/O.

The template is skill3's synthesis prompt's section list (``synth.pipeline.model_calls.SYSTEM_SYNTH``): its
headings, the notes in parentheses that tell the writer when a section belongs, and the placeholders
of the title and description. A model that copies them into the skill — ``- ## Modern vs deprecated
(only if a source…)`` as the first instruction, ``## Examples (code copied verbatim …)`` as a heading,
``# <title>`` — has written instructions to itself, not to the agent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from synth.skill.markdown import fence_state

# The prompt's section template (tests/skill/test_postprocess.py checks these against SYSTEM_SYNTH).
TEMPLATE_HEADINGS = ("Overview / When to use", "Instructions", "Modern vs deprecated", "Examples", "Sources")
TEMPLATE_NOTES = (
    "only if a source published after the cutoff states a deprecation; otherwise leave this section out",
    "code copied verbatim from the sources, in fenced blocks",
)
TEMPLATE_PLACEHOLDERS = ("<title>", "<one or two sentences: what changed and when to use this skill>")

_WORDS = re.compile(r"[a-z0-9]+")
_HEADING_NAMES = "|".join(re.escape(h) for h in TEMPLATE_HEADINGS)
_LIST = r"(?:[-*+]|\d{1,3}[.)])\s+"
# a template heading inside a list item or a paragraph: "- ## Modern vs deprecated", "1. ## Instructions"
_LISTED_HEADING = re.compile(rf"^\s*{_LIST}(?:\*\*)?#{{1,6}}\s*(?:{_HEADING_NAMES})\b", re.I)
# a heading of the template carrying its note: "## Examples (code copied verbatim …)"
_NOTED_HEADING = re.compile(rf"^(?P<head> {{0,3}}#{{1,6}}\s+(?:{_HEADING_NAMES}))\s*(?P<note>\([^)]*\)?)\s*$", re.I)


def _note_patterns() -> list[re.Pattern[str]]:
    """A note is recognised by "(" and its first four words (a model often cuts it: "(only if a source…)")."""
    out = []
    for note in TEMPLATE_NOTES:
        words = _WORDS.findall(note.lower())[:4]
        out.append(re.compile(r"\(\s*" + r"\W+".join(map(re.escape, words)) + r"\b", re.I))
    return out


_NOTES = _note_patterns()
_PLACEHOLDER = re.compile("|".join(re.escape(p) for p in TEMPLATE_PLACEHOLDERS), re.I)


@dataclass(frozen=True)
class Echo:
    line: int  # 1-based, counted from ``first_line``
    what: str  # "a template heading in a list item", "the template's note …", "a template placeholder"
    keep: str | None  # the line to keep instead (the heading without its note), None to drop it


def _is_note(text: str) -> bool:
    return any(p.search(text) for p in _NOTES)


def _key(text: str) -> str:
    return " ".join(_WORDS.findall(text.lower()))


def is_placeholder(text: str) -> bool:
    """``text`` is (what is left of) a template placeholder, e.g. a description copied from the prompt."""
    key = _key(text)
    return bool(key) and any(key == _key(p) for p in TEMPLATE_PLACEHOLDERS)


def template_echoes(body: str, first_line: int = 1) -> list[Echo]:
    """The lines of ``body`` (outside fences) that echo the synthesis prompt's section template."""
    out = []
    for i, (line, fenced) in enumerate(zip(body.split("\n"), fence_state(body))):
        if fenced or not line.strip():
            continue
        n = first_line + i
        noted = _NOTED_HEADING.match(line)
        if noted and _is_note(noted.group("note")):
            out.append(Echo(n, "a template heading with the template's note to the writer", noted.group("head").rstrip()))
        elif _LISTED_HEADING.match(line):
            out.append(Echo(n, "a template heading inside a list item", None))
        elif _is_note(line) or any(_key(note) in _key(line) for note in TEMPLATE_NOTES):
            out.append(Echo(n, "the template's note to the writer", None))
        elif _PLACEHOLDER.search(line):
            out.append(Echo(n, "a template placeholder", None))
    return out


def remove_template_echoes(body: str) -> tuple[str, list[str]]:
    """Drop echoed template lines; a template heading keeps its place without its note."""
    echoes = {e.line: e for e in template_echoes(body)}
    if not echoes:
        return body, []
    out = []
    for i, line in enumerate(body.split("\n"), 1):
        e = echoes.get(i)
        if e is None:
            out.append(line)
        elif e.keep is not None:
            out.append(e.keep)
    return "\n".join(out), [f"removed {len(echoes)} line(s) echoing the prompt's section template"]


# --------------------------------------------------------------------------- repeated sentences

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def repeated_sentences(text: str) -> list[tuple[str, int]]:
    """Sentences of ``text`` said more than once (compared without case, spacing and punctuation), with their count."""
    counts: dict[str, list] = {}
    for s in _SENTENCE_END.split(text.strip()):
        k = _key(s)
        if len(k) >= 12:
            counts.setdefault(k, [s.strip(), 0])[1] += 1
    return [(s, n) for s, n in counts.values() if n > 1]


def dedupe_sentences(text: str) -> str:
    """``text`` with each sentence kept once, where it first appears."""
    seen: set[str] = set()
    out = []
    for s in _SENTENCE_END.split(text.strip()):
        k = _key(s)
        if len(k) >= 12 and k in seen:
            continue
        seen.add(k)
        out.append(s.strip())
    return " ".join(x for x in out if x)


# --------------------------------------------------------------------------- a description that does not read as written

PHRASE_WORDS = 5  # a run of this many words said twice in a description is a repeated phrase
_WORD = re.compile(r"[A-Za-z0-9][\w'’.-]*")
_CLOSED = tuple(".!?)]\"'’”…`*:")  # how a finished sentence (or a quoted or parenthesised one) ends
# Markup and template syntax that says the text was not cleaned: HTML entities, template braces, markdown emphasis,
# headings, links and fences, a closing tag whose angle brackets were stripped ("… /description"), chat-template tokens.
_LEFTOVERS = (
    (re.compile(r"&(?:[a-z]{2,8}|#\d{2,6}|#x[0-9a-f]{2,5});", re.I), "an HTML entity"),
    (re.compile(r"\{\{|\}\}|\{%|%\}|\$\{[^}]*\}"), "template braces"),
    (re.compile(r"\*\*|__|```|\]\(|(?:^|\s)#{1,6}\s"), "markdown syntax"),
    (re.compile(r"(?:^|\s)/[a-z][a-z0-9_-]*(?=\s|$|[.,;])", re.I), "a closing tag's name left behind"),
    (re.compile(r"\[/?(?:INST|SYS)\]|<\|[^|]*\|>|\|im_(?:start|end)\|", re.I), "a chat-template token"),
)


def repeated_phrase(text: str, words: int = PHRASE_WORDS) -> str | None:
    """The first run of ``words`` words ``text`` says twice (without case and punctuation), not overlapping itself."""
    tokens = [t.lower().strip(".'’") for t in _WORD.findall(text)]
    first: dict[tuple[str, ...], int] = {}
    for i in range(len(tokens) - words + 1):
        gram = tuple(tokens[i:i + words])
        if gram in first and i - first[gram] >= words:
            return " ".join(gram)
        first.setdefault(gram, i)
    return None


def description_problems(text: str) -> list[str]:
    """Why a description does not read as written, in words (empty: it does): a phrase said twice, text that stops
    mid-sentence or mid-word (no closing punctuation), markup or template leftovers. Read by lint (rule N8) and by the
    post-processor, which replaces such a description with one derived from the body."""
    text = " ".join(str(text).split())
    if not text:
        return []
    problems = []
    phrase = repeated_phrase(text)
    if phrase:
        problems.append(f"repeats the phrase {phrase!r}")
    if not text.endswith(_CLOSED):
        problems.append(f"stops mid-sentence ({text[-24:]!r}): cut off?")
    for pattern, what in _LEFTOVERS:
        m = pattern.search(text)
        if m:
            problems.append(f"keeps {what} ({m.group(0).strip()!r})")
    return problems
