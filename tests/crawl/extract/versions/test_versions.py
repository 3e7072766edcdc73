"""Version markers and change pages (skill3crawl.extract.versions) — tables over fixture pages of each
generator, then a real crawl that checks run.jsonl's ``changes`` / ``page_kind`` / ``build_date`` and
crawl.json's ``timeline`` / ``build_dated_hosts``."""

from __future__ import annotations

import json

import pytest

from skill3crawl.corpus import markdown_to_html
from skill3crawl.extract.content import extract_content, extract_redacted
from skill3crawl.extract.versions import MAX_CHANGES, WHERE, find_date, page_version_of, version_heading
from skill3crawl.site_timeline import SiteDates
from tests.mockserver import BUILD_DATE, CHANGELOG_MD, MockServer, bind, change_site, html

SITE = change_site()


def page(path: str) -> dict:
    status, ctype, body = SITE[path]
    text = body.decode()
    if "markdown" in ctype:
        text = markdown_to_html(text)
    return extract_redacted(text, "https://docs.example.org" + path, "", False)


def triples(result: dict) -> list[tuple]:
    return [(c["kind"], c["version"], c["removed_in"]) for c in result["changes"]]


# path → (page_kind, page_version, [(kind, version, removed_in)], release dates)
PAGES = {
    "/docs/api.html": ("doc", None, [("added", "2.1", None), ("changed", "2.3", None), ("added", "3.0", None),
                                     ("added", "3.0", None), ("deprecated", "2.5", "4.0"), ("removed", "3.0", None)], []),
    "/docs/settings/": ("doc", None, [("added", "2.2.0", None), ("added", "0.95", None), ("added", "2.4", None)], []),
    "/docs/plugins.html": ("doc", None, [("added", "2.3", None), ("deprecated", "2.4", None)], []),
    "/docs/CHANGELOG.md": ("change", None, [("added", "3.0.0", None), ("removed", "3.0.0", None), ("deprecated", "2.5.0", None),
                                            ("release", "2.5.0", None), ("changed", "2.4.0", None)],
                           [("3.0.0", "2026-04-20"), ("2.5.0", "2025-11-03"), ("2.4.0", "2025-06-12")]),
    "/docs/releases": ("change", None, [("release", "3.0.0", None), ("release", "3.0.0", None), ("release", "2.5.0", None)],
                       [("3.0.0", "2026-04-20"), ("2.5.0", "2025-11-03")]),
    "/docs/whatsnew/3.0.html": ("change", "3.0", [("release", "3.0", None), ("release", "3.0", None), ("release", "3.0", None),
                                                  ("deprecated", "3.0", None), ("removed", "3.0", None)], [("3.0", "2026-03-05")]),
    "/docs/guide0.html": ("doc", None, [], []),
}


@pytest.mark.parametrize("path", list(PAGES))
def test_markers_and_change_pages_per_generator(path):
    kind, version, expected, dates = PAGES[path]
    r = page(path)
    assert (r["page_kind"], r["page_version"]) == (kind, version)
    assert triples(r) == expected
    assert [(d["version"], d["date"]) for d in r["release_dates"]] == dates
    for c in r["changes"]:
        assert set(c) == {"kind", "version", "removed_in", "date", "text", "anchor", "heading", "path", "api", "code"}
        assert c["text"] and len(c["text"]) <= 1500 and "¶" not in c["text"] and "  " not in c["text"]


