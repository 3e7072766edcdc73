"""A chapter's release: a page heading a group of pages states, in a key/value table or definition list at its top,
the release its pages belong to ("Release version | 3.0.0"); the pages nested under it inherit that release — read
where each page is extracted, inherited when the feed closes, whatever order the pages came in."""

from __future__ import annotations

import datetime
import json

import lxml.html
import pytest

from skill3crawl.extensions import inherit_release
from skill3crawl.extract.page import PageContext, process_page
from skill3crawl.extract.versions.chapters import chapter_field, chapter_pages, inherited_changes
from tests.mockserver import MockServer, bind, html

HTML = "text/html; charset=utf-8"
PROSE = "<p>This paragraph explains the configuration of the example service in enough words to be real content.</p>"
MORE = "".join(f"<p>Paragraph {w} describes how the {w} setting of the example service changes the way it schedules work.</p>"
               for w in ("first", "second", "third", "fourth"))


def _main(body: str) -> lxml.html.HtmlElement:
    return lxml.html.fromstring(f"<html><body><main>{body}</main></body></html>").find(".//main")


FIELDS = [
    ("<h1>Acme 3</h1><table><tr><th>Info</th><th></th></tr><tr><td>RFC</td><td>#12</td></tr>"
     "<tr><td>Release version</td><td>3.0.0</td></tr></table>" + PROSE, ("3.0.0", None)),
    ("<h1>Acme 3</h1><dl><dt>Available since</dt><dd>4.1</dd></dl>" + PROSE, ("4.1", None)),
    ("<h1>Acme 3</h1><div class='wrap'><table><tr><td>Version</td><td>2.3</td></tr>"
     "<tr><td>Release date</td><td>2024-03-04</td></tr></table></div>" + PROSE, ("2.3", "2024-03-04")),
    ("<div class='menu'><h1>The Guide</h1></div><h1>Acme 3</h1><table><tr><td>Released in</td><td>v3.1</td></tr></table>",
     ("3.1", None)),  # a theme's menu title first
    ("<h1>Acme 3</h1><table><tr><td>Minimum Acme version</td><td>1.31</td></tr></table>" + PROSE, None),  # a requirement
    ("<h1>Acme 3</h1><table><tr><td>MSRV</td><td>1.31</td></tr></table>" + PROSE, None),
    ("<h1>Acme 3</h1><dl><dt>Requires version</dt><dd>2.0</dd></dl>" + PROSE, None),
    ("<h1>Acme 3</h1>" + PROSE * 5 + "<table><tr><td>Release version</td><td>3.0.0</td></tr></table>", None),  # not at the top
    ("<h1>Acme 3</h1><h2>Usage</h2><table><tr><td>Release version</td><td>3.0.0</td></tr></table>", None),
    ("<h1>Acme 3</h1><table><tr><td>Release version</td><td>next</td></tr></table>", None),  # no version
]


@pytest.mark.parametrize("body,expected", FIELDS, ids=[f"case{i}" for i in range(len(FIELDS))])
def test_chapter_field(body: str, expected: tuple[str, str | None] | None) -> None:
    got = chapter_field(_main(body), False)
    assert (got[:2] if got else None) == expected


NESTED_NAV = ("<nav><ol><li><a href='../intro.html'>Intro</a></li>"
              "<li><a href='../acme-3/index.html'>Acme 3</a></li><li><ol><li><a href='../acme-3/frob.html'>Frob</a></li>"
              "<li><a href='../acme-3/knob.html#top'>Knob</a></li></ol></li>"
              "<li><a href='../acme-4/index.html'>Acme 4</a></li></ol></nav>")
INNER_NAV = ("<nav><ul><li><a href='/acme-3/'>Acme 3</a><ul><li><a href='/acme-3/frob.html'>Frob</a></li>"
             "<li><a href='https://other.example/acme-3/x.html'>Elsewhere</a></li></ul></li>"
             "<li><a href='/acme-4/'>Acme 4</a></li></ul></nav>")


