"""Reaching the change records: the order a page budget is spent in, plain-text change logs whatever their content
type, help-tag sections of a plain-text page, History tables the main-content extractor leaves out, and what a crawl
too big for its budget says it did not reach."""

from __future__ import annotations

import datetime
import html as html_lib
import json
from types import SimpleNamespace

import pytest

from skill3crawl.extract.page import PageContext, process_page
from skill3crawl.sitecrawl.budget import LocalState, page_rank
from skill3crawl.sitecrawl.order import PageOrder, change_candidate, path_depth
from skill3crawl.sitecrawl.textfiles import plain_text
from synth.evidence.urls import url_key
from synth.pipeline.extractive import _unreached_note
from tests.mockserver import MockServer, bind, html

HTML = "text/html; charset=utf-8"
PROSE = "<p>This paragraph explains the configuration of the example service in enough words to be real content.</p>" * 3

CANDIDATES = [
    ("https://d.org/NEWS", True),
    ("https://d.org/pkg/CHANGES.txt", True),
    ("https://d.org/HISTORY.rst", True),
    ("https://d.org/doc/version9.html", True),
    ("https://d.org/manual/new_features_2_4.html", True),
    ("https://d.org/releaselog/3_40_0.html", True),
    ("https://d.org/notes/2.39.0.txt", True),
    ("https://d.org/whatsnew/v1.5.0.html", True),
    ("https://d.org/guide/install.html", False),
    ("https://d.org/library/python3.html", False),
    ("https://d.org/api/method.Layout.get_lines.html", False),
    ("https://d.org/NEWS.png", False),
]


@pytest.mark.parametrize("url,expected", CANDIDATES, ids=[u.split("d.org")[1] for u, _ in CANDIDATES])
def test_change_candidate(url: str, expected: bool) -> None:
    assert change_candidate(url) is expected


@pytest.mark.parametrize("url,prefix,depth", [
    ("https://d.org/docs/", "/docs/", 0),
    ("https://d.org/docs/a.html", "/docs/", 1),
    ("https://d.org/docs/a/b/c.html", "/docs/", 3),
    ("https://d.org/other/x.html", "/docs/", 2),
])
def test_path_depth(url: str, prefix: str, depth: int) -> None:
    assert path_depth(url, prefix) == depth


def test_rank_candidates_first_then_depth_then_folders_spread() -> None:
    assert page_rank(True, 9, 500) > page_rank(False, 0, 0)  # a change record before any other page
    assert page_rank(False, 1, 900) > page_rank(False, 2, 0)  # fewer hops before more
    assert page_rank(False, 2, 0) > page_rank(False, 2, 1)  # at one depth, a folder's first page before another's second
    order = PageOrder()
    urls = [f"https://d.org/aaa/p{i}.html" for i in range(4)] + [f"https://d.org/zzz/p{i}.html" for i in range(4)]
    urls += ["https://d.org/deep/er/still/p.html", "https://d.org/zzz/changelog.html"]
    best = order.best_first(urls, "/")
    assert best[0] == "https://d.org/zzz/changelog.html"
    assert best[1:5] == ["https://d.org/aaa/p0.html", "https://d.org/zzz/p0.html", "https://d.org/aaa/p1.html", "https://d.org/zzz/p1.html"]
    assert best[-1] == "https://d.org/deep/er/still/p.html"
    assert order.per_folder == {}  # a preview counts nothing


class _Spider:
    def __init__(self) -> None:
        self.state: dict = {}


def _entry(name: str, rank: int) -> list:
    return [f"https://d.org/{name}", "link", "", None, 1, None, rank]


def test_local_budget_hands_free_slots_to_the_best_waiting_page() -> None:
    budget = LocalState(_Spider(), window=1)
    assert budget.claim("a", 3, _entry("a", 0)) == "new"
    assert [budget.claim(k, 3, _entry(k, r)) for k, r in (("b", -5), ("c", 7), ("d", 7), ("e", -1))] == ["waiting"] * 4
    assert budget.finish(True, 3, "a")[0][0].endswith("/c")  # the best rank; ties in the order found
    assert budget.finish(True, 3)[0][0].endswith("/d")
    assert budget.finish(True, 3) == []  # the budget is spent: the rest never start
    assert [e[0][-1] for e in budget.waiting_entries(5)] == ["e", "b"]