def test_each_marker_carries_the_block_it_annotates():
    api = page("/docs/api.html")["changes"]
    # a definition: the dt signature + the dd text + the note
    assert api[0]["text"] == "frob.connect(*host*, *timeout=None*) — Open a connection to the frobnicator daemon and return a session. New in version 2.1."
    assert api[0]["anchor"] == "#frob.connect" and api[0]["heading"] == "frob API"
    assert api[1]["text"].endswith("Changed in version 2.3: Added the *timeout* parameter.")
    assert api[2]["anchor"] == "#frob.stream" and "Added in version 3.0." in api[2]["text"]  # Sphinx >= 7.3 spelling
    # a bare note after a paragraph belongs to that paragraph
    assert api[3]["text"] == "Sessions can be pooled with `frob.Pool`, which reuses idle connections between calls. Added in version 3.0."
    assert api[4]["text"] == "Deprecated since version 2.5, will be removed in version 4.0: Use `frob.connect()` instead of `frob.open()`."
    mk = page("/docs/settings/")["changes"]
    assert mk[0]["text"] == "retries v2.2.0 Number of times a failed frobnication is retried before the error is raised to the caller."
    assert mk[0]["anchor"] == "#retries"  # a badge alone in its paragraph → its section
    assert mk[1]["text"].startswith("New in 0.95 Dependencies can now be declared")  # admonition → its content
    ds = page("/docs/plugins.html")["changes"]
    assert ds[0]["text"] == "Added in v2.3 Plugins can register `onBuildEnd` hooks that run once the site is built."
    assert ds[0]["heading"] == "Hooks" and ds[0]["anchor"] == "#hooks"
    cl = page("/docs/CHANGELOG.md")["changes"]
    assert cl[0]["heading"] == "Added" and cl[0]["date"] == "2026-04-20"
    assert all("Work in progress" not in c["text"] for c in cl)  # [Unreleased] has no version: no entry
    wn = page("/docs/whatsnew/3.0.html")["changes"]
    assert all(c["date"] == "2026-03-05" for c in wn)  # "Frob 3.0 was released on March 5, 2026."


@pytest.mark.parametrize("text,expected", [
    ("[2.0.0] - 2026-04-20", ("2.0.0", "2026-04-20")),
    ("2.0.0 (2026-04-20)", ("2.0.0", "2026-04-20")),
    ("Version 3.2 — April 6, 2021", ("3.2", "2021-04-06")),
    ("v1.4.0", ("1.4.0", None)),
    ("Python 3.11.0 final", ("3.11.0", None)),
    ("Python 3.11.0 beta 1", ("3.11.0b1", None)),
    ("Release 2.1 (LTS)", ("2.1", None)),
    ("Django 4.2 release notes", ("4.2", None)),
    ("1.2. Getting started", None),  # a numbered section
    ("3.2 Installing the tools", None),
    ("PEP 657: Fine-grained error locations", None),
    ("Pending Removal in Python 3.12", None),
    ("[Unreleased]", None),
    ("Configuration", None),
])
def test_version_headings(text, expected):
    assert version_heading(text) == expected


@pytest.mark.parametrize("text,expected", [
    ("Release date: 2022-10-24", "2022-10-24"),
    ("released on October 24, 2022.", "2022-10-24"),
    ("6 April 2021", "2021-04-06"),
    ("Sept. 3, 2024", "2024-09-03"),
    ("in 2021", None),
    ("April 2021", None),
])
def test_find_date(text, expected):
    assert find_date(text) == expected


@pytest.mark.parametrize("text,expected", [
    ("What’s New In Python 3.11", "3.11"),
    ("What's new in v2.0", "2.0"),
    ("Django 4.2 release notes", "4.2"),
    ("Release notes for Frob 1.5", "1.5"),
    ("Migrating from v4 to v5.0", "5.0"),
    ("Changelog", None),
])
def test_page_version(text, expected):
    assert page_version_of(text) == expected


@pytest.mark.parametrize("body,expected", [
    ("<p>The cache is updated in 2.5 seconds and added in 3.5 ms on average, which is fast.</p>", []),
    ("<p>Deprecated since 1.4, will be removed in 2.0: call <code>run()</code> instead of the old helper.</p>", [("deprecated", "1.4", "2.0")]),
    ("<p>Added in Python 3.11: the <code>tomllib</code> module parses TOML documents.</p>", [("added", "3.11", None)]),
    ("<pre>new in version 9.9 inside code is not a marker</pre><p>Nothing else here but enough words to be content for once.</p>", []),
    ("<p>What's new in 3.0 is described on its own page, which this paragraph merely links to.</p>", []),
])
def test_text_markers(body, expected):
    r = extract_content(html("T", f"<div role='main'><h1>T</h1><p>{'Filler words for the page content. ' * 8}</p>{body}</div>").decode(), "https://d.example/x.html")
    assert triples(r) == expected


@pytest.mark.parametrize("wrap", ["div role='main'", "main"], ids=["generator-page", "trafilatura-page"])
def test_change_text_is_redacted_and_counted(wrap):
    secret = "AKIAIOSFODNN7EXAMPLE"  # an AWS access key id: detect-secrets' AWS detector
    body = (f"<{wrap}><h1>T</h1><p>{'Filler words for the page content, long enough to be kept. ' * 8}</p>"
            f"<p>Added in 2.0: set <code>key = {secret}</code> in the config file.</p></{wrap.split()[0]}>")
    r = extract_redacted(html("T", body).decode(), "https://d.example/x.html", "", False)
    assert r["changes"] and secret not in json.dumps(r["changes"]) and "[REDACTED:" in r["changes"][0]["text"]
    assert r["redactions"] >= 2  # the excerpt and the change


