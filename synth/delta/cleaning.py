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
from synth.delta.numberings import version_label
from synth.skill.quote import ELLIPSIS

# -- cleaning ---------------------------------------------------------------------------------------------------

_CREDIT_TAIL = re.compile(
    r"\s*[(\[]?\s*(?:(?:original\s+)?(?:patch|contributed|contribution|implemented|written|reported|fixed|added|"
    r"suggested|proposed|initial\s+patch|pr)\s+(?:by|from)\b|thanks\s+(?:to|@))[^()\[\]]{0,240}[)\]]?\s*\.?\s*$", re.I)
_ISSUE = r"(?:bpo|gh|issue|pr|pull|ticket|bug|cve|ghsa)[-\s#:]*\d[\w-]*|#\d+|!\d+"
_ISSUE_LINK = re.compile(rf"\[\s*((?:{_ISSUE})(?:\s*,\s*(?:{_ISSUE}))*)\s*\]\([^)\s]*\)", re.I)  # [gh-123](url) → gh-123
ISSUE_PREFIX = re.compile(rf"^\s*(?:[(\[]?\s*(?:{_ISSUE})\s*[)\]]?\s*(?:,\s*)?)+\s*[:\-–—]?\s*", re.I)
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
    r"below\s+(?:you\s+will|you'll)\s+find\b|the\s+following\s+(?:individuals|people|persons|contributors)\b|"
    r"(?:please\s+)?refer\s+to\s+(?:the\s+)?.{0,80}?\b(?:for|guide|section|documentation|notes)\b|"
    r"to\s+read\s+more\s+about\b|make\s+sure\s+(?:you\s+)?(?:read|are\s+not\s+affected)\b|"
    r".{0,120}\bmentioned\s+in\s+the\s+(?:following|next|previous|above)\s+(?:section|chapter)s?\b|"
    r"(?:first,?\s+|here\s+is\s+)?an?\s+(?:short\s+|brief\s+)?overview\s+of\s+the\b.{0,80}?\.\s+(?:an?|the)\s+(?:comprehensive|complete|"
    r"full|detailed)\s+list\b)", re.I)
_GLYPHS = re.compile(r"[\u00b6\u00a7\u200b-\u200f\u2060\ufeff\U0001f517]|[\ue000-\uf8ff]")
_TRAILING_SYMBOLS = re.compile(r"(?:\s*(?:[#¶§]|[^\w\s.,;:!?)\]'\"`*]))+\s*$")
WS = re.compile(r"\s+")


_HISTORY = re.compile(r"\b(?:[Nn]ew|[Aa]dded|[Ii]ntroduced)\s+(?:in|since)\s+((?:version\s+|release\s+|[A-Za-z][\w+#-]{0,30}\s+)?)"
                      r"(v?\d+(?:\.\d+)*)(?![\w]|\.\d)")


def elide_history(text: str, is_pre: "Callable[[str], bool]") -> tuple[str, list[str]]:
    """A phrase inside a post-cutoff entry that dates something to a version released before the cutoff ("the
    replacements added in Python 3.9") is left out of the quote and said in the label instead: the text reads
    "the replacements … and will be removed", the note "…: since Python 3.9, before the cutoff" — so no line of the
    skill presents an old version as new, and the quote is still the source's words. A marker sentence of its own
    ("New in version 2.1.") goes whole. Returns (text, notes)."""
    if not _HISTORY.search(text):
        return text, []
    notes: list[str] = []

    def repl(m: re.Match) -> str:
        if not is_pre(m.group(2).lstrip("vV")):
            return m.group(0)
        note = f"since {m.group(1)}{m.group(2)}, before the cutoff"
        if note not in notes:
            notes.append(note)
        return ELLIPSIS

    out = _HISTORY.sub(repl, text)
    if not notes:
        return text, []
    # "… ." / "…:" left where the phrase ended a sentence: the ellipsis ends it
    out = re.sub(r"…\s*([.:;,])(?=\s|$)", "…", out)
    out = re.sub(r"(?:…\s*){2,}", "… ", out).strip()
    return out, [f"…: {n}" for n in notes]


def unlink_issues(text: str) -> str:
    """Issue links as their text: "[gh-123](url)" → "gh-123"."""
    return sub(_ISSUE_LINK, r"\1", text, min_literal=2)


def clean_text(text: str) -> str:
    """An entry's text without permalink glyphs, credit tails or issue-number prefixes/suffixes ('' when nothing
    but issue numbers is left)."""
    # a pattern whose required literal ("](", "by"/"from"/"thanks", "Id"/"Refs"…) is absent is not tried
    t = WS.sub(" ", sub(_EMPTY_LINK, "", _GLYPHS.sub("", text or ""), min_literal=2)).strip()
    t = unlink_issues(t)
    for _ in range(3):
        before = t
        t = ISSUE_PREFIX.sub("", t)
        t = sub(_CREDIT_TAIL, "", t, min_literal=2).rstrip()
        t = _ISSUE_SUFFIX.sub("", t).rstrip()
        t = sub(_TRACKER_TAIL, "", t, min_literal=2).rstrip()
        if t == before:
            break
    if _ONLY_ISSUES.match(t):
        return ""
    if t and t[-1] not in ".!?:;)`*\"'…" and len(t) > 40:
        t += "."
    return t


@lru_cache(maxsize=4096)
def clean_heading(text: str) -> str:
    """A heading without permalink glyphs of any theme (private-use, symbol, zero-width characters, '¶', '#').
    (Cached: the entries of one section share its headings.)"""
    t = WS.sub(" ", _GLYPHS.sub("", text or "")).strip()
    t = _TRAILING_SYMBOLS.sub("", t).strip()
    return "".join(ch for ch in t if unicodedata.category(ch) not in ("Co", "Cf", "Cs"))


