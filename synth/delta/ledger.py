"""The delta ledger: every change entry of the run, classified against the timeline, cleaned, de-duplicated and
grouped by area — what the skill's ``references/`` are written from.

The ranking (:mod:`synth.pipeline.bundle`) keeps a few dozen pages for the model; the ledger keeps *every* change entry
of every page (bounded by :data:`MAX_ENTRIES`) while the run is read, and is finished once the timeline is
complete:

* **status**: each entry's version against the cutoff (or ``--since-version``): post-cutoff entries are the
  delta; undated ones are kept apart (said to be undated, never presented as known or as new);
* **section kind** from the headings an entry sits under (highlights, features, breaking, deprecations,
  removals, behaviour, fixes, security, docs, internal) and the **entry kind** (added, changed, deprecated,
  removed, breaking, fixed, release) — a deprecation schedule ("will be removed in 4.0") is a deprecation
  whose removal is scheduled, never "new in 4.0";
* **cleaning**: permalink glyphs, "Contributed by …" tails and issue-number prefixes/suffixes removed;
  introductions and cross-references ("Welcome to …", "See the … release notes") are not entries;
* **area**: the component an entry belongs to — the change page's own section headings ("Improved Modules →
  asyncio"), the API a marker annotates (``asyncio.TaskGroup`` → asyncio), the page's place in the site
  (``library/typing.html`` → typing); internal areas (C API, build, packaging, internals) are flagged;
* **de-duplication**: the same change stated twice (the change page and an API page's marker, or two
  pages) is one entry with every citation.

The cleaning is :mod:`synth.delta.cleaning`'s, the section kinds and areas
:mod:`synth.delta.classify`'s. Pure: no I/O, no Scrapy.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from datetime import date

from synth.delta.changes import Change
from synth.delta.classify import (
    ENTRY_KIND,
    KIND_OF_MARKER,
    LEAD_VERB,
    SCHEDULE,
    SECTION_WEIGHT,
    area_from_api,
    area_from_headings,
    area_from_url,
    feature_title,
    is_internal,
    is_requirement,
    names_version,
    section_of,
    stated_kind,
    use_instead,
)
from synth.delta.cleaning import (
    ISSUE_PREFIX,
    bare_marker,
    clean_heading,
    clean_text,
    elide_history,
    inherited,
    is_intro,
    navigation,
    strip_own_marker,
    strip_stamp,
    table_of_contents,
    unlink_issues,
)
from synth.delta.dedupe import dedupe
from synth.delta.model import Delta, DeltaEntry  # noqa: F401 - Delta: the finished ledger, re-exported
from synth.delta.numberings import Placement, earliest_by_name, marker_of, markers_line, page_label, place_page, version_label
from synth.delta.symbols import entry_symbol
from synth.delta.timeline import POST, PRE, UNDATED, Timeline, VersionStatus
from synth.delta.topic_line import (
    ANNOUNCED,
    Stamps,
    Verdicts,
    colliding_lines,
    evidence_of,
    judge,
    line_name,
    only_announced_sections,
    own_names,
)
from synth.delta.versions import Version, parse_version
from synth.skill.quote import shorten

MAX_ENTRIES = 60_000  # change entries held while the run is read (a 10,000-page API site has ~30,000)
MAX_ENTRY_TEXT = 1200
EDGE_WEIGHT = 0.5  # a version released in the cutoff month: partly known, after the versions released later

# -- the ledger -------------------------------------------------------------------------------------------------


Entry = DeltaEntry  # the ledger's unit: one change of the delta (synth.delta.model)


@dataclass
class _Page:
    url: str
    title: str
    page_kind: str
    page_version: str | None
    authority: float
    changes: list[Change]
    code: list[tuple[str, str]] = field(default_factory=list)  # a change page's own code blocks (text, language)


MAX_PAGE_CODE = 12
MAX_CODE_CHARS = 4000


def _unless_only_announced(home: str | None, why: str, ch: Change, is_change: bool, announced_only: dict[str, str],
                           ahead: dict[str, str]) -> tuple[str | None, str]:
    """The verdict, unless the entry is in a change-page section of a version that section only announces, or its
    version is one only deprecation markers name ahead of every documented release (:meth:`Ledger._deprecated_ahead`)."""
    if home is not None and home == ch.version and is_change and ch.kind == "release" and home in announced_only:
        return None, announced_only[home]
    if home is not None and home in ahead:
        return None, ahead[home]
    return home, why


@dataclass
class Ledger:
    """Every change entry of the run while it is read (:meth:`observe`), the delta once the timeline is known
    (:meth:`finish`)."""

    pages: list[_Page] = field(default_factory=list)
    held: int = 0
    overflow: int = 0
    topic: str = ""  # what the run is about: the topic's own name (:mod:`synth.delta.topic_line`)
    stamps: Stamps = field(default_factory=Stamps)  # every page's title, for the docs' own version stamp
    verdicts: Verdicts = field(default_factory=Verdicts)  # per version: a release of the topic or not (the last finish)
    markers_line: str = ""  # the label most API markers carry (:meth:`placements`)

    def observe(self, url: str, title: str, page_kind: str, page_version: str | None, authority: float,
                changes: list[Change], code_blocks: list[dict] | None = None) -> None:
        if not changes:
            return
        code = [(str(b.get("text") or ""), str(b.get("language") or "")) for b in (code_blocks or [])[:MAX_PAGE_CODE]
                if page_kind == "change" and isinstance(b, dict) and 0 < len(str(b.get("text") or "")) <= MAX_CODE_CHARS]
        room = MAX_ENTRIES - self.held
        if room <= 0:
            self.overflow += len(changes)
            return
        if len(changes) > room:
            self.overflow += len(changes) - room
            changes = changes[:room]
        self.held += len(changes)
        self.pages.append(_Page(url, title or "", page_kind or "", page_version, float(authority), changes, code))

    def _spellings(self) -> dict[str, str]:
        """One spelling per release: ``4.2`` and ``4.2.0`` (equal versions) are shown as the shorter one."""
        by_version: dict[object, str] = {}
        for page in self.pages:
            for c in page.changes:
                pv = parse_version(c.version)
                if pv is not None:
                    cur = by_version.get(pv)
                    if cur is None or (len(c.version), c.version) < (len(cur), cur):
                        by_version[pv] = c.version
        return {c.version: by_version[pv] for page in self.pages for c in page.changes
                if (pv := parse_version(c.version)) is not None and by_version[pv] != c.version}

    def placements(self, since: str | None) -> dict[tuple[str, str], Placement]:
        """Change pages counting in another version line than the API markers (:mod:`synth.delta.numberings`): each of
        their ``(url, version)`` placed on the markers' line."""
        since_v = parse_version(since) if since else None
        since_label = version_label(since, str(since_v)) if since and since_v is not None else ""
        markers = [m for page in self.pages if page.page_kind != "change" for ch in page.changes
                   if ch.kind == "added" and (m := marker_of(ch.heading, ch.version, ch.api, ch.path[0] if ch.path else None))]
        line = markers_line(markers, since_label)
        self.markers_line = line
        if not line:
            return {}
        earliest = earliest_by_name(markers, line)
        out: dict[tuple[str, str], Placement] = {}
        for page in self.pages:
            if page.page_kind != "change":
                continue
            label = page_label((next((h for h in reversed(ch.path) if ch.version in h), ch.heading), ch.version)
                               for ch in page.changes)
            texts: dict[str, list[str]] = defaultdict(list)
            for ch in page.changes:
                texts[ch.version].append(ch.text)
            for version, placed in place_page(label, line, texts, earliest).items():
                out[(page.url, version)] = placed
        return out

    def _announced_only(self, timeline: Timeline) -> dict[str, str]:
        """Versions whose change-page sections only announce them (undated): version → why they are no release."""
        found = only_announced_sections((ch.version, ch.text) for page in self.pages if page.page_kind == "change"
                                        for ch in page.changes if ch.kind == "release")
        return {v: f"{ANNOUNCED} (its section only announces it: {p})" for v, p in found.items() if timeline.date_of(v) is None}

    def _deprecated_ahead(self, timeline: Timeline) -> dict[str, str]:
        """Versions newer than every release the site documents that only API markers deprecating something name
        ("Deprecated since: 1.52" in docs of 1.50.x: the release in preparation), undated and declared by no change
        page: version → why they are at most announced. A release the site documents has more evidence: something
        added or changed in it, a change page's section, a date."""
        only: dict[Version, str] = {}
        other: list[Version] = []
        for page in self.pages:
            for ch in page.changes:
                pv = parse_version(ch.version)
                if pv is None or inherited(ch.path or (ch.heading,)):  # a parent's marker: another line's version
                    continue
                if ch.kind == "deprecated" and page.page_kind != "change":
                    only.setdefault(pv, ch.version)
                else:
                    other.append(pv)
        other += [pv for v in timeline.declared if (pv := parse_version(v)) is not None]
        if not other:
            return {}
        newest = max(other)
        shown = next((c.version for page in self.pages for c in page.changes if parse_version(c.version) == newest), str(newest))
        return {v: f"{ANNOUNCED} (only markers deprecating APIs in it name it, and it is newer than {shown}, the newest "
                   f"release the site documents otherwise)"
                for pv, v in only.items() if pv > newest and timeline.date_of(str(pv)) is None}

    def _classify(self, timeline: Timeline, cutoff_start: date, skipped: Counter) -> tuple[
            list[Entry], list[Entry], dict[str, VersionStatus], dict[tuple[str, str], tuple[str, str]]]:
        """Every held change as an entry with its version's status: the post-cutoff ones, the undated ones, the
        statuses and the change-page sections of post-cutoff versions ((version, heading) → (url, section kind))."""
        post: list[Entry] = []
        undated: list[Entry] = []
        states: dict[str, VersionStatus] = {}
        sections_seen: dict[tuple[str, str], tuple[str, str]] = {}
        order = 0
        spelling = self._spellings()
        placed = self.placements(timeline.since)
        own = self.own_names()
        verdicts = self.verdicts = Verdicts()
        lines = colliding_lines((section_heading(ch), ch.version) for page in self.pages if page.page_kind == "change"
                                for ch in page.changes if ch.kind == "release")

        announced_only = self._announced_only(timeline)
        ahead = self._deprecated_ahead(timeline)

        def documented(v: str) -> bool:
            pv = parse_version(v)
            return pv is not None and (timeline.date_of(str(pv)) is not None
                                       or str(pv) in timeline.declared and v not in announced_only)

        for page in self.pages:
            is_change = page.page_kind == "change"
            not_changes = _not_changes(page.changes, is_change)
            for i, ch in enumerate(page.changes):
                order += 1
                if i in not_changes:
                    skipped[not_changes[i]] += 1
                    continue
                ch.version = spelling.get(ch.version, ch.version)
                home, why = judge(ch, is_change, own, documented, lambda v: timeline.status(v, cutoff_start).how)
                home, why = _unless_only_announced(home, why, ch, is_change, announced_only, ahead)
                if home is None:
                    verdicts.reject(ch.version, why)
                    skipped["not a release of the topic (run.json delta.version_line says why)"] += 1
                    continue
                if home != ch.version:
                    verdicts.reject(ch.version, why)
                verdicts.accept(home, evidence_of(ch.kind, is_change) if home == ch.version
                                else f"a removal scheduled for {ch.version} is stated under it")
                where = placed.get((page.url, home))
                shown = _shown(where, home, ch, lines)
                st = states.get(shown)
                if st is None:
                    st = states[shown] = (placed_status(where, timeline, cutoff_start) if where is not None
                                          else replace(timeline.status(home, cutoff_start), version=shown))
                e = None if st.state == PRE else _entry(ch, page, st, is_change, order, skipped)
                if e is None:
                    continue
                if home != ch.version:  # a scheduled removal, kept as what it is: a deprecation of the release it is under
                    e.kind, e.removed_in = "deprecated", e.removed_in or ch.version
                    e.section = e.section if e.section in ("highlights", "breaking") else "deprecations"
                e.version = shown
                if where is not None and e.area == "General":  # a component's own notes: the component is the area
                    e.area = where.label
                if st.state == POST and is_change and e.headings:
                    sections_seen.setdefault((e.version, e.headings[-1]), (page.url, e.section))
                (post if st.state == POST else undated).append(e)
        return post, undated, states, sections_seen

    def finish(self, timeline: Timeline, cutoff_start: date) -> "Delta":
        """Classify every held entry, keep the post-cutoff and undated ones, clean, group and de-duplicate them."""
        skipped: Counter = Counter()
        # the pages in a canonical order (by URL), not the crawl's: concurrent fetches return them in any order, and
        # every tie below (equal scores, the first of two pages stating one change) falls back to this order
        self.pages.sort(key=lambda p: (p.url, p.title, p.page_kind))
        post, undated, states, sections_seen = self._classify(timeline, cutoff_start, skipped)
        pre_cache: dict[str, bool] = {}

        def is_pre(v: str) -> bool:
            if v not in pre_cache:
                pre_cache[v] = timeline.status(v, cutoff_start).state == PRE
            return pre_cache[v]

        for e in post + undated:
            e.text, e.notes = elide_history(e.text, is_pre)
        post = dedupe(post)
        undated = dedupe(undated)
        post_pages = {c[0] for e in post for c in e.citations[:1] if e.change_page}
        page_code = [(p.url, p.title, text, lang) for p in self.pages if p.url in post_pages for text, lang in p.code]
        month_end = _next_month(cutoff_start)
        for group in (post, undated):
            for e in group:
                e.edge = e.status.date is not None and cutoff_start <= e.status.date < month_end
                e.score = _score(e)
        return Delta(post=post, undated=undated, states=states, skipped=dict(skipped), overflow=self.overflow,
                     sections=sections_seen, since_version=timeline.since, page_code=page_code,
                     version_line=self.verdicts.rows())

    def self_stamp(self) -> str | None:
        """The docs' own version as pages stamp it on themselves (:func:`version_stamp`: "Suite 25.2.3" over a docs
        index), when every page that does names the same one; None otherwise."""
        stamps = {v for page in self.pages if page.page_kind != "change" and (v := version_stamp(page.changes))}
        return next(iter(stamps)) if len(stamps) == 1 else None

    def own_names(self) -> frozenset[str]:
        """The topic's names: its topic words, the docs' stamp label, the markers' line and the labels change pages put
        before their versions."""
        labels = [lab for lab in (self.stamps.site_version() or ("",))[:1] if lab]
        if self.markers_line:
            labels.append(self.markers_line)
        for page in self.pages:
            if page.page_kind != "change":
                continue
            if page.page_version and (lab := version_label(page.title, page.page_version)):
                labels.append(lab)
            for ch in page.changes[:50]:
                if ch.kind == "release" and (lab := version_label(next((h for h in reversed(ch.path) if ch.version in h), ch.heading),
                                                                  ch.version)):
                    labels.append(lab)
        return own_names(self.topic, labels)


