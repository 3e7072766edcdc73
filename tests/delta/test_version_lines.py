"""Version lines: component change pages counted in their own numbers, API markers in the suite's (pure)."""

from datetime import date

import pytest

from synth.delta.changes import read_changes
from synth.delta.cleaning import clean_text
from synth.delta.ledger import Ledger, version_stamp
from synth.delta.numberings import page_label, place_page, version_label
from synth.delta.render import fold_patches, version_lines
from synth.delta.timeline import Timeline, VersionStatus
from tests.delta.test_ledger import _ch

CUTOFF = date(2022, 1, 1)
TODAY = date(2026, 6, 1)


@pytest.mark.parametrize("text, version, label", [
    ("1.5 CORELIB 4.0", "4.0", "CORELIB"),
    ("frob(List) -> List2 SUITE 25.0", "25.0", "SUITE"),
    ("What's New In Acme 2.3", "2.3", "Acme"),
    ("Acme 2.8.0 (2023-02-02)", "2.8.0", "Acme"),
    ("Version 2.1", "2.1", ""),
    ("New in version 3.11", "3.11", ""),
    ("Changes in 2.8.0", "2.8.0", ""),
    ("2.3.0", "2.3.0", ""),
    ("Release v1.4", "1.4", ""),
    ("Acme 2.30", "2.3", ""),  # another version
])
def test_version_label(text, version, label):
    assert version_label(text, version) == label


@pytest.mark.parametrize("sections, label", [
    ([("CORELIB 4.0", "4.0"), ("CORELIB 3.9", "3.9"), ("CORELIB 3.8", "3.8")], "CORELIB"),
    ([("Version 4.0", "4.0"), ("Version 3.9", "3.9")], ""),
    ([("CORELIB 4.0", "4.0"), ("4.1", "4.1"), ("4.2", "4.2")], ""),  # most sections carry no label
])
def test_page_label(sections, label):
    assert page_label(sections) == label


EARLIEST = {"lists:enumerate": "25.0", "lists.enumerate": "25.0", "maps:map": "17.0", "net:ping": "25.1"}


def test_a_foreign_page_is_bounded_by_the_apis_its_sections_name():
    sections = {
        "4.1": ["Fixed a crash in net:ping/1 when the host is down."],
        "4.0.1": ["A fix."],
        "4.0": ["Add lists:enumerate/[1,2].", "maps:map/2 is faster."],
        "3.17.2.1": ["net:ping/1 backported to the old series."],  # a maintenance release: bounds nothing
        "3.17": ["The shell prints maps sorted."],
        "3.16": ["maps:map/2 accepts iterators."],  # a lower bound, not a decisive one
    }
    placed = place_page("CORELIB", "SUITE", sections, EARLIEST)
    assert placed["4.0"].bound == "25.0" and "lists:enumerate" in placed["4.0"].why
    assert placed["4.0.1"].bound == "25.0" and placed["4.0.1"].why.startswith("newer than CORELIB 4.0")
    assert placed["4.1"].bound == "25.1"
    assert placed["3.17"].bound == "17.0" and placed["3.17"].why.startswith("newer than CORELIB 3.16")
    assert placed["3.17.2.1"].bound == "17.0"  # its own net:ping (25.1) bounds nothing: not a series start
    assert placed["3.16"].bound == "17.0"
    assert placed["3.16"].bound == "17.0"
    assert placed["4.0"].shown == "CORELIB 4.0"


@pytest.mark.parametrize("label, line", [("", "SUITE"), ("SUITE", "SUITE"), ("suite", "SUITE"), ("CORELIB", "")])
def test_a_page_on_the_markers_line_is_not_placed(label, line):
    assert place_page(label, line, {"25.0": ["Add lists:enumerate/1."]}, EARLIEST) == {}