def test_changes_are_capped():
    items = "".join(f"<li>Fixed bug number {i} in the frobnicator's handshake code path.</li>" for i in range(MAX_CHANGES + 50))
    md = html("Changelog", f"<main><h1>Changelog</h1><h2>2.0.0 (2026-01-02)</h2><ul>{items}</ul><h2>1.0.0 (2025-01-02)</h2><p>First release of the frobnicator, with everything a first release has.</p></main>")
    r = extract_content(md.decode(), "https://d.example/changelog.html")
    assert len(r["changes"]) == MAX_CHANGES and r["page_kind"] == "change"
    assert [(d["version"], d["date"]) for d in r["release_dates"]] == [("2.0.0", "2026-01-02"), ("1.0.0", "2025-01-02")]


@pytest.mark.parametrize("dates,expected", [
    (["2026-10-07"] * 5, "2026-10-07"),  # five pages, one date
    (["2026-10-07"] * 4, None),  # too few pages to tell
    (["2026-10-07"] * 5 + [None] * 4, None),  # 5 of 9 pages (< 60 %)
    (["2026-10-07"] * 6 + ["2026-01-02", None, "2025-03-04"], "2026-10-07"),  # 6 of 9
    ([f"2026-01-{d:02d}" for d in range(1, 28)], None),  # a blog: every page its own date
])
def test_build_dated_host_rule(dates, expected):
    s = SiteDates()
    for d in dates:
        s.add_page("docs.example.org", d)
    assert s.build_date("docs.example.org") == expected
    assert s.build_dated_hosts() == ({"docs.example.org": expected} if expected else {})


def test_site_dates_memory_is_bounded():
    s = SiteDates()
    for i in range(5000):
        s.add_page(f"h{i}.example", "2026-01-01")
        s.add_page("one.example", f"d{i}")
        s.add_release_dates([{"version": f"1.{i}", "date": "2026-01-01", "source": "changelog"}], "https://x/")
    assert len(s.hosts) <= 1000 and len(s.hosts["one.example"].dates) <= 64 and len(s.timeline) <= 2000


def test_crawl_writes_changes_build_date_and_timeline(run_crawl):
    server = MockServer()
    server.routes = bind(change_site(), server.url)
    with server as site:
        res = run_crawl({"start_urls": f"{site.url}/docs/"})
    assert res.returncode == 0, res.log[-3000:]
    items = {i["url"].replace(site.url, ""): i for i in res.items()}
    assert {"/docs/api.html", "/docs/CHANGELOG.md", "/docs/releases", "/docs/whatsnew/3.0.html", "/docs/settings/"} <= set(items)
    api = items["/docs/api.html"]
    assert [(c["kind"], c["version"]) for c in api["changes"]][:2] == [("added", "2.1"), ("changed", "2.3")]
    assert (api["changes"][0]["api"], api["changes"][0]["path"], api["changes"][0]["code"]) == ("frob.connect", ["frob API"], [])
    assert api["page_kind"] == "doc" and api["page_version"] is None
    assert items["/docs/CHANGELOG.md"]["page_kind"] == "change" and items["/docs/CHANGELOG.md"]["changes"][0]["version"] == "3.0.0"
    assert items["/docs/whatsnew/3.0.html"]["page_version"] == "3.0"
    host = api["host"]
    crawl = json.loads((res.output_dir / "crawl.json").read_text())
    assert crawl["build_dated_hosts"] == {host: BUILD_DATE}
    # pages counted after the host was recognised carry the build date; none carries another
    assert any(i["build_date"] == BUILD_DATE for i in items.values())
    assert {i["build_date"] for i in items.values()} <= {BUILD_DATE, None}
    timeline = {(e["version"], e["source"]): (e["date"], e["url"].replace(site.url, "")) for e in crawl["timeline"]}
    assert timeline[("3.0.0", "changelog")] == ("2026-04-20", "/docs/CHANGELOG.md")
    assert timeline[("2.4.0", "changelog")] == ("2025-06-12", "/docs/CHANGELOG.md")
    assert timeline[("3.0.0", "release-page")] == ("2026-04-20", "/docs/releases")
    assert timeline[("3.0", "whatsnew")] == ("2026-03-05", "/docs/whatsnew/3.0.html")
    where = {(e["version"], e["source"]): e.get("where") for e in crawl["timeline"]}
    assert where[("3.0.0", "changelog")] == "heading" and where[("3.0.0", "release-page")] == "time"
    assert where[("3.0", "whatsnew")] == "paragraph"  # "Frob 3.0 was released on March 5, 2026."
    assert res.stats["skill3/change_pages"] == 3 and res.stats["skill3/changes"] >= 20
    assert CHANGELOG_MD.splitlines()[0] == "# Changelog"


