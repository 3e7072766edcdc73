"""A small offline web for crawl tests (route tables for :class:`MockServer`).

* ``site_routes``: name-based virtual hosting for docs.example.test (authoritative docs: robots.txt
  with Disallow, sitemap with lastmod, llms.txt, pages dated by each signal, 429-then-200,
  500-then-200, an oversized page), stale.medium.com (a stale low-authority blog whose robots.txt asks
  for Crawl-delay: 1), github.com (a release page), news.example.test (a future-dated page and a
  mirror of a docs page). The crawler reaches them through ``SKILL3_RESOLVE`` pins to 127.0.0.1.
* ``brave_routes`` / ``brave_rejecting``: the Brave web-search API in its documented JSON shape.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from tests.mockserver.server import MockServer, Reply

PROSE = (
    "The alpha toolkit now ships a streaming transport that replaces long polling for every client. "
    "Sessions can be resumed after a disconnect, and the server advertises its capabilities at start. "
    "Version 3 removes the legacy configuration file in favour of environment variables. "
)


def page(title: str, body: str, head: str = "") -> str:
    return f"<!doctype html><html><head><title>{title}</title>{head}</head><body><nav><a href='/'>Home</a></nav><main><h1>{title}</h1>{body}</main></body></html>"


def prose(tag: str) -> str:
    return f"<p>{tag}: {PROSE}</p><p>{tag} continued: {PROSE}</p>"



HTML = {"Content-Type": "text/html; charset=utf-8"}
NOT_FOUND = (404, {"Content-Type": "text/plain"}, "not found")


def site_routes(srv: MockServer, host: str, path: str, query: dict, body: bytes) -> Reply:
    base = f"http://{host}:{srv.port}"
    if host == "docs.example.test":
        if path == "/robots.txt":
            return 200, {"Content-Type": "text/plain"}, "User-agent: *\nDisallow: /private/\n"
        if path == "/sitemap.xml":
            return 200, {"Content-Type": "application/xml"}, (
                '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                f"<url><loc>{base}/lastmod-only.html</loc><lastmod>2026-04-15</lastmod></url>"
                f"<url><loc>{base}/meta.html</loc><lastmod>2026-01-02</lastmod></url>"
                f"<url><loc>{base}/private/secret.html</loc></url>"
                f"<url><loc>http://elsewhere.test:{srv.port}/foreign.html</loc></url>"
                "</urlset>"
            )
        if path == "/llms.txt":
            return 200, {"Content-Type": "text/plain"}, f"# Alpha\n> Alpha docs\n\n## Docs\n- [Guide (markdown)](/guide.md): the guide\n- [API]({base}/api.html)\n"
        if path == "/":
            links = "".join(f"<li><a href='{p}'>{p}</a></li>" for p in ("/linked.html", "/private/secret.html", "/api.html", "/empty.html"))
            return 200, HTML, page("Alpha docs home", prose("Home") + f"<ul>{links}</ul>")
        if path == "/guide.html":
            ld = '<script type="application/ld+json">{"@context":"https://schema.org","@type":"TechArticle","datePublished":"2026-03-01","dateModified":"2026-03-10"}</script>'
            return 200, HTML, page("Guide", prose("Guide") + "<pre><code class='language-python'>alpha.connect(  stream=True )\n</code></pre>", ld)
        if path == "/api.html":
            og = '<meta property="og:title" content="API reference"><meta property="article:published_time" content="2026-02-11T08:00:00Z">'
            body = (
                "<div class='document'><div class='body' role='main'><h1>API reference</h1>" + prose("API") +
                "<div class='highlight-python'><div class='highlight'><pre><span class='k'>from</span> alpha <span class='k'>import</span> Client\n\n"
                "c = Client(  )\n</pre></div></div></div></div>"
            )
            return 200, HTML, f"<html><head><title>API</title>{og}</head><body>{body}</body></html>"
        if path == "/meta.html":
            return 200, HTML, page("Meta dated", prose("Meta"), '<meta name="date" content="2026-05-06">')
        if path == "/linked.html":
            return 200, HTML, page("Release notes", prose("Linked") + "<p>Released <time datetime='2026-06-07'>June 7</time>.</p>")
        if path == "/textdate.html":
            return 200, HTML, page("Text dated", "<p>Published on July 8, 2026 by the alpha team.</p>" + prose("Text"))
        if path == "/lastmod-only.html":
            return 200, HTML, page("Lastmod only", prose("Lastmod"))
        if path == "/guide.md":
            return 200, {"Content-Type": "text/markdown; charset=utf-8", "Last-Modified": "Wed, 19 Aug 2026 10:00:00 GMT"}, (
                "# Guide in markdown\n\n" + "Markdown: " + PROSE + "\n\n```bash\nalpha  serve --port 8080\n```\n"
            )
        if path == "/empty.html":
            return 200, HTML, page("Empty", "<p>Nothing here.</p>")
        if path == "/flaky429.html":
            if srv.count("429") == 1:
                return 429, {"Retry-After": "1", "Content-Type": "text/plain"}, "slow down"
            return 200, HTML, page("Rate limited once", prose("Flaky429"), '<meta name="date" content="2026-09-01">')
        if path == "/flaky500.html":
            if srv.count("500") == 1:
                return 500, {"Content-Type": "text/plain"}, "oops"
            return 200, HTML, page("Errored once", prose("Flaky500"), '<meta name="date" content="2026-09-02">')
        if path == "/big.html":
            return 200, HTML, page("Big", "<p>" + "x" * 400_000 + "</p>")
        if path.startswith("/private/"):
            return 200, HTML, page("Secret", prose("Secret"))
        return NOT_FOUND
    if host == "stale.medium.com":
        if path == "/robots.txt":
            return 200, {"Content-Type": "text/plain"}, "User-agent: *\nCrawl-delay: 1\n"
        if path in ("/old-post", "/older-post"):
            return 200, HTML, page("Old post " + path, prose("Blog" + path), '<meta property="article:published_time" content="2025-03-01">')
        return NOT_FOUND
    if host == "redirector.test":  # a trusted endpoint in the guard test whose redirects point inside
        targets = {"/go-ip": f"http://127.0.0.1:{srv.port}/redirected.html", "/go-name": f"http://docs.example.test:{srv.port}/api.html"}
        if path in targets:
            return 302, {"Location": targets[path], "Content-Type": "text/plain"}, "moved"
        return NOT_FOUND
    if host == "github.com":
        if path == "/acme/alpha/releases":
            return 200, HTML, page("Releases · acme/alpha", prose("Releases") + '<p>v3.0.0 released <relative-time datetime="2026-10-01T12:00:00Z">Oct 1</relative-time></p>')
        return NOT_FOUND
    if host == "news.example.test":
        if path == "/future.html":
            ld = '<script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2027-03-01"}</script>'
            return 200, HTML, page("From the future", prose("Future"), ld)
        if path == "/mirror.html":  # the same content as docs' guide.html
            ld = '<script type="application/ld+json">{"@context":"https://schema.org","@type":"TechArticle","datePublished":"2026-03-01","dateModified":"2026-03-10"}</script>'
            return 200, HTML, page("Guide", prose("Guide") + "<pre><code class='language-python'>alpha.connect(  stream=True )\n</code></pre>", ld)
        return NOT_FOUND
    return NOT_FOUND


def brave_routes(results_for: Callable[[str], list[dict]]) -> Callable[..., Reply]:
    def routes(srv: MockServer, host: str, path: str, query: dict, body: bytes) -> Reply:
        if path != "/res/v1/web/search":
            return NOT_FOUND
        q = query.get("q", [""])[0]
        return 200, {"Content-Type": "application/json"}, json.dumps({"type": "search", "query": {"original": q}, "web": {"type": "search", "results": results_for(q)}})

    return routes


def brave_rejecting(srv: MockServer, host: str, path: str, query: dict, body: bytes) -> Reply:
    return 401, {"Content-Type": "application/json"}, json.dumps({"type": "ErrorResponse", "error": {"code": "SUBSCRIPTION_TOKEN_INVALID", "status": 401}})


