"""The topic's version line: which versions the change entries name are releases of the topic, and why.

A change entry carries a version; the version is a release of the topic only when the evidence says so. Reasoned
once, here, for every entry before its version is placed against the cutoff (:meth:`Ledger.finish`):

* **another product's version**: the entry's version is bound, everywhere its text names it, to a product
  that is not the topic ("Introduced in CUDA 11.1", "requires PostgreSQL 11", "compiler >= 4.8.0", "added in
  Python 3.7" on a site about another project). The topic's own names are its topic words, the labels its
  change pages put before their versions ("What's New In Acme 2.3" → Acme, "CORELIB 4.0" → CORELIB), the
  label most API markers carry ("Since: SUITE 25.0") and the site's own version stamp ("Acme 3.2 Documentation");
* **only announced**: the text names the version only as a future one ("will be removed in 3.0", "will change
  in 1.4", "scheduled for 4.0", "in the upcoming 5.0") — unless the site documents that version as released
  (dated, or declared by a change page), such an entry is no release of it (a deprecation that names both its
  own version and a removal, "Deprecated since 1.4, will be removed in 2.0", is a deprecation of 1.4);
* **ahead of the site's releases on weak evidence** (:func:`versions_ahead`): named only by deprecation markers
  ahead of every documented release, or, with a ``--since-version``, outside the site's version sequence;
* **beyond the site's own version** (:class:`Stamps`): most pages' titles stamp the version the documentation
  is of ("asyncio — Acme 3.11.2 documentation"); a version newer than it is no release the site documents
  unless something dates it (applied in :class:`~synth.delta.timeline.Timeline`).

A version whose every entry is rejected is left out of the skill; ``run.json`` ``delta.version_line`` and
``--dry-run`` list every version with the verdict and its reason. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from synth.delta.changes import Change
from synth.delta.timeline import NOT_A_RELEASE
from synth.delta.versions import Version, parse_version

# words before a version that name no product ("New in version 2.1", "since 3.0", "Changes in 2.8")
GENERIC = frozenset("""
a an the and or of for in on at to from as is was be by with since until before after new added changed deprecated
removed version versions release released releases notes note v changes changelog news history what's whats update
updates patch fix fixes bugfix hotfix minor major feature features api level draft preview build revision rev
introduced available supported starting start stable series branch tag tagged release-notes see also than
""".split())
_NAME = r"[A-Za-z][\w+#/.-]{0,40}"
_CMP = r"(?:>=|=>|≥|<=|≤|==|~=|>|<|=|\^|~)?"
_URL = re.compile(r"\]\([^)\s]*\)|\b(?:https?|ftp)://\S+")  # a link's address names versions of nothing
MAX_TEXT = 4000  # characters of an entry read for the version's context
MAX_VERDICTS = 2000  # versions run.json records a verdict for


@lru_cache(maxsize=4096)
def _occurrences(version: str) -> re.Pattern[str]:
    """Every place a text names ``version`` (``v2.3`` too), with the name and comparison before it."""
    return re.compile(rf"(?:(?P<name>{_NAME})\s*(?P<cmp>{_CMP})\s*)?(?<![\w.])v?{re.escape(version)}(?![\w]|\.\d)")


_FUTURE = re.compile(
    r"(?i)(?:\b(?:will|would|shall|is\s+(?:going|scheduled|planned|slated|expected|due)\s+to|are\s+(?:going|scheduled|planned)\s+to)"
    r"(?:\s+\w+){0,4}?\s+(?:in|by|with|from|for|as\s+of|starting\s+(?:in|with))"
    r"|\b(?:scheduled|planned|slated|targeted|expected|due)\s+(?:for|in)(?:\s+removal\s+in)?"
    r"|\b(?:upcoming|future|next|coming|forthcoming)(?:\s+(?:major|minor|feature))?(?:\s+(?:version|release))?"
    r"|\bto\s+be\s+\w+\s+(?:in|by|with|from)"
    r"|\b(?:deadline|removal|pending\s+removal)\s+(?:is\s+)?(?:in|for))"
    r"\s+(?:(?:version|release)\s+|[A-Za-z][\w+#/-]{0,30}\s+)?$"
)


def _names(text: str) -> set[str]:
    return {p.casefold() for p in re.split(r"[/\s]+", text.strip(" .:-")) if p}


def is_own(name: str, own: Iterable[str]) -> bool:
    """Whether a product name is one of the topic's names (any of its "/"-separated parts: "Erlang/OTP" is OTP)."""
    mine = set(own)
    return bool(_names(name) & mine)


