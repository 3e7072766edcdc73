"""Version lines: a site whose change pages count in one numbering and whose API markers count in another.

A suite of components often documents each component's changes under the component's own versions ("STDLIB
4.0", "Kernel 8.4") while every API page marks what it added with the suite's version ("Since: OTP 25.0").
Compared as bare numbers the two say nothing about each other (4.0 < 24 tells nothing), so a change page
whose sections name another *line* than the markers is placed by evidence, not by its numbers:

* a section's **label** is the word its heading puts before the version ("1.5 STDLIB 4.0" → ``STDLIB``;
  "What's New In Python 3.11" → ``Python``; "Version 2.1" → none). The markers' line is the label most markers
  carry ("f(X) -> Y OTP 25.0" → ``OTP``), or the label a ``--since-version`` names ("OTP 24");
* a change page is **foreign** when its sections carry one label and the markers another (a page whose
  sections carry no label, or the markers' own label, is on the markers' line: nothing changes for it);
* a foreign section is **bounded** by the APIs its entries name: an entry can only name a function that
  exists, so a section naming ``lists:enumerate`` — marked as added in OTP 25.0, the earliest marker of that
  name — is at least OTP 25.0. Only a section that opens a series (``4.0``, not ``3.17.2.1``: maintenance
  releases of old series can come out after newer ones) is bounded, and the later versions of the same
  page from that series on are at least as late;
* a foreign version with no bound is not placed by its number: older than the page's first bounded version,
  or on a page with none, it is not shown to be new (known when the model's version is given, else undated).

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from packaging.version import Version

from synth.delta.versions import parse_version, series, starts_series

# words a heading puts before a version that name no product ("Version 2.1", "New in 3.0", "Changes in 2.8")
_NOT_A_LABEL = frozenset("""
a an the and or of for in on at to from as is was be by with since until before after new added changed deprecated
removed version versions release released releases notes note v changes changelog news history what's whats update
updates patch fix fixes bugfix hotfix minor major feature features api level draft preview build revision rev
""".split())
_LABEL_BEFORE = r"([A-Za-z][A-Za-z0-9_+-]*)[\s:/-]+v?{v}(?![\w]|\.\d)"


@lru_cache(maxsize=4096)
def _label_rx(version: str) -> re.Pattern[str]:
    return re.compile(_LABEL_BEFORE.format(v=re.escape(version)))
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_MARKER_NAMES = 20_000  # qualified API names one run aligns with (a 10,000-page API site has ~30,000 markers)
MIN_MARKERS = 10  # markers a line needs before it can tell other lines apart
MAX_NAME_CHARS = 80


def version_label(text: str | None, version: str | None) -> str:
    """The word ``text`` puts right before ``version`` when it names a product ("1.5 STDLIB 4.0" → "STDLIB");
    "" when there is none or it is a generic word ("Version 4.0", "New in 4.0")."""
    if not text or not version or version not in text:
        return ""
    m = _label_rx(version).search(text)
    if not m or m.group(1).lower() in _NOT_A_LABEL:
        return ""
    return m.group(1)


def same_label(a: str, b: str) -> bool:
    return a.casefold() == b.casefold()


@dataclass(frozen=True)
class Marker:
    """An API marker as the alignment needs it: the qualified names it annotates and the version it names."""

    names: tuple[str, ...]  # "lists:enumerate", "lists.enumerate"
    version: str
    label: str


@dataclass(frozen=True)
class Placement:
    """Where a foreign section's version stands on the markers' line."""

    shown: str  # "STDLIB 4.0": the section's own label and version
    label: str  # "STDLIB"
    line: str  # the markers' line ("OTP")
    bound: str | None  # the markers' version it is at least ("25.0"), None when nothing bounds it
    why: str  # "its notes name lists:enumerate, added in OTP 25.0" / "older than STDLIB 4.0, …"


def marker_of(heading: str, version: str, api: str | None, module: str | None) -> Marker | None:
    """A marker that adds ``api`` of ``module`` in ``version``, or None when it names no qualified API."""
    if not api or not module or not _MODULE.fullmatch(module) or len(module) + len(api) > MAX_NAME_CHARS:
        return None
    api = re.split(r"[(/\s]", api.strip(), maxsplit=1)[0]
    if not api or not re.fullmatch(r"[A-Za-z_][\w.]*", api):
        return None
    return Marker((f"{module}:{api}", f"{module}.{api}"), version, version_label(heading, version))


def markers_line(markers: Sequence[Marker], since_label: str = "") -> str:
    """The line the markers count in: ``since_label`` when given, else the label most markers carry (at least half
    of them and :data:`MIN_MARKERS`); "" when they carry none."""
    if since_label:
        return since_label
    labels = Counter(m.label.casefold() for m in markers)
    total = sum(labels.values())
    spelled: dict[str, str] = {}
    for m in markers:
        spelled.setdefault(m.label.casefold(), m.label)
    top = [(n, k) for k, n in labels.items() if k]
    if not top:
        return ""
    n, key = max(top)
    return spelled[key] if n >= MIN_MARKERS and 2 * n >= total else ""


def earliest_by_name(markers: Iterable[Marker], line: str) -> dict[str, str]:
    """Each qualified API name → the earliest version of ``line`` a marker gives it (when the name first existed)."""
    out: dict[str, tuple] = {}
    for m in markers:
        if not same_label(m.label, line):
            continue
        v = parse_version(m.version)
        if v is None:
            continue
        for name in m.names:
            cur = out.get(name)
            if cur is None and len(out) >= MAX_MARKER_NAMES:
                continue
            if cur is None or v < cur[0]:
                out[name] = (v, m.version)
    return {k: s for k, (_v, s) in out.items()}


_QUALIFIED = re.compile(r"(?<![\w.:])([A-Za-z_]\w*[:.][A-Za-z_]\w*)(?![\w]|\.\w)")


def named_apis(text: str, earliest: dict[str, str]) -> Iterable[str]:
    """The qualified API names (``module:function``, ``module.function``) ``text`` names that a marker knows."""
    return (m.group(1) for m in _QUALIFIED.finditer(text) if m.group(1) in earliest)


def page_label(sections: Iterable[tuple[str, str]]) -> str:
    """The label most of a change page's sections carry (``(heading, version)`` pairs), "" when most carry none."""
    labels: Counter[str] = Counter()
    spelled: dict[str, str] = {}
    for heading, version in sections:
        lab = version_label(heading, version)
        labels[lab.casefold()] += 1
        spelled.setdefault(lab.casefold(), lab)
    if not labels:
        return ""
    key, n = labels.most_common(1)[0]
    return spelled[key] if key and 2 * n > sum(labels.values()) else ""