def test_unreadable_input_leaves_the_page_alone():
    from skill3crawl.extract.versions import find_changes

    assert find_changes("not a tree", "https://d.example/changelog.html", "Changelog") == {
        "changes": [], "page_kind": "", "page_version": None, "release_dates": []}
    assert find_changes(None, "https://d.example/", "")["page_kind"] == ""


@pytest.mark.parametrize("item,kept", [
    ("PEP 9: Self type", True),  # a short highlight of a few words is an entry
    ("Frobnicator 2", False),  # two words: a heading-like line, not an entry
])
def test_short_list_items_of_a_change_page(item, kept):
    filler = "".join(f"<li>Entry number {i} of the release notes, long enough to be one.</li>" for i in range(3))
    page = html("What's New In Demo 2.0", f"<main><h1>What's New In Demo 2.0</h1><h2>Summary – Release highlights</h2>"
                                          f"<ul>{filler}<li><p>{item}</p></li></ul></main>")
    r = extract_content(page.decode(), "https://d.example/whatsnew/2.0.html")
    assert r["page_kind"] == "change"
    assert any(c["text"] == item for c in r["changes"]) == kept


# -- release dates, markers and change pages by structure, in several generators' spellings ---------------------------

from skill3crawl.extract.releases import clean_heading, find_dates, heading_text, label_date  # noqa: E402
from tests.crawl.extract.versions.change_pages import API_PAGE, DATE_PAGES, FIELDS_PAGE, MARKER_PAGES, NOT_RELEASE_PAGES, TEXT_PAGES  # noqa: E402


def extract(pages: dict, name: str) -> dict:
    url, body = pages[name]
    return extract_redacted(body, url, "", False)


# name → (page_kind, page_version, [(version, date, where)])
DATES = {
    "sphinx-heading-date": ("change", None, [("2.3.0", "2024-03-04", "heading"), ("2.2.0", "2023-11-20", "heading")]),
    "mkdocs-date-first": ("change", None, [("2.3.0", "2024-03-04", "heading"), ("2.2.0", "2023-11-20", "heading")]),
    "hugo-date-dash-version": ("change", None, [("2.3.0", "2024-03-04", "heading"), ("2.2.0", "2023-11-20", "heading")]),
    "docusaurus-whatsnew-title-date": ("change", "2.3.0", [("2.3.0", "2024-03-04", "heading")]),
    "plain-one-release-title": ("change", "2.3.0", [("2.3.0", "2024-03-04", "heading")]),
    "docusaurus-blog-release-post": ("change", "2.3", [("2.3", "2024-03-04", "time")]),
    "hugo-post-is-out": ("change", "2.3.0", [("2.3.0", "2024-03-04", "field")]),
    "hugo-release-dateline": ("change", "2.3.0", [("2.3.0", "2024-03-04", "paragraph")]),
    "sphinx-field-list": ("change", "2.3.0", [("2.3.0", "2024-03-04", "field")]),
    "docbook-release-major": ("change", "15", [("15", "2024-03-04", "field")]),
    "keepachangelog-released-line": ("change", None, [("2.3.0", "2024-03-04", "field"), ("2.2.0", "2023-11-20", "field")]),
    "sphinx-date-subheading": ("change", "2.3.0", [("2.3.0", "2024-03-04", "heading")]),
    "plain-sentence-dates": ("change", None, [("2.3.0", "2024-03-04", "paragraph")]),  # 2.2.1's block names 2.2.0's date
    "hugo-time": ("change", None, [("2.3.0", "2024-03-04", "time"), ("2.2.0", "2023-11-20", "time")]),
    "sphinx-version-table": ("change", None, [("2.3.0", "2024-03-04", "table"), ("2.2.0", "2023-11-20", "table")]),
    "plain-version-table": ("doc", None, [("2.3.0", "2024-03-04", "table"), ("2.2.0", "2023-11-20", "table")]),
    "plain-field-table": ("change", "2.3.0", [("2.3.0", "2024-03-04", "table")]),
    "pre-rst-news": ("change", None, [("2.3.0", "2024-03-04", "text"), ("2.2.0", "2023-11-20", "text")]),
    "pre-plain-news": ("change", None, [("2.3.0", "2024-03-04", "text"), ("2.2.0", "2023-11-20", "text")]),
}