def _suite_site(n_markers=12):
    """A suite: one component's notes in the component's numbers; API pages marked in the suite's."""
    notes = [
        _ch("added", "4.0", "Add lists:enumerate/[1,2]. Own Id: TRK-17523 Aux Id: PR-4928",
            path=["CORELIB Release Notes", "1.2 CORELIB 4.0", "Improvements and New Features"]),
        _ch("fixed", "4.0", "The parser no longer crashes on empty input files.",
            path=["CORELIB Release Notes", "1.2 CORELIB 4.0", "Fixed Bugs and Malfunctions"]),
        _ch("added", "3.17", "Old feature of the previous suite release, long known.",
            path=["CORELIB Release Notes", "1.3 CORELIB 3.17", "Improvements and New Features"]),
        _ch("added", "4.1", "Add the frobnicate option to the loader.",
            path=["CORELIB Release Notes", "1.1 CORELIB 4.1", "Improvements and New Features"]),
    ]
    api = [_ch("added", "25.0", "enumerate(List1) -> List2 SUITE 25.0 Returns the list numbered.",
               heading="enumerate(List1) -> List2 SUITE 25.0", path=["lists", "Exports", "enumerate(List1) -> List2 SUITE 25.0"],
               api="enumerate")]
    api += [_ch("added", f"{17 + i % 5}.0", f"fun{i}(X) -> Y SUITE {17 + i % 5}.0 Does thing {i}.",
                heading=f"fun{i}(X) -> Y SUITE {17 + i % 5}.0", path=["lists", "Exports", f"fun{i}"], api=f"fun{i}")
            for i in range(n_markers)]
    led = Ledger()
    led.observe("http://h/corelib/notes.html", "CORELIB Release Notes", "change", None, 0.9, read_changes(notes))
    led.observe("http://h/corelib/lists.html", "lists", "doc", None, 0.9, read_changes(api))
    return led


def test_since_version_of_the_suite_places_component_sections_by_the_apis_they_name():
    d = _suite_site().finish(Timeline(TODAY, since="24"), CUTOFF)
    versions = {e.version for e in d.post}
    assert {"CORELIB 4.0", "CORELIB 4.1", "25.0"} <= versions and "CORELIB 3.17" not in versions
    st = d.states["CORELIB 4.0"]
    assert st.state == "post" and st.bound == "SUITE 25.0" and "lists:enumerate" in st.how
    assert d.states["CORELIB 3.17"].state == "pre" and "not shown to be newer" in d.states["CORELIB 3.17"].how
    e = next(e for e in d.post if e.text.startswith("Add lists:enumerate"))
    assert e.text == "Add lists:enumerate/[1,2]." and e.area == "CORELIB" and e.label() == "Added in CORELIB 4.0"
    marker = next(e for e in d.post if e.version == "25.0")
    assert "SUITE 25.0" not in marker.text  # the heading's own stamp is left to the label
    assert version_lines(d)[0].startswith("- **25.0**")


def test_without_since_or_dates_component_sections_stay_undated_not_known():
    d = _suite_site().finish(Timeline(TODAY), CUTOFF)
    assert not any(e.version.startswith("CORELIB") for e in d.post)
    assert d.states["CORELIB 4.0"].state == "undated" and d.states["CORELIB 3.17"].state == "undated"


def test_a_dated_suite_version_places_the_component_section_after_the_cutoff():
    tl = Timeline(TODAY)
    tl.add("25.0", "2022-05-18", "test")
    d = _suite_site().finish(tl, CUTOFF)
    st = d.states["CORELIB 4.0"]
    assert st.state == "post" and st.date == date(2022, 5, 18)
    assert st.label() == "CORELIB 4.0, at least SUITE 25.0, released on or after 2022-05-18"


def test_too_few_markers_name_no_line():
    d = _suite_site(n_markers=2).finish(Timeline(TODAY, since="24"), CUTOFF)
    assert "CORELIB 4.0" not in d.states  # compared as bare numbers, as before: 4.0 is known by 24
    assert d.states["4.0"].state == "pre"


def test_a_docs_version_stamp_is_not_a_release_section():
    stamp = read_changes([_ch("release", "25.2.3", "The navigation menu is at the top.", path=["Acme/Suite 25.2.3"]),
                          _ch("release", "25.2.3", "Use any editor you like.", path=["Acme/Suite 25.2.3", "Editors"])])
    assert version_stamp(stamp) == "25.2.3"
    two = read_changes([_ch("release", "2.3", "x", path=["Changes", "2.3"]), _ch("release", "2.2", "y", path=["Changes", "2.2"])])
    assert version_stamp(two) is None
    led = Ledger()
    led.observe("http://h/doc/", "Acme/Suite 25.2.3", "doc", None, 0.9, stamp)
    d = led.finish(Timeline(TODAY, since="24"), CUTOFF)
    assert not d.post and any("version stamp" in k for k in d.skipped)


