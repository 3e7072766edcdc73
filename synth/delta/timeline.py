"""The topic's version timeline (which release came out when) and the cutoff's version boundary.

Semantics: one cutoff rule for pages and releases (:func:`synth.evidence.scoring.freshness`): the month
named as the cutoff is the last month the model may know only partly, so a version is
**post-cutoff** when it was released on or after the first day of the cutoff month; the
**boundary** is the newest version released before that day.

A version's date is, in this order:

1. its own date (every claim collected; conflicting claims → the earliest plausible one, the
   others recorded);
2. for ``X.Y`` / ``X.Y.0``: the date of the first final release of the series (``3.11.0`` dates
   ``3.11``);
3. otherwise it is undated — but bounds from other series still place it when they are decisive
   (feature series come out in order): a version whose series is newer than a series that opened
   on or after the cutoff is post-cutoff ("after 3.10, 2021-10-04"); one whose series is older
   than a series that opened before the cutoff is pre-cutoff. Anything else stays undated, and an
   undated version is never fresh.

With ``since`` (``--since-version X``: the target model knows the topic up to X) the version order decides
instead of dates: a version newer than X is post-cutoff (its date, when known, is still shown), X and older
are known. Sites that print no release date need it.

A version newer than every version known — the dated ones and the versions the site itself
declares current (:meth:`Timeline.declare`, e.g. the version a What's New page is about) — is
**unverified** (undated, never fresh): "New in version 99.0" on a site whose newest release is
3.0 names no release, so no bound places it (:meth:`Timeline.plausible`).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

from packaging.version import Version

from synth.delta.model import POST, PRE, UNDATED, VersionStatus  # noqa: F401 - re-exported
from synth.delta.versions import known_by, parse_version, plausible_version, series, starts_series

EARLIEST_PLAUSIBLE = date(1980, 1, 1)
MAX_VERSIONS = 5_000  # versions one timeline holds (a registry answering 100,000 releases made a 51 MB run.json)
MAX_CLAIMS = 16  # dated claims kept per version
ABSURD_VERSION = "not a plausible version string"
TIMELINE_FULL = f"the timeline is full ({MAX_VERSIONS:,} versions): the oldest are left out"

NOT_A_RELEASE = "not a release of the topic: "  # how a VersionStatus starts when the version line rejects it


def parse_day(value: object) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def _release(v: Version) -> tuple[int, ...]:
    """``v``'s release numbers without trailing zeros: ``3.14.0`` and ``3.14`` compare equal."""
    rel = list(v.release)
    while len(rel) > 1 and rel[-1] == 0:
        rel.pop()
    return tuple(rel)


@dataclass(frozen=True)
class DateClaim:
    date: date
    source: str
    url: str | None = None


