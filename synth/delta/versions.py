"""Version strings, the one reader and comparator of both sides: how a version is printed (:data:`VER`,
:data:`VER_RE`, :data:`BARE_VER`, read by the crawl's :mod:`skill3crawl.extract.releases`), normalised
(:func:`normalize_version`, :func:`version_of_tag`), parsed with ``packaging.version`` with a tolerant fallback for
prose spellings (:func:`parse_version`) and compared (:func:`known_by`, :func:`newest_first`, :func:`series`)."""

from __future__ import annotations

import re
from functools import lru_cache

from packaging.version import InvalidVersion, Version

# A version as printed: 3.11, 2.0.0, v1.4, 2.0.0-beta.1, 3.11.0rc2 (a bare integer only after "version"/"v").
VER = r"v?\d+(?:\.\d+)+(?:[-.]?(?:a|b|rc|alpha|beta|dev|pre|post|preview)[.-]?\d*)?|(?<=version )\d+|(?<=release )\d+|(?<=\bv)\d+"
VER_RE = re.compile(rf"(?i)(?<![\w.])({VER})(?![\w-]|\.\d)")
# a version as a field's whole value, where a bare number is a version too ("Since: 17", "OTP 25.0")
BARE_VER = r"\d+(?:\.\d+)*(?:[-.]?(?:a|b|rc|alpha|beta|dev|pre|post|preview)[.-]?\d*)?"
_TAG_VERSION = re.compile(r"(\d+(?:\.\d+)+(?:[-.+]?[A-Za-z0-9.]+)?)$")


def normalize_version(s: str) -> str:
    """``v1.4`` → ``1.4``; otherwise as printed."""
    s = s.strip().strip("[]()")
    if s[:1] in "vV" and s[1:2].isdigit():
        s = s[1:]
    return s


def version_of_tag(tag: str) -> str:
    """``v1.2.0`` / ``release-1.2`` / ``pkg@1.2.0`` → ``1.2.0`` (the tag itself when it has no version)."""
    m = _TAG_VERSION.search(tag)
    return m.group(1) if m else tag


_NUM = re.compile(r"(\d+(?:\.\d+){0,3})")
_PRE = re.compile(r"(\d+(?:\.\d+){0,3})\s*[-_ ]?\s*(alpha|beta|release candidate|candidate|rc|a|b|c)\s*[-_. ]?\s*(\d*)\b", re.I)
_PRE_TAG = {"alpha": "a", "a": "a", "beta": "b", "b": "b", "rc": "rc", "c": "rc", "candidate": "rc", "release candidate": "rc"}


MAX_VERSION_CHARS = 64  # "3.11.0 release candidate 2" is 26; a release string is never a paragraph
MAX_NUMBER_DIGITS = 12  # a release number (20240115 is 8 digits): a longer run of digits is no version
_LONG_NUMBER = re.compile(r"\d{%d}" % (MAX_NUMBER_DIGITS + 1))


def plausible_version(text: object) -> bool:
    """Whether ``text`` can be a version string at all: at most :data:`MAX_VERSION_CHARS` characters and no
    number longer than :data:`MAX_NUMBER_DIGITS` digits (a 10,000-digit "version" is rejected, not parsed)."""
    s = str(text or "").strip()
    return 0 < len(s) <= MAX_VERSION_CHARS and not _LONG_NUMBER.search(s)


@lru_cache(maxsize=4096)
def parse_version(text: str | None) -> Version | None:
    """``3.11``, ``v2.0.0``, ``3.11.0 alpha 1``, ``Python 3.11.0 final`` → a Version; None when no number is found
    or the text is no plausible version (:func:`plausible_version`)."""
    if not text or not plausible_version(text):
        return None
    s = str(text).strip()
    try:
        return Version(s)
    except InvalidVersion:
        pass
    m = _PRE.search(s)
    if m:
        try:
            return Version(f"{m.group(1)}{_PRE_TAG[m.group(2).lower()]}{m.group(3) or 0}")
        except InvalidVersion:
            pass
    m = _NUM.search(s)
    if not m:
        return None
    try:
        return Version(m.group(1))
    except InvalidVersion:  # pragma: no cover - the regex only yields valid releases
        return None


def series(v: Version) -> tuple[int, int]:
    """The feature series: (major, minor). ``3.11.4`` and ``3.11`` are both (3, 11)."""
    rel = v.release + (0, 0)
    return rel[0], rel[1]


def starts_series(v: Version) -> bool:
    """A final release that opens its series: ``3.11`` or ``3.11.0`` (not ``3.11.2``, not ``3.11.0rc1``)."""
    return not v.is_prerelease and all(x == 0 for x in v.release[2:])


MAX_VERSION_CHARS = 64


def check_since_version(value: object) -> str | None:
    """A ``--since-version`` as given (``3.24``, ``v16``, ``OTP 24``), or None when blank; ValueError naming the fix."""
    if value is None or str(value).strip() == "":
        return None
    s = str(value).strip()
    if len(s) > MAX_VERSION_CHARS or parse_version(s) is None:
        raise ValueError(f"{s[:40]!r} is not a version: give the newest version the target model knows, e.g. 3.24")
    return s


def known_by(version: Version, since: Version) -> bool:
    """Whether a model that knows the topic up to ``since`` knows ``version``: compared on as many release
    components as ``since`` names (``since`` 3.24 knows 3.24.5 but not 3.25; ``since`` 24 knows 24.3 but not 25.0), except
    a build numbered after the release itself (``since`` 8.6 knows neither 8.6.0.4 nor 8.6.0.0.1, which came after 8.6.0
    on the way to the next release; it knows 8.6.1.2)."""
    n = len(since.release)
    mine = (version.release + (0,) * n)[:n]
    if mine != since.release:
        return mine < since.release
    if n <= 3 and len(version.release) > 3 and not any(version.release[n:3]) and any(version.release[3:]):
        return False  # a build after the release ("8.6.0.4" after 8.6: a development version of the next), no patch of it
    return not (since.is_prerelease and not version.is_prerelease) or version <= since


def newest_first(v: str) -> tuple:
    """A sort key: versions newest first (``3.11.1`` before ``3.11`` before ``3.11rc1``), unparseable ones last."""
    pv = parse_version(v)
    if pv is None:
        return (1, (), False, v)
    return (0, tuple(-x for x in pv.release), pv.is_prerelease, v)