@pytest.mark.parametrize("raw, clean", [
    ("Add new API function feat:configurable/0 Own Id: TRK-18199 Aux Id: PR-5790.", "Add new API function feat:configurable/0"),
    ("Fix the thing in the parser. Own Id: TRK-17627", "Fix the thing in the parser."),
    ("Support for streaming bodies is added. Refs: ABC-12, ABC-13", "Support for streaming bodies is added."),
    ("Fix a crash in the planner (Ada Lovelace) [](https://acme.dev/c/2e33) [](https://acme.dev/c/9f1a)",
     "Fix a crash in the planner (Ada Lovelace)"),
    ("Keep Id: this text that is long enough to matter here", "Keep Id: this text that is long enough to matter here."),
])
def test_tracker_reference_tails_are_cleaned(raw, clean):
    assert clean_text(raw) == clean


def test_patch_releases_fold_under_their_series():
    def st(v, bound="SUITE 25.0"):
        return VersionStatus(v, "post", None, "at least SUITE 25.0: x", bound)

    folded = fold_patches([st("CORELIB 4.0.2"), st("CORELIB 4.0.1"), st("CORELIB 4.0"), st("25.0", None), st("25.0.1", None)])
    assert [(s.version, [p.version for p in ps]) for s, ps in folded] == [
        ("CORELIB 4.0", ["CORELIB 4.0.2", "CORELIB 4.0.1"]), ("25.0", ["25.0.1"])]
    # a patch release whose series opener is not listed stands alone
    assert [s.version for s, _ in fold_patches([st("3.11.2", None), st("3.12", None)])] == ["3.11.2", "3.12"]
    # pre-releases belong to their release too
    assert [(s.version, [p.version for p in ps]) for s, ps in fold_patches([st("3.11", None), st("3.11.0rc1", None)])] == [
        ("3.11", ["3.11.0rc1"])]


@pytest.mark.parametrize("version, since, known", [
    ("3.24.5", "3.24", True),  # a patch release of the series it names
    ("3.25", "3.24", False),
    ("24.3", "24", True),
    ("25.0", "24", False),
    ("8.6.0.4", "8.6", False),  # a build numbered after 8.6.0: on the way to the next release
    ("8.6.0.4", "8.6.0", False),
    ("8.6.0.0", "8.6", True),
    ("8.6.1.2", "8.6", True),  # a build of a patch release: the series rule
    ("8.5.0.4", "8.6", True),
    ("2.0.0.1", "2.0.0.1", True),
])
def test_what_a_since_version_knows(version: str, since: str, known: bool) -> None:
    from synth.delta.versions import known_by, parse_version

    v, s = parse_version(version), parse_version(since)
    assert v is not None and s is not None and known_by(v, s) is known


def test_past_twenty_versions_the_ones_with_the_most_changes_keep_their_lines() -> None:
    """A major release with many changes and twenty later minor releases: the major one is listed, the minor one with
    the fewest changes is named on the last line."""
    led = Ledger()
    rows = [{"kind": "added", "version": "18.0.0", "text": f"Add the frob{i} option to the knob command of the tool."}
            for i in range(30)]
    for minor in range(1, 21):
        rows += [{"kind": "added", "version": f"18.{minor}.0", "text": f"Add the knob{minor}x{i} option to the frob command."}
                 for i in range(1 if minor == 5 else 2)]
    led.observe("http://h/changelog.html", "Changelog", "change", None, 0.9, read_changes(rows))
    lines = version_lines(led.finish(Timeline(TODAY, since="17"), CUTOFF))
    assert len(lines) == 21 and any(line.startswith("- **18.0.0**") for line in lines), lines
    assert [line.split("**")[1] for line in lines[:2]] == ["18.20.0", "18.19.0"]  # newest first, as before
    assert lines[-1] == "- and 1 more with fewer changes: 18.5.0 (every one in the reference files)"
