"""Which releases of a package to read, and which archive of each (pure: the registry's JSON in, references out).

The registry documents are the ones :mod:`skill3crawl.discovery.registries` parses:

* PyPI ``/pypi/NAME/json``: ``releases: {version: [{filename, url, packagetype (sdist | bdist_wheel), size,
  digests.sha256, upload_time_iso_8601, yanked}]}``. The source distribution of a version, else its pure-Python
  wheel (``py3-none-any``), else any wheel; the version's date is its earliest upload.
* npm ``/NAME``: ``versions: {version: {dist: {tarball, shasum, integrity}}}``, ``time: {version: ISO date}``.
* crates.io ``/api/v1/crates/NAME``: ``versions: [{num, created_at, yanked, dl_path}]``; ``dl_path`` is on the
  registry's host.

:func:`select_releases`: the *baseline* is the newest release before the cutoff (or the one ``since_version``
names), what the target model knows; then the releases after it, newest last: the newest, and between the two
the first release of each new series, at most ``limit`` archives in all. Final releases only, unless a side
has no final release.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from typing import Any
from urllib.parse import urljoin, urlsplit

from synth.core import default_settings
from synth.delta.versions import known_by, parse_version, plausible_version, series

MAX_ARCHIVES = default_settings.SKILL3_PACKAGE_ARCHIVES  # the baseline, the newest, and the first release of series between


@dataclass(frozen=True)
class ArchiveRef:
    version: str
    date: str  # YYYY-MM-DD, the registry's upload time
    url: str
    filename: str
    kind: str  # sdist | wheel | npm | crate
    size: int | None = None
    sha256: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"version": self.version, "date": self.date, "url": self.url, "filename": self.filename, "kind": self.kind,
                "size": self.size}


def _load(body: bytes | str) -> dict:
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _day(value: Any) -> str | None:
    if isinstance(value, str) and len(value) >= 10 and value[4] == "-" and value[7] == "-":
        try:
            return date.fromisoformat(value[:10]).isoformat()
        except ValueError:
            return None
    return None


def _http(url: Any, base: str) -> str | None:
    if not isinstance(url, str) or not url.strip():
        return None
    full = urljoin(base, url.strip())
    return full if urlsplit(full).scheme in ("http", "https") else None


def _pypi_file_rank(f: dict) -> tuple[int, int] | None:
    name = str(f.get("filename") or "")
    kind = f.get("packagetype")
    if kind == "sdist" and name.endswith((".tar.gz", ".tgz", ".zip", ".tar.bz2", ".tar.xz")):
        return (0, 0)
    if kind == "bdist_wheel" and name.endswith(".whl"):
        return (1, 0 if name.endswith("-none-any.whl") else 1)
    return None


def pypi_archives(body: bytes | str, registry_url: str) -> list[ArchiveRef]:
    data = _load(body)
    releases = data.get("releases")
    out = []
    for version, files in (releases.items() if isinstance(releases, dict) else []):
        if not plausible_version(version) or not isinstance(files, list):
            continue
        files = [f for f in files if isinstance(f, dict) and not f.get("yanked")]
        days = sorted(d for d in (_day(f.get("upload_time_iso_8601") or f.get("upload_time")) for f in files) if d)
        ranked = sorted((r, i) for i, f in enumerate(files) if (r := _pypi_file_rank(f)) is not None)
        if not days or not ranked:
            continue
        f = files[ranked[0][1]]
        url = _http(f.get("url"), registry_url)
        if url is None:
            continue
        digests = f.get("digests") if isinstance(f.get("digests"), dict) else {}
        out.append(ArchiveRef(str(version), days[0], url, str(f.get("filename")), "sdist" if ranked[0][0][0] == 0 else "wheel",
                              f.get("size") if isinstance(f.get("size"), int) else None, digests.get("sha256")))
    return out


def npm_archives(body: bytes | str, registry_url: str) -> list[ArchiveRef]:
    data = _load(body)
    versions: dict[str, Any] = data["versions"] if isinstance(data.get("versions"), dict) else {}
    times: dict[str, Any] = data["time"] if isinstance(data.get("time"), dict) else {}
    out = []
    for version, doc in versions.items():
        dist: dict[str, Any] = doc["dist"] if isinstance(doc, dict) and isinstance(doc.get("dist"), dict) else {}
        url = _http(dist.get("tarball"), registry_url)
        day = _day(times.get(version))
        if url and day and plausible_version(version) and not (isinstance(doc, dict) and doc.get("deprecated")):
            out.append(ArchiveRef(str(version), day, url, url.rsplit("/", 1)[-1], "npm"))
    return out


def crates_archives(body: bytes | str, registry_url: str) -> list[ArchiveRef]:
    data = _load(body)
    crate: dict[str, Any] = data["crate"] if isinstance(data.get("crate"), dict) else {}
    name = str(crate.get("name") or "")
    out = []
    for v in data.get("versions") or []:
        if not isinstance(v, dict) or v.get("yanked") or not v.get("num"):
            continue
        num = str(v["num"])
        url = _http(v.get("dl_path"), registry_url) or (f"https://static.crates.io/crates/{name}/{name}-{num}.crate" if name else None)
        day = _day(v.get("created_at"))
        if url and day and plausible_version(num):
            out.append(ArchiveRef(num, day, url, f"{name}-{num}.crate", "crate"))
    return out


ARCHIVES = {"pypi": pypi_archives, "npm": npm_archives, "crates": crates_archives}


@dataclass(frozen=True)
class Selection:
    baseline: ArchiveRef | None
    after: tuple[ArchiveRef, ...]  # oldest first; the last is the newest release
    skipped_after: int = 0  # releases after the baseline not read (between the ones read)

    @property
    def refs(self) -> list[ArchiveRef]:
        return ([self.baseline] if self.baseline else []) + list(self.after)

    @property
    def newest(self) -> ArchiveRef | None:
        return self.after[-1] if self.after else None


def _finals(refs: list[ArchiveRef]) -> list[ArchiveRef]:
    finals = [r for r in refs if not parse_version(r.version).is_prerelease]  # type: ignore[union-attr]
    return finals or refs


def select_releases(refs: list[ArchiveRef], cutoff: date, since_version: str | None = None, limit: int = MAX_ARCHIVES) -> Selection:
    """The baseline and the releases after it to read (see the module doc)."""
    parsed = sorted((r for r in refs if parse_version(r.version) is not None), key=lambda r: parse_version(r.version))  # type: ignore[arg-type, return-value]
    since = parse_version(since_version) if since_version else None
    if since is not None:
        before = [r for r in parsed if known_by(parse_version(r.version), since)]  # type: ignore[arg-type]
        later = [r for r in parsed if not known_by(parse_version(r.version), since)]  # type: ignore[arg-type]
    else:
        start = cutoff.isoformat()
        before = [r for r in parsed if r.date < start]
        later = [r for r in parsed if r.date >= start]
    before, later = _finals(before), _finals(later)
    baseline = max(before, key=lambda r: parse_version(r.version)) if before else None  # type: ignore[arg-type, return-value]
    if baseline is not None:
        later = [r for r in later if parse_version(r.version) > parse_version(baseline.version)]  # type: ignore[operator]
    if not later:
        return Selection(baseline, ())
    newest = later[-1]
    room = max(0, limit - 1 - (1 if baseline else 0))
    seen = {series(parse_version(baseline.version))} if baseline else set()  # type: ignore[arg-type]
    firsts = []
    for r in later[:-1]:
        s = series(parse_version(r.version))  # type: ignore[arg-type]
        if s not in seen:
            seen.add(s)
            firsts.append(r)
    if len(firsts) > room:  # spread over the range: keep every k-th series start
        step = len(firsts) / room if room else 0
        firsts = [firsts[int(i * step)] for i in range(room)] if room else []
    after = (*firsts, newest)
    return Selection(baseline, after, len(later) - len(after))