@pytest.mark.parametrize("name", list(DATES))
def test_release_dates_in_any_spelling_and_place(name):
    kind, version, dates = DATES[name]
    r = extract({**DATE_PAGES, **TEXT_PAGES}, name)
    assert (r["page_kind"], r["page_version"]) == (kind, version)
    assert [(d["version"], d["date"], d["where"]) for d in r["release_dates"]] == dates
    assert all(d["where"] in WHERE for d in r["release_dates"])
    for c in r["changes"]:  # each entry of a dated version carries its date
        assert c["date"] == dict((v, d) for v, d, _w in dates).get(c["version"])


def test_a_section_whose_first_block_names_another_version_takes_no_date_from_it():
    r = extract(DATE_PAGES, "plain-sentence-dates")
    assert "2.2.1" not in {d["version"] for d in r["release_dates"]}
    assert [c["date"] for c in r["changes"] if c["version"] == "2.2.1"] == [None, None]


# name → [(kind, version, api)] in document order
MARKERS = {
    "node-history": [("changed", "10.0.0", "fs.readFile"), ("changed", "7.0.0", "fs.readFile"), ("added", "0.1.29", "fs.readFile"),
                     ("added", "19.6.0", "fs.statfs")],
    "sphinx-history-table": [("deprecated", "2.3", "acme.connect"), ("added", "2.0", "acme.connect")],
    "javadoc-since": [("added", "17", "HexCodec"), ("added", "18", "toHex")],
    "since-span-heading": [("added", "25.0", "enumerate")],
    "since-span-title": [("added", "1.72.0", "push_within_capacity")],
    "plus-badges": [("added", "2.3", None), ("added", "2.4", "backoff"), ("added", "2.5", None)],
    "tab-rows": [("added", "3", "acme.HexCodec.toHex"), ("added", "2", "acme.Pool.share")],
    "aria-tab-panels": [("added", "3.0", "frob.stream"), ("deprecated", "2.9", "frob.open")],
    "typedoc-since-tag": [("added", "2.3.0", "stream")],
    "jsdoc-since-dl": [("added", "2.4.0", "share")],
    "pkgdoc-added-in": [("added", "1.22", "Concat")],
    "verinfo-at-least": [("added", "8.2.0", "frob_stream")],
    "platform-badge": [("added", "17.0", "stream")],
    "api-table-since": [("added", "2.3", "frob.stream"), ("added", "1.0", "frob.connect")],
    "sphinx-list-table-added": [("added", "2.3", "--follow")],
    "doc-page-changelog-section": [("release", "1.3.0", None)],
    "doc-page-version-sections": [("release", "2.0", None), ("release", "1.0", None)],
    "metadata-box-after-heading": [("added", "9.0.0", None)],
    "member-table-trailing-since": [("added", "2.74", "ACME_DEFAULT_FLAGS")],
}


@pytest.mark.parametrize("name", list(MARKERS))
def test_markers_in_any_common_form(name):
    r = extract(MARKER_PAGES, name)
    assert [(c["kind"], c["version"], c["api"]) for c in r["changes"]] == MARKERS[name]
    assert r["page_kind"] == ("change" if name in ("tab-rows", "aria-tab-panels") else "doc")


@pytest.mark.parametrize("name", ["blog-post", "tutorial-numbered"])
def test_a_page_that_merely_names_a_version_and_a_date_is_no_release(name):
    r = extract(NOT_RELEASE_PAGES, name)
    assert (r["page_kind"], r["page_version"], r["changes"], r["release_dates"]) == ("doc", None, [], [])


