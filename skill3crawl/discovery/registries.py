"""Package registries and repositories → a topic's official sources (pure: bytes in, records out).

Shapes parsed here are the registries' public, documented JSON documents:

* PyPI JSON API ``GET /pypi/<name>/json`` (docs.pypi.org/api/json): ``info.name``,
  ``info.project_urls`` (free-form labels: Documentation, Homepage, Source, Changelog …),
  ``info.home_page``, ``info.docs_url``, ``releases: {version: [{upload_time_iso_8601, yanked}]}``.
* npm registry package document ``GET /<name>`` (github.com/npm/registry, "package metadata"):
  ``name``, ``homepage``, ``repository`` (string or ``{type, url}``), ``time: {version: ISO date,
  created, modified}``, ``versions``.
* crates.io ``GET /api/v1/crates/<name>`` (crates.io API, as served): ``crate.{name, homepage,
  documentation, repository, downloads}``, ``versions: [{num, created_at, yanked}]``.
* GitHub's releases Atom feed ``/<owner>/<repo>/releases.atom``: ``entry`` with ``title``,
  ``updated``, ``link rel=alternate`` (…/releases/tag/<tag>) and ``content type=html``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

from lxml import etree

from synth.core import default_settings
from synth.core.errors import (
    SpecError,  # noqa: F401 - defined with every error (synth.core.errors)
    )
from synth.delta.versions import version_of_tag
from synth.evidence.urls import site_host

ECOSYSTEMS = ("pypi", "npm", "crates")
DEFAULT_URLS = {
    "pypi": default_settings.SKILL3_PYPI_URL,
    "npm": default_settings.SKILL3_NPM_URL,
    "crates": default_settings.SKILL3_CRATES_URL,
    "github": default_settings.SKILL3_GITHUB_URL,
    "github_raw": default_settings.SKILL3_GITHUB_RAW_URL,
}
SETTINGS = {"pypi": "SKILL3_PYPI_URL", "npm": "SKILL3_NPM_URL", "crates": "SKILL3_CRATES_URL",
            "github": "SKILL3_GITHUB_URL", "github_raw": "SKILL3_GITHUB_RAW_URL"}
# Hosts that serve many projects: never authoritative as a whole, only the project's own path.
CODE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "pypi.org", "npmjs.com",
              "www.npmjs.com", "crates.io", "docs.rs", "readthedocs.io")
CHANGELOG_FILES = ("CHANGELOG.md", "NEWS.md", "HISTORY.md", "CHANGES.md", "CHANGELOG.rst", "NEWS", "HISTORY.rst")
ATOM = "{http://www.w3.org/2005/Atom}"
_LABELS = {  # project_urls label (normalised) → role
    "documentation": "Documentation", "docs": "Documentation", "doc": "Documentation",
    "homepage": "Homepage", "home": "Homepage", "home page": "Homepage", "website": "Homepage",
    "source": "Source", "source code": "Source", "repository": "Source", "code": "Source", "github": "Source",
    "changelog": "Changelog", "changes": "Changelog", "release notes": "Changelog", "history": "Changelog",
    "releases": "Changelog", "news": "Changelog",
}


MAX_RELEASES = 1_000  # releases read from one registry answer (the newest; a registry may list 100,000)
MAX_TIMELINE = 3_000  # entries of the merged release timeline in crawl.json (the newest)


@dataclass(frozen=True)
class Release:
    version: str
    date: str  # YYYY-MM-DD
    source: str  # pypi | npm | crates | github-releases
    url: str

    def as_dict(self) -> dict[str, str]:
        return {"version": self.version, "date": self.date, "source": self.source, "url": self.url}


@dataclass
class Package:
    ecosystem: str
    name: str
    url: str  # the registry document it came from
    links: dict[str, str] = field(default_factory=dict)  # role (Documentation, Homepage, Source, Changelog) → URL
    releases: list[Release] = field(default_factory=list)
    downloads: int | None = None
    dropped_releases: int = 0  # past MAX_RELEASES: the oldest are left out
    absurd_versions: int = 0  # version strings that cannot be versions (synth.delta.versions.plausible_version)

    def bound_releases(self) -> "Package":
        """At most :data:`MAX_RELEASES` releases, the newest; absurd version strings left out (both counted)."""
        from synth.delta.versions import plausible_version

        kept = [r for r in self.releases if plausible_version(r.version)]
        self.absurd_versions += len(self.releases) - len(kept)
        if len(kept) > MAX_RELEASES:
            kept.sort(key=lambda r: (r.date, r.version), reverse=True)
            self.dropped_releases += len(kept) - MAX_RELEASES
            kept = sorted(kept[:MAX_RELEASES], key=lambda r: (r.date, r.version))
        self.releases = kept
        return self

    def release_warning(self) -> str | None:
        """One line for what :meth:`bound_releases` left out, else None."""
        parts = []
        if self.dropped_releases:
            parts.append(f"kept the newest {MAX_RELEASES:,} of {MAX_RELEASES + self.dropped_releases:,} releases")
        if self.absurd_versions:
            parts.append(f"skipped {self.absurd_versions:,} release(s) whose version string is no version "
                         "(over 64 characters or a number of more than 12 digits)")
        return f"{self.label}: " + "; ".join(parts) if parts else None

    @property
    def label(self) -> str:
        return f"{self.ecosystem}:{self.name}"

    @property
    def repository(self) -> tuple[str, str] | None:
        for role in ("Source", "Homepage", "Changelog", "Documentation"):
            repo = github_repo(self.links.get(role, ""))
            if repo:
                return repo
        return None


def parse_spec(spec: str) -> tuple[str, str]:
    """``pypi:NAME`` / ``npm:NAME`` / ``crates:NAME`` → (ecosystem, name)."""
    eco, sep, name = str(spec).strip().partition(":")
    eco = {"pip": "pypi", "python": "pypi", "node": "npm", "cargo": "crates", "crate": "crates", "rust": "crates"}.get(eco.lower(), eco.lower())
    if not sep or eco not in ECOSYSTEMS or not re.fullmatch(r"(@[a-z0-9._~-]+/)?[A-Za-z0-9._~-]{1,214}", name.strip()):
        raise SpecError(f"must look like pypi:NAME, npm:NAME or crates:NAME, got {spec!r}")
    return eco, name.strip()


def normalize_name(name: str) -> str:
    """PEP 503 normalisation (also fine for npm and crates names): case, runs of -_. are one."""
    return re.sub(r"[-_.]+", "-", name).lower()


def candidate_names(topic: str) -> list[str]:
    """Registry names to try for a topic: the topic itself as a package name, when it can be one."""
    t = topic.strip().lower()  # npm names are lower-case; PyPI and crates.io ignore case
    names = [t] if re.fullmatch(r"[a-z0-9][a-z0-9._-]{0,213}", t) else []
    slug = re.sub(r"[^a-z0-9]+", "-", t).strip("-")
    if slug and all(normalize_name(slug) != normalize_name(n) for n in names):
        names.append(slug)
    return names[:2]


def registry_url(ecosystem: str, base: str, name: str) -> str:
    base = base.rstrip("/")
    if ecosystem == "pypi":
        return f"{base}/{quote(name, safe='')}/json"
    return f"{base}/{quote(name, safe='@')}"  # an npm scope's slash is escaped (@scope%2Fname)


def _http(url: Any) -> str | None:
    if not isinstance(url, str):
        return None
    url = url.strip()
    if url.startswith("git+"):
        url = url[4:]
    if url.startswith("git://"):
        url = "https://" + url[len("git://"):]
    m = re.match(r"^git@([^:]+):(.+)$", url)
    if m:
        url = f"https://{m.group(1)}/{m.group(2)}"
    if re.match(r"^github:[\w.-]+/[\w.-]+$", url):  # npm shorthand
        url = "https://github.com/" + url[len("github:"):]
    p = urlsplit(url)
    if p.scheme not in ("http", "https") or not p.hostname:
        return None
    if url.endswith(".git"):
        url = url[:-4]
    return url


def github_repo(url: str) -> tuple[str, str] | None:
    """(owner, repo) of a github.com URL (any of its spellings), else None."""
    url = _http(url) or ""
    if site_host(url) != "github.com":
        return None
    p = urlsplit(url)
    parts = [s for s in p.path.split("/") if s]
    if len(parts) < 2:
        return None
    return parts[0], parts[1].removesuffix(".git")


def _date(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    m = re.match(r"^(\d{4}-\d{2}-\d{2})", value.strip())
    return m.group(1) if m else None


def _load(body: bytes | str) -> dict | None:
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None


def _role(label: str) -> str | None:
    """The role of a free-form ``project_urls`` label (PEP 753 normalised names and common spellings)."""
    norm = re.sub(r"\s+", " ", re.sub(r"[^a-z]+", " ", label.lower())).strip()
    if norm in _LABELS:
        return _LABELS[norm]
    squashed = norm.replace(" ", "")
    for words, role in ((("changelog", "changes", "releasenotes", "whatsnew", "news", "history"), "Changelog"),
                        (("documentation", "docs", "doc", "manual", "guide", "reference"), "Documentation"),
                        (("sourcecode", "source", "repository", "repo", "github", "gitlab", "code"), "Source"),
                        (("homepage", "home", "website"), "Homepage")):
        if any(squashed == w or squashed.startswith(w) or squashed.endswith(w) for w in words):
            return role
    return None


def parse_pypi(body: bytes | str, url: str) -> Package | None:
    data = _load(body) or {}
    info = data.get("info")
    if not isinstance(info, dict) or not isinstance(info.get("name"), str):
        return None
    pkg = Package("pypi", info["name"], url)
    for label, link in (info.get("project_urls") or {}).items():
        role, link = _role(str(label)), _http(link)
        if role and link and role not in pkg.links:
            pkg.links[role] = link
    for role, key in (("Homepage", "home_page"), ("Documentation", "docs_url")):
        link = _http(info.get(key))
        if link and role not in pkg.links:
            pkg.links[role] = link
    releases = data.get("releases")
    for version, files in (releases.items() if isinstance(releases, dict) else []):
        files = [f for f in files or [] if isinstance(f, dict) and not f.get("yanked")]
        dates = sorted(d for d in (_date(f.get("upload_time_iso_8601") or f.get("upload_time")) for f in files) if d)
        if dates:
            pkg.releases.append(Release(str(version), dates[0], "pypi", f"https://pypi.org/project/{pkg.name}/{version}/"))
    return pkg.bound_releases()


def parse_npm(body: bytes | str, url: str) -> Package | None:
    data = _load(body)
    if not data or not isinstance(data.get("name"), str) or "error" in data:
        return None
    pkg = Package("npm", data["name"], url)
    repo = data.get("repository")
    repo_url = _http(repo.get("url") if isinstance(repo, dict) else repo)
    homepage = _http(data.get("homepage"))
    if homepage:
        pkg.links["Homepage"] = homepage
        if not github_repo(homepage):
            pkg.links["Documentation"] = homepage  # npm has no docs field: the homepage is the documented entry point
    if repo_url:
        pkg.links["Source"] = repo_url.split("#", 1)[0]
    times: dict = data["time"] if isinstance(data.get("time"), dict) else {}
    versions: dict = data["versions"] if isinstance(data.get("versions"), dict) else {}
    for version, when in times.items():
        d = _date(when)
        if d and version not in ("created", "modified") and (not versions or version in versions):
            pkg.releases.append(Release(version, d, "npm", f"https://www.npmjs.com/package/{pkg.name}/v/{version}"))
    return pkg.bound_releases()


def parse_crates(body: bytes | str, url: str) -> Package | None:
    data = _load(body) or {}
    crate = data.get("crate")
    if not isinstance(crate, dict) or not isinstance(crate.get("name"), str):
        return None
    pkg = Package("crates", crate["name"], url, downloads=crate.get("downloads") if isinstance(crate.get("downloads"), int) else None)
    for role, key in (("Documentation", "documentation"), ("Homepage", "homepage"), ("Source", "repository")):
        link = _http(crate.get(key))
        if link:
            pkg.links[role] = link
    for v in data.get("versions") or []:
        created = _date(v.get("created_at")) if isinstance(v, dict) else None
        if isinstance(v, dict) and not v.get("yanked") and created and v.get("num"):
            pkg.releases.append(Release(str(v["num"]), created, "crates", f"https://crates.io/crates/{pkg.name}/{v['num']}"))
    return pkg.bound_releases()


PARSERS = {"pypi": parse_pypi, "npm": parse_npm, "crates": parse_crates}


def choose(topic: str, packages: list[Package], pinned: tuple[str, str] | None = None) -> tuple[Package | None, str]:
    """The package the topic names, and why. Pinned wins; else an exact (normalised) name match;
    among several, the one with a documentation link, then the most releases, then download count,
    then the registry order pypi, npm, crates."""
    if not packages:
        return None, "no registry knows the name"
    if pinned:
        for p in packages:
            if p.ecosystem == pinned[0] and normalize_name(p.name) == normalize_name(pinned[1]):
                return p, f"pinned with package={pinned[0]}:{pinned[1]}"
        return None, f"{pinned[0]} has no package {pinned[1]!r}"
    wanted = {normalize_name(n) for n in candidate_names(topic)}
    exact = [p for p in packages if normalize_name(p.name) in wanted]
    if not exact:
        return None, "no package of that exact name"
    ranked = sorted(exact, key=lambda p: ("Documentation" not in p.links, -len(p.releases), -(p.downloads or 0), ECOSYSTEMS.index(p.ecosystem)))
    best = ranked[0]
    if len(ranked) == 1:
        return best, "the only registry with that exact name"
    others = ", ".join(p.label for p in ranked[1:])
    return best, f"exact name in several registries ({others} too): chose the one with documentation, then most releases; pin with package=ECOSYSTEM:NAME"


@dataclass(frozen=True)
class OfficialSource:
    prefix: str  # "host" or "host/path" (a repository)
    reason: str  # e.g. "pypi:fastapi Documentation"


def official_sources(pkg: Package) -> list[OfficialSource]:
    """Hosts (or a code host's project path) the package's registry entry names, with the reason."""
    out: dict[str, str] = {}
    for role in ("Documentation", "Homepage", "Changelog", "Source"):
        link = pkg.links.get(role)
        p = urlsplit(link or "")
        host = site_host(link or "")
        if not host:
            continue
        if host in CODE_HOSTS:
            repo = github_repo(link or "") if host == "github.com" else None
            parts = [s for s in p.path.split("/") if s][:2]
            if len(parts) == 2:
                key = f"{host}/{repo[0]}/{repo[1]}" if repo else f"{host}/{parts[0]}/{parts[1]}"
                out.setdefault(key.lower(), f"{pkg.label} {role}")
            continue
        out.setdefault(host, f"{pkg.label} {role}")
    repo = pkg.repository
    if repo:
        out.setdefault(f"github.com/{repo[0]}/{repo[1]}".lower(), f"{pkg.label} Source")
        out.setdefault(f"raw.githubusercontent.com/{repo[0]}/{repo[1]}".lower(), f"{pkg.label} Source")
    return [OfficialSource(k, v) for k, v in out.items()]


def docs_entry(pkg: Package) -> str | None:
    """The documented entry point to crawl in docs mode: Documentation, else a Homepage off code hosts."""
    for role in ("Documentation", "Homepage"):
        link = pkg.links.get(role)
        host = site_host(link or "")
        if link and host and host not in CODE_HOSTS:
            return link
    return None


def rebase(url: str, default_base: str, base: str) -> str:
    """``url`` under ``default_base`` moved to ``base`` (the configured GitHub / raw endpoints)."""
    if base.rstrip("/") == default_base.rstrip("/") or not url.startswith(default_base.rstrip("/")):
        return url
    return base.rstrip("/") + url[len(default_base.rstrip("/")):]


def parse_releases_atom(body: bytes, limit: int = 50) -> list[dict[str, str]]:
    """Entries of a GitHub releases Atom feed: ``{tag, version, title, date, url, html}``, newest first.
    Untrusted XML: no entities resolved, no network."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, recover=False)
    try:
        root = etree.fromstring(body, parser)
    except (etree.XMLSyntaxError, ValueError):
        return []
    out = []
    for entry in root.iter(f"{ATOM}entry"):
        link = next((e.get("href") for e in entry.iter(f"{ATOM}link") if e.get("rel", "alternate") == "alternate" and e.get("href")), None)
        date = _date(entry.findtext(f"{ATOM}updated") or entry.findtext(f"{ATOM}published") or "")
        if not link or not date or urlsplit(link).scheme not in ("http", "https"):
            continue
        tag = link.rstrip("/").rsplit("/", 1)[-1]
        title = (entry.findtext(f"{ATOM}title") or tag).strip()
        out.append({"tag": tag, "version": version_of(tag), "title": title, "date": date, "url": link,
                    "html": entry.findtext(f"{ATOM}content") or ""})
        if len(out) >= limit:
            break
    return out


version_of = version_of_tag  # synth.delta.versions: the one version reader


def merge_timeline(existing: list[dict], new: list[dict]) -> list[dict]:
    """One timeline, several sources: entries keyed by (version, source), the first kept; by date then version."""
    seen: dict[tuple[str, str], dict] = {}
    for entry in [*(existing or []), *(new or [])]:
        if isinstance(entry, dict) and entry.get("version") and entry.get("source"):
            seen.setdefault((str(entry["version"]), str(entry["source"])), entry)
    merged = sorted(seen.values(), key=lambda e: (str(e.get("date") or ""), str(e["version"]), str(e["source"])))
    return merged[-MAX_TIMELINE:]  # at most MAX_TIMELINE entries, the newest
