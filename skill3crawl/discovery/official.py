"""The ``learn`` spider's official-source discovery: registries → repository → docs site.

Every registry and repository request is an ordinary Scrapy request: the network guard,
robots.txt, the download slots, Retry-After and the retry middleware apply. A registry
that is down, rate-limits past its retries or does not know the name only counts as
"not found there" (``skill3/registry/failed/<ecosystem>``); the run goes on.

Flow: the topic (or ``-a package=pypi:NAME``) is looked up on PyPI, npm and crates.io
(base URLs ``SKILL3_PYPI_URL``, ``SKILL3_NPM_URL``, ``SKILL3_CRATES_URL``); the best
match is chosen (:func:`~skill3crawl.discovery.registries.choose`) and said; its
documentation/homepage hosts and its repository path become authoritative for the run
(with the reason, e.g. "pypi:fastapi Documentation"); the repository's releases Atom
feed (``SKILL3_GITHUB_URL``) gives dated release notes and the timeline; its changelog
file (``SKILL3_GITHUB_RAW_URL``) is fetched; and the documented entry point is crawled in
docs mode. Release dates from the registry and the feed go to ``crawl.json``'s ``timeline``.
"""

from __future__ import annotations

import html as html_lib
import logging
from typing import TYPE_CHECKING, Any, Iterator
from urllib.parse import urlsplit

import scrapy
from scrapy.exceptions import IgnoreRequest
from scrapy.spidermiddlewares.httperror import HttpError

from skill3crawl.crawl_record import get_state
from skill3crawl.discovery import registries as reg
from skill3crawl.items import FetchedPage
from skill3crawl.packages.userconfig import registry_base
from skill3crawl.setting_values import setting_or_env
from skill3crawl.sitecrawl.scope import Scope
from synth.core import default_settings
from synth.core.errors import ExitCode
from synth.evidence.urls import host_of, site_host

if TYPE_CHECKING:
    from scrapy.http import Response
    from twisted.python.failure import Failure

    from skill3crawl.items import PageItem

logger = logging.getLogger(__name__)

MAX_RELEASE_ITEMS = 20


def _base(settings: Any, key: str) -> str:
    """A registry/repository base URL: ``-s SKILL3_PYPI_URL=…`` (etc.), else the environment variable
    of the same name, else (PyPI, npm) the user's pip / npm configuration, else the public service."""
    if key in ("pypi", "npm", "crates"):
        return registry_base(settings, key)
    return setting_or_env(settings, reg.SETTINGS[key]) or reg.DEFAULT_URLS[key]


def add_to_crawl_json(crawl: dict, state: Any) -> dict:
    """Put the run's official sources, chosen package and registry/repository release dates into
    ``crawl.json``'s dict; ``timeline`` is merged with entries others put there (one timeline)."""
    crawl["package"] = getattr(state, "package", None)
    crawl["package_source"] = getattr(state, "package_source", None)
    crawl["official_sources"] = [{"source": k, "reason": v} for k, v in (getattr(state, "official", None) or {}).items()]
    crawl["timeline"] = reg.merge_timeline(crawl.get("timeline") or [], getattr(state, "release_timeline", None) or [])
    return crawl