@pytest.mark.parametrize("nav,url,expected", [
    (NESTED_NAV, "https://d.org/acme-3/index.html", ["https://d.org/acme-3/frob.html", "https://d.org/acme-3/knob.html"]),
    (INNER_NAV, "https://d.org/acme-3/index.html", ["https://d.org/acme-3/frob.html"]),  # the list inside its item
    ("<p><a href='frob.html'>Frob</a> <a href='../other.html'>Other</a></p>", "https://d.org/acme-3/", ["https://d.org/acme-3/frob.html"]),
    ("<p><a href='frob.html'>Frob</a></p>", "https://d.org/acme-3/page.html", []),  # no directory index, no nesting
    (NESTED_NAV, "https://d.org/acme-4/index.html", []),  # nothing nested under it
    ("<nav><ul><li><a href='/'>Home</a><ul><li><a href='/a.html'>A</a></li></ul></li></ul></nav>", "https://d.org/index.html", []),
], ids=["sibling-list", "inner-list", "directory-index", "lone-page", "leaf", "site-home"])
def test_chapter_pages(nav: str, url: str, expected: list[str]) -> None:
    doc = lxml.html.fromstring(f"<html><body>{nav}<main><h1>Acme 3</h1>{PROSE}</main></body></html>")
    assert chapter_pages(doc.find(".//main"), url) == expected


def _content(page: str, url: str) -> dict:
    return process_page(page, url, PageContext(today=datetime.date(2026, 1, 1)))["content"]


TABLE = "<table><tr><th>Info</th><th></th></tr><tr><td>Release version</td><td>3.0.0</td></tr></table>"


def test_a_chapter_page_is_about_its_release_and_names_its_pages() -> None:
    page = html("Acme 3 - The Guide", f"{NESTED_NAV}<main><h1>Acme 3</h1>{TABLE}<p>Acme 3 brings several changes that "
                                      f"make the frobnicator more consistent across every platform it runs on.</p>{MORE}</main>")
    got = _content(page.decode(), "https://d.org/acme-3/index.html")
    assert (got["page_kind"], got["page_version"]) == ("change", "3.0.0")
    assert {(c["kind"], c["version"]) for c in got["changes"]} == {("release", "3.0.0")}
    assert got["chapter"] == {"version": "3.0.0", "date": None, "title": "Acme 3",
                              "pages": ["https://d.org/acme-3/frob.html", "https://d.org/acme-3/knob.html"]}


def test_a_version_box_on_a_page_heading_nothing_is_no_release() -> None:
    page = html("frob - The Guide", f"<main><h1>frob</h1><table><tr><td>Version</td><td>3.0.0</td></tr></table>{MORE}</main>")
    got = _content(page.decode(), "https://d.org/ref/frob.html")
    assert got["page_kind"] == "doc" and not got["changes"] and "chapter" not in got


def test_inherited_changes_and_the_feed_rewrite() -> None:
    excerpts = ["# Frob", "## Summary", "- The `frob` call now returns a list instead of a tuple of values.", "| a | b |\n|---|---|",
                "short", "## Migration", "To migrate your code to the new release automatically, run:", "Run the fixer to rewrite every call site of frob in your project."]
    got = inherited_changes(excerpts, "3.0.0", None, "Acme 3")
    assert [(c["kind"], c["version"], c["path"], c["heading"]) for c in got] == [
        ("release", "3.0.0", ["Acme 3", "Frob", "Summary"], "Summary"),
        ("release", "3.0.0", ["Acme 3", "Frob", "Migration"], "Migration")]
    inherit = {"https://d.org/acme-3/frob.html": {"version": "3.0.0", "date": None, "title": "Acme 3"}}
    item = {"url": "https://d.org/acme-3/frob.html#x", "excerpts": excerpts, "changes": [], "page_kind": "doc", "page_version": None}
    assert inherit_release(item, inherit) is True
    assert (item["page_kind"], item["page_version"], len(item["changes"])) == ("change", "3.0.0", 2)
    own = {"url": "https://d.org/acme-3/frob.html", "excerpts": excerpts, "page_kind": "change", "page_version": "3.1",
           "changes": [{"kind": "release", "version": "3.1"}]}
    assert inherit_release(own, inherit) is False and own["page_version"] == "3.1"  # its own release entries win
    assert inherit_release({"url": "https://d.org/other.html", "excerpts": excerpts}, inherit) is False
    # a sentence recalling an older version ("Since Acme 2.1.0, an opt-in …") is the page's history: it still inherits
    history = {"url": "https://d.org/acme-3/frob.html", "excerpts": excerpts, "page_kind": "doc", "page_version": None,
               "changes": [{"kind": "added", "version": "2.1.0", "text": "Since Acme 2.1.0, frob has an opt-in list mode."}]}
    assert inherit_release(history, inherit) is True
    assert [c["version"] for c in history["changes"]] == ["2.1.0", "3.0.0", "3.0.0"] and history["page_version"] == "3.0.0"