def bound_product(text: str, version: str, own: Iterable[str]) -> str | None:
    """The other product ``version`` belongs to in ``text``: every place the text names it, a product name that is
    not the topic's stands right before it ("CUDA 10.0", "PostgreSQL 11", "compiler >= 4.8.0"); None when one
    place names it bare or after a generic word ("New in version 2.3") or the topic's own name, or when the text
    does not name it (the version came from a heading or a directive: the crawl's evidence stands)."""
    found = None
    own = set(own)
    for m in _occurrences(version).finditer(_URL.sub(" ", text[:MAX_TEXT])):
        name = (m.group("name") or "").strip(".-/")
        if not name or name.casefold() in GENERIC or is_own(name, own) or not name[0].isalpha():
            return None
        if not (m.group("cmp") or re.search(r"[A-Z+#/.]|\d", name)):
            return None  # a lowercase word ("requires 2.3") names no product: the topic's version
        found = found or " ".join(m.group(0).split())
    return found


@lru_cache(maxsize=4096)
def _bare(version: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.])v?{re.escape(version)}(?![\w]|\.\d)")


# "as of 5.38 they will …", "starting with 4.0 this will …": the version opens a clause whose verb is future
_FROM_THEN = re.compile(r"(?i)\b(?:as\s+of|starting\s+(?:in|with|from)|beginning\s+(?:in|with)|from)"
                        r"\s+(?:(?:version|release)\s+|[A-Za-z][\w+#/-]{0,30}\s+)?$")
_THEN_FUTURE = re.compile(r"(?i)^,?\s+(?:(?!and\b|but\b|or\b|nor\b)[\w'’-]+\s+){0,4}?(?:will|shall)\b"
                          r"(?!\s+(?:be\s+)?(?:still|now)\b)")  # its own clause: "deprecated as of 0.25 and will …" is not


def announced(text: str, version: str) -> str | None:
    """The phrase that names ``version`` only as a future release ("will be removed in 3.0", "as of 3.0 they will
    only be …"), when every place ``text`` names it is such a phrase; None otherwise (or when the text does not name
    it)."""
    phrase = None
    text = text[:MAX_TEXT]
    for m in _bare(version).finditer(text):
        head = text[max(0, m.start() - 80):m.start()]
        f = _FUTURE.search(head)
        if f is not None:
            phrase = phrase or " ".join((head[f.start():] + m.group(0)).split())
            continue
        opener, tail = _FROM_THEN.search(head), _THEN_FUTURE.match(text[m.end():m.end() + 60])
        if opener is None or tail is None:
            return None
        phrase = phrase or " ".join((head[opener.start():] + m.group(0) + tail.group(0)).split())
    return phrase


# -- the site's own version stamp --------------------------------------------------------------------------------

_STAMP = re.compile(
    r"(?i)(?:^|[—–|:·•-]\s*|\s)(?P<label>[A-Za-z][\w./+#-]{0,40}(?:\s+[A-Za-z][\w./+#-]{0,40}){0,2})\s+v?(?P<ver>\d+(?:\.\d+){0,3})"
    r"\s+(?:documentation|docs|manual|reference(?:\s+(?:manual|guide))?|user(?:['’]s)?\s+guide|handbook|api\s+reference)\s*$"
)
# a title whose last part, after a separator, is the product and its version alone ("QFile Class | Qt Core 5.15.8")
_STAMP_TAIL = re.compile(
    r"\s[|—–·•]\s*(?P<label>[A-Za-z][\w./+#-]{0,40}(?:\s+[A-Za-z][\w./+#-]{0,40}){0,2})\s+v?(?P<ver>\d+(?:\.\d+){1,3})\s*$"
)
MIN_STAMP_PAGES = 5
STAMP_SHARE = 0.3