class OfficialSourcesMixin:
    """Registry → repository → docs discovery for the ``learn`` spider (uses ``args``, ``_item``,
    ``page_html``, ``_direct_requests``, ``_fail``, ``site_roots``/``scopes``)."""

    def resolves_packages(self) -> bool:
        """Look the topic up in the registries: no curated corpus, not a worker, and either a pinned
        package or no hosts/start URLs named (``-s SKILL3_REGISTRIES=`` turns it off)."""
        a = self.args
        if a is None or a.corpus is not None or a.role == "worker":
            return False
        if not self._ecosystems():
            return False
        return bool(a.package) or not (a.authoritative or a.start_urls)

    def registry_dates_wanted(self) -> bool:
        """With start URLs or hosts named the site is given, but the registries may still date its versions: look the
        topic up for its release dates only (no package pinned, not a worker or a corpus; ``SKILL3_REGISTRIES=`` off)."""
        a = self.args
        if a is None or a.corpus is not None or a.role == "worker" or a.package:
            return False
        return bool(self._ecosystems()) and bool(a.authoritative or a.start_urls)

    def _ecosystems(self) -> list[str]:
        value = self.settings.get("SKILL3_REGISTRIES", list(default_settings.SKILL3_REGISTRIES)) if hasattr(self, "crawler") else list(reg.ECOSYSTEMS)
        if isinstance(value, str):
            value = [v.strip() for v in value.split(",")]
        return [e for e in value if e in reg.ECOSYSTEMS]

    def warn_no_search(self) -> None:
        logger.warning(
            "skill3: no search provider (set BRAVE_SEARCH_API_KEY or SEARXNG_URL): crawling only the official and "
            "named sources; independent hosts (blogs, forums) that consensus needs are not searched"
        )

    # -- registries -------------------------------------------------------------
    def registry_requests(self, dates_only: bool = False) -> Iterator[scrapy.Request]:
        a = self.args
        state = get_state(self.crawler)
        state.discovery.append("registries (release dates only)" if dates_only else "registries")
        self._registry_dates_only = dates_only
        pinned = reg.parse_spec(a.package) if a.package else None
        lookups = [(pinned[0], pinned[1])] if pinned else [(e, n) for e in self._ecosystems() for n in reg.candidate_names(a.topic)]
        self._registry_pending = len(lookups)
        self._registry_found: list[reg.Package] = []
        self._registry_bodies: dict[str, tuple[bytes, str]] = {}  # package label → its registry answer (the archives' links)
        self._registry_tried: dict[str, str] = {}
        for eco, name in lookups:
            url = reg.registry_url(eco, _base(self.settings, eco), name)
            yield scrapy.Request(
                url, callback=self.parse_registry, errback=self.registry_failed, dont_filter=True,
                headers={"Accept": "application/json"}, cb_kwargs={"ecosystem": eco},
                meta={"skill3_kind": "registry", "dont_cache": True, "handle_httpstatus_list": [404, 410],
                      "skill3_registry": eco, "skill3_api": True},
            )

    def parse_registry(self, response: Response, ecosystem: str) -> Iterator[scrapy.Request]:
        stats = self.crawler.stats
        if response.status in (404, 410):
            self._registry_tried[f"{ecosystem}:{response.url}"] = "not found"
            stats.inc_value(f"skill3/registry/not_found/{ecosystem}")
        else:
            pkg = reg.PARSERS[ecosystem](response.body, response.url)
            if pkg is None:
                self._registry_tried[f"{ecosystem}:{response.url}"] = "unreadable answer"
                stats.inc_value(f"skill3/registry/unreadable/{ecosystem}")
            else:
                stats.inc_value(f"skill3/registry/found/{ecosystem}")
                self._registry_found.append(pkg)
                self._registry_bodies[pkg.label] = (response.body, response.url)
        yield from self._registry_step()

    def registry_failed(self, failure: Failure) -> Iterator[scrapy.Request]:
        eco = failure.request.meta.get("skill3_registry", "registry")
        if failure.check(HttpError):
            why = f"HTTP {failure.value.response.status}"
        else:
            why = failure.getErrorMessage()[:120] or type(failure.value).__name__
        self._registry_tried[f"{eco}:{failure.request.url}"] = why
        self.crawler.stats.inc_value(f"skill3/registry/failed/{eco}")
        if failure.check(IgnoreRequest) and not failure.check(HttpError):  # robots.txt / network guard: counted there
            logger.info("skill3: registry %s not asked (%s)", eco, why)
        elif getattr(self, "_registry_dates_only", False):  # the site is given: a registry only adds dates, no warning
            logger.info("skill3: registry %s did not answer (%s): its release dates are not used", eco, why)
        else:
            logger.warning("skill3: registry %s did not answer (%s): going on without it", eco, why)
        yield from self._registry_step()

    def _registry_step(self) -> Iterator[scrapy.Request]:
        self._registry_pending -= 1
        if self._registry_pending > 0:
            return
        a = self.args
        state = get_state(self.crawler)
        pinned = reg.parse_spec(a.package) if a.package else None
        pkg, why = reg.choose(a.topic, self._registry_found, pinned)
        state.package = {
            "chosen": pkg.label if pkg else None,
            "reason": why,
            "candidates": [p.label for p in self._registry_found],
            "not_found": dict(sorted(self._registry_tried.items())),
        }
        if pkg is None:
            logger.info("skill3: no package for %r in the registries (%s)", a.topic, why)
            self.nothing_found_check()
            return
        if getattr(self, "_registry_dates_only", False):  # the site is given: the package only dates its versions
            named = {site_host(u) for u in [*a.start_urls, *(f"https://{h}/" for h in a.authoritative)]} - {""}
            linked = {s.prefix.split("/", 1)[0] for s in reg.official_sources(pkg)}
            if not named & linked:  # a package of the same name that does not link the named site is another project
                state.package["use"] = "not used: its registry links name none of the sites given"
                logger.info("skill3: %s links none of the named sites (%s): its release dates are not used", pkg.label,
                            ", ".join(sorted(named)))
                return
            state.package["use"] = "release dates only (start URLs or hosts were named)"
            state.release_timeline = reg.merge_timeline(state.release_timeline, [r.as_dict() for r in pkg.releases])
            logger.info("skill3: topic %r is the package %s (%s): its %d release dates join the timeline", a.topic,
                        pkg.label, why, len(pkg.releases))
            return
        logger.info("skill3: topic %r is the package %s (%s)", a.topic, pkg.label, why)
        if self.search_provider is None:
            self.warn_no_search()
        official = {s.prefix: s.reason for s in reg.official_sources(pkg)}
        for key in ("github", "github_raw"):  # a configured GitHub (Enterprise, or a test double) elsewhere
            default_host = host_of(reg.DEFAULT_URLS[key])
            conf = urlsplit(_base(self.settings, key))
            here = ((conf.hostname or "") + conf.path.rstrip("/")).lower()
            if conf.hostname and here != default_host:
                official.update({here + p[len(default_host):]: r for p, r in list(official.items()) if p.startswith(default_host + "/")})
        state.official.update(official)
        state.package["links"] = pkg.links
        state.release_timeline = reg.merge_timeline(state.release_timeline, [r.as_dict() for r in pkg.releases])
        if pkg.release_warning():
            logger.warning("skill3: %s", pkg.release_warning())
        if self.packages_enabled() and pkg.label in self._registry_bodies:  # the release archives (skill3crawl.packages)
            yield from self.package_requests(pkg, *self._registry_bodies[pkg.label])
        self._registry_bodies = {}
        yield from self._repository_requests(pkg)
        roots = [u for u in (reg.docs_entry(pkg), pkg.links.get("Changelog")) if u and not reg.github_repo(u)]
        if not roots and pkg.repository is None:
            logger.warning("skill3: %s names no documentation site or GitHub repository: only its release dates are known", pkg.label)
        yield from self._crawl_docs(roots)

    def nothing_found_check(self) -> None:
        """Nothing to crawl at all: one line, exit 1 (the spider then closes with nothing written)."""
        a = self.args
        if self.site_roots or getattr(self, "search_provider", None) is not None or getattr(self, "pending_searches", 0):
            return
        self._fail(ExitCode.FAILURE, "nothing_found")
        tried = getattr(self, "_registry_tried", {})
        why: dict[str, str] = {}
        for key, outcome in tried.items():
            why.setdefault(key.split(":", 1)[0], outcome)
        if why and all(v == "not found" for v in why.values()):
            where = f"no package of that name on {', '.join(why)}"
        elif why:
            where = "registries: " + "; ".join(f"{eco} {outcome}" for eco, outcome in why.items())
        else:
            where = "no registry was asked"
        logger.error(
            "skill3: nothing found for %r (%s), and no search provider (set BRAVE_SEARCH_API_KEY or SEARXNG_URL) "
            "or sites (--authoritative / --start-urls / --package) to crawl", a.topic, where,
        )

    # -- repository ---------------------------------------------------------------
    def _repository_requests(self, pkg: reg.Package) -> Iterator[scrapy.Request]:
        repo = pkg.repository
        if repo is None:
            return
        owner, name = repo
        gh = _base(self.settings, "github")
        yield scrapy.Request(
            f"{gh.rstrip('/')}/{owner}/{name}/releases.atom", callback=self.parse_releases, errback=self.repository_failed,
            meta={"skill3_kind": "releases", "dont_cache": True}, cb_kwargs={"repo": repo, "label": pkg.label},
        )
        yield self._changelog_request(repo, pkg.label, 0)

    def _changelog_request(self, repo: tuple[str, str], label: str, index: int) -> scrapy.Request:
        owner, name = repo
        raw = _base(self.settings, "github_raw")
        fname = reg.CHANGELOG_FILES[index]
        return scrapy.Request(
            f"{raw.rstrip('/')}/{owner}/{name}/HEAD/{fname}", callback=self.parse_changelog, errback=self.changelog_failed,
            meta={"skill3_kind": "changelog", "skill3_changelog": (repo, label, index)},
            cb_kwargs={"repo": repo, "label": label, "fname": fname},
        )

    def repository_failed(self, failure: Failure) -> None:
        self.crawler.stats.inc_value(f"skill3/repository/failed/{failure.request.meta.get('skill3_kind', 'other')}")

    def changelog_failed(self, failure: Failure) -> Iterator[scrapy.Request]:
        repo, label, index = failure.request.meta["skill3_changelog"]
        if failure.check(HttpError) and failure.value.response.status == 404 and index + 1 < min(3, len(reg.CHANGELOG_FILES)):
            yield self._changelog_request(repo, label, index + 1)  # CHANGELOG.md, then NEWS.md, then HISTORY.md
            return
        self.repository_failed(failure)

    def _room(self) -> bool:
        return self._items_alive() < self.args.max_pages

    def parse_releases(self, response: Response, repo: tuple[str, str], label: str) -> Iterator[PageItem]:
        entries = reg.parse_releases_atom(response.body)
        state = get_state(self.crawler)
        state.release_timeline = reg.merge_timeline(
            state.release_timeline,
            [{"version": e["version"], "date": e["date"], "source": "github-releases", "url": e["url"]} for e in entries],
        )
        self.crawler.stats.inc_value("skill3/repository/releases", len(entries))
        cutoff = self.args.cutoff.start.isoformat()
        fresh = [e for e in entries if e["date"] >= cutoff][:MAX_RELEASE_ITEMS]
        gh = _base(self.settings, "github").rstrip("/")
        for e in fresh:
            if not self._room():
                self.crawler.stats.inc_value("skill3/discovery/over_budget")
                break
            url = reg.rebase(e["url"], reg.DEFAULT_URLS["github"], gh)
            title = html_lib.escape(e["title"])
            page = (f"<!doctype html><html><head><title>{title} · {html_lib.escape('/'.join(repo))}</title></head><body><main>"
                    f"<h1>{title}</h1><p>Released <relative-time datetime=\"{e['date']}T00:00:00Z\">{e['date']}</relative-time></p>"
                    f"{e['html']}</main></body></html>")
            self.crawler.stats.inc_value("skill3/pages_fetched")
            self.crawler.stats.inc_value("skill3/discovery/repository")
            self.items_yielded += 1
            yield self._item(FetchedPage(url, url, page, "repository", title_hint=e["title"]))

    def parse_changelog(self, response: Response, repo: tuple[str, str], label: str, fname: str) -> Iterator[PageItem]:
        owner, name = repo
        gh = _base(self.settings, "github").rstrip("/")
        blob = f"{gh}/{owner}/{name}/blob/HEAD/{fname}"
        info = {"url": blob, "title": f"{owner}/{name} {fname}"}
        self.crawler.stats.inc_value("skill3/pages_fetched")
        if not self._room():
            self.crawler.stats.inc_value("skill3/discovery/over_budget")
            return
        html = self.page_html(response, info)
        if html is None:
            return
        self.crawler.stats.inc_value("skill3/discovery/repository")
        self.items_yielded += 1
        yield self._item(FetchedPage.of_response(response, blob, html, "repository", title_hint=info["title"]))

    # -- docs ---------------------------------------------------------------------
    def _crawl_docs(self, urls: list[str]) -> Iterator[scrapy.Request]:
        """The documented entry points, crawled in docs mode (sitemaps, llms.txt, in-prefix links)."""
        a = self.args
        new = []
        for u in dict.fromkeys(urls):
            if urlsplit(u).scheme in ("http", "https") and u not in self.site_roots:
                new.append(u)
        if not new:
            return
        self.site_roots.extend(new)
        self.scopes.extend(Scope.from_start_url(u, a.sitemap_filter, a.locales == "skip") for u in new)
        yield from self._direct_requests(new)