def test_local_budget_defer_and_never_ahead_of_a_better_page() -> None:
    budget = LocalState(_Spider(), window=10)
    assert budget.claim("s", 5, _entry("s", -2000), defer=True) == "waiting"  # a sitemap page waits for the start page
    assert budget.claim("l", 5, _entry("l", -1000)) == "new"  # a better page starts at once
    assert budget.claim("m", 5, _entry("m", -3000)) == "waiting"  # a worse one never overtakes a waiting page
    assert [e[0][-1] for e in budget.pump(5)] == ["s", "m"]


def _at(name: str, rank: int, depth: int) -> list:
    return [f"https://d.org/{name}", "link", "", None, depth, None, rank, depth]


def test_local_budget_goes_level_by_level_when_slots_are_short() -> None:
    budget = LocalState(_Spider(), window=10)
    assert budget.claim("start", 3, _at("start", 0, 0)) == "new"
    assert [budget.claim(f"s{i}", 3, _at(f"s{i}", -3000 - i, 3), defer=True) for i in range(5)] == ["waiting"] * 5
    assert budget.pump(3) == []  # 2 slots for 5 pages: three hops deep waits while a start page is read
    assert budget.claim("guide", 3, _at("guide", -1000, 1)) == "new"
    assert budget.finish(True, 3, url_key("https://d.org/start")) == []  # the guide, one hop deep, is still read
    assert budget.claim("news", 3, _at("news", 100_000 - 2000, 2)) == "new"  # a change record found on it
    assert budget.waiting_count() == 5 and budget.pump(3) == []  # the budget is spent


def test_local_budget_reads_a_fifo_waiting_list_saved_by_an_older_version() -> None:
    from collections import deque

    spider = _Spider()
    spider.state["waiting"] = deque([["https://d.org/x", "link", "", None, 1, None]])
    budget = LocalState(spider, window=5)
    assert [e[0] for e in budget.pump(5)] == ["https://d.org/x"]


NEWS = b"Acme NEWS\n=========\n\nVersion 2.0.0 (2024-03-04)\n--------------------------\n\n* The frobnicate() call accepts a timeout.\n"


@pytest.mark.parametrize("body,ctype,path,expected", [
    (NEWS, "application/octet-stream", "/NEWS", True),
    (NEWS, "", "/pkg/CHANGES", True),
    (NEWS, "text/x-rst", "/HISTORY.rst", True),
    (NEWS, "application/octet-stream", "/notes/2.0.0.txt", True),
    (NEWS, "application/octet-stream", "/data.bin", False),  # a binary type and extension: not read as text
    (b"\x00\x01\x02PK" + NEWS, "application/octet-stream", "/NEWS", False),  # bytes that are not text
    (NEWS, "text/css", "/style.css", False),
    (NEWS, "text/x-csrc", "/examples/ex-client.c", False),  # an example's source is not a page
    (NEWS, "text/x-csrc", "/CHANGES", True),  # whatever a server calls a change log
    (NEWS, "image/png", "/NEWS", False),
    ("Änderungen in 2.0".encode("latin-1"), "", "/CHANGES", True),  # not UTF-8: read as Latin-1
])
def test_plain_text_whatever_the_content_type(body: bytes, ctype: str, path: str, expected: bool) -> None:
    got = plain_text(body, ctype, path)
    assert (got is not None) is expected
    if expected:
        assert got.startswith(("Acme", "Änderungen"))


HELP = """*acme9.txt*  For Acme version 9.0.  Last change: 2022 Nov 23


\t\t  ACME REFERENCE MANUAL


\t\t\t\t*acme-9.0* *acme-9* *version-9.0* *version9.0*
Welcome to Acme 9!  Many nice features have been added since the previous
release and the new script syntax is here.

NEW FEATURES\t\t\t\t\t*new-9*

Script enhancements\t\t\t\t\t*new-script-9*

The new script syntax compiles functions before they run, which makes them
much faster than the old interpreted ones.

Changed\t\t\t\t\t\t\t*changed-9*

The frobnicate option now defaults to on for every new buffer you open.

==============================================================================
\t\t\t\t*acme-8.2* *version-8.2* *version8.2*
Acme 8.2 added popup windows that show text next to the cursor position.
"""


def _content(page: str, url: str) -> dict:
    return process_page(page, url, PageContext(today=datetime.date(2026, 1, 1)))["content"]


def test_help_tags_name_the_release_of_a_plain_text_page() -> None:
    page = f"<html><head><title>Acme: acme9</title></head><body><h1>Acme: acme9</h1><pre>{html_lib.escape(HELP)}</pre></body></html>"
    got = _content(page, "https://d.org/acme9.html")
    assert got["page_kind"] == "change"
    by = [(c["version"], c["kind"], c["text"][:20]) for c in got["changes"]]
    assert by == [("9.0", "release", "Welcome to Acme 9! M"), ("9.0", "release", "The new script synta"),
                  ("9.0", "changed", "The frobnicate optio"), ("8.2", "release", "Acme 8.2 added popup")]
    assert got["changes"][1]["path"][-1] == "Script enhancements"  # the title before its tags is the sub-heading
    assert not any(d["date"] == "2022-11-23" for d in got["release_dates"])  # the file's own header is no release


