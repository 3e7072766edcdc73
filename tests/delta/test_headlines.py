"""What SKILL.md leads with when a release's notes give each feature a section of its own (a Sphinx "What's new" with
"Enhancements → Styler", "→ from_dummies"), and the labels: the section's own title, never a glued fragment."""

from datetime import date

import pytest

from synth.delta.changes import read_changes
from synth.delta.classify import feature_title, section_of
from synth.delta.ledger import Ledger, object_of
from synth.delta.render import entry_line, headline_entries
from synth.delta.timeline import Timeline
from tests.delta.changes import change as _ch

CUTOFF = date(2022, 1, 1)
TODAY = date(2026, 6, 1)
TITLE = "What's new in 2.3.0 (March 4, 2022)"




def _finish(pages):
    led = Ledger()
    for url, title, kind, version, changes in pages:
        led.observe(url, title, kind, version, 0.9, read_changes(changes))
    tl = Timeline(TODAY)
    tl.add("2.2.0", date(2021, 6, 1), "test")
    tl.add("2.3.0", date(2022, 3, 4), "test")
    return led.finish(tl, CUTOFF)


@pytest.mark.parametrize("headings, title", [
    ([TITLE, "Enhancements", "Styler"], "Styler"),
    ([TITLE, "Enhancements", "Reading directly from TAR archives"], "Reading directly from TAR archives"),
    ([TITLE, "Deprecations", "Label-based integer slicing on a Series with an Int64Index"],
     "Label-based integer slicing on a Series with an Int64Index"),
    ([TITLE, "Enhancements"], None),  # a kind, not a feature
    ([TITLE, "Enhancements", "Other enhancements"], None),
    ([TITLE, "Deprecations", "Other Deprecations"], None),
    ([TITLE, "Minor features", "Cache"], None),  # the minor features by component: no feature's title
    ([TITLE, "Improved Modules", "Library"], None),  # a container
    ([TITLE], None),
    ([TITLE, "Styler"], None),  # no heading names its kind
    ([TITLE, "E.1.3. Changes", "E.1.3.1. Server"], None),  # the generic "Changes" over the components
    ([TITLE, "2. Enhancements", "2.1 Styler"], "Styler"),  # outline numbers are no part of a title
])
def test_a_features_own_section_title(headings, title):
    assert feature_title(headings, "2.3.0") == title


@pytest.mark.parametrize("heading, kind", [
    ("DataFrame interchange protocol implementation", "features"),  # a feature's title under Enhancements
    ("Implementation details", "internal"),
    ("Development", "internal"),
    ("Build implementation", "internal"),
    ("Increased minimum versions for dependencies", "internal"),
])
def test_a_features_title_that_says_implementation_is_no_internals_section(heading, kind):
    assert section_of([TITLE, "Enhancements", heading], "2.3.0") == kind


@pytest.mark.parametrize("api, text, heading, out", [
    # a definition-list term glued to its type is a parameter of the object the page is about
    ("numeric_onlybool", "**numeric_only**bool, default True — Include only numeric data.", "acme.Frame.sum",
     ("acme.Frame.sum", "numeric_only")),
    ("inplacebool", "**inplace**bool, default False — Whether to modify in place.", "Parameters", (None, "inplace")),
    ("kwargs", "****kwargs** — For compatibility; has no effect.", "acme.Frame.mean", ("acme.Frame.mean", "kwargs")),
    # an object's own entry keeps its API
    ("acme.TaskGroup", "class acme.TaskGroup — Groups tasks.", "acme.TaskGroup", ("acme.TaskGroup", None)),
    ("frob", "**frob**(x) — Frobs x.", "acme.tools", ("frob", None)),
])
def test_a_glued_parameter_term_is_the_parameter_of_its_object(api, text, heading, out):
    assert object_of(api, text, heading) == out


