"""API references with a page per symbol: the entry names the symbol its quote does not (a member's heading, the
page's declared name), a symbol page's bare badge is no entry, and a version that only deprecation markers name ahead
of every release the site documents is no release."""

from __future__ import annotations

import pytest

from synth.delta.cleaning import bare_marker
from synth.delta.render import entry_line
from synth.delta.symbols import entry_symbol, is_symbol, page_symbol
from synth.delta.timeline import Timeline
from tests.delta.test_ledger import _ch
from tests.delta.test_topic_line import TODAY, _run


@pytest.mark.parametrize("heading,yes", [
    ("acme_layout_get_width", True),
    ("Acme.Layout.get_width", True),
    ("AcmeLayout", True),
    ("ns::make_grid", True),
    ("getWidth()", True),
    ("Acme.Toast:custom-title", True),  # a property
    ("Acme.Toast::button-clicked", True),  # a signal
    ("Description", False),
    ("Description [src]", False),
    ("Parameters", False),
    ("Instance methods", False),
    ("_private", False),
    ("", False),
])
def test_a_heading_that_is_a_symbol_s_name(heading, yes):
    assert is_symbol(heading) is yes


@pytest.mark.parametrize("title,code,symbol", [
    ("Acme.Layout.get_width", ["int\nacme_layout_get_width (\n  AcmeLayout* layout\n)"], "acme_layout_get_width"),
    ("Acme.attr_scale_new", ["AcmeAttribute*\nacme_attr_scale_new (\n  double scale\n)"], "acme_attr_scale_new"),
    ("Acme.Layout.get_width", ["int other_function (void)"], "Acme.Layout.get_width"),  # no declaration spells it
    ("Acme.Layout", ["final class Acme.Layout : GObject.Object {}"], "Acme.Layout"),
    ("Widgets in the Acme toolkit", ["int acme_layout_get_width (void)"], None),  # not a symbol's page
])
def test_the_symbol_a_page_is_about(title, code, symbol):
    assert page_symbol(title, code) == symbol


def test_an_entry_s_symbol_and_its_type():
    assert entry_symbol("acme_layout_get_width", "Acme.Layout", []) == ("acme_layout_get_width", "Acme.Layout")
    assert entry_symbol("Description [src]", "Acme.Layout.get_width", ["int\nacme_layout_get_width (void)"]) == \
        ("acme_layout_get_width", "Acme.Layout")
    assert entry_symbol("Changes", "Release notes", []) is None
    # a marker inside a section of a type's page (not a member's heading) is not about the type itself
    assert entry_symbol("The enabled shortcuts.", "Acme.TabView", [], depth=3) is None


@pytest.mark.parametrize("text,version,bare", [
    ("since: 1.50 Declaration [[src]](https://git.example.org/acme/acme-layout.h#L611)", "1.50", True),
    ("Available since: 1.50", "1.50", True),
    ("since: 4.8 Description [[src]](https://x.org/a.c#L31) `AcmeLabel` is a widget that shows text.", "4.8", False),
    ("New in version 3.11: the timeout argument.", "3.11", False),
    ("Release 1.50 Notes", "1.50", False),  # no marker word
])
def test_a_bare_marker_over_a_heading_is_no_statement(text, version, bare):
    assert bare_marker(text, version) is bare


def _symbol_pages():
    decl = [{"text": "int\nacme_layout_get_width (\n  AcmeLayout* layout\n)", "language": ""}]
    method = ("http://h/Acme/method.Layout.get_width.html", "Acme.Layout.get_width", "doc", None,
              [_ch("added", "2.4", "since: 2.4 Declaration [[src]](https://git.example.org/acme/acme-layout.h#L61)", code=decl),
               _ch("added", "2.4", "Gets the width of the layout in device units. Available since: 2.4",
                   heading="Description [src]", path=["Description [src]"])])
    klass = ("http://h/Acme/class.Layout.html", "Acme.Layout", "doc", None,
             [_ch("added", "2.4", "Sets the width to wrap lines at. since: 2.4", heading="acme_layout_set_width",
                  path=["Instance methods", "acme_layout_set_width"]),
              _ch("added", "2.2", "Gets the layout's context. since: 2.2", heading="acme_layout_get_context",
                  path=["Instance methods", "acme_layout_get_context"])])
    return [method, klass]


