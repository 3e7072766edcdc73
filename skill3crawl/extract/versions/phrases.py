"""The marker phrases ("Added in v2.3", "Deprecated since 1.4, will be removed in 2.0"), Sphinx's directive
classes and the Keep a Changelog subsection kinds, and what they say: kind, version, removal version."""

from __future__ import annotations

import re

from skill3crawl.extract.releases import VER, VER_RE, normalize_version

MARKER_VER = VER
MARKER_VER_RE = VER_RE
# "New in version 3.11", "Added in v2.3", "Added in: v9.0.0", "Changed in version 3.8", "Deprecated since version
# 3.11, will be removed in version 3.13", "Removed in 3.12", "Added in Python 3.11" (one product word allowed), "This
# feature is available in Acme 3.7 and later" (added; never "will be / not / no longer available in").
MARKER_RE = re.compile(
    r"(?i)(?<![\w-])(?<!what's )(?<!whats )(?<!what’s )"
    r"(?P<verb>new|added|introduced|changed|deprecated|removed|(?<!will be )(?<!to be )(?<!not )(?<!longer )available)\s+(?:in|since|as\s+of)\s*:?\s+"
    r"(?:(?:version|release|v(?=\d))\s*|(?:[A-Za-z][\w+#-]{0,30}\s+)(?=v?\d+\.\d)|[a-z]{1,6}(?=\d+\.\d))?"
    rf"(?P<ver>{MARKER_VER})(?![\w-]|\.\d)(?!\s*(?:ms|s|secs?|seconds?|minutes?|hours?|days?|%|x|[kmg]i?b)\b)"
    r"(?:,?\s*(?:and\s+)?(?:will\s+be\s+|to\s+be\s+|is\s+scheduled\s+(?:for|to\s+be)\s+)?(?:removed|removal)\s+in\s+"
    rf"(?:(?:version|release)\s*|[A-Za-z][\w+#-]{{0,30}}\s+(?=v?\d))?(?P<rem>{MARKER_VER}))?"
)
# What is left of a marker sentence whose subject is the documented thing itself ("This function was introduced in
# Qt 5.15.", "This enum value has been added in 2.3."): no text of its own — the entry is the block it annotates.
SELF_SUBJECT = re.compile(r"(?i)^(?:this|the)(?:\s+[\w-]+){1,3}?\s+(?:was|is|were|are|has\s+been|have\s+been)$")
# A sentence that opens with the version it holds from: "Since Acme 4.2.0, the tool …", "As from R 4.2.0, …", "As of
# version 2.3 the …", "Starting with 1.5, …" (changed; a dotted version, never a year; a sentence that says "will" is an
# announcement, not a release — the caller checks).
OPENER_RE = re.compile(
    r"(?:^|(?<=[.!?:;]\s)|(?<=\()|(?<=^\s))(?P<verb>Since|As\s+from|As\s+of|From|Starting\s+(?:with|in|from)|Beginning\s+with)\s+"
    r"(?:(?:version|release)\s+|[A-Za-z][\w+#-]{0,30}\s+(?=v?\d+\.\d))?v?(?P<ver>\d+(?:\.\d+)+)(?![\w-]|\.\d)(?P<rem>)"
)
VERB_KIND = {"new": "added", "added": "added", "introduced": "added", "available": "added", "changed": "changed",
              "deprecated": "deprecated", "removed": "removed"}
SPHINX_KIND = {"versionadded": "added", "versionchanged": "changed", "deprecated": "deprecated",
                "deprecated-removed": "deprecated", "versionremoved": "removed"}


# Keep a Changelog / What's New subsections → kind
_SECTION_KIND = (
    (re.compile(r"(?i)^\W*(?:added|new\b|features?\b|additions)"), "added"),
    (re.compile(r"(?i)^\W*(?:changed|changes\b|improved|improvements|updated)"), "changed"),
    (re.compile(r"(?i)^\W*(?:deprecated|deprecations|pending\s+removal)"), "deprecated"),
    (re.compile(r"(?i)^\W*(?:removed|removals|removal)"), "removed"),
)
_REMOVAL_IN = re.compile(r"(?i)remov\w*\s+in\s+(?:version\s+|[A-Za-z][\w+#-]{0,30}\s+(?=v?\d))?(?P<ver>" + MARKER_VER + r")")


def marker_fields(text: str) -> tuple[str, str, str | None] | None:
    m = MARKER_RE.search(text)
    if not m:
        return None
    return VERB_KIND[m.group("verb").lower()], normalize_version(m.group("ver")), normalize_version(m.group("rem")) if m.group("rem") else None


def removed_in(text: str) -> str | None:
    m = _REMOVAL_IN.search(text)
    return normalize_version(m.group("ver")) if m else None


def kind_of_text(text: str, default: str = "changed") -> str:
    """A History row's kind from its change text ("Added in: v9.0.0" → added, "Deprecated…" → deprecated)."""
    t = text.lower().lstrip(" *_`")
    if re.match(r"(?:added|introduced|new\b)", t):
        return "added"
    if re.match(r"(?:deprecat|runtime\s+deprecat|documentation-only\s+deprecat)", t):
        return "deprecated"
    if re.match(r"(?:removed|remove\b|end-of-life)", t):
        return "removed"
    return default


def section_kind(stack: list[tuple[int, str, str | None]]) -> str:
    for _level, text, _anchor in reversed(stack):
        for rx, kind in _SECTION_KIND:
            if rx.match(text):
                return kind
    return "release"