def _notes() -> list:
    """A release's notes: five features with a section each (two or three paragraphs), a catch-all of other
    enhancements, two titled deprecations and many performance notes; then a guide page the crawl took for a change
    page with one titled 2.3 section, and an API page whose parameters carry markers."""
    wn = []
    for feat in ("Styler", "from_dummies", "Writing to ORC files", "Copy on Write", "Reading directly from TAR archives"):
        wn += [_ch("release", "2.3.0", f"The {feat} feature paragraph number {i} says something new.",
                   [TITLE, "Enhancements", feat]) for i in range(3)]
    wn += [_ch("release", "2.3.0", f"Added the option opt_{i} to the frame writer.", [TITLE, "Enhancements", "Other enhancements"])
           for i in range(12)]
    for dep in ("numeric_only default value", "Label-based integer slicing on a Series"):
        wn += [_ch("release", "2.3.0", f"The {dep} deprecation paragraph {i} explains the change.", [TITLE, "Deprecations", dep])
               for i in range(2)]
    wn += [_ch("release", "2.3.0", f"Performance improvement in Frame.op{i}() for wide frames.", [TITLE, "Performance improvements"])
           for i in range(20)]
    guide = [_ch("added", "2.3.0", "By default new columns have the uint8 dtype, choose another with dtype.",
                 ["Reshaping", "Computing indicator variables"])]
    api = [_ch("deprecated", "2.3.0", f"**arg{i}**bool, default True — Include only numeric data.", ["acme.Frame.sum"],
               api=f"arg{i}bool") for i in range(8)]
    return [("http://h/whatsnew/v2.3.0.html", TITLE, "change", "2.3.0", wn),
            ("http://h/guide/reshaping.html", "Reshaping", "change", None, guide),
            ("http://h/api/acme.Frame.sum.html", "acme.Frame.sum", "doc", None, api)]


def test_the_notes_own_feature_sections_lead_each_with_its_title():
    d = _finish(_notes())
    lead = headline_entries(d, limit=12)
    titles = [e.title for e in lead[:7]]
    assert titles == ["Styler", "from_dummies", "Writing to ORC files", "Copy on Write", "Reading directly from TAR archives",
                      "numeric_only default value", "Label-based integer slicing on a Series"], titles
    assert all("paragraph number 0" in e.text or "paragraph 0" in e.text for e in lead[:7])
    # the label is the section's own title (the area cut from it, "Writing ORC files", is a fragment)
    assert entry_line(lead[2], cite="[1]").startswith("- **Added in 2.3.0** (Writing to ORC files): ")
    # the guide page's one titled section is no list of the release's features
    assert not any("uint8" in e.text for e in lead[:7])


def test_a_parameters_marker_is_labelled_by_its_object_never_a_glued_term():
    d = _finish(_notes())
    params = [e for e in d.post if e.text.startswith("**arg")]
    assert params and {e.area for e in params} == {"acme"}, {e.area for e in params}
    assert all("bool" not in entry_line(e, cite="[2]").split(":")[0] for e in params)


def test_one_api_pages_many_equal_markers_do_not_crowd_out_the_others():
    """Three API pages mark 2.3.0 additions with equal score: six on one page, one each on two others. The pages take
    turns, so the first three headlines name all three pages whatever their order."""
    pages = [("http://h/api/a.html", "acme.a", "doc", None,
              [_ch("added", "2.3.0", f"acme.a.f{i}(x) — Computes the value number {i}.", ["acme.a"], api=f"acme.a.f{i}")
               for i in range(6)]),
             ("http://h/api/b.html", "acme.b", "doc", None,
              [_ch("added", "2.3.0", "acme.b.g(x) — Loads the trusted certificates.", ["acme.b"], api="acme.b.g")]),
             ("http://h/api/c.html", "acme.c", "doc", None,
              [_ch("added", "2.3.0", "acme.c.h(x) — Returns the unique elements.", ["acme.c"], api="acme.c.h")])]
    lead = headline_entries(_finish(pages), limit=3)
    assert sorted(e.citations[0][0].rsplit("/", 1)[1] for e in lead) == ["a.html", "b.html", "c.html"], lead


def test_a_reference_of_titled_deprecations_does_not_lead_the_release_s_new_features():
    """A deprecations page (a section per deprecation, every release's, each with its history) and API pages whose
    markers add 2.3.0's features, no release notes with highlights or feature sections: the new features take turns
    with the deprecations from the first headline on, rather than every deprecation first."""
    deps = [_ch("deprecated", "2.3.0", f"DEP00{i}: acme.old{i}() — End-of-Life.", ["Deprecated APIs", f"DEP00{i}: acme.old{i}()"])
            for i in range(6)]
    api = [_ch("added", "2.3.0", f"acme.new{i}(x) — Returns the new value number {i}.", ["acme"], api=f"acme.new{i}")
           for i in range(6)]
    lead = headline_entries(_finish([("http://h/deprecations.html", "Deprecated APIs", "change", None, deps),
                                     ("http://h/api/acme.html", "acme", "doc", None, api)]), limit=6)
    assert lead[0].kind == "added" and {e.kind for e in lead[:2]} == {"added", "deprecated"}, [e.text for e in lead]
    assert sum(e.kind == "added" for e in lead) == 3
