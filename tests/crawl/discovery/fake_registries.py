"""Loopback doubles of package registries, GitHub and SearXNG, served by :class:`tests.mockserver.MockServer`.

The response bodies follow the services' public documentation and the shapes they serve:
PyPI JSON API (docs.pypi.org/api/json: ``info.project_urls``, ``releases`` with
``upload_time_iso_8601``); the npm registry package document (github.com/npm/registry
"Package Metadata": ``name``, ``homepage``, ``repository {type, url}``, ``time``,
``versions``, ``dist-tags``); crates.io ``/api/v1/crates/NAME`` (``crate``, ``versions``);
GitHub's releases Atom feed (``/OWNER/REPO/releases.atom``, ``feed/entry`` with ``id``,
``updated``, ``link rel=alternate``, ``title``, ``content type=html``); SearXNG's search
API (docs.searxng.org/dev/search_api.html: ``/search?q=…&format=json&time_range=…`` →
``{query, number_of_results, results[{url, title, content, engine, publishedDate, score}], …}``).
Not-found answers use each service's own 404 body.
"""

from __future__ import annotations

import json

from tests.mockserver import HTML, NOT_FOUND, MockServer, page, prose

JSON = {"Content-Type": "application/json"}


def pypi_document(name: str, docs: str, changelog: str | None, repo: str, releases: dict[str, str],
                  files: str = "https://files.pythonhosted.org") -> dict:
    urls = {"Homepage": repo, "Documentation": docs, "Repository": repo, "Issues": repo + "/issues"}
    if changelog:
        urls["Changelog"] = changelog
    return {
        "info": {"name": name, "version": max(releases), "summary": f"{name}: a web framework", "author": "",
                 "home_page": None, "docs_url": None, "license": "MIT", "project_urls": urls,
                 "requires_python": ">=3.8", "yanked": False},
        "last_serial": 4711,
        "releases": {
            v: [{"filename": f"{name}-{v}-py3-none-any.whl", "packagetype": "bdist_wheel", "python_version": "py3",
                 "upload_time": d + "T10:00:00", "upload_time_iso_8601": d + "T10:00:00.000000Z", "yanked": False,
                 "yanked_reason": None, "size": 1000, "url": f"{files}/{name}-{v}.whl"}]
            for v, d in releases.items()
        } | {"0.0.1.dev0": []},  # a release with no files (real PyPI has these): no date, left out
        "urls": [],
        "vulnerabilities": [],
    }


def npm_document(name: str, homepage: str, repo: str, releases: dict[str, str], files: str = "https://registry.npmjs.org") -> dict:
    return {
        "_id": name, "_rev": "12-abc", "name": name, "description": f"{name} widgets",
        "dist-tags": {"latest": max(releases)},
        "versions": {v: {"name": name, "version": v, "dist": {"tarball": f"{files}/{name}/-/{name}-{v}.tgz"}} for v in releases},
        "time": {"created": "2024-01-01T00:00:00.000Z", "modified": "2026-09-01T00:00:00.000Z",
                 **{v: d + "T12:00:00.000Z" for v, d in releases.items()}},
        "homepage": homepage, "repository": {"type": "git", "url": f"git+{repo}.git"},
        "license": "MIT", "readme": "# widgets",
    }


def atom_feed(owner: str, repo: str, entries: list[tuple[str, str, str]]) -> str:
    """Entries (tag, date, notes html) in the shape GitHub serves."""
    items = "".join(
        f"<entry><id>tag:github.com,2008:Repository/1/{tag}</id><updated>{date}T12:00:00Z</updated>"
        f'<link rel="alternate" type="text/html" href="https://github.com/{owner}/{repo}/releases/tag/{tag}"/>'
        f"<title>{tag}</title><content type=\"html\">{notes.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')}</content>"
        f"<author><name>maintainer</name></author></entry>"
        for tag, date, notes in entries
    )
    return (f'<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/" xml:lang="en-US">'
            f"<id>tag:github.com,2008:https://github.com/{owner}/{repo}/releases</id>"
            f'<link type="text/html" rel="alternate" href="https://github.com/{owner}/{repo}/releases"/>'
            f"<title>Release notes from {repo}</title><updated>2026-10-01T12:00:00Z</updated>{items}</feed>")


FASTAPI_RELEASES = {"0.110.0": "2025-06-01", "0.118.0": "2026-03-15", "0.120.0": "2026-10-01"}
WIDGETS_RELEASES = {"2.9.0": "2025-10-01", "3.0.0": "2026-02-10", "3.1.0": "2026-08-01"}


def notes(version: str, what: str) -> str:
    return (f"<h2>{version}</h2><p>{what} The streaming responses now resume after a disconnect, and the server "
            f"advertises its capabilities when a session starts. Dependency overrides apply to background tasks too.</p>"
            f"<pre><code class='language-python'>app.include_router(router, prefix='/v{version[0]}')\n</code></pre>")