def test_a_lone_marker_and_a_trailing_label_annotate_their_section_and_row():
    (box,) = extract(MARKER_PAGES, "metadata-box-after-heading")["changes"]
    assert box["text"].startswith("Probe runner Added in: v9.0.0 Stability: 1 - Experimental The `acme:probe` module")
    (row,) = extract(MARKER_PAGES, "member-table-trailing-since")["changes"]
    assert row["text"] == "ACME_DEFAULT_FLAGS — Default flags. Since: 2.74" and row["anchor"] == "#ACME-DEFAULT-FLAGS:CAPS"
    rel = extract(DATE_PAGES, "docbook-release-major")["changes"]
    assert any("MERGE" in c["text"] and c["version"] == "15" for c in rel)


def test_each_history_row_and_label_carries_its_api_block():
    node = extract(MARKER_PAGES, "node-history")["changes"]
    assert node[0]["text"] == "fs.readFile(path[, options], callback) — The `callback` parameter is no longer optional."
    assert node[0]["anchor"] == "#fs_readfile" and node[3]["anchor"] == "#fs_stat"
    assert node[3]["text"].startswith("fs.statfs(path[, options], callback) Added in: v19.6.0 Returns information")
    jd = extract(MARKER_PAGES, "javadoc-since")["changes"]
    assert jd[0]["text"].startswith("Class HexCodec — public final class HexCodec Converts between bytes")
    assert jd[1]["text"] == "toHex — public String toHex(byte[] bytes) Formats bytes as hex digits." and jd[1]["anchor"] == "#toHex(byte[])"
    assert extract(MARKER_PAGES, "jsdoc-since-dl")["changes"][0]["text"] == "share() — Shares the pool between threads."
    tabs = extract(MARKER_PAGES, "tab-rows")["changes"]
    assert tabs[0]["text"] == "[acme.HexCodec.toHex()](acme/HexCodec.html#toHex()) — Formats bytes as hex digits."


def test_entries_carry_their_heading_path_api_and_code():
    url, body = FIELDS_PAGE
    wn = extract_redacted(body, url, "", False)["changes"]
    group = next(c for c in wn if "TaskGroup" in c["text"])
    assert group["path"] == ["What’s New In Acme 2.3", "Improved Modules", "frob"] and group["api"] is None
    assert group["code"] == [{"text": "async with frob.TaskGroup() as tg:\n    tg.create_task(work())\n", "language": "python"}]
    timeout = next(c for c in wn if "timeout()`, a context" in c["text"])
    assert timeout["code"] == []  # the next entry's code is not this one's
    helper = next(c for c in wn if "legacy_wait" in c["text"])
    assert [b["text"] for b in helper["code"]] == ["async with frob.timeout(10):\n    await work()\n"]  # a block too long to keep whole is left out
    url, body = API_PAGE
    (note,) = extract_redacted(body, url, "", False)["changes"]
    assert (note["kind"], note["version"], note["api"], note["path"]) == ("added", "2.3", "frob.TaskGroup", ["frob — Frames"])
    assert note["code"][0]["text"].startswith("async with frob.TaskGroup() as tg:\n")


def test_code_of_a_change_is_redacted():
    secret = "AKIAIOSFODNN7EXAMPLE"
    body = ("<div role='main'><h1>Changelog</h1><p>" + "Filler words for the page content, long enough to be kept. " * 6 + "</p>"
            f"<h2>2.0.0 (2026-01-02)</h2><ul><li>Keys come from the config file now, for example:<pre>key = {secret}\n</pre></li></ul>"
            "<h2>1.0.0 (2025-01-02)</h2><ul><li>First release of the frobnicator with everything.</li></ul></div>")
    r = extract_redacted(html("Changelog", body).decode(), "https://d.example/changelog.html", "", False)
    (entry,) = [c for c in r["changes"] if c["version"] == "2.0.0"]
    assert entry["code"] and secret not in json.dumps(r["changes"]) and "[REDACTED:" in entry["code"][0]["text"]


