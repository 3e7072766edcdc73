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
from functools import lru_cache

from synth.core.literals import sub
from synth.delta.lines import version_label

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


def unlink_issues(text: str) -> str:
    """Issue links as their text: "[gh-123](url)" → "gh-123"."""
    return sub(_ISSUE_LINK, r"\1", text, min_literal=2)


def clean_text(text: str) -> str:
    """An entry's text without permalink glyphs, credit tails or issue-number prefixes/suffixes ('' when nothing
    but issue numbers is left)."""
    # a pattern whose required literal ("](", "by"/"from"/"thanks", "Id"/"Refs"…) is absent is not tried
    t = _WS.sub(" ", sub(_EMPTY_LINK, "", _GLYPHS.sub("", text or ""), min_literal=2)).strip()
    t = unlink_issues(t)
    for _ in range(3):
        before = t
        t = _ISSUE_PREFIX.sub("", t)
        t = sub(_CREDIT_TAIL, "", t, min_literal=2).rstrip()
        t = _ISSUE_SUFFIX.sub("", t).rstrip()
        t = sub(_TRACKER_TAIL, "", t, min_literal=2).rstrip()
        if t == before:
            break
    if _ONLY_ISSUES.match(t):
        return ""
    if t and t[-1] not in ".!?:;)`*\"'" and len(t) > 40:
        t += "."
    return t


@lru_cache(maxsize=4096)
def clean_heading(text: str) -> str:
    """A heading without permalink glyphs of any theme (private-use, symbol, zero-width characters, '¶', '#').
    (Cached: the entries of one section share its headings.)"""
    t = _WS.sub(" ", _GLYPHS.sub("", text or "")).strip()
    t = _TRAILING_SYMBOLS.sub("", t).strip()
    return "".join(ch for ch in t if unicodedata.category(ch) not in ("Co", "Cf", "Cs"))


def is_intro(text: str) -> bool:
    """An introduction or cross-reference ("Welcome to …", "See the … release notes") — not a change entry."""
    return bool(_INTRO.match(text or ""))


_OWN_MARKER = r"(?:[Nn]ew|[Aa]dded|[Cc]hanged|[Dd]eprecated|[Rr]emoved)\s+(?:in|since)\s*:?\s+(?:version\s+|v)?{v}" \
              r"(?:,?\s*(?:and\s+)?(?:will\s+be\s+)?removed\s+in\s+(?:version\s+)?v?\d+(?:\.\d+)*)?\s*[.:]?"


@lru_cache(maxsize=4096)
def _own_marker(version: str) -> re.Pattern[str]:
    """The marker phrase of one version (compiled once: a run names hundreds of versions, more than re's cache holds)."""
    return re.compile(r"\s*(?<![\w-])(?<!be )(?<!to )" + _OWN_MARKER.format(v=re.escape(version)) + r"(?![\w]|\.\d)")


def strip_own_marker(text: str, version: str) -> str:
    """The entry's text without the marker phrase that names its own version ("New in version 3.11." — the label
    says it); a marker of another version stays."""
    if not version or version not in text:  # the phrase holds the version as written
        return text
    rx = _own_marker(version)
    return _WS.sub(" ", rx.sub(" ", text)).strip(" —-") if rx.search(text) else text


@lru_cache(maxsize=4096)
def _stamp(stamp: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w.])" + re.escape(stamp) + r"(?![\w]|\.\d)\.?")


def strip_stamp(text: str, heading: str, version: str) -> str:
    """The entry's text without the version stamp its heading ends with ("nodes(Arg) -> [Node] OTP 25.1 Types …"
    → "nodes(Arg) -> [Node] Types …"): a marker's own version, which the label says."""
    label = version_label(heading, version)
    stamp = f"{label} {version}"
    if not label or not heading.rstrip(" .").endswith(stamp):
        return text
    return _WS.sub(" ", _stamp(stamp).sub(" ", text, count=1)).strip()