LEAD_IN = """*acme9.txt*  For Acme version 9.0.  Last change: 2022 Nov 23

\t\t\t\t*acme-9.0* *version-9.0*
IMPROVEMENTS\t\t\t\t\t\t*improvements-9*

Support for fuzzy matching:
- a string in a List of strings with the new matching function.
- completion of command line arguments using the same matching.

Added support for the Haiku operating system in every build.

Options:
'autodir'\t\tchange directory to the shell's current directory
'cdhome'\t\tchange directory to the home directory by ":cd"

Support for the XChaCha20 encryption method in the crypt option.

==============================================================================
\t\t\t\t*acme-8.2* *version-8.2*
Acme 8.2 added popup windows that show text next to the cursor position.
"""


def test_a_lead_in_heads_its_list_only_and_the_titled_section_resumes() -> None:
    page = f"<html><head><title>Acme: acme9</title></head><body><h1>Acme: acme9</h1><pre>{html_lib.escape(LEAD_IN)}</pre></body></html>"
    got = _content(page, "https://d.org/acme9.html")
    by = [(c["path"][-1], c["text"][:24]) for c in got["changes"] if c["version"] == "9.0"]
    assert by == [("Support for fuzzy matching", "a string in a List of st"), ("Support for fuzzy matching", "completion of command li"),
                  ("IMPROVEMENTS", "Added support for the Ha"),  # after the lead-in's list: the titled section again
                  ("Options", "'autodir' change directo"),  # a lead-in whose lines are no bullets heads them all…
                  ("Options", "Support for the XChaCha2")]  # …up to the next lead-in or title (no list ended it)


HISTORY_TABLE = ("<table><tr><th>Version</th><th>Changes</th></tr>"
                 "<tr><td>v18.0.0</td><td><p>Passing an invalid callback now throws an error.</p></td></tr>"
                 "<tr><td>v10.0.0</td><td><p><span>Added in: v10.0.0</span></p></td></tr></table>")


@pytest.mark.parametrize("wrapper", ["<div class='api_metadata'><details class='changelog'><summary>History</summary>{}</details></div>",
                                     "<div class='api_metadata'>{}</div>"])
def test_history_table_the_content_extractor_drops_still_reaches_the_scan(wrapper: str) -> None:
    section = (f"<section><h3 id='fs-open'><code>fs.open(path)</code></h3>{wrapper.format(HISTORY_TABLE)}"
               "<p>Opens a file for reading and writing with the given flags and mode, asynchronously.</p></section>")
    page = html("File system", f"<main><h1>File system</h1>{PROSE}{section}{PROSE}</main>")
    got = _content(page.decode(), "https://d.org/api/fs.html")
    assert got["extractor"] == "trafilatura"  # the generic path, whose markdown leaves the "metadata" block out
    assert ("changed", "18.0.0") in {(c["kind"], c["version"]) for c in got["changes"]}


def _site(n_deep: int) -> dict:
    """A sitemap that lists deep reference pages only; the release notes are two links from the start page."""
    routes = {
        "/robots.txt": (200, "text/plain", b"User-agent: *\nAllow: /\nSitemap: SITE/sitemap.xml\n"),
        "/sitemap.xml": (200, "application/xml", ("<?xml version='1.0'?><urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>"
                         + "".join(f"<url><loc>SITE/docs/ref/api/p{i}.html</loc></url>" for i in range(n_deep))
                         + "</urlset>").encode()),
        "/docs/": (200, HTML, html("Home", f"<div role='main'><h1>Home</h1>{PROSE}<a href='/docs/guide.html'>Guide</a></div>")),
        "/docs/guide.html": (200, HTML, html("Guide", f"<div role='main'><h1>Guide</h1>{PROSE}<a href='/docs/NEWS'>News</a>"
                                              "<a href='/docs/ref/api/p0.html'>p0</a></div>")),
        "/docs/NEWS": (200, "application/octet-stream", NEWS + b"* A second change with enough words to be a line of its own.\n" * 5),
    }
    for i in range(n_deep):
        routes[f"/docs/ref/api/p{i}.html"] = (200, HTML, html(f"P{i}", f"<div role='main'><h1>P{i}</h1>{PROSE}</div>"))
    return routes


