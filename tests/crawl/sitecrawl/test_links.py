"""Link following through Scrapy's LinkExtractor: a real `scrapy crawl docs` over a loopback site."""

from __future__ import annotations

from typing import Any, Callable

from tests.crawl.docs_mode import CrawlResult
from tests.mockserver import MockServer, html

HTML = "text/html; charset=utf-8"
PROSE = "<p>This paragraph explains the configuration of the example service in enough words to be real content.</p>" * 3
FILES = {  # served, linked, never to be requested: not pages
    "/docs/v2/manual.pdf": "application/pdf",
    "/docs/v2/bundle.zip": "application/zip",
    "/docs/v2/slides.pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "/docs/v2/setup.tar.gz": "application/gzip",
}


def page(title: str, body: str = "", head: str = "") -> tuple[int, str, bytes]:
    return 200, HTML, html(title, f"<div role='main'><h1>{title}</h1>{PROSE}{body}</div>", head)


def site() -> dict[str, tuple[int, str, bytes]]:
    links = ("<a href='intro.html#start'>intro</a> <a href='api/ref.html'>ref</a> <a href='../old.html'>old</a>"
             "<a href='manual.pdf'>manual</a> <a href='BUNDLE.ZIP'>zip</a> <a href='bundle.zip'>zip</a>"
             "<a href='slides.pptx'>slides</a> <a href='setup.tar.gz'>tarball</a> <a href='mailto:a@example.org'>mail</a>")
    routes = {
        "/robots.txt": (200, "text/plain", b"User-agent: *\nAllow: /\n"),
        # relative links resolve against <base href>, not against the page's own URL
        "/docs/": page("Home", links, "<base href='/docs/v2/'>"),
        "/docs/v2/intro.html": page("Intro"),
        "/docs/v2/api/ref.html": page("Reference"),
        "/docs/old.html": page("Old"),
        "/docs/intro.html": page("Wrong base"),  # where intro.html points without <base href>
        "/docs/v2/BUNDLE.ZIP": (200, "application/zip", b"PK\x03\x04"),
    }
    routes.update({path: (200, ctype, b"binary") for path, ctype in FILES.items()})
    return routes


def test_links_honour_base_href_and_skip_files(run_crawl: Callable[..., CrawlResult]) -> None:
    with MockServer(routes=site()) as server:
        res: Any = run_crawl({"start_urls": f"{server.url}/docs/"})
    assert res.returncode == 0, res.log[-2000:]
    assert dict(server.page_hits()) == {"/docs/": 1, "/docs/v2/intro.html": 1, "/docs/v2/api/ref.html": 1, "/docs/old.html": 1}
    assert not set(FILES) & set(server.hits)
    written = sorted(item["url"].removeprefix(server.url) for item in res.items())
    assert written == ["/docs/", "/docs/old.html", "/docs/v2/api/ref.html", "/docs/v2/intro.html"]