def _guide(site: str) -> dict:
    nav = ("<nav class='sidebar'><ol class='chapter'><li><a href='SITE/intro.html'>Intro</a></li>"
           "<li><a href='SITE/acme-2/index.html'>Acme 2</a></li><li><ol class='section'>"
           "<li><a href='SITE/acme-2/paths.html'>Paths</a></li></ol></li>"
           "<li><a href='SITE/acme-3/index.html'>Acme 3</a></li><li><ol class='section'>"
           "<li><a href='SITE/acme-3/prelude.html'>Prelude</a></li><li><a href='SITE/acme-3/resolver.html'>Resolver</a></li>"
           "</ol></li></ol></nav>")

    def page(title: str, body: str) -> bytes:
        return html(f"{title} - The Guide", f"{nav}<main><h1>{title}</h1>{body}</main>")

    return {
        "/robots.txt": (200, "text/plain", b"User-agent: *\nAllow: /\n"),
        "/": (200, HTML, page("Intro", MORE)),
        "/intro.html": (200, HTML, page("Intro", MORE)),
        "/acme-2/index.html": (200, HTML, page("Acme 2", "<table><tr><td>Minimum Acme version</td><td>1.31</td></tr></table>"
                                               + MORE)),
        "/acme-2/paths.html": (200, HTML, page("Paths", "<h2>Summary</h2><p>Paths in use declarations now work the same "
                                               "as other paths everywhere in a crate.</p>" + MORE)),
        "/acme-3/index.html": (200, HTML, page("Acme 3", TABLE + "<p>The Acme 3 release contains several changes that bring "
                                               "new capabilities and more consistency.</p>" + MORE)),
        "/acme-3/prelude.html": (200, HTML, page("Additions to the prelude", "<h2>Summary</h2><ul><li>The <code>TryFrob</code> "
                                                 "trait is now part of the prelude.</li></ul><h2>Details</h2>" + MORE)),
        "/acme-3/resolver.html": (200, HTML, page("Default resolver", "<h2>Summary</h2><p><code>edition = \"3\"</code> implies "
                                                  "<code>resolver = \"2\"</code> in the manifest file.</p>" + MORE)),
    }


def test_a_crawl_gives_a_chapters_pages_its_release(run_crawl) -> None:
    server = MockServer()
    server.routes = bind(_guide("SITE"), server.url)
    with server as site:
        res = run_crawl({"start_urls": f"{site.url}/"})
    assert res.returncode == 0, res.log[-3000:]
    got = {i["url"].replace(site.url, ""): i for i in res.items()}
    assert {"/acme-3/index.html", "/acme-3/prelude.html", "/acme-3/resolver.html", "/acme-2/paths.html"} <= set(got), sorted(got)
    for path in ("/acme-3/prelude.html", "/acme-3/resolver.html"):
        item = got[path]
        assert (item["page_kind"], item["page_version"]) == ("change", "3.0.0"), path
        assert item["changes"] and {c["version"] for c in item["changes"]} == {"3.0.0"}
        assert item["changes"][0]["path"][0] == "Acme 3"
    assert "TryFrob" in " ".join(c["text"] for c in got["/acme-3/prelude.html"]["changes"])
    assert not got["/acme-2/paths.html"]["changes"]  # a minimum version names no release: nothing inherited
    assert got["/acme-2/index.html"]["page_kind"] == "doc"
    crawl = json.loads((res.output_dir / "crawl.json").read_text())
    assert [(c["url"].replace(site.url, ""), c["version"], c["pages"]) for c in crawl["chapters"]] == [
        ("/acme-3/index.html", "3.0.0", 2)]