@pytest.mark.parametrize("text,expected", [
    ("2024-03-04", ["2024-03-04"]),
    ("release-date: 2022-4-04 10:15 A.M UTC+1:00", ["2022-04-04"]),
    ("January 3, 2023", ["2023-01-03"]), ("3 Jan 2023", ["2023-01-03"]), ("Jan 3rd, 2023", ["2023-01-03"]),
    ("the 3rd of January 2023", ["2023-01-03"]), ("Sept. 3, 2024", ["2024-09-03"]),
    ("2024/03/04", ["2024-03-04"]), ("04.03.2024", ["2024-03-04"]),  # day first with dots
    ("4/25/2024", ["2024-04-25"]), ("25/4/2024", ["2024-04-25"]),  # the order is plain when one part is over 12
    ("04/03/2024", []),  # April 3rd or March 4th: no date
    ("4. März 2024", ["2024-03-04"]), ("4 mars 2024", ["2024-03-04"]),  # other languages: htmldate's month names
    ("2024.03.04", []),  # a calendar version, not a date
    ("from 2023-11-20 to Mar 4, 2024", ["2023-11-20", "2024-03-04"]),
    ("in 2021", []), ("April 2021", []), ("2.3.0", []),
])
def test_dates_in_any_common_spelling(text, expected):
    assert [d for _s, _e, d in find_dates(text)] == expected


@pytest.mark.parametrize("text,expected", [
    ("What's new in 2.3.0 (March 4, 2024)", ("2.3.0", "2024-03-04")),
    ("2024-03-04 (2.3.0)", ("2.3.0", "2024-03-04")),
    ("2024-03-04 — v2.3.0", ("2.3.0", "2024-03-04")),
    ("Acme Release 2.3.0 On 2024-03-04", ("2.3.0", "2024-03-04")),
    ("acme 2.3.0 (2024-03-04)", ("2.3.0", "2024-03-04")),  # a lower-case product name
    ("v2.3.0 / March 4, 2024", ("2.3.0", "2024-03-04")),
    ("1.4 Acme 4.0.1", ("4.0.1", None)),  # a section number first
    ("2.3.0\uf0c1", ("2.3.0", None)), ("2.3.0 #", ("2.3.0", None)), ("2.3.0 🔗", ("2.3.0", None)), ("v2.3.0\u200b", ("2.3.0", None)),
    ("Changes in Acme 2.3", ("2.3", None)),
    ("Installing the tools in 2.3", None), ("Notes on 2.3 and 2.4", None),
])
def test_version_headings_in_more_spellings(text, expected):
    assert version_heading(text) == expected


@pytest.mark.parametrize("markup,expected", [
    ("<h2>Changelog<a class='headerlink' href='#c'>\uf0c1</a></h2>", "Changelog"),  # an icon font's private-use glyph
    ("<h2>Changelog<a href='#c'>#</a></h2>", "Changelog"),  # a glued "#" permalink
    ("<h2><a class='anchor' href='#c' aria-hidden='true'><svg></svg></a>Changelog</h2>", "Changelog"),
    ("<h2>Changelog <span class='glyph'>§</span></h2>", "Changelog"),
    ("<h2>Using <code>C#</code> bindings</h2>", "Using C# bindings"),
    ("<h2>C#</h2>", "C#"),
])
def test_headings_lose_any_themes_permalink(markup, expected):
    import lxml.html

    assert heading_text(lxml.html.fragment_fromstring(markup)) == expected


@pytest.mark.parametrize("text,expected", [
    ("Released: March 4, 2024", "2024-03-04"), ("*Release date: 2024-03-04*", "2024-03-04"),
    ("release-date: 2024-3-04 10:15 A.M UTC+1:00", "2024-03-04"), ("Jul 3, 2022", "2022-07-03"),
    ("Published on 2024-03-04T09:00:00Z", "2024-03-04"),
    ("Released: 4. März 2024", "2024-03-04"),
    ("Support ends 2026-03-04", None), ("Fixed a crash seen since 2024-03-04", None),
])
def test_date_fields(text, expected):
    assert label_date(text) == expected


def test_clean_heading_keeps_text_and_drops_glyphs():
    assert clean_heading("  \u200bWhat’s New¶ ") == "What’s New"
    assert clean_heading("🔗 Release 2.3") == "Release 2.3" and clean_heading("# Release 2.3") == "Release 2.3"


@pytest.mark.parametrize("news", ["NEWS_RST", "NEWS_PLAIN"])
def test_a_plain_text_change_log_served_as_text(news):
    """A text/plain NEWS file reaches extraction as markdown rendered to HTML (the spider's path for text bodies)."""
    from tests.crawl.extract.versions import change_pages

    r = extract_redacted(markdown_to_html(getattr(change_pages, news), "NEWS"), "https://acme.dev/NEWS", "NEWS", False)
    assert r["page_kind"] == "change"
    assert [(d["version"], d["date"]) for d in r["release_dates"]] == [("2.3.0", "2024-03-04"), ("2.2.0", "2023-11-20")]
    assert [(c["version"], c["date"]) for c in r["changes"]] == [("2.3.0", "2024-03-04")] * 2 + [("2.2.0", "2023-11-20")]