def _shown(where: Placement | None, home: str, ch: Change, lines: dict[str, set[str]]) -> str:
    """How an entry's version is shown: a foreign line's placement ("STDLIB 4.0"), one of several product lines
    numbered alike with its name ("Python SDK 2.0.0"), else the version."""
    if where is not None:
        return where.shown
    if home in lines and (name := line_name(section_heading(ch), home)):
        return f"{name} {home}"
    return home


def section_heading(ch: Change) -> str:
    """The heading that names an entry's version (the innermost of its path that does), else its nearest heading."""
    return next((h for h in reversed(ch.path) if ch.version in h), ch.heading)


def preamble(changes: list[Change]) -> set[int]:
    """The entries of a change page that sit directly under its title, when the title names their version and the page
    has sections below it: the page's introduction and closing remarks ("Welcome to …", what the project is, where its
    community meets), not changes. A page without sections (a release page that lists its changes under its title)
    keeps them."""
    under_title = [i for i, c in enumerate(changes) if c.kind == "release" and len(c.path) == 1 and names_version(c.path[0], c.version)]
    if not under_title:
        return set()
    titles = {changes[i].path[0] for i in under_title}
    sectioned = sum(1 for c in changes if len(c.path) > 1 and c.path[0] in titles)
    return set(under_title) if sectioned >= len(under_title) else set()


