"""An entry's text, cleaned: permalink glyphs, "Contributed by …" tails and issue-number prefixes/suffixes removed;
introductions and cross-references ("Welcome to …", "See the … release notes") told apart; the marker phrase or
version stamp that names the entry's own version dropped; a phrase that dates something to a pre-cutoff version said
to be old.

Pure: no I/O, no Scrapy.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from synth.evidence.delta.lines import version_label

# -- cleaning ---------------------------------------------------------------------------------------------------

_CREDIT_TAIL = re.compile(
    r"\s*[(\[]?\s*(?:(?:original\s+)?(?:patch|contributed|contribution|implemented|written|reported|fixed|added|"
    r"suggested|proposed|initial\s+patch|pr)\s+(?:by|from)\b|thanks\s+(?:to|@))[^()\[\]]{0,240}[)\]]?\s*\.?\s*$", re.I)
_ISSUE = r"(?:bpo|gh|issue|pr|pull|ticket|bug|cve|ghsa)[-\s#:]*\d[\w-]*|#\d+|!\d+"
_ISSUE_LINK = re.compile(rf"\[\s*((?:{_ISSUE})(?:\s*,\s*(?:{_ISSUE}))*)\s*\]\([^)\s]*\)", re.I)  # [gh-123](url) → gh-123
_ISSUE_PREFIX = re.compile(rf"^\s*(?:[(\[]?\s*(?:{_ISSUE})\s*[)\]]?\s*(?:,\s*)?)+\s*[:\-–—]?\s*", re.I)
_ISSUE_SUFFIX = re.compile(rf"\s*[(\[]\s*(?:(?:see\s+)?(?:{_ISSUE})[\s,;]*(?:and\s+)?)+[)\]]\s*\.?\s*$", re.I)
# "Own Id: OTP-18032 Aux Id: PR-5790, GH-6000", "Refs: ABC-12", "Ticket: #12": a tail of labelled tracker references
_EMPTY_LINK = re.compile(r"\[\s*\]\([^)\s]*\)")  # a permalink whose glyph was its only text
_TRACKER_TAIL = re.compile(r"(?:\s+\b(?:[A-Z][a-z]+\s+)?(?:Id|ID|Ids|Refs?|References?|Issues?|Tickets?|Bugs?|"
                           r"PRs?|Fixes|Closes|See)\s*:\s*(?:(?:[A-Z][A-Z0-9_]*-\d+|#\d+|[A-Z]+\d+)[\s,;]*(?:and\s+)?)+)+"
                           r"\s*\.?\s*$")
_ONLY_ISSUES = re.compile(rf"^[\s(),.;:\[\]]*(?:(?:{_ISSUE}|and|see)[\s(),.;:\[\]]*)*$", re.I)
_INTRO = re.compile(
    r"^\W*(?:welcome\s+to\b|these\s+(?:release\s+)?notes\s+(?:cover|describe|document|list)|this\s+(?:article|document|"
    r"page|release|section|chapter)\s+(?:explains|describes|covers|documents|lists|summari[sz]es|contains|includes)|"
    r"(?:for\s+(?:full|more)\s+details|for\s+a\s+(?:full|complete)\s+list)\b|see\s+(?:also\s+)?(?:the\s+)?.{0,80}?"
    r"(?:release\s+notes|changelog|change\s*log|changes|what'?s\s+new|news|full\s+list)\b|the\s+full\s+(?:list|changelog)|"
    r"see\s+.{0,80}?\bfor\s+(?:more|further|full|the\s+full|complete)?\s*(?:details|information|examples|discussion)\b|"
    r"(?:thanks|thank\s+you)\s+to\b|we\s+(?:are|'re)\s+(?:pleased|happy|excited|proud)\s+to\s+announce|"
    r"(?:editor|author|release\s+manager)s?\s*:|release\s+date\s*:|released\s*:|"
    r".{0,80}\b(?:are|is)\s+(?:listed|described|documented|covered)\s+(?:separately|elsewhere|below|above)\b|"
    r"(?:the\s+)?above\s+items\b|.{0,120}\b(?:are|is)\s+(?:explained|described|detailed)\s+in\s+(?:more\s+)?detail\b|"
    r"below\s+(?:you\s+will|you'll)\s+find\b|the\s+following\s+(?:individuals|people|persons|contributors)\b)", re.I)
_GLYPHS = re.compile(r"[\u00b6\u00a7\u200b-\u200f\u2060\ufeff\U0001f517]|[\ue000-\uf8ff]")
_TRAILING_SYMBOLS = re.compile(r"(?:\s*(?:[#¶§]|[^\w\s.,;:!?)\]'\"`*]))+\s*$")
_WS = re.compile(r"\s+")


_HISTORY = re.compile(r"\b(?:[Nn]ew|[Aa]dded|[Ii]ntroduced)\s+(?:in|since)\s+((?:version\s+|release\s+|[A-Za-z][\w+#-]{0,30}\s+)?)"
                      r"(v?\d+(?:\.\d+)*)(?![\w]|\.\d)")


def date_history(text: str, is_pre: "Callable[[str], bool]") -> str:
    """A phrase inside a post-cutoff entry that dates something to a version released before the cutoff ("the
    replacements added in Python 3.9") says so: "available since Python 3.9, before the cutoff" — so no line of the
    skill presents an old version as new."""
    def repl(m: re.Match) -> str:
        return f"available since {m.group(1)}{m.group(2)}, before the cutoff" if is_pre(m.group(2).lstrip("vV")) else m.group(0)
    return _HISTORY.sub(repl, text) if _HISTORY.search(text) else text


def clean_text(text: str) -> str:
    """An entry's text without permalink glyphs, credit tails or issue-number prefixes/suffixes ('' when nothing
    but issue numbers is left)."""
    t = _WS.sub(" ", _EMPTY_LINK.sub("", _GLYPHS.sub("", text or ""))).strip()
    t = _ISSUE_LINK.sub(r"\1", t)
    for _ in range(3):
        before = t
        t = _ISSUE_PREFIX.sub("", t)
        t = _CREDIT_TAIL.sub("", t).rstrip()
        t = _ISSUE_SUFFIX.sub("", t).rstrip()
        t = _TRACKER_TAIL.sub("", t).rstrip()
        if t == before:
            break
    if _ONLY_ISSUES.match(t):
        return ""
    if t and t[-1] not in ".!?:;)`*\"'" and len(t) > 40:
        t += "."
    return t


def clean_heading(text: str) -> str:
    """A heading without permalink glyphs of any theme (private-use, symbol, zero-width characters, '¶', '#')."""
    t = _WS.sub(" ", _GLYPHS.sub("", text or "")).strip()
    t = _TRAILING_SYMBOLS.sub("", t).strip()
    return "".join(ch for ch in t if unicodedata.category(ch) not in ("Co", "Cf", "Cs"))


def is_intro(text: str) -> bool:
    """An introduction or cross-reference ("Welcome to …", "See the … release notes") — not a change entry."""
    return bool(_INTRO.match(text or ""))


_OWN_MARKER = r"(?:[Nn]ew|[Aa]dded|[Cc]hanged|[Dd]eprecated|[Rr]emoved)\s+(?:in|since)\s*:?\s+(?:version\s+|v)?{v}" \
              r"(?:,?\s*(?:and\s+)?(?:will\s+be\s+)?removed\s+in\s+(?:version\s+)?v?\d+(?:\.\d+)*)?\s*[.:]?"


def strip_own_marker(text: str, version: str) -> str:
    """The entry's text without the marker phrase that names its own version ("New in version 3.11." — the label
    says it); a marker of another version stays."""
    rx = re.compile(r"\s*(?<![\w-])(?<!be )(?<!to )" + _OWN_MARKER.format(v=re.escape(version)) + r"(?![\w]|\.\d)")
    return _WS.sub(" ", rx.sub(" ", text)).strip(" —-") if version and rx.search(text) else text


def strip_stamp(text: str, heading: str, version: str) -> str:
    """The entry's text without the version stamp its heading ends with ("nodes(Arg) -> [Node] OTP 25.1 Types …"
    → "nodes(Arg) -> [Node] Types …"): a marker's own version, which the label says."""
    label = version_label(heading, version)
    stamp = f"{label} {version}"
    if not label or not heading.rstrip(" .").endswith(stamp):
        return text
    return _WS.sub(" ", re.sub(r"(?<![\w.])" + re.escape(stamp) + r"(?![\w]|\.\d)\.?", " ", text, count=1)).strip()