def test_a_symbol_page_s_entries_name_their_symbol_and_its_badge_is_no_entry():
    d = _run(_symbol_pages(), Timeline(TODAY, since="2.2"))
    by_symbol = {e.symbol: e for e in d.post}
    assert set(by_symbol) == {"acme_layout_get_width", "acme_layout_set_width"}, [(e.symbol, e.text) for e in d.post]
    get = by_symbol["acme_layout_get_width"]
    assert get.text.startswith("Gets the width of the layout") and get.owner == "Acme.Layout"
    assert entry_line(get).startswith("- **Added in 2.4** (`acme_layout_get_width`): Gets the width")
    assert by_symbol["acme_layout_set_width"].owner == "Acme.Layout"
    assert d.skipped["empty after cleaning (issue numbers, credits or a bare marker)"] == 1


def _deprecations(extra=()):
    pages = [
        ("http://h/Acme/method.Layout.get_width.html", "Acme.Layout.get_width", "doc", None,
         [_ch("added", "2.4", "Gets the width of the layout in device units. Available since: 2.4")]),
        ("http://h/Acme/method.Coverage.ref.html", "Acme.Coverage.ref", "doc", None,
         [_ch("deprecated", "2.6", "Increases the reference count. Deprecated since: 2.6 Use the object's own ref instead.")]),
        *extra,
    ]
    return _run(pages, Timeline(TODAY, since="2.2"))


def test_a_version_only_deprecation_markers_name_ahead_of_every_documented_release_is_no_release():
    d = _deprecations()
    rows = {r["version"]: r for r in d.version_line}
    assert not rows["2.6"]["release"] and rows["2.6"]["why"].startswith("only announced (only markers deprecating")
    assert {e.version for e in d.post} == {"2.4"}


def test_a_version_something_was_added_in_is_a_release_whatever_it_deprecates():
    added = ("http://h/Acme/method.Layout.get_height.html", "Acme.Layout.get_height", "doc", None,
             [_ch("added", "2.6", "Gets the height of the layout in device units. Available since: 2.6")])
    d = _deprecations([added])
    assert {e.version for e in d.post} == {"2.4", "2.6"}
    assert {r["version"]: r["release"] for r in d.version_line}["2.6"] is True


def _type_page(cls, members, version="2.4", new_type=False):
    """A type's page listing its members, each under its own heading with its "since" badge."""
    changes = [_ch("added", version, f"A {cls} shows text in a box of its own. since: {version}")] if new_type else []
    changes += [_ch("added", version, f"Does {m.replace('_', ' ')} on the {cls}. since: {version}", heading=f"acme_{cls.lower()}_{m}",
                    path=["Instance methods", f"acme_{cls.lower()}_{m}"]) for m in members]
    return (f"http://h/Acme/class.{cls}.html", f"Acme.{cls}", "doc", None, changes)


def test_a_release_of_many_new_symbols_is_indexed_by_type_new_types_first():
    from synth.delta.render import MIN_INDEX_SYMBOLS, api_index_lines

    pages = [_type_page("Layout", ["set_wrap", "get_wrap"]),
             _type_page("Label", [f"member_{i}" for i in range(MIN_INDEX_SYMBOLS)], new_type=True),
             _type_page("Old", ["get_thing"], version="2.0")]
    d = _run(pages, Timeline(TODAY, since="2.2"))
    lines = api_index_lines(d)
    assert lines[0].startswith(f"New API in 2.4, by type ({MIN_INDEX_SYMBOLS + 3} symbol(s)")
    rows = [ln for ln in lines if ln.startswith("- ")]
    assert rows[0].startswith("- `Acme.Label` (new): `acme_label_member_0`, `acme_label_member_1`")
    assert rows[1] == "- `Acme.Layout`: `acme_layout_set_wrap`, `acme_layout_get_wrap`"
    assert "acme_old_get_thing" not in "\n".join(lines)  # before the cutoff


def test_a_release_of_a_few_new_symbols_has_no_index():
    from synth.delta.render import api_index_lines

    d = _run([_type_page("Layout", ["set_wrap", "get_wrap"])], Timeline(TODAY, since="2.2"))
    assert api_index_lines(d) == []
