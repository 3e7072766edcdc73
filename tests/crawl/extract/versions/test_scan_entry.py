"""The version scan's one public entry: scan(tree) → PageChanges, which holds the delta model's types (ChangeRecord,
ReleaseDate); the JSON the crawl writes into the page's item is written from them at that boundary only."""

from __future__ import annotations

import lxml.html
import pytest

from skill3crawl.extract.versions import PageChanges, find_changes, scan
from synth.delta.model import ChangeRecord, ReleaseDate

CHANGELOG = """<html><head><title>Changelog</title></head><body><main>
<h1>Changelog</h1>
<h2>2.1.0 (2026-03-04)</h2><ul><li>Added the frobnicate() helper to the widget API, with a timeout.</li></ul>
<h2>2.0.0 (2025-11-20)</h2><ul><li>Removed the legacy widget loader that 1.x deprecated long ago.</li></ul>
</main></body></html>"""
API = """<html><head><title>Widgets</title></head><body><main><h1>Widgets</h1>
<dl><dt id="w.frob">frob(x)</dt><dd><p>Frobnicate x.</p>
<div class="versionadded"><p><span class="versionmodified added">Added in version 2.1.</span></p></div></dd></dl>
</main></body></html>"""

# (case, page, url, page kind, versions of the entries, versions with a release date)
CASES = [
    ("a changelog", CHANGELOG, "https://d.example/changelog.html", "change", {"2.1.0", "2.0.0"}, {"2.1.0", "2.0.0"}),
    ("an API page's marker", API, "https://d.example/api/widgets.html", "doc", {"2.1"}, set()),
]


@pytest.mark.parametrize("page, url, kind, versions, dated", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_scan_gives_typed_page_changes(page, url, kind, versions, dated) -> None:
    node = lxml.html.fromstring(page).find(".//main")
    found = scan(node, url, lxml.html.fromstring(page).findtext(".//title"))
    assert isinstance(found, PageChanges) and found.page_kind == kind
    assert found.to_json() == find_changes(node, url, lxml.html.fromstring(page).findtext(".//title"))  # the same JSON
    records = found.records()
    assert all(isinstance(r, ChangeRecord) for r in records) and {r.version for r in records} == versions
    assert all(isinstance(d, ReleaseDate) and d.url == url for d in found.dates(url))
    assert {d.version for d in found.dates(url)} == dated


def test_unreadable_markup_is_an_empty_result() -> None:
    assert scan("not a tree", "https://d.example/changelog.html", "Changelog") == PageChanges()
    assert PageChanges().to_json() == {"changes": [], "page_kind": "", "page_version": None, "release_dates": []}


NO_HEADING = """<html><body><main><div class="versionadded"><p><span class="versionmodified added">New in version 2.1: </span>
The frob option sets how often the widget frobs its queue.</p></div></main></body></html>"""


@pytest.mark.parametrize("page, url, kind, versions, dated", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_page_changes_hold_the_model_types(page, url, kind, versions, dated) -> None:
    found = scan(lxml.html.fromstring(page).find(".//main"), url, "")
    assert all(type(c) is ChangeRecord for c in found.changes) and {c.version for c in found.changes} == versions
    assert all(type(d) is ReleaseDate and d.url is None for d in found.release_dates)
    assert {d.version for d in found.release_dates} == dated
    rows = found.to_json()
    assert [r["version"] for r in rows["changes"]] == [c.version for c in found.changes]
    assert all(set(r) == {"version", "date", "source", "where"} for r in rows["release_dates"])  # the crawl's row: no url


def test_the_item_json_of_an_entry_under_no_heading() -> None:
    """The scan reads every entry's heading path: an entry under no heading is written with an empty list (a record
    whose path was never read is written with None: ChangeRecord.to_json)."""
    found = scan(lxml.html.fromstring(NO_HEADING).find(".//main"), "https://d.example/api/frob.html", "Frob")
    assert found.changes and found.changes[0].path == ()
    row = found.to_json()["changes"][0]
    assert row["path"] == [] and list(row) == ["kind", "version", "removed_in", "date", "text", "anchor", "heading", "path",
                                               "api", "code"]
    assert found.changes[0].to_json()["path"] is None