MAX_CONTENTS = 400


def page_contents(changes: list[Change]) -> frozenset[str]:
    """The section names of a page (its entries' headings, cleaned, lower-case), to tell its table of contents."""
    names = {clean_heading(h).lower() for c in changes for h in c.path if h}
    return frozenset(list(names)[:MAX_CONTENTS]) if len(names) >= 2 else frozenset()


def _lists_headings(text: str, contents: frozenset[str]) -> bool:
    """A text that is only the page's own section names (a local table of contents flattened: "Preface - Upgrading -
    News")."""
    parts = [p.strip(" .*_").lower() for p in re.split(r"\s+-\s+|^\s*-\s+", text or "") if p.strip(" .*_")]
    return len(parts) >= 2 and sum(p in contents for p in parts) >= max(2, len(parts) - 1)


def _not_changes(changes: list[Change], is_change: bool) -> dict[int, str]:
    """The entries of one page that are no changes, by index, with why: the page's own version stamp, its
    introduction and closing remarks, its table of contents."""
    stamp = None if is_change else version_stamp(changes)
    front = preamble(changes) if is_change else set()
    contents = page_contents(changes)
    out: dict[int, str] = {}
    for i, ch in enumerate(changes):
        if stamp is not None and ch.kind == "release" and ch.version == stamp:
            out[i] = "the page's own version stamp (its title names the docs' version, not a release section)"
        elif i in front:
            out[i] = "the page's introduction or closing remarks (text under its title, outside its sections)"
        elif contents and _lists_headings(ch.text, contents):
            out[i] = "the page's table of contents (its own section names)"
    return out


