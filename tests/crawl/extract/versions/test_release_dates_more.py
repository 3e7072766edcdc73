"""Release dates in more places and spellings: loose text after a version heading, a date that names only a month,
and a theme's "Last update:" stamp, which is the build's date and never a release's (small pages written here)."""

from __future__ import annotations

import pytest

from skill3crawl.extract.content import extract_redacted
from skill3crawl.extract.releases import label_date, version_heading
from tests.crawl.extract.versions.change_pages import LEAD, WORDS, hpl, plain, sphinx

ITEM = "<ul><li><p>Added <code>frob.stream()</code>, which iterates over the frames of a channel.</p></li></ul>"

PAGES = {
    # the date as loose text right after the version heading, before the section's subsections (a changelog theme)
    "sphinx-loose-released": ("https://docs.acme.dev/changelog/changelog_23.html", sphinx("Changelog 2.3", (
        "<section id='c'>" + hpl(1, "2.3 Changelog", "c")
        + "<section id='v231'>" + hpl(2, "2.3.1", "v231") + "Released: April 2, 2024<section id='v231-core'>"
        + hpl(3, "core", "v231-core") + ITEM + "</section></section>"
        + "<section id='v230'>" + hpl(2, "2.3.0", "v230") + "\n  Released: March 4, 2024\n<section id='v230-core'>"
        + hpl(3, "core", "v230-core") + ITEM + "</section></section></section>"))),
    # the same in a wrapper no walk reads as a block (a div of its own)
    "plain-div-released": ("https://acme.dev/news/", plain("News", (
        "<h1>News</h1>"
        "<h2>v2.3.0</h2><div class='meta'>released on 4 March 2024</div>" + ITEM
        + "<h2>v2.2.0</h2><div class='meta'>released on 20 November 2023</div>" + ITEM))),
    # only a month: the release is bounded to that month (its first day)
    "month-field": ("https://acme.dev/changes/", plain("Changes", (
        "<h1>Changes</h1>"
        "<h2>2.3.0</h2><p>Released: March 2024</p>" + ITEM
        + "<h2>2.2.0</h2><p>Released: Nov. 2023</p>" + ITEM))),
    "month-heading": ("https://acme.dev/changes/", plain("Changes", (
        "<h1>Changes</h1><h2>2.3.0 (March 2024)</h2>" + ITEM + "<h2>2.2.0 — November 2023</h2>" + ITEM))),
}

# a page about one release that prints no date, in a theme whose sidebar stamps the build ("Last update:")
STAMPED = {
    "sidebar-heading-stamp": ("https://docs.acme.dev/releases/1.2.1.html", sphinx("Acme 1.2.1 release notes", (
        "<div class='section' id='r'><h1>Acme 1.2.1 release notes<a class='headerlink' href='#r'>¶</a></h1>"
        f"<p>Acme 1.2.1 was released almost immediately after 1.2.0 to correct two small bugs. {WORDS}</p></div>"
        "<div id='sidebar'><div><h4>Previous topic</h4><p>Acme 1.2.2 release notes</p></div>"
        "<h3>Last update:</h3><p class='topless'>Nov 11, 2026</p></div>"))),
    "footer-line-stamp": ("https://docs.acme.dev/releases/1.2.1.html", sphinx("Acme 1.2.1 release notes", (
        "<div class='section' id='r'><h1>Acme 1.2.1 release notes<a class='headerlink' href='#r'>¶</a></h1>"
        f"<p>Acme 1.2.1 corrects two small bugs. {WORDS}</p></div>"
        "<div class='page-info'><p>Last updated on Nov 11, 2026</p></div>"))),
    "dl-stamp": ("https://docs.acme.dev/releases/1.2.1.html", sphinx("Acme 1.2.1 release notes", (
        "<div class='section' id='r'><h1>Acme 1.2.1 release notes<a class='headerlink' href='#r'>¶</a></h1>"
        f"<p>Acme 1.2.1 corrects two small bugs. {WORDS}</p></div>"
        "<dl class='meta'><dt>Last modified</dt><dd>2026-11-11</dd></dl>"))),
}


def _dates(pages: dict, name: str) -> list[tuple[str, str, str]]:
    url, body = pages[name]
    r = extract_redacted(body, url, "", False)
    return [(d["version"], d["date"], d["where"]) for d in r["release_dates"]]


@pytest.mark.parametrize("name, dates", [
    ("sphinx-loose-released", [("2.3.1", "2024-04-02", "field"), ("2.3.0", "2024-03-04", "field")]),
    ("plain-div-released", [("2.3.0", "2024-03-04", "field"), ("2.2.0", "2023-11-20", "field")]),
    ("month-field", [("2.3.0", "2024-03-01", "field"), ("2.2.0", "2023-11-01", "field")]),
    ("month-heading", [("2.3.0", "2024-03-01", "heading"), ("2.2.0", "2023-11-01", "heading")]),
])
def test_release_dates_in_more_places_and_spellings(name, dates):
    assert _dates(PAGES, name) == dates


@pytest.mark.parametrize("name", list(STAMPED))
def test_a_last_update_stamp_is_no_release_date(name):
    assert _dates(STAMPED, name) == []


@pytest.mark.parametrize("text, day", [
    ("Released: March 2024", "2024-03-01"),
    ("Release date: Sept. 2023", "2023-09-01"),
    ("March 2024", "2024-03-01"),
    ("Released: March 4, 2024", "2024-03-04"),
    ("Released: 2024-03", "2024-03-01"),
    ("Release date: 2024-03-04", "2024-03-04"),
    ("Released: 2024.03", None),  # a calendar version, not a month
    ("Last update: March 2024", None),
    ("Last updated on Nov 11, 2026", None),
    ("We met in March 2024 to plan it.", None),
])
def test_label_dates_with_only_a_month(text, day):
    assert label_date(text) == day


@pytest.mark.parametrize("text, expected", [
    ("2.3.0 (March 2024)", ("2.3.0", "2024-03-01")),
    ("Acme 2.3.0 — November 2023", ("2.3.0", "2023-11-01")),
    ("2.3.0", ("2.3.0", None)),
    ("[2.3.0] - 2024-03", ("2.3.0", "2024-03-01")),
])
def test_version_headings_with_a_month(text, expected):
    assert version_heading(text) == expected


def test_the_fixture_pages_are_kept():
    assert LEAD  # the pages carry enough prose for the content extractor to keep them


@pytest.mark.parametrize("text, stamp", [
    ("Last update:", True),
    ("Last updated on Nov 11, 2026", True),
    ("Page last modified 2026-11-11", True),
    ("Modified: 2026-11-11", True),
    ("Generated on 2026-11-11 by the docs tool", True),
    ("Updated the frob command to stream frames.", False),  # a change log's entry
    ("Changed in version 3.2: frames stream.", False),
    ("Built-in functions", False),
])
def test_update_stamps(text, stamp):
    from skill3crawl.extract.versions.sections import is_update_stamp

    assert is_update_stamp(text) is stamp


def test_a_change_logs_updated_entry_is_kept():
    url, body = ("https://acme.dev/changes/", plain("Changes", (
        "<h1>Changes</h1><h2>2.3.0</h2><p>Released: March 4, 2024</p>"
        "<ul><li><p>Updated the frob command to stream the frames of a channel.</p></li>"
        "<li><p>Last updated on March 1, 2024: the bundled root certificates.</p></li></ul>")))
    r = extract_redacted(body, url, "", False)
    texts = [c["text"] for c in r["changes"]]
    assert any("Updated the frob command" in t for t in texts)