_NAV_HEADING = re.compile(r"(?i)^\W*(?:previous|next|prev)\s+(?:topic|page|chapter|section)|^\W*(?:table\s+of\s+)?contents\W*$|"
                          r"^\W*(?:this\s+page|on\s+this\s+page|in\s+this\s+(?:article|page|section)|navigation|"
                          r"site\s+navigation|quick\s+search|search|related\s+topics|breadcrumbs?|sidebar|menu)\W*$")
_LINK = r"!?\[[^\]\n]*\]\([^)\s]*\)"
_ONLY_LINKS = re.compile(rf"^\W*{_LINK}(?:[\s|·•,;/»«>-]*{_LINK})*[\s|·•,;/»«>.-]*$")
_INLINE_HEADING = re.compile(r"(?:^|\s)#{1,6}\s+\S")
# a plain-text table of contents: titles, each followed by a |tag| reference that jumps to its section
# ("INCOMPATIBLE CHANGES |incompatible-9| IMPROVEMENTS |improvements-9|")
_TAG_REF = r"\|(?:\[[^\]\n]{1,80}\]\([^)\s]*\)|[^\s|]{1,80})\|"
_CONTENTS = re.compile(rf"^\s*(?:[^|\n.!?]{{1,80}}?\s+{_TAG_REF}\s*)+$")


def navigation(text: str, headings: "tuple[str, ...] | list[str]" = (), api: str | None = None) -> str | None:
    """Why an entry is the page's navigation and not a change ("the sidebar's Previous topic", "only links", "a whole
    page"), or None: text under a navigation heading (Previous topic, Table of contents, On this page …), text that
    is nothing but links to other pages, text holding several headings of its own (a page's whole text, chrome and
    sections flattened into one block). An entry that names an API object with its own version (``api``) is a change
    whatever heading the page scan saw last (an API list after a page's "Contents" box), not the box's navigation."""
    if not api and any(_NAV_HEADING.match(h or "") for h in headings):
        return "under a navigation heading (previous/next topic, contents, this page)"
    if _ONLY_LINKS.match(text or ""):
        return "only links to other pages (navigation)"
    if len(_INLINE_HEADING.findall(text or "")) >= 2:
        return "a whole page's text (navigation and several sections in one block)"
    return None


def table_of_contents(raw: str) -> bool:
    """Whether an entry's text as the page gives it is a plain-text table of contents: titles, each followed by a
    ``|tag|`` reference that jumps to its section, and nothing else ("INCOMPATIBLE CHANGES |incompatible-9|"); a
    sentence that ends with a reference ("Support for the lsp channel mode |channel-lsp|.") is none."""
    return bool(_CONTENTS.match(raw or ""))


_INHERITED = re.compile(r"(?i)\binherited\s+from\b|^\W*inherited\s+(?:members|methods|properties|signals|attributes)\W*$")


def inherited(headings: "tuple[str, ...] | list[str]") -> bool:
    """Whether the entry is under a section of members inherited from another class ("Properties inherited from
    GtkWindow (24)", "Methods inherited from class …", "Inherited members"): such a member's version marker is the
    parent's — of another library when the parent is another product's — and is read on the parent's own page."""
    return any(_INHERITED.search(h or "") for h in headings)


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
    says it) when that phrase is a sentence of its own: it opens the text or follows a sentence's end, or starts with a
    capital, and it ends with a stop or colon, ends the text or is followed by a capital. Inside a sentence ("Batch calls were deprecated in 2.5,
    so …") it stays: a quote never loses a word. A marker of another version stays."""
    if not version or version not in text:  # the phrase holds the version as written
        return text
    rx = _own_marker(version)
    if not rx.search(text):
        return text

    def repl(m: re.Match) -> str:
        phrase = m.group(0).strip()
        before = text[:m.start()].rstrip()
        opens = not before or before[-1] in ".!?:;—" or phrase[:1].isupper()
        rest = text[m.end():]
        # it ends with a stop or colon, ends the text, or a block follows it (a capital: "Added in: v19.7.0 Stability: 1")
        closes = phrase[-1:] in ".:;" or not rest.strip() or (phrase[:1].isupper() and bool(re.match(r"\s+[A-Z—–]", rest)))
        return " " if opens and closes else m.group(0)

    return WS.sub(" ", rx.sub(repl, text)).strip(" —-")


_LINKS = re.compile(r"\[\[[^\]\n]*\]\]\([^)\s]*\)|\[[^\]\n]*\]\([^)\s]*\)|\\?\[[^\]\s]{1,10}\\?\]")


def bare_marker(text: str, version: str) -> bool:
    """Whether a text is only its own version's marker over a heading or two and a source link ("since: 1.50
    Declaration [[src]](…)": a symbol page's badge read with the heading after it) — no statement to quote."""
    if not version or version not in text:
        return False
    rest = _LINKS.sub(" ", re.sub(r"(?<![\w.])v?" + re.escape(version) + r"(?![\w]|\.\d)", " ", text))
    words = re.findall(r"[^\W\d_]+", rest)
    said = [w for w in words if w.lower() not in _MARKER_WORDS]
    return len(said) < len(words) and len(said) <= 2 and all(w[:1].isupper() for w in said) \
        and not re.search(r"[`()=<>{}]", rest)


_MARKER_WORDS = frozenset("new added changed deprecated removed available introduced since in version".split())


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
    return WS.sub(" ", _stamp(stamp).sub(" ", text, count=1)).strip()