def version_stamp(changes: list[Change]) -> str | None:
    """The version a page that is no change page only stamps on itself ("Erlang/OTP 25.2.3" as its title, every
    paragraph below it): its one undated version section headed by the page's top heading. None otherwise."""
    releases = [c for c in changes if c.kind == "release"]
    versions = {c.version for c in releases}
    if len(versions) != 1 or any(c.date for c in releases):
        return None
    v = next(iter(versions))
    return v if all(((c.path[0] if c.path else c.heading) or "").find(v) >= 0 for c in releases) else None


def placed_status(where: Placement, timeline: Timeline, cutoff_start: date) -> VersionStatus:
    """A foreign version's status: its bound's on the markers' line when that is post-cutoff (it is at least that
    late); otherwise nothing places it — known when the model's version is given (it is not shown to be newer),
    else undated."""
    if where.bound is not None:
        b = timeline.status(where.bound, cutoff_start)
        bound = f"{where.line} {where.bound}"
        if b.state == POST:
            return VersionStatus(where.shown, POST, b.date, f"at least {bound}, {b.how}: {where.why}", bound)
        if b.state == UNDATED:
            return VersionStatus(where.shown, UNDATED, None, f"at least {bound}, which is undated: {where.why}", bound)
    if timeline.since:
        return VersionStatus(where.shown, PRE, None, f"known: not shown to be newer than --since-version {timeline.since} "
                                                     f"({where.why})")
    return VersionStatus(where.shown, UNDATED, None, f"not placed: {where.why}")