def place_page(label: str, line: str, sections: dict[str, list[str]], earliest: dict[str, str]) -> dict[str, Placement]:
    """Place a foreign change page's versions (``sections``: version → its entries' texts) on ``line``.

    Returns a placement for every version of the page (bounded or not); {} when the page is not foreign."""
    if not label or not line or same_label(label, line):
        return {}
    bounds: dict[str, tuple[Version, str, str]] = {}
    for version, texts in sections.items():
        v = parse_version(version)
        if v is None or not starts_series(v):
            continue
        best = None
        for text in texts:
            for name in named_apis(text, earliest):
                mv = parse_version(earliest[name])
                if mv is not None and (best is None or mv > best[0]):
                    best = (mv, earliest[name], name)
        if best is not None:
            bounds[version] = best
    ordered = sorted((pv, v) for v in sections if (pv := parse_version(v)) is not None)
    first = min((pv for pv, v in ordered if v in bounds), default=None)
    out: dict[str, Placement] = {}
    carried = None  # (bound, spelling, what names it, from which version, its parsed version): the latest at or below
    for pv, version in ordered:
        own = bounds.get(version)
        if own is not None and (carried is None or own[0] >= carried[0]):
            carried = (own[0], own[1], f"name {own[2]}, added in {line} {own[1]}", version, pv)
        if carried is not None and series(pv) >= series(carried[4]):
            why = (f"its notes {carried[2]}" if carried[3] == version
                   else f"newer than {label} {carried[3]}, whose notes {carried[2]}")
            out[version] = Placement(f"{label} {version}", label, line, carried[1], why)
        elif first is not None:
            out[version] = Placement(f"{label} {version}", label, line, None,
                                     f"older than {label} {first}, the first {label} version its notes place on {line}")
        else:
            out[version] = Placement(f"{label} {version}", label, line, None,
                                     f"{label} is another version line than {line}, and no {label} section names an "
                                     f"API marked in {line}")
    return out