def stamp_of(title: str | None) -> tuple[str, str] | None:
    """``(label, version)`` of a page title that stamps the docs' own version ("asyncio — Acme 3.11.2 documentation"
    → ("Acme", "3.11.2"); "QFile Class | Acme Core 5.15.8" → ("Acme", "5.15.8")), else None."""
    if not title or len(title) > 300:
        return None
    title = " ".join(title.split())
    m = _STAMP.search(title)
    if m and parse_version(m.group("ver")) is not None:
        return m.group("label").split()[-1], m.group("ver")
    m = _STAMP_TAIL.search(title)  # the product's name first ("Qt Core 5.15.8" → Qt)
    if m and parse_version(m.group("ver")) is not None:
        return m.group("label").split()[0], m.group("ver")
    return None


@dataclass
class Stamps:
    """The version stamp most page titles carry: the version the documentation is of."""

    counts: Counter = field(default_factory=Counter)
    pages: int = 0

    def observe(self, title: str | None) -> None:
        self.pages += 1
        hit = stamp_of(title)
        if hit is not None and (hit in self.counts or len(self.counts) < 1000):
            self.counts[hit] += 1

    def site_version(self) -> tuple[str, str] | None:
        """``(label, version)`` stamped on at least :data:`MIN_STAMP_PAGES` pages and :data:`STAMP_SHARE` of them."""
        if not self.counts:
            return None
        (label, version), n = max(self.counts.items(), key=lambda kv: (kv[1], kv[0]))  # ties: not the crawl's order
        return (label, version) if n >= MIN_STAMP_PAGES and n >= STAMP_SHARE * self.pages else None


# -- verdicts --------------------------------------------------------------------------------------------------


@dataclass
class Verdicts:
    """Per version: a release of the topic (and on what evidence) or not (and why); what run.json records."""

    accepted: dict[str, Counter] = field(default_factory=dict)
    rejected: dict[str, Counter] = field(default_factory=dict)

    def accept(self, version: str, evidence: str) -> None:
        if version in self.accepted or len(self.accepted) < MAX_VERDICTS:
            self.accepted.setdefault(version, Counter())[evidence] += 1

    def reject(self, version: str, why: str) -> None:
        if version in self.rejected or len(self.rejected) < MAX_VERDICTS:
            self.rejected.setdefault(version, Counter())[why] += 1

    def rows(self) -> list[dict]:
        """Every version, newest first: ``{version, release, why}`` (a release: its evidence; else why not)."""
        from synth.delta.versions import newest_first

        out = []
        for v in sorted({*self.accepted, *self.rejected}, key=newest_first):
            if v in self.accepted:
                ev = self.accepted[v]
                why = "; ".join(f"{k} ({n})" for k, n in ev.most_common(3))
                if v in self.rejected:
                    why += "; other mentions rejected: " + "; ".join(k for k, _n in self.rejected[v].most_common(2))
                out.append({"version": v, "release": True, "why": why})
            else:
                out.append({"version": v, "release": False, "why": "; ".join(k for k, _n in self.rejected[v].most_common(3))})
        return out


def reject_reason(text: str, version: str, own: Iterable[str], documented: Callable[[str], bool], *,
                  from_heading: bool = False) -> str | None:
    """Why an entry's ``version`` is no release of the topic (None when nothing says so): another product's
    version (not for an entry whose version heads its change-page section: the heading is the evidence), or only
    announced while the site documents no such release (``documented``: dated, or declared by a change page)."""
    if not from_heading and (product := bound_product(text, version, own)):
        return f"another product's version ({product})"
    if not documented(version) and (phrase := announced(text, version)):
        return f"{ANNOUNCED} ({phrase})"
    return None


ANNOUNCED = "only announced"
MAX_SECTION_TEXTS = 200  # entries of one version read for :func:`only_announced_sections`