def _section_of(ch: Change, headings: tuple[str, ...], nearest: tuple[str, ...], text: str, is_change: bool,
                tracker_item: bool) -> str:
    """The section kind of an entry: its headings below the version, else the entry's own first verb (a marker's kind
    off change pages); a bare requirement line (a supported version, a dependency pin) never leads."""
    if ch.kind == "release" or is_change:
        section = section_of(headings, ch.version) if headings else section_of(("", *nearest), None)
        if section == "other" and ch.kind in KIND_OF_MARKER:
            section = KIND_OF_MARKER[ch.kind]
        if section in ("other", "behaviour"):  # a generic section: the entry's own first verb is more precise
            section = next((k for k, rx in LEAD_VERB if rx.match(text)), section)
        if section == "other" and tracker_item:
            # an issue-tracker line item ("gh-92173: …") under a component heading ("Library"), not a kind: the
            # changelog of fixes, which the release's own notes summarise
            section = "fixes"
    else:
        section = KIND_OF_MARKER.get(ch.kind, "other")
    if section != "highlights" and ch.heading and re.search(r"(?i)\bhighlights?\b|\bsummary\b", ch.heading):
        section = "highlights"
    if is_requirement(text):  # a supported version or a dependency pin: the reference files hold it, it never leads
        section = "internal"
    return section


def _kind_of(ch: Change, section: str, text: str, is_change: bool) -> str:
    """On a change page the section decides the kind (an entry "Added …" under "Improved Modules" is an addition),
    unless the entry's own words state another (a removal under the highlights); a marker says its own kind."""
    if not (is_change or ch.kind == "release"):
        return ch.kind
    kind = ENTRY_KIND.get(section, ch.kind)
    if kind == "changed" and ch.kind == "release" and section == "other":
        kind = "release"
    return stated_kind(text, kind)