def test_budget_goes_by_link_depth_not_sitemap_order_and_reads_untyped_news(run_crawl) -> None:
    server = MockServer()
    server.routes = bind(_site(30), server.url)
    with server as site:
        res = run_crawl({"start_urls": f"{site.url}/docs/", "max_pages": 6})
    assert res.returncode == 0, res.log[-3000:]
    got = {i["url"].replace(site.url, ""): i for i in res.items()}
    assert "/docs/guide.html" in got, json.dumps([sorted(got), {k: v for k, v in res.stats.items() if k.startswith(("skill3/dropped", "skill3/pages", "skill3/disc", "item"))}])
    assert "/docs/NEWS" in got and "/docs/guide.html" in got  # two links deep, ahead of 30 sitemap pages
    assert len(got) == 6
    assert any(c["version"] == "2.0.0" for c in got["/docs/NEWS"]["changes"])
    assert not res.stats.get("skill3/reach/unreached_change_records")


def test_a_site_too_big_for_the_budget_names_the_change_records_it_did_not_reach(run_crawl) -> None:
    routes = _site(3)
    routes["/docs/"] = (200, HTML, html("Home", f"<div role='main'><h1>Home</h1>{PROSE}" + "".join(
        f"<a href='/docs/ref/api/p{i}.html'>p</a>" for i in range(3)) + "<a href='/docs/NEWS'>News</a></div>"))
    server = MockServer()
    server.routes = bind(routes, server.url)
    with server as site:
        res = run_crawl({"start_urls": f"{site.url}/docs/", "max_pages": 1})
    assert res.returncode == 0, res.log[-3000:]
    assert res.stats["skill3/reach/unreached_change_records"] == [f"{site.url}/docs/NEWS"]
    note = _unreached_note(SimpleNamespace(delta=SimpleNamespace(coverage={"unreached": [f"{site.url}/docs/NEWS"], "unreached_count": 1})))
    assert "1 page(s) that look like change records" in note and f"<{site.url}/docs/NEWS>" in note
    assert _unreached_note(SimpleNamespace(delta=SimpleNamespace(coverage={}))) == ""
    json.dumps(res.stats)  # run.json takes the stats as they are


VARIED = "".join(f"<p>Paragraph {w} explains how the thing keeps its {w} state between calls, in enough words to be content.</p>"
                 for w in ("first", "second", "third", "fourth"))


def _member(name: str, version: str) -> str:
    """A type's page lists a member: its name linked to the member's own page, a summary, its "since" badge."""
    return (f"<div><h6><a href='method.Thing.{name}.html'>acme_thing_{name}</a></h6><div class='docblock'><p>Does the {name} "
            f"work on the thing.</p></div><div class='docblock'><p><span class='emblem available'>since: {version}</span></p></div></div>")


def _reference(n_fillers: int) -> dict:
    """A page-per-symbol reference whose sitemap lists more pages than the waiting list holds, the page of the member
    new in 4.8 last; the type's page, one link from the start page, lists that member with its badge."""
    names = [f"filler{i:04d}" for i in range(n_fillers)] + ["old_one", "new_one"]
    routes = {
        "/robots.txt": (200, "text/plain", b"User-agent: *\nAllow: /\nSitemap: SITE/sitemap.xml\n"),
        "/sitemap.xml": (200, "application/xml", ("<?xml version='1.0'?><urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>"
                         + "".join(f"<url><loc>SITE/docs/ref/method.Thing.{n}.html</loc></url>" for n in names)
                         + "</urlset>").encode()),
        "/docs/": (200, HTML, html("Home", f"<main><h1>Home</h1>{VARIED}<a href='/docs/ref/class.Thing.html'>Thing</a></main>")),
        "/docs/ref/class.Thing.html": (200, HTML, html("Acme.Thing", f"<main><h1>Class Acme.Thing</h1>{VARIED}<h4>Instance methods</h4>"
                                                       + _member("old_one", "4.2") + _member("new_one", "4.8") + "</main>")),
    }
    for n in names:
        routes[f"/docs/ref/method.Thing.{n}.html"] = (200, HTML, html(f"Acme.Thing.{n}", f"<main><h1>acme_thing_{n}</h1>{VARIED}</main>"))
    return routes


