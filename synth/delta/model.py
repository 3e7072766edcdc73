"""The delta's data model: one definition of each record, each with its one JSON form.

* :class:`ChangeRecord` — one change entry as a page states it (a version marker or a change page's section):
  what the crawl writes into an item's ``changes`` (:meth:`ChangeRecord.to_json`) and synthesis reads back
  (:meth:`ChangeRecord.from_json`, bounded and tolerant). :class:`synth.delta.changes.Change` is this record
  with its ranking state (version status, score).
* :class:`ReleaseDate` — one row of the version timeline (a version, its date, who says so): crawl.json's
  ``timeline`` rows, fed to :class:`synth.delta.timeline.Timeline`.
* :class:`VersionStatus` — a version against the cutoff (``post`` / ``pre`` / ``undated``), with its date and
  how it was placed.
* :class:`Delta` — the finished ledger: the post-cutoff and undated entries and every version's status.
* :class:`DeltaRecord` — the delta a run produces (the ranking's timeline, boundary and build-dated hosts, and the
  finished ledger): what :class:`synth.pipeline.bundle.Ranked` holds and run.json's ``delta`` starts from.
* :class:`DeltaEntry` — one change of the delta, with every page that states it: the ledger's unit, the row of
  run.json's ``delta.entries`` (:meth:`DeltaEntry.to_dict`), read back by the agents' run view and the MCP
  server (:meth:`DeltaEntry.from_dict`; :meth:`DeltaEntry.brief` is the agents' view of it).

Pure: no I/O, no Scrapy (the crawl imports it).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date
from pathlib import PurePath
from typing import Any, Self

from synth.delta.versions import newest_first, parse_version

POST, PRE, UNDATED = "post", "pre", "undated"

# -- a change entry as a page states it -----------------------------------------------------------------------------

CHANGE_KINDS = ("added", "changed", "deprecated", "removed", "release")
MAX_ENTRY_CHARS = 1500
MAX_VERSION_CHARS = 64
MAX_HEADING_CHARS = 200
MAX_PATH = 8
MAX_CODE = 3
MAX_CODE_CHARS = 4000
_LANG = re.compile(r"[A-Za-z0-9_+-]{1,24}")


def _code_texts(code: object) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """An entry's code examples as the crawl writes them (``{"text", "language"}``; a bare string also), byte-exact,
    and their languages (a fence's info word: "" unless it is a plain name)."""
    if not isinstance(code, list):
        return (), ()
    texts, langs = [], []
    for x in code[:MAX_CODE]:
        text = x.get("text") if isinstance(x, dict) else x
        lang = x.get("language") if isinstance(x, dict) else ""
        if isinstance(text, str) and text.strip():
            texts.append(text[:MAX_CODE_CHARS])
            langs.append(lang if isinstance(lang, str) and _LANG.fullmatch(lang) else "")
    return tuple(texts), tuple(langs)


@dataclass
class ChangeRecord:
    """One change entry of a page: a version marker ("Added in 3.11") or a change page's section entry."""

    kind: str  # a CHANGE_KINDS value
    version: str
    text: str
    removed_in: str | None = None
    date: str | None = None  # printed on the page
    anchor: str | None = None
    heading: str = ""
    path: tuple[str, ...] = ()  # the enclosing headings, outermost first (when the crawl recorded them)
    api: str | None = None  # the API a marker annotates (when the crawl recorded it)
    code: tuple[str, ...] = ()  # the entry's own code examples, byte-exact
    code_langs: tuple[str, ...] = ()  # each example's language as the page names it ("" when it names none)

    def to_json(self) -> dict[str, Any]:
        """The record as the crawl writes it into an item's ``changes`` (``path`` None when not recorded)."""
        return {"kind": self.kind, "version": self.version, "removed_in": self.removed_in, "date": self.date,
                "text": self.text, "anchor": self.anchor, "heading": self.heading,
                "path": list(self.path) if self.path else None, "api": self.api,
                "code": [{"text": t, "language": lang} for t, lang in zip(self.code, self.code_langs)]}

    @classmethod
    def from_json(cls, c: object, **state: Any) -> Self | None:
        """A record read from an item's ``changes`` (an instance of ``cls``, given ``state`` as its further fields),
        or None when malformed (no known kind, no version, no text); text, headings and code are capped."""
        if not isinstance(c, dict):
            return None
        kind = str(c.get("kind") or "").lower()
        version = c.get("version")
        text = c.get("text")
        if kind not in CHANGE_KINDS or not isinstance(version, (str, int, float)) or not str(version).strip() or not isinstance(text, str) or not text.strip():
            return None
        removed = c.get("removed_in")
        path, api = c.get("path"), c.get("api")
        printed, anchor, heading = c.get("date"), c.get("anchor"), c.get("heading")
        code, code_langs = _code_texts(c.get("code"))
        return cls(kind=kind, version=str(version).strip()[:MAX_VERSION_CHARS], text=text[:MAX_ENTRY_CHARS],
                   path=tuple(str(h)[:MAX_HEADING_CHARS] for h in path[:MAX_PATH] if isinstance(h, str)) if isinstance(path, list) else (),
                   api=api[:MAX_HEADING_CHARS] if isinstance(api, str) and api.strip() else None,
                   code=code, code_langs=code_langs,
                   removed_in=str(removed).strip() if isinstance(removed, (str, int, float)) and str(removed).strip() else None,
                   date=printed if isinstance(printed, str) else None,
                   anchor=anchor if isinstance(anchor, str) else None,
                   heading=heading if isinstance(heading, str) else "", **state)


# -- a release date as a source states it ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ReleaseDate:
    """One row of the version timeline: ``version`` came out on ``date`` according to ``source`` (a change page's
    heading, a registry, …), read on ``url`` (``where``: the part of the page, when the crawl recorded it). The crawl
    writes these rows into crawl.json's ``timeline`` (:meth:`to_json`); synthesis feeds them to
    :class:`synth.delta.timeline.Timeline` (:meth:`from_json`)."""

    version: str
    date: str
    source: str
    url: str | None = None
    where: str | None = None

    def to_json(self) -> dict[str, str | None]:
        out = {"version": self.version, "date": self.date, "source": self.source, "url": self.url}
        if self.where:
            out["where"] = self.where
        return out

    @classmethod
    def from_json(cls, row: object, default_source: str = "crawl.json") -> ReleaseDate | None:
        """A timeline row read back (None when it is no object); what it says is judged by the timeline."""
        if not isinstance(row, dict):
            return None
        version, day, url, where = row.get("version"), row.get("date"), row.get("url"), row.get("where")
        return cls(version=str(version) if version else "", date=str(day) if day else "",
                   source=str(row.get("source") or default_source), url=url if isinstance(url, str) else None,
                   where=where if isinstance(where, str) else None)


# -- a version against the cutoff ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class VersionStatus:
    version: str
    state: str  # "post" | "pre" | "undated"
    date: date | None  # the release date (or the lower bound when inferred after a post-cutoff series)
    how: str  # "dated", "series 3.11.0", "after 3.10 (2021-10-04)", "before 3.12 (…)", "no known date"
    bound: str | None = None  # another version line's version it is at least ("OTP 25.0"; :mod:`synth.delta.numberings`)

    @property
    def post(self) -> bool:
        return self.state == POST

    def label(self) -> str:
        """``3.11, released 2022-10-24`` / ``3.12, released after 2021-10-04`` / ``3.13, undated`` /
        ``STDLIB 4.0, at least OTP 25.0 (undated)``."""
        if self.bound:
            return f"{self.version}, at least {self.bound}" + (
                f", released on or after {self.date.isoformat()}" if self.date else " (undated)")
        if self.date is None:
            if self.how.startswith("newer than --since-version"):
                return f"{self.version}, {self.how.split(' --', 1)[0]} {self.how.rsplit(' ', 1)[1]} (undated)"
            return f"{self.version}, undated"
        if self.how.startswith("after "):
            return f"{self.version}, released after {self.date.isoformat()}"
        return f"{self.version}, released {self.date.isoformat()}"


# -- one change of the delta ---------------------------------------------------------------------------------------

ENTRY_KINDS = ("added", "changed", "deprecated", "removed", "breaking", "fixed", "release")
MAX_ROW_TEXT = 2000  # a run.json row's text read back
MAX_ROW_URL = 2000


def _str(value: Any, limit: int = MAX_ROW_TEXT) -> str:
    return " ".join(value.split())[:limit] if isinstance(value, str) else ""


def _opt(value: Any) -> str | None:
    s = _str(value, 300)
    return s or None


def _rel_file(value: Any) -> str | None:
    if not isinstance(value, str) or not value or value.startswith(("/", "\\")) or ".." in PurePath(value).parts:
        return None
    return value


def _day(value: object) -> date | None:
    try:
        return date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


@dataclass
class DeltaEntry:
    """One change of the delta, with every page that states it."""

    version: str
    kind: str  # an ENTRY_KINDS value
    section: str  # a SECTION_KINDS value (synth.delta.classify)
    area: str
    internal: bool
    text: str
    citations: list[tuple[str, str | None, str]]  # (url, anchor, page title)
    status: VersionStatus
    removed_in: str | None = None
    highlight: bool = False
    change_page: bool = False  # stated on a change page (not only a marker on an API page)
    headings: tuple[str, ...] = ()
    title: str | None = None  # the feature's own section title on its change page (synth.delta.classify.feature_title)
    api: str | None = None
    use: str | None = None
    instead_of: str | None = None
    code: tuple[str, ...] = ()
    code_langs: tuple[str, ...] = ()  # the language of each of ``code`` ("" when unknown)
    score: float = 0.0
    order: int = 0  # position in the run (page order, then the page's own order)
    edge: bool = False  # released in the cutoff month itself: the model may know it partly
    file: str | None = None  # the reference file it is written to (read back from run.json)
    notes: list[str] = field(default_factory=list)  # what the label adds to the quote ("…: since 3.9, before the cutoff")
    # an API page's marker whose text does not name its symbol: the symbol and its type (synth.delta.symbols)
    symbol: str | None = None
    owner: str = ""

    @property
    def url(self) -> str:
        url, anchor, _title = self.citations[0]
        return url + (anchor or "") if anchor and "#" not in url else url

    def langs(self) -> tuple[str, ...]:
        """The language of each of :attr:`code` ("" where unknown)."""
        return tuple(self.code_langs[i] if i < len(self.code_langs) else "" for i in range(len(self.code)))

    def label(self) -> str:
        """``Added in 3.11`` / ``Deprecated in 3.11, removal scheduled for 3.13`` / ``Fixed in 3.11.1``."""
        v = self.version
        return {
            "added": f"Added in {v}", "changed": f"Changed in {v}", "breaking": f"Breaking in {v}",
            "removed": f"Removed in {v}", "fixed": f"Fixed in {v}",
            "deprecated": self._deprecated(),
        }.get(self.kind, f"New in {v}")

    def _deprecated(self) -> str:
        if not self.removed_in:
            return f"Deprecated in {self.version}"
        if parse_version(self.removed_in) == parse_version(self.version):  # the schedule is all the entry dates
            return f"Deprecated, removal scheduled for {self.removed_in}"
        return f"Deprecated in {self.version}, removal scheduled for {self.removed_in}"

    def to_dict(self, file: str | None = None) -> dict:
        """The run.json ``delta.entries`` row (``file``: the reference file it is written to)."""
        return {"version": self.version, "kind": self.kind, "section": self.section, "area": self.area,
                "internal": self.internal, "text": self.text, "url": self.url,
                "citations": [u + (a or "") if a and "#" not in u else u for u, a, _t in self.citations],
                "file": file if file is not None else self.file, "use": self.use, "instead_of": self.instead_of,
                "removed_in": self.removed_in,
                "status": self.status.state, "released": self.status.date.isoformat() if self.status.date else None,
                "highlight": self.highlight, "score": round(self.score, 4)}

    def brief(self) -> dict[str, Any]:
        """The agents' view of the entry (diff, search, MCP): version, kind, area, text, url, file, use, instead_of."""
        return {"version": self.version, "kind": self.kind, "area": self.area, "text": self.text, "url": self.url,
                "file": self.file, "use": self.use, "instead_of": self.instead_of}

    @classmethod
    def stated(cls, *, version: str, kind: str, area: str, text: str, url: str, file: str | None = None,
               use: str | None = None, instead_of: str | None = None) -> DeltaEntry:
        """A post-cutoff entry known only by what a skill's bullet line says of it (cited by ``url``)."""
        return cls(version=version, kind=kind, section="", area=area, internal=False, text=text, citations=[(url, None, "")],
                   status=VersionStatus(version, POST, None, ""), use=use, instead_of=instead_of, file=file)

    @classmethod
    def from_dict(cls, row: object) -> DeltaEntry | None:
        """A run.json ``delta.entries`` row read back, bounded; None when it is no row or has no text (an unknown kind
        reads as ``changed``)."""
        if not isinstance(row, dict):
            return None
        text = _str(row.get("text"))
        if not text:
            return None
        version = _str(row.get("version"), MAX_VERSION_CHARS)
        url = _str(row.get("url"), MAX_ROW_URL)
        cites = row.get("citations")
        others = [_str(u, MAX_ROW_URL) for u in cites[:MAX_PATH] if isinstance(u, str)] if isinstance(cites, list) else []
        state, score = row.get("status"), row.get("score")
        return cls(
            version=version, kind=str(row["kind"]) if row.get("kind") in ENTRY_KINDS else "changed",
            section=_str(row.get("section"), 40), area=_str(row.get("area"), MAX_HEADING_CHARS),
            internal=row.get("internal") is True, text=text,
            citations=[(u, None, "") for u in [url, *(u for u in others if u and u != url)]],
            status=VersionStatus(version, state if state in (POST, PRE, UNDATED) else POST, _day(row.get("released")), ""),
            removed_in=_opt(row.get("removed_in")), highlight=row.get("highlight") is True,
            use=_opt(row.get("use")), instead_of=_opt(row.get("instead_of")), file=_rel_file(row.get("file")),
            score=float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else 0.0)


@dataclass
class Delta:
    """The finished ledger (:meth:`synth.delta.ledger.Ledger.finish`): post-cutoff entries (the delta), undated ones, and the statuses of every version seen."""

    post: list[DeltaEntry]
    undated: list[DeltaEntry]
    states: dict[str, VersionStatus]
    skipped: dict[str, int]
    overflow: int
    sections: dict[tuple[str, str], tuple[str, str]]  # change-page sections of post-cutoff versions
    since_version: str | None = None
    page_code: list[tuple[str, str, str, str]] = field(default_factory=list)  # (url, title, code, language) of change pages
    version_line: list[dict] = field(default_factory=list)  # per version: a release of the topic or not, and why (topic_line)

    def versions(self, state: str | None = None) -> list[VersionStatus]:
        """Every version seen (or only those in ``state``), newest first."""
        rows = [s for s in self.states.values() if state is None or s.state == state]
        return sorted(rows, key=lambda s: newest_first(s.version))

    def version_rows(self, limit: int = 500) -> list[dict]:
        """run.json ``delta.versions``: every version seen, newest first, with its date or bound and why."""
        return [{"version": s.version, "date": s.date.isoformat() if s.date else None, "state": s.state, "how": s.how}
                for s in self.versions()[:limit]]

    def post_versions(self) -> list[VersionStatus]:
        """The post-cutoff versions with entries, newest first (patch releases after their series)."""
        have = {e.version for e in self.post}
        return [s for s in self.versions(POST) if s.version in have]

    def undated_versions(self) -> list[VersionStatus]:
        have = {e.version for e in self.undated}
        return [s for s in self.versions(UNDATED) if s.version in have]

    def by_area(self, entries: list[DeltaEntry] | None = None) -> dict[str, list[DeltaEntry]]:
        """Entries grouped by area (case-insensitive; the most common spelling names it), each newest version first,
        then by score."""
        groups: dict[str, list[DeltaEntry]] = defaultdict(list)
        spelling: dict[str, Counter] = defaultdict(Counter)
        for e in self.post if entries is None else entries:
            k = e.area.lower()
            groups[k].append(e)
            spelling[k][e.area] += 1
        out = {}
        for k, es in groups.items():
            name = spelling[k].most_common(1)[0][0]
            out[name] = sorted(es, key=lambda e: (newest_first(e.version), -e.score, e.order))
        return out


# -- the delta a run produces --------------------------------------------------------------------------------------


@dataclass
class DeltaRecord:
    """The delta of a run, one record: what the ranking learnt (the version timeline's rows, the cutoff's version
    boundary, the dates it rejected, the build-dated hosts, the relevance query, how many post-cutoff entries the
    candidates carry) and the finished ledger (``ledger``: every post-cutoff and undated change, the version
    statuses). :meth:`to_json` is run.json's ``delta`` before the rendering adds its entries and recall."""

    timeline: list[dict[str, Any]] = field(default_factory=list)
    boundary: dict[str, Any] = field(default_factory=dict)
    rejected_dates: list[dict[str, Any]] = field(default_factory=list)
    build_dated_hosts: dict[str, dict[str, str]] = field(default_factory=dict)
    relevance_query: list[str] = field(default_factory=list)
    post_cutoff_entries: int = 0
    ledger: Delta | None = None

    @property
    def since_version(self) -> str | None:
        return self.ledger.since_version if self.ledger is not None else None

    def ranking_json(self) -> dict[str, Any]:
        """What the ranking learnt, as JSON (the timeline's rows, the boundary, rejected dates, build-dated hosts, the
        relevance query, the post-cutoff entries the candidates carry)."""
        return {"timeline": self.timeline, "boundary": self.boundary, "rejected_dates": self.rejected_dates,
                "build_dated_hosts": self.build_dated_hosts, "relevance_query": self.relevance_query,
                "post_cutoff_entries": self.post_cutoff_entries}

    def to_json(self) -> dict[str, Any]:
        """:meth:`ranking_json`, then the ledger's ``since_version`` and version rows."""
        out = self.ranking_json()
        if self.ledger is not None:
            out.update(since_version=self.ledger.since_version, versions=self.ledger.version_rows())
        return out


__all__ = ["CHANGE_KINDS", "ENTRY_KINDS", "POST", "PRE", "UNDATED", "ChangeRecord", "Delta", "DeltaEntry", "DeltaRecord", "ReleaseDate", "VersionStatus"]