def _entry(ch: Change, page: _Page, st: VersionStatus, is_change: bool, order: int, skipped: Counter) -> Entry | None:
    tracker_item = bool(ISSUE_PREFIX.match(unlink_issues(ch.text or "")))
    text = shorten(strip_stamp(strip_own_marker(clean_text(ch.text), ch.version), ch.heading, ch.version), MAX_ENTRY_TEXT,
                   hard=MAX_ENTRY_TEXT)
    if len(text) < 12 or bare_marker(text, ch.version):
        skipped["empty after cleaning (issue numbers, credits or a bare marker)"] += 1
        return None
    if is_intro(text):
        skipped["introduction or cross-reference"] += 1
        return None
    nav = navigation(text, ch.path or (ch.heading,), ch.api) or (
        "a table of contents (titles, each with a reference to its section)" if table_of_contents(ch.text) else None)
    if nav:
        skipped[nav] += 1
        return None
    if inherited(ch.path or (ch.heading,)):
        skipped["a member inherited from another class (its marker is the parent's, read on the parent's page)"] += 1
        return None
    if text.endswith(":") and (len(text) < 100 or re.search(r"(?i)\bfollowing\b", text[-120:]) and len(text) < 400):
        skipped["a list's lead-in"] += 1
        return None
    # the crawl's heading path (outermost first); older feeds carry only the nearest heading, which is below the version
    headings = tuple(clean_heading(h) for h in ch.path if h) if ch.path else ()
    nearest = (clean_heading(ch.heading),) if not ch.path and ch.heading else ()
    section = _section_of(ch, headings, nearest, text, is_change, tracker_item)
    kind = _kind_of(ch, section, text, is_change)
    removed_in = ch.removed_in
    sched = SCHEDULE.search(text)
    if sched:
        # "features deprecated in 3.1 will be removed in 4.0": a removal scheduled for 4.0, stated under this version
        removed_in = removed_in or (sched.group(1) or sched.group(2)).lstrip("vV")
        if kind in ("removed", "release", "changed", "added"):
            kind = "deprecated"
            section = "deprecations" if section not in ("highlights", "breaking") else section
    api, param = object_of(ch.api, text, ch.heading)
    area = ((area_from_headings(headings, ch.version) if headings else area_from_headings(("", *nearest), None))
            if is_change or ch.kind == "release" else None) \
        or area_from_api(api, ch.text) or (None if is_change else area_from_url(page.url)) or "General"
    area = area.strip(" @*_`'\"()[]:.,;") or "General"
    # "use X instead" names what it replaces only in a deprecation or removal: there the entry's API is what goes
    retired = kind in ("deprecated", "removed")
    use, old = use_instead(text, (param or api) if retired else None, subject=retired)
    title = feature_title(headings, ch.version) if is_change and headings else None
    named = None if is_change or ch.api else _symbol_of(ch, page)
    if named is not None and named[0] in text:
        named = None  # the quote names it
    return Entry(version=ch.version, kind=kind, section=section, area=area, internal=is_internal(area, section),
                 text=text, citations=[(page.url, ch.anchor, page.title)], status=st, removed_in=removed_in,
                 highlight=section == "highlights", change_page=is_change, headings=headings or nearest, title=title,
                 api=api, use=use,
                 instead_of=old, code=ch.code, code_langs=ch.code_langs, order=order,
                 symbol=named[0] if named else None, owner=named[1] if named else "")


def _symbol_of(ch: Change, page: _Page) -> tuple[str, str] | None:
    """The symbol an API page's marker is about (:func:`~synth.delta.symbols.entry_symbol`): its heading's, else the
    page's (read from the declarations the page's markers carry)."""
    head = ch.path[-1] if ch.path else ch.heading
    code = [c for other in page.changes[:20] for c in other.code[:2]][:4]
    return entry_symbol(head, page.title, code, len(ch.path))


_DT_TERM = re.compile(r"^\W{0,3}\*\*([A-Za-z_*][\w*]*)\*\*(?!\s*\()")
_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")


def object_of(api: str | None, text: str, heading: str | None) -> tuple[str | None, str | None]:
    """(the API a marker annotates, the parameter it is about). A definition-list term glued to its type
    ("**numeric_only**bool" read as the API ``numeric_onlybool``) is a parameter (``numeric_only``): its API is the
    object the page's heading names (``pandas.DataFrame.sum``), else none (a parameter's name is no area)."""
    m = _DT_TERM.match(text or "")
    name = m.group(1).strip("*") if m else ""
    if api and name and api.replace(" ", "").startswith(name) and "." not in api:
        head = (heading or "").strip()
        return (head if _DOTTED.match(head) else None), name
    return api, None


def _score(e: Entry) -> float:
    state = {POST: 1.0, UNDATED: 0.12}.get(e.status.state, 0.04)
    kind = {"breaking": 1.1, "added": 1.0, "deprecated": 0.9, "removed": 0.9, "changed": 0.8, "release": 0.8,
            "fixed": 0.3}.get(e.kind, 0.8)
    support = 1.0 + 0.15 * min(3, len(e.citations) - 1)
    page = 1.1 if e.change_page else 1.0
    edge = EDGE_WEIGHT if e.edge else 1.0
    return state * SECTION_WEIGHT.get(e.section, 1.0) * kind * support * page * edge * (0.7 if e.internal else 1.0)


def _next_month(d: date) -> date:
    return date(d.year + (d.month == 12), d.month % 12 + 1, 1)


