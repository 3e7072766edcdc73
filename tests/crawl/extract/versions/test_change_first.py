"""A page budget holds the change pages: a sitemap's (and a page's) change-page URLs are claimed first."""

from __future__ import annotations

import pytest

from skill3crawl.extract.versions import change_like_url
from tests.mockserver import MockServer, html


@pytest.mark.parametrize("url, change", [
    ("https://d.example/whatsnew/v1.5.0.html", True),
    ("https://d.example/whatsnew/index.html", True),
    ("https://d.example/release-15.html", True),
    ("https://d.example/releaselog/3_40_0.html", True),
    ("https://d.example/changes.html", True),
    ("https://d.example/news/", True),
    ("https://d.example/lib/corelib/doc/notes.html", True),
    ("https://d.example/reference/api/acme.Frame.pop.html", False),
    ("https://d.example/user_guide/text.html", False),
    ("https://d.example/guide/releasing-your-app.html", False),
])
def test_change_like_url(url, change):
    assert change_like_url(url) is change


WORDS = "This page documents one part of the Acme toolkit in enough words to be kept as content. " * 4


def test_a_page_budget_smaller_than_the_sitemap_holds_the_release_notes(run_crawl):
    api = {f"/api/item{i:02d}.html": html(f"Item {i}", f"<main><h1>Item {i}</h1><p>{WORDS}</p></main>") for i in range(30)}
    notes = html("What's new in 2.0", "<main><h1>What's new in 2.0 (March 4, 2024)</h1><p>" + WORDS + "</p>"
                 "<ul><li>Added the frobnicate option to the loader.</li></ul></main>")
    index = html("Acme", "<main><h1>Acme</h1><p>" + WORDS + "</p></main>")
    server = MockServer()
    with server as site:
        locs = [*api, "/whatsnew/v2.0.html"]  # the sitemap lists the release notes last
        sitemap = ("<?xml version='1.0' encoding='UTF-8'?><urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>"
                   + "".join(f"<url><loc>{site.url}{p}</loc></url>" for p in locs) + "</urlset>")
        server.routes = {"/robots.txt": (200, "text/plain", f"User-agent: *\nAllow: /\nSitemap: {site.url}/sitemap.xml\n".encode()),
                         "/sitemap.xml": (200, "application/xml", sitemap.encode()), "/": (200, "text/html", index),
                         "/whatsnew/v2.0.html": (200, "text/html", notes), **{p: (200, "text/html", b) for p, b in api.items()}}
        res = run_crawl({"start_urls": f"{site.url}/", "max_pages": "8"})
    assert res.returncode == 0, res.log[-3000:]
    urls = {i["url"].replace(site.url, "") for i in res.items()}
    assert "/whatsnew/v2.0.html" in urls and len(urls) <= 8