def test_pages_a_new_version_s_markers_point_to_are_read_first_even_past_the_waiting_list(run_crawl) -> None:
    from skill3crawl.sitecrawl.budget import waiting_cap

    server = MockServer()
    server.routes = bind(_reference(waiting_cap(4) + 50), server.url)
    with server as site:
        res = run_crawl({"start_urls": f"{site.url}/docs/", "max_pages": 6, "since_version": "4.6"}, {"SKILL3_PAGE_WINDOW": 2})
    assert res.returncode == 0, res.log[-3000:]
    got = {i["url"].replace(site.url, "") for i in res.items()}
    assert {"/docs/", "/docs/ref/class.Thing.html", "/docs/ref/method.Thing.new_one.html"} <= got, sorted(got)
    assert "/docs/ref/method.Thing.old_one.html" not in got  # its marker is of a version the model knows
    assert res.stats["skill3/reach/promoted_by_markers"] == 1


@pytest.mark.parametrize("url,name", [
    ("https://d.org/ref/method.Label.get_tabs.html", "labelgettabs"),
    ("https://d.org/std/thread/fn.scope.html", "scope"),
    ("https://d.org/std/thread/struct.ScopedJoinHandle.html", "scopedjoinhandle"),
    ("https://d.org/guide/Getting-Started.html", "gettingstarted"),
])
def test_the_api_a_page_is_named_after(url: str, name: str) -> None:
    from skill3crawl.sitecrawl.order import page_name

    assert page_name(url) == name


def test_the_pages_new_markers_point_to() -> None:
    from skill3crawl.sitecrawl.order import NewVersions, name_endings, points_to_yield, yield_names

    changes = [{"kind": "added", "version": "4.8", "heading": "acme_label_get_tabs", "text": "Gets the tabs. since: 4.8"},
               {"kind": "added", "version": "4.6", "heading": "acme_label_get_wrap", "text": "Gets the wrap. since: 4.6"},
               {"kind": "release", "version": "4.8", "heading": "4.8", "text": "Release notes of the label."}]
    new = NewVersions("4.6")
    names = name_endings(yield_names(changes, new))
    assert points_to_yield("https://d.org/ref/method.Label.get_tabs.html", names)
    assert not points_to_yield("https://d.org/ref/method.Label.get_wrap.html", names)  # a version the model knows
    assert not points_to_yield("https://d.org/ref/tabs.html", names)  # too short a name to tell
    # without the model's version: the newest series any page named so far counts
    seen = NewVersions(None)
    seen.observe(changes)
    assert seen("4.8") and seen("4.8.1") and not seen("4.6") and not seen("")


def test_a_promoted_page_leaves_the_reserve_and_waits_first_once() -> None:
    from skill3crawl.sitecrawl.budget import RANK_YIELD

    budget = LocalState(_Spider(), window=1)
    cap = 1000
    assert budget.claim("start", 5, _at("start", 0, 0)) == "new"
    for i in range(cap):
        assert budget.claim(f"w{i}", 5, _at(f"w{i}", -2000 - i, 2), defer=True) == "waiting"
    assert budget.claim(url_key("https://d.org/late"), 5, _at("late", -2000 - cap, 2), defer=True) == "over"  # the list is full
    assert budget.promote(url_key("https://d.org/late"))
    assert budget.promote(url_key("https://d.org/w5"))  # a waiting page moves up
    assert not budget.promote(url_key("https://d.org/w5"), RANK_YIELD)  # once
    assert not budget.promote(url_key("https://d.org/unknown"))
    started = [e[0].rsplit("/", 1)[1] for e in budget.finish(True, 5, url_key("https://d.org/start"))]
    started += [e[0].rsplit("/", 1)[1] for _ in range(3) for e in budget.finish(True, 5)]
    assert started == ["late", "w5", "w0", "w1"]  # the promoted first, and w5 never twice
    assert not budget.promote(url_key("https://d.org/late"))  # requested already


def test_budget_left_when_the_waiting_list_drains_goes_to_the_pages_it_turned_away() -> None:
    from skill3crawl.sitecrawl.budget import waiting_cap

    limit = 3
    cap = waiting_cap(limit)
    budget = LocalState(_Spider(), window=1)
    for i in range(cap + 2):  # a sitemap longer than the waiting list: the last two are turned away
        want = "waiting" if i < cap else "over"
        assert budget.claim(url_key(f"https://d.org/p{i}"), limit, _at(f"p{i}", -2000 - i, 2), defer=True) == want
    started = [e[0] for e in budget.pump(limit)]
    for _ in range(cap + 1):  # every page ends without an item (a duplicate, no content): its slot passes on
        started += [e[0] for e in budget.finish(False, limit, url_key(started[-1]))]
    assert started[-2:] == [f"https://d.org/p{cap}", f"https://d.org/p{cap + 1}"]  # taken back, in the order turned away
    assert budget.taken_back() == 2 and budget.waiting_count() == 0