def registry_world(sites: dict[str, str] | None = None):
    """Routes for the registries, GitHub and two docs sites (``docs.fastapi.test``, ``widgets.test``);
    ``sites`` maps a docs host to the base URL the registry documents name for it."""

    class _Base:
        def __init__(self, port):
            self.port = port

        def format(self, host):
            return (sites or {}).get(host) or f"http://{host}:{self.port}"

    def routes(srv: MockServer, host: str, path: str, query: dict, body: bytes):
        base = _Base(srv.port)
        if path == "/robots.txt" and host in ("github.com", "raw.githubusercontent.com"):
            return 200, {"Content-Type": "text/plain"}, "User-agent: *\nDisallow: /*/*/compare/\n"
        if host == "pypi.test":
            if path == "/pypi/fastapi/json":
                if srv.count("pypi429") == 1:  # rate-limited once, then served
                    return 429, {"Retry-After": "1", "Content-Type": "text/plain"}, "Too Many Requests"
                doc = pypi_document("fastapi", base.format("docs.fastapi.test") + "/", base.format("docs.fastapi.test") + "/release-notes/",
                                    "https://github.com/tiangolo/fastapi", FASTAPI_RELEASES,
                                    files=base.format("pypi.test") + "/files")  # hermetic: the archives are not served (404)
                return 200, JSON, json.dumps(doc)
            return 404, JSON, json.dumps({"message": "Not Found"})
        if host == "registry.npm.test":
            if path == "/alpha-widgets":
                doc = npm_document("alpha-widgets", base.format("widgets.test") + "/docs/", "https://github.com/acme/alpha-widgets", WIDGETS_RELEASES,
                                   files=base.format("registry.npm.test"))
                return 200, JSON, json.dumps(doc)
            if path == "/fastapi":  # a registry that keeps rate-limiting
                return 429, {"Retry-After": "1", "Content-Type": "application/json"}, json.dumps({"error": "rate limited"})
            return 404, JSON, json.dumps({"error": "Not found"})
        if host == "crates.test":
            return 404, JSON, json.dumps({"errors": [{"detail": "Not Found"}]})
        if host == "github.com":
            if path == "/tiangolo/fastapi/releases.atom":
                return 200, {"Content-Type": "application/atom+xml; charset=utf-8"}, atom_feed("tiangolo", "fastapi", [
                    ("0.120.0", "2026-10-01", notes("0.120.0", "Lifespan state is typed.")),
                    ("0.118.0", "2026-03-15", notes("0.118.0", "Pydantic v1 support is removed.")),
                    ("0.110.0", "2025-06-01", notes("0.110.0", "An old release.")),
                ])
            if path == "/acme/alpha-widgets/releases.atom":
                return 200, {"Content-Type": "application/atom+xml; charset=utf-8"}, atom_feed("acme", "alpha-widgets", [
                    ("v3.1.0", "2026-08-01", notes("3.1.0", "Widgets render lazily.")),
                    ("v3.0.0", "2026-02-10", notes("3.0.0", "The legacy theme API is removed.")),
                ])
            return NOT_FOUND
        if host == "raw.githubusercontent.com":
            if path == "/tiangolo/fastapi/HEAD/NEWS.md":  # no CHANGELOG.md: the next name is tried
                return 200, {"Content-Type": "text/plain; charset=utf-8"}, (
                    "# News\n\n## 0.120.0 (2026-10-01)\n\nLifespan state is typed; " + prose("News").replace("<p>", "").replace("</p>", " ") + "\n")
            if path == "/acme/alpha-widgets/HEAD/CHANGELOG.md":
                return 200, {"Content-Type": "text/plain; charset=utf-8"}, (
                    "# Changelog\n\n## [3.1.0] - 2026-08-01\n\n### Added\n\n- Lazy rendering of widgets; " + prose("Changelog").replace("<p>", "").replace("</p>", " ") + "\n")
            return NOT_FOUND
        if host in ("docs.fastapi.test", "widgets.test"):
            root = "/" if host == "docs.fastapi.test" else "/docs/"
            pages = {root: ("Home", "2026-06-01"), root + "tutorial/": ("Tutorial", "2026-07-02"), root + "release-notes/": ("Release notes", "2026-10-02")}
            if path == "/robots.txt":
                return 200, {"Content-Type": "text/plain"}, f"User-agent: *\nDisallow: /private/\nSitemap: {base.format(host)}{root}sitemap.xml\n"
            if path == root + "sitemap.xml":
                urls = "".join(f"<url><loc>{base.format(host)}{p}</loc><lastmod>{d}</lastmod></url>" for p, (_, d) in pages.items())
                return 200, {"Content-Type": "application/xml"}, f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
            if path in pages:
                title, d = pages[path]
                links = "".join(f"<a href='{p}'>{t}</a> " for p, (t, _) in pages.items())
                return 200, HTML, page(f"{host} {title}", prose(f"{host} {title}") + f"<p>{links}</p>", f'<meta name="date" content="{d}">')
            return NOT_FOUND
        return NOT_FOUND

    return routes


def loopback_world():
    """The same world on one address (127.0.0.1), for `skill3 learn` (which takes no -s settings): registries
    and GitHub under path prefixes (``SKILL3_PYPI_URL=http://127.0.0.1:PORT/pypi`` …), the docs site at the root."""
    inner = {}
    prefixes = {"/pypi/": ("pypi.test", "/pypi/"), "/npm/": ("registry.npm.test", "/"), "/crates/": ("crates.test", "/api/v1/crates/"),
                "/gh/": ("github.com", "/"), "/raw/": ("raw.githubusercontent.com", "/")}

    def routes(srv: MockServer, host, path, query, body):
        if "r" not in inner:
            inner["r"] = registry_world({"docs.fastapi.test": f"http://127.0.0.1:{srv.port}"})
        for pre, (h, new) in prefixes.items():
            if path.startswith(pre):
                return inner["r"](srv, h, new + path[len(pre):], query, body)
        return inner["r"](srv, "docs.fastapi.test", path, query, body)

    return routes


def searxng_routes(results_for):
    """SearXNG's ``/search`` with ``format=json`` (403 without it, as SearXNG answers when JSON is not enabled)."""

    def routes(srv: MockServer, host, path, query, body):
        if path != "/search":
            return NOT_FOUND
        if query.get("format") != ["json"]:
            return 403, {"Content-Type": "text/html"}, "<html>403 Forbidden</html>"
        q = query.get("q", [""])[0]
        results = results_for(q)
        return 200, JSON, json.dumps({"query": q, "number_of_results": len(results), "results": results, "answers": [],
                                      "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": []})

    return routes