def only_announced_sections(sections: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The versions a change page heads a section with only to announce them: ``(version, entry text)`` pairs of the
    sections' entries → {version: the announcing phrase} for each version whose entries name it only as a future
    release ("… will be fatal in Acme 5.40" under a heading "Acme 5.40" of a list of deprecations), at least once and
    never as an existing one. An entry that does not name the version says nothing either way."""
    phrases: dict[str, str] = {}
    stated: set[str] = set()
    seen: Counter = Counter()
    for version, text in sections:
        seen[version] += 1
        if version in stated or seen[version] > MAX_SECTION_TEXTS:
            continue
        if not _bare(version).search(text[:MAX_TEXT]):
            continue
        phrase = announced(text, version)
        if phrase is None:
            stated.add(version)
            phrases.pop(version, None)
        else:
            phrases.setdefault(version, phrase)
    return {v: p for v, p in phrases.items() if v not in stated}
_HEADING_VERSION = re.compile(r"(?:^\W*|\b[A-Za-z][\w/+#-]*\s+)v?(\d+(?:\.\d+){0,3})\W*$")


def stated_under(path: Iterable[str], announced_version: str) -> str | None:
    """The version a scheduled removal is stated under: the innermost heading that ends with a version other than the
    announced one ("Functions Deprecated in SUITE 25" → 25, "3.1" → 3.1; never a section number "1.5 Usage")."""
    target = parse_version(announced_version)
    for heading in reversed(list(path)):
        m = _HEADING_VERSION.search(heading or "")
        if m and (pv := parse_version(m.group(1))) is not None and pv != target:
            return m.group(1)
    return None


def judge(ch: Change, is_change: bool, own: Iterable[str], documented: Callable[[str], bool],
          how: Callable[[str], str]) -> tuple[str | None, str]:
    """The version line's verdict on one entry: ``(version, why)`` — the release it is placed at (its own version; for
    a scheduled removal stated under a release's heading, that release) — or ``(None, why not)``.

    ``how``: the timeline's reason for a version's status (a version beyond the docs' own is no release)."""
    why = reject_reason(ch.text, ch.version, own, documented, from_heading=is_change and ch.kind == "release")
    if why is None and (h := how(ch.version)).startswith(NOT_A_RELEASE):
        why = h[len(NOT_A_RELEASE):]
    if why is None:
        return ch.version, ""
    if why.startswith(ANNOUNCED) and (under := stated_under(ch.path, ch.version)) and not how(under).startswith(NOT_A_RELEASE):
        return under, f"{why}; kept as a deprecation of {under}, the release it is stated under"
    return None, why


# -- several version lines on one site ---------------------------------------------------------------------------

MAX_LINE_WORDS = 3


def line_name(heading: str, version: str) -> str:
    """The product words a heading puts right before ``version`` ("Python SDK 2.0.0" → "Python SDK", "What's New In
    Acme 2.3" → "Acme", "Release notes for TypeScript SDK v2.0.0" → "TypeScript SDK"); "" when none."""
    m = _bare(version).search(heading or "")
    if not m:
        return ""
    words: list[str] = []
    for w in reversed(heading[:m.start()].split()[-MAX_LINE_WORDS:]):
        w = w.strip(" :–—-|([")
        if not w or w.casefold() in GENERIC or not w[0].isalpha():
            break
        words.insert(0, w)
    return " ".join(words)


def colliding_lines(sections: Iterable[tuple[str, str]]) -> dict[str, set[str]]:
    """Versions that head sections of two or more product lines on the site's change pages (``(heading, version)``
    pairs: "Python SDK 2.0.0" and "TypeScript SDK 2.0.0") → the lines' names. Each such section keeps its line's
    name with its version ("Python SDK 2.0.0"), so two products' 2.0.0 are never one release."""
    names: dict[str, set[str]] = {}
    for heading, version in sections:
        name = line_name(heading, version)
        if name and (version in names or len(names) < MAX_VERDICTS):
            names.setdefault(version, set()).add(name)
    folded = {v: {n.casefold() for n in ns} for v, ns in names.items()}
    return {v: ns for v, ns in names.items() if len(folded[v]) > 1}


def evidence_of(kind: str, is_change: bool) -> str:
    """What makes an entry's version a release of the topic, in words."""
    if is_change and kind == "release":
        return "heads a section of a change page"
    if is_change:
        return "a change page's section"
    return f"a marker names it as the version the API was {kind}" if kind in ("added", "changed", "deprecated", "removed") \
        else "a version section of a page"


def own_names(topic: str, labels: Iterable[str]) -> frozenset[str]:
    """The topic's names, casefolded: its words and the labels the site puts before its own versions."""
    out: set[str] = set()
    words = [w for w in re.split(r"[\s,;]+", topic or "") if w.strip(" .:-")]
    for w in words:
        w = w.strip(" .:-").casefold()
        if (len(w) > 1 or len(words) == 1 and w.isalpha()) and w not in GENERIC:  # a one-letter name is the topic's
            out.add(w)
            out.update(p for p in re.split(r"[/._-]+", w) if len(p) > 1)
    for lab in labels:
        out |= {n for n in _names(lab) if n not in GENERIC}
    return frozenset(out)


FAR_AHEAD_MAJORS = 2  # a version this many major numbers beyond every other the site names is out of its sequence
FAR_AHEAD_ENTRIES = 2  # … when at most this many entries name it


def versions_ahead(changes: Iterable[tuple[str | None, str, bool, bool]], declared: Iterable[str],
                   date_of: Callable[[str], object], *, since: str | None = None) -> dict[str, str]:
    """Versions ahead of every release the site documents that only weak evidence names, undated and declared by no
    change page — version → why they are at most announced (``changes``: (version, kind, on a change page, inherited
    from another class) of every entry):

    * only API markers deprecating something name it ("Deprecated since: 1.52" in docs of 1.50.x: the release in
      preparation); a release the site documents has more evidence (something added or changed in it, a section, a
      date);
    * it is outside the site's version sequence: at most :data:`FAR_AHEAD_ENTRIES` entries name it, and its major
      number is :data:`FAR_AHEAD_MAJORS` or more beyond every major number the site names more often (or a change
      page declares, or ``since``, the ``--since-version``): "Added in version 10.0.1.11" once, on a site whose releases
      end at 8.7, with ``--since-version 8.6``. Only with a ``--since-version``: without one, a version newer than
      every known one is kept apart as unverified (:class:`~synth.delta.timeline.Timeline`)."""
    only: dict[Version, str] = {}
    other: list[Version] = []
    counts: Counter = Counter()
    spelled: dict[Version, str] = {}
    for version, kind, on_change_page, is_inherited in changes:
        pv = parse_version(version)
        if pv is None or is_inherited:  # a parent's marker: another line's version
            continue
        spelled.setdefault(pv, str(version))
        counts[pv] += 1
        if kind == "deprecated" and not on_change_page:
            only.setdefault(pv, str(version))
        else:
            other.append(pv)
    declared_pairs = [(str(v), pv) for v in declared if (pv := parse_version(v)) is not None]
    declared_v = [pv for _v, pv in declared_pairs]
    if not other and not declared_v:
        return {}
    newest = max(other + declared_v)
    shown = spelled.get(newest, str(newest))
    out = {v: f"{ANNOUNCED} (only markers deprecating APIs in it name it, and it is newer than {shown}, the newest "
              f"release the site documents otherwise)"
           for pv, v in only.items() if pv > newest and date_of(str(pv)) is None}
    since_v = parse_version(since) if since else None
    if since_v is None:
        return out
    # the sequence, per version line ("CORELIB 4.0" is not measured against "25.0"): the major numbers the site names
    # more than a few times, and those change pages declare
    by_major: Counter = Counter()
    for pv, n in counts.items():
        by_major[(_line_of(spelled[pv]), pv.release[0])] += n
    majors = {k for k, n in by_major.items() if n > FAR_AHEAD_ENTRIES} | {(_line_of(v), pv.release[0]) for v, pv in declared_pairs}
    majors |= {("", since_v.release[0]), (_line_of(str(since)), since_v.release[0])}  # the user's own: known
    for pv, n in counts.items():
        line = _line_of(spelled[pv])
        rest = sorted((m for ln, m in majors if ln == line and m != pv.release[0]), reverse=True)
        if n <= FAR_AHEAD_ENTRIES and rest and pv.release[0] >= rest[0] + FAR_AHEAD_MAJORS and date_of(str(pv)) is None \
                and pv not in declared_v:
            out.setdefault(spelled[pv], f"outside the site's version sequence (named {n} time(s); every "
                                        f"other version it names is {rest[0]}.x or older)")
    return out


def _line_of(version: str) -> str:
    """The product a version is spelled with ("CORELIB" of "CORELIB 4.0"; "" for a bare version)."""
    return version.strip().rsplit(" ", 1)[0] if " " in version.strip() else ""