def test_a_hostile_page_stays_within_the_caps():
    tabs = "".join(f"<button role='tab' id='t{i}'>Added in {i}.0</button>" for i in range(300))
    rows = "".join(f"<div class='t{i % 300}'><a href='#x{i}'>api{i}()</a></div>" for i in range(600))
    heads = "".join(f"<h3>v{i}.0.{i % 7} ({2000 + i % 20}-01-0{1 + i % 9})</h3><p>Entry {i}: fixed the frobnicator's handshake.</p>"
                    "<pre>x = 1\n</pre>" * 5 for i in range(3000))
    body = f"<main><h1>Release notes</h1><p>{'Filler words for the page content. ' * 8}</p>{tabs}{rows}{heads}</main>"
    r = extract_content(html("Release notes", body).decode(), "https://d.example/release-notes.html")
    assert r["page_kind"] == "change" and len(r["changes"]) == MAX_CHANGES
    assert len(r["release_dates"]) <= 500 and all(len(c["code"]) <= 3 for c in r["changes"])


def test_crawl_reads_change_pages_by_structure(run_crawl):
    """A real crawl: a plain-text NEWS.txt served as text/plain (a .txt by a change log's conventional name), a post about one release named by nothing but
    its structure, and an API page whose markers are a History table and "Since:" fields."""
    from tests.crawl.extract.versions.change_pages import NEWS_PLAIN

    post_url, post = DATE_PAGES["plain-one-release-title"]
    api_url, api_page = MARKER_PAGES["node-history"]
    jd_url, jd_page = MARKER_PAGES["javadoc-since"]
    index = html("Acme", "<main><h1>Acme</h1><p>" + "Start here for the Acme documentation and its news. " * 5 + "</p><ul>"
                 "<li><a href='/NEWS.txt'>News</a></li><li><a href='/posts/acme-230/'>Post</a></li>"
                 "<li><a href='/api/fs.html'>fs</a></li><li><a href='/api/HexCodec.html'>HexCodec</a></li></ul></main>")
    server = MockServer()
    server.routes = {"/robots.txt": (200, "text/plain", b"User-agent: *\nAllow: /\n"), "/": (200, "text/html", index),
                     "/NEWS.txt": (200, "text/plain; charset=utf-8", NEWS_PLAIN.encode()),
                     "/posts/acme-230/": (200, "text/html", post.encode()), "/api/fs.html": (200, "text/html", api_page.encode()),
                     "/api/HexCodec.html": (200, "text/html", jd_page.encode())}
    with server as site:
        res = run_crawl({"start_urls": f"{site.url}/"})
    assert res.returncode == 0, res.log[-3000:]
    items = {i["url"].replace(site.url, ""): i for i in res.items()}
    assert (items["/NEWS.txt"]["page_kind"], items["/posts/acme-230/"]["page_kind"]) == ("change", "change")
    assert items["/posts/acme-230/"]["page_version"] == "2.3.0"
    assert [(c["kind"], c["version"], c["api"]) for c in items["/api/fs.html"]["changes"]][:3] == [
        ("changed", "10.0.0", "fs.readFile"), ("changed", "7.0.0", "fs.readFile"), ("added", "0.1.29", "fs.readFile")]
    assert [(c["version"], c["api"]) for c in items["/api/HexCodec.html"]["changes"]] == [("17", "HexCodec"), ("18", "toHex")]
    crawl = json.loads((res.output_dir / "crawl.json").read_text())
    timeline = {(e["version"], e["source"]): (e["date"], e["where"], e["url"].replace(site.url, "")) for e in crawl["timeline"]}
    assert timeline[("2.3.0", "changelog")] == ("2024-03-04", "heading", "/NEWS.txt")
    assert timeline[("2.2.0", "changelog")] == ("2023-11-20", "heading", "/NEWS.txt")
    assert timeline[("2.3.0", "release-page")] == ("2024-03-04", "heading", "/posts/acme-230/")  # a page about one release