@dataclass
class Timeline:
    today: date
    since: str | None = None  # --since-version: the newest version the target model knows
    claims: dict[str, list[DateClaim]] = field(default_factory=dict)
    rejected: list[dict] = field(default_factory=list)
    absurd: int = 0  # version strings rejected as implausible (ABSURD_VERSION)
    overflow: int = 0  # versions not recorded because the timeline was full (MAX_VERSIONS)
    declared: set[str] = field(default_factory=set)  # versions the site names as existing, undated
    # False while a run is still being read (the bundle's provisional pass): every version is then plausible, so
    # a version the rest of the run dates is not ranked down early; :meth:`settle` when all is read.
    settled: bool = True
    site_version: str | None = None  # the version the docs stamp on their pages (:class:`~.topic_line.Stamps`)
    not_releases: dict[str, str] = field(default_factory=dict)  # version → why it is no release of the topic (the ledger's verdict)
    _parsed: dict[str, Version] = field(default_factory=dict)
    _by_date: list[tuple[date, str]] = field(default_factory=list)  # (chosen date, version) heap, lazily pruned
    _cache: dict = field(default_factory=dict)

    def add(self, version: object, day: object, source: str, url: str | None = None) -> bool:
        """Record that ``version`` came out on ``day`` according to ``source``; implausible dates and version
        strings are rejected (and recorded), and past :data:`MAX_VERSIONS` versions (or :data:`MAX_CLAIMS`
        claims of one) nothing more is added."""
        if version and not plausible_version(version):
            self.absurd += 1
            if len(self.rejected) < 50 or self.absurd == 1:  # the first one always: the run warns from it
                shown = str(version).strip()
                self.rejected.append({"version": shown[:40] + ("…" if len(shown) > 40 else ""), "date": str(day)[:40],
                                      "source": source, "url": url, "reason": ABSURD_VERSION})
            return False
        v = parse_version(str(version)) if version else None
        d = parse_day(day)
        if v is None or d is None:
            return False
        if d > self.today or d < EARLIEST_PLAUSIBLE:
            if len(self.rejected) < 50:
                self.rejected.append({"version": str(version), "date": str(day), "source": source, "url": url,
                                      "reason": "in the future" if d > self.today else "implausibly early"})
            return False
        key = str(v)
        if key not in self.claims and len(self.claims) >= MAX_VERSIONS:
            self.overflow += 1
            if self.overflow == 1:  # recorded once, always: the run warns from it
                self.rejected.append({"version": key[:40], "date": d.isoformat(), "source": source, "url": url,
                                      "reason": TIMELINE_FULL})
            if not self._evict_older_than(d):
                return False
        claims = self.claims.setdefault(key, [])
        claim = DateClaim(d, source, url)
        if claim in claims or len(claims) >= MAX_CLAIMS:
            return False
        claims.append(claim)
        self._parsed[key] = v
        heapq.heappush(self._by_date, (min(c.date for c in claims), key))
        self._cache.clear()
        return True

    def _evict_older_than(self, day: date) -> bool:
        """A full timeline keeps the newest versions (the delta is about them): drop the version dated earliest
        when it is older than ``day``; False when none is (the new version is not added)."""
        while self._by_date:
            first, key = self._by_date[0]
            chosen = self.date_of(key)
            if chosen is None or chosen.date != first:  # stale: dropped, or dated earlier since
                heapq.heappop(self._by_date)
                continue
            if first >= day:
                return False
            heapq.heappop(self._by_date)
            del self.claims[key]
            self._parsed.pop(key, None)
            return True
        return False

    def reject_build_dates(self, build_dated: dict[str, str], host_of: Callable[[str], str]) -> int:
        """Drop claims made by a page of a build-dated host on exactly its build date ("Release: 3.11.2, Date: <build>"
        is the build, not the release); returns how many were dropped (each recorded in ``rejected``)."""
        dropped = 0
        for key in list(self.claims):
            kept = []
            for c in self.claims[key]:
                day = build_dated.get(host_of(c.url or "")) if c.url else None
                if day and c.date.isoformat() == str(day)[:10]:
                    dropped += 1
                    if len(self.rejected) < 50:
                        self.rejected.append({"version": key, "date": c.date.isoformat(), "source": c.source, "url": c.url,
                                              "reason": "the build date of the page's host"})
                else:
                    kept.append(c)
            if kept:
                self.claims[key] = kept
            else:
                del self.claims[key]
                self._parsed.pop(key, None)
        if dropped:
            self._cache.clear()
        return dropped

    def declare(self, version: object) -> bool:
        """Record a version the site itself states exists (the version its What's New / release-notes page is
        about), without a date: it only bounds :meth:`plausible`."""
        v = parse_version(str(version)) if version else None
        if v is None or str(v) in self.declared:
            return False
        self.declared.add(str(v))
        self._cache.clear()
        return True

    def settle(self) -> None:
        """Everything is read: from now on :meth:`plausible` compares with the versions known."""
        self.settled = True
        self._cache.clear()

    def newest_known(self) -> Version | None:
        """The newest version dated by a claim or declared by the site (None when none is known)."""
        if "newest" not in self._cache:
            known = [*self._parsed.values(), *(v for d in self.declared if (v := parse_version(d)) is not None)]
            self._cache["newest"] = max(known, default=None)
        return self._cache["newest"]

    def plausible(self, version: object) -> bool:
        """Whether ``version`` can name a release: not newer than :meth:`newest_known` (compared on the release
        numbers, so ``3.14`` is known once ``3.14.0rc1`` is). True when nothing is known (nothing to compare)
        and while the timeline is not :attr:`settled`."""
        v = parse_version(str(version)) if version else None
        newest = self.newest_known()
        if v is None or newest is None or not self.settled:
            return v is not None
        return _release(v) <= _release(newest)

    def date_of(self, key: str) -> DateClaim | None:
        """The chosen claim for an exact version: the earliest plausible date."""
        return self._chosen(key) if self.claims.get(key) else None

    def _chosen(self, key: str) -> DateClaim:
        """:meth:`date_of` for a version the timeline dates: a key of :attr:`claims` (and of ``_parsed``), whose
        list :meth:`add` never leaves empty."""
        return min(self.claims[key], key=lambda c: (c.date, c.source, c.url or ""))

    def _series_starts(self) -> dict[tuple[int, int], tuple[date, str]]:
        if "series" not in self._cache:
            starts: dict[tuple[int, int], tuple[date, str]] = {}
            for key, v in self._parsed.items():
                if not starts_series(v):
                    continue
                d = self._chosen(key).date
                s = series(v)
                if s not in starts or d < starts[s][0]:
                    starts[s] = (d, key)
            self._cache["series"] = starts
        return self._cache["series"]

    def status(self, version: str, cutoff_start: date) -> VersionStatus:
        """Is ``version`` post-cutoff, pre-cutoff or undated, and why."""
        ck = ("status", version, cutoff_start)
        if ck in self._cache:
            return self._cache[ck]
        result = self._not_a_release(version) or self._beyond_site(version) or self._unverified(version) \
            or self._status(version, cutoff_start)
        self._cache[ck] = result
        return result

    def reject(self, verdicts: dict[str, str]) -> None:
        """Record the versions the version line found no release of the topic (version → why), for every later status."""
        for version, why in list(verdicts.items())[:MAX_VERSIONS]:
            v = parse_version(version)
            if v is not None and self.date_of(str(v)) is None:
                self.not_releases[str(v)] = why
        self._cache.clear()

    def _not_a_release(self, version: str) -> VersionStatus | None:
        v = parse_version(version)
        why = self.not_releases.get(str(v)) if v is not None and self.not_releases else None
        return VersionStatus(str(version).strip(), UNDATED, None, NOT_A_RELEASE + why) if why else None

    def _beyond_site(self, version: str) -> VersionStatus | None:
        """Newer than the version the docs stamp on their pages and dated by nothing: no release the site documents
        (a migration guide to the next series, an announced version), whatever ``--since-version`` says. A stamp
        that dated versions, or declared versions of two or more series, are newer than is stale and bounds nothing."""
        v = parse_version(version)
        site = parse_version(self.site_version) if self.site_version else None
        if v is None or site is None or known_by(v, site) or self.date_of(str(v)) is not None or self._stale_site(site):
            return None
        return VersionStatus(str(version).strip(), UNDATED, None,
                             f"{NOT_A_RELEASE}newer than the docs' own version {self.site_version}, and nothing dates it")

    def _stale_site(self, site: Version) -> bool:
        if "stale" not in self._cache:
            dated = any(not known_by(v, site) for v in self._parsed.values())
            above = {series(v) for d in self.declared if (v := parse_version(d)) is not None and not known_by(v, site)}
            self._cache["stale"] = dated or len(above) > 1
        return self._cache["stale"]

    def _unverified(self, version: str) -> VersionStatus | None:
        """Undated and never released as far as anything knows: newer than :meth:`newest_known`, no date of its own and
        no ``--since-version`` (the user's statement decides alone)."""
        v = parse_version(version)
        if v is None or self.since or self.date_of(str(v)) is not None or self.plausible(v):
            return None
        return VersionStatus(str(version).strip(), UNDATED, None, f"unverified: newer than every known version ({self.newest_known()})")

    def _status(self, version: str, cutoff_start: date) -> VersionStatus:
        v = parse_version(version)
        shown = str(version).strip()
        if v is None:
            return VersionStatus(shown, UNDATED, None, "not a version")

        def verdict(d: date, how: str) -> VersionStatus:
            return VersionStatus(shown, POST if d >= cutoff_start else PRE, d, how)

        own = self.date_of(str(v))
        if self.since:
            return self._by_since(v, shown, own.date if own is not None else None)
        if own is not None:
            return verdict(own.date, f"dated by {own.source}")
        starts = self._series_starts()
        s = series(v)
        if s in starts and starts_series(v):
            d, key = starts[s]
            return verdict(d, f"series start {key} dated")
        # bounds from other series (feature series come out in order)
        if s in starts and starts[s][0] >= cutoff_start and v > self._parsed[starts[s][1]]:
            d, key = starts[s]
            return VersionStatus(shown, POST, d, f"after {key} ({d.isoformat()})")
        lower = [(d, k) for ser, (d, k) in starts.items() if ser < s]
        if lower:
            d, k = max(lower)
            if d >= cutoff_start:
                return VersionStatus(shown, POST, d, f"after {k} ({d.isoformat()})")
        higher = [(d, k) for ser, (d, k) in starts.items() if ser > s]
        if higher:
            d, k = min(higher)
            if d < cutoff_start:
                return VersionStatus(shown, PRE, None, f"before {k} ({d.isoformat()})")
        return self._between(v, shown, cutoff_start)

    def _by_since(self, v: Version, shown: str, day: date | None) -> VersionStatus:
        """``--since-version``: the version order decides (the version's own date, when known, is still shown)."""
        since = parse_version(self.since)
        if since is not None and known_by(v, since):
            return VersionStatus(shown, PRE, day, f"known: not newer than --since-version {self.since}")
        return VersionStatus(shown, POST, day, f"newer than --since-version {self.since}")

    def _between(self, v: Version, shown: str, cutoff_start: date) -> VersionStatus:
        """A version between two dated ones is bounded by them: after a dated version of its own series that came out
        on or after the cutoff → post-cutoff; before any dated later version that came out before the cutoff → pre."""
        s = series(v)
        below = [(pv, k) for k, pv in self._parsed.items() if pv < v and series(pv) == s and not pv.is_prerelease]
        if below:
            pv, k = max(below)
            d = self._chosen(k).date
            if d >= cutoff_start:
                return VersionStatus(shown, POST, d, f"after {k} ({d.isoformat()})")
        above = [(self._chosen(k).date, k) for k, pv in self._parsed.items() if pv > v]
        if above:
            d, k = min(above)
            if d < cutoff_start:
                return VersionStatus(shown, PRE, None, f"before {k} ({d.isoformat()})")
        return VersionStatus(shown, UNDATED, None, "no known date")

    def entries(self) -> list[dict]:
        """Every dated version, oldest version first, with its chosen date and all its sources."""
        out = []
        for key in sorted(self.claims, key=lambda k: self._parsed[k]):
            chosen = self._chosen(key)
            claims = sorted(self.claims[key], key=lambda c: (c.date, c.source, c.url or ""))
            row = {"version": key, "date": chosen.date.isoformat(), "source": chosen.source, "url": chosen.url,
                   "sources": [{"date": c.date.isoformat(), "source": c.source, "url": c.url} for c in claims]}
            if len({c.date for c in claims}) > 1:
                row["conflict"] = "dates differ between sources: the earliest plausible one is used"
            out.append(row)
        return out

    def boundary(self, cutoff_start: date) -> dict:
        """The cutoff as a version boundary (see the module docstring for the exact semantics)."""
        rows = [(self._parsed[k], self._chosen(k)) for k in self.claims]
        finals = [(v, c) for v, c in rows if not v.is_prerelease]
        before = [(v, c) for v, c in finals if c.date < cutoff_start]
        after = [(v, c) for v, c in finals if c.date >= cutoff_start]
        last = max(before, key=lambda r: r[0], default=None)
        first = min(after, key=lambda r: r[0], default=None)
        post_series = sorted({series(v) for v, _ in after if last is None or series(v) > series(last[0])})
        return {
            "cutoff_month": cutoff_start.strftime("%Y-%m"),
            "post_cutoff_from": cutoff_start.isoformat(),
            "rule": (f"a version released on or after {cutoff_start.isoformat()} (the cutoff month, which the model knows "
                     "only partly, as for pages) is post-cutoff; the boundary is the newest version released before it; "
                     "a version of a newer series than a post-cutoff one is post-cutoff; undated versions are never fresh"),
            "last_pre_cutoff": {"version": str(last[0]), "date": last[1].date.isoformat(), "source": last[1].source} if last else None,
            "first_post_cutoff": {"version": str(first[0]), "date": first[1].date.isoformat(), "source": first[1].source} if first else None,
            "post_cutoff_series": [".".join(map(str, s)) for s in post_series],
            "known_versions": len(self.claims),
        }