def test_a_resumed_crawl_keeps_the_chapters_and_release_dates_its_first_run_read(tmp_path) -> None:
    """The chapter page (and a release date) read before a pause, its nested pages fetched after the resume: they still
    inherit its release, and crawl.json keeps the chapter and the date (both live in spider.state, saved with JOBDIR)."""
    import signal
    import subprocess
    import time

    from tests.crawl.docs_mode import ROOT, crawl_cmd, crawl_env
    from tests.harness import run_cmd

    routes = _guide("SITE")
    nav = ("<nav><ol><li><a href='SITE/acme-3/index.html'>Acme 3</a></li><li><ol class='section'>"
           "<li><a href='SITE/acme-3/prelude.html'>Prelude</a></li><li><a href='SITE/acme-3/resolver.html'>Resolver</a></li>"
           "</ol></li></ol></nav>")
    routes["/"] = (200, HTML, html("Intro - The Guide", "<main><h1>Intro</h1><p>Read <a href='SITE/acme-3/index.html'>Acme 3"
                                   "</a>; the <a href='SITE/history.html'>history</a> has the dates.</p>" + MORE + "</main>"))
    routes["/history.html"] = (200, HTML, html("History", "<main><h1>History</h1><h2>Acme 2.9 (2025-11-04)</h2>"
                                               "<ul><li>The frobnicator learned to knob.</li></ul>" + MORE + "</main>"))
    chapter = routes["/acme-3/index.html"][2].replace(b"<main>", nav.encode() + b"<main>", 1)
    # the nested pages are linked from the chapter page alone: found only once it is read
    routes["/acme-3/index.html"] = (200, HTML, chapter.replace(b"<nav><ol class='section'>", b"<nav class='x'><ol>", 1))
    server = MockServer()
    server.routes = bind(routes, server.url)
    out = tmp_path / "out"
    # one page at a time, two seconds apart: the pause falls between the chapter page and its nested pages
    settings = {"JOBDIR": str(tmp_path / "job"), "HTTPCACHE_ENABLED": "0", "DOWNLOAD_DELAY": "2",
                "DOWNLOAD_DELAY_JITTER": "0", "CONCURRENT_REQUESTS": "1", "SKILL3_PAGE_WINDOW": "1"}
    with server as site:
        cmd = crawl_cmd({"start_urls": f"{site.url}/", "output_dir": out, "max_pages": 100}, settings)
        first = subprocess.Popen(cmd, cwd=ROOT, env=crawl_env(tmp_path, "1"), stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        hits = site.page_hits
        while not (hits().get("/acme-3/index.html") and hits().get("/history.html")):
            assert first.poll() is None and time.monotonic() < deadline, first.communicate()[1][-3000:]
            time.sleep(0.02)
        first.send_signal(signal.SIGINT)
        _, log1 = first.communicate(timeout=60)
        assert first.returncode == 0, log1[-3000:]
        assert not hits().get("/acme-3/prelude.html"), "the nested pages were fetched before the pause"
        second = run_cmd(cmd, env=crawl_env(tmp_path, "2"), timeout=120)
        assert second.returncode == 0, second.stderr[-3000:]
    assert hits().get("/acme-3/prelude.html") == 1
    rows = [json.loads(line) for line in (out / "run.jsonl").read_text(encoding="utf-8").splitlines()]
    items = {row["url"].replace(site.url, ""): row for row in rows}
    prelude = items["/acme-3/prelude.html"]
    assert (prelude["page_kind"], prelude["page_version"]) == ("change", "3.0.0"), prelude["changes"]
    crawl = json.loads((out / "crawl.json").read_text())
    assert [(c["url"].replace(site.url, ""), c["version"]) for c in crawl["chapters"]] == [("/acme-3/index.html", "3.0.0")]
    assert ("2.9", "2025-11-04") in {(t["version"], t["date"]) for t in crawl["timeline"]}, crawl["timeline"]
