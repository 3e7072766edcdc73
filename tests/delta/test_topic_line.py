"""The topic's version line: which versions the change entries name are releases of the topic, and why (pure)."""

from datetime import date

import pytest

from synth.delta.changes import read_changes
from synth.delta.ledger import Ledger
from synth.delta.timeline import Timeline
from synth.delta.topic_line import Stamps, announced, bound_product, only_announced_sections, own_names, stamp_of, stated_under
from tests.delta.test_ledger import _ch

CUTOFF = date(2022, 1, 1)
TODAY = date(2026, 6, 1)
OWN = own_names("acme", ["Acme", "SUITE"])


@pytest.mark.parametrize("text, version, product", [
    ("The PTX library. Introduced in CUDA 11.1 This is a static library only.", "11.1", "CUDA 11.1"),
    ("Requires compiler >= 4.8.0 to build.", "4.8.0", "compiler >= 4.8.0"),
    ("The driver now requires PostgreSQL 11.", "11", "PostgreSQL 11"),
    ("The flag was introduced in MySQL 5.6. With this set, …", "5.6", "MySQL 5.6"),
    ("The dataclasses module, added in Python 3.7, provides a decorator.", "3.7", "Python 3.7"),
    ("The themed widgets, introduced in Tk 8.5.", "8.5", "Tk 8.5"),
    ("Needs pytest >= 5.3.1.", "5.3.1", "pytest >= 5.3.1"),
    # the topic's own versions
    ("New in version 3.2.", "3.2", None),
    ("Added in Acme 3.25: the frob command.", "3.25", None),
    ("f(X) -> Y SUITE 25.0", "25.0", None),
    ("Added in: v18.0.0", "18.0.0", None),
    ("The frob command requires 2.3 or later.", "2.3", None),  # a lowercase word names no product
    ("Changed in version 3.2: works with CUDA 3.2 too.", "3.2", None),  # one place names it bare
    ("The frob command gained a signature.", "3.25", None),  # the text does not name it: the crawl's evidence stands
])
def test_a_version_bound_to_another_product(text, version, product):
    assert bound_product(text, version, OWN) == product


@pytest.mark.parametrize("text, version, phrase", [
    ("erts_alloc_config:_/_ (this module will be removed in SUITE 26.0. See the documentation)", "26.0",
     "will be removed in SUITE 26.0"),
    ("The default will change in 1.4 to raise.", "1.4", "will change in 1.4"),
    ("Support is scheduled for removal in 3.0.", "3.0", "scheduled for removal in 3.0"),
    ("The old API is to be removed in 4.0.", "4.0", "to be removed in 4.0"),
    ("This becomes the default in the upcoming 5.0 release.", "5.0", "upcoming 5.0"),
    ("Deprecated since 1.4, will be removed in 2.0.", "1.4", None),  # the deprecation's own version
    ("New in version 3.0.", "3.0", None),
    ("Removed in 3.0; it was deprecated in 2.5 and will be gone.", "3.0", None),
    # the version opens a clause whose verb is future
    ("They remain importable in Acme 5.36; as of Acme 5.38 they will only be importable from acme.util.", "5.38",
     "as of Acme 5.38 they will"),
    ("Starting with 4.0 this will raise TypeError.", "4.0", "Starting with 4.0 this will"),
    ("Deprecated as of 0.25 and will be removed in a future version.", "0.25", None),  # 0.25 is the deprecation's
    ("From 2.1, the option will still be accepted.", "2.1", None),
    ("As of 3.0, frob() returns a list.", "3.0", None),
])
def test_a_version_only_announced(text, version, phrase):
    assert announced(text, version) == phrase


@pytest.mark.parametrize("title, stamp", [
    ("FindFoo — Acme 3.25.1 Documentation", ("Acme", "3.25.1")),
    ("asyncio — Acme 3.11.2 documentation", ("Acme", "3.11.2")),
    ("File system | Acme.js v18.13.0 Documentation", ("Acme.js", "18.13.0")),
    ("What’s New in Acme 1.4? — Acme 1.4 Documentation", ("Acme", "1.4")),
    ("Acme 3.2 release notes", None),
    ("Installing Acme", None),
    ("QFile Class | Acme Core 5.15.8", ("Acme", "5.15.8")),  # the title's last part: the product and its version alone
    ("Migrating to 6.0 | Acme", None),
    ("Acme 5.15", None),  # a title that is only a name and a version: a release's own page, no stamp
    ("Release notes — 2.3", None),  # no product's name
])
def test_the_docs_own_version_stamp(title, stamp):
    assert stamp_of(title) == stamp


def test_the_stamp_most_pages_carry_is_the_site_version():
    s = Stamps()
    for i in range(8):
        s.observe(f"page {i} — Acme 3.25.1 Documentation")
    s.observe("Acme 3.24 Release Notes")
    s.observe("Index")
    assert s.site_version() == ("Acme", "3.25.1")
    few = Stamps()
    for i in range(3):
        few.observe(f"page {i} — Acme 3.25.1 Documentation")
    assert few.site_version() is None  # too few pages to tell


@pytest.mark.parametrize("path, version, under", [
    (["Deprecations", "Functions Deprecated in SUITE 25"], "26.0", "25"),
    (["Changes", "3.1"], "4.0", "3.1"),
    (["Changes in 2.8.0", "Deprecations"], "3.0", "2.8.0"),
    (["1.5 Deprecated functions"], "2.0", None),  # a section number is no version
    (["Scheduled for removal", "SUITE 26"], "26", None),  # the announced version itself
])
def test_the_release_a_scheduled_removal_is_stated_under(path, version, under):
    assert stated_under(path, version) == under


def _run(pages, tl, topic="acme", titles=()):
    led = Ledger(topic=topic)
    for t in titles:
        led.stamps.observe(t)
    for url, title, kind, version, changes in pages:
        led.stamps.observe(title)
        led.observe(url, title, kind, version, 0.9, read_changes(changes))
    site = led.stamps.site_version()
    tl.site_version = site[1] if site else None
    tl.settle()
    return led.finish(tl, CUTOFF)


NOTES = ("http://h/release/3.25.html", "Acme 3.25 Release Notes — Acme 3.25.1 Documentation", "change", "3.25",
         [_ch("release", "3.25", "The try_compile command gained a signature.", path=["Acme 3.25 Release Notes", "Commands"])])


def test_another_products_versions_are_no_releases_with_since_version():
    module = ("http://h/module/FindFoo.html", "FindFoo — Acme 3.25.1 Documentation", "doc", None,
              [_ch("added", "11.1", "The nvPTX library. Introduced in CUDA 11.1 This is a static library only."),
               _ch("added", "10.0", "The header-only NVTX library. Introduced in CUDA 10.0."),
               _ch("added", "3.25", "New in version 3.25: the FooTargets variable.")])
    d = _run([NOTES, module], Timeline(TODAY, since="3.24"))
    assert {e.version for e in d.post} == {"3.25"}
    assert not d.undated
    rows = {r["version"]: r for r in d.version_line}
    assert rows["11.1"] == {"version": "11.1", "release": False, "why": "another product's version (CUDA 11.1)"}
    assert rows["3.25"]["release"] and "heads a section of a change page" in rows["3.25"]["why"]


def test_an_announced_removal_is_a_deprecation_of_the_release_it_is_under():
    dep = ("http://h/general/deprecations.html", "Deprecations", "doc", None,
           [_ch("removed", "26.0", "frob:_/_ (this module will be removed in SUITE 26.0. See the documentation)",
                path=["Deprecations", "Functions Deprecated in SUITE 25"]),
            _ch("removed", "27", "The old protocol will be removed in SUITE 27.", path=["Scheduled for Removal"])])
    d = _run([dep], Timeline(TODAY, since="24"), topic="suite")
    (e,) = d.post
    assert (e.version, e.kind, e.removed_in) == ("25", "deprecated", "26.0")
    assert e.label() == "Deprecated in 25, removal scheduled for 26.0"
    rows = {r["version"]: r for r in d.version_line}
    assert not rows["26.0"]["release"] and rows["26.0"]["why"].startswith("only announced (will be removed in SUITE 26.0")
    assert not rows["27"]["release"] and "27" not in d.states


def test_a_one_letter_topic_is_its_own_name():
    own = own_names("r", [])
    assert bound_product("Windows packages. From R 4.2.0, they always contain only the 64-bit build.", "4.2.0", own) is None
    assert bound_product("Needs CUDA 11.1 at least.", "11.1", own) == "CUDA 11.1"
    assert "a" not in own_names("a", []) and "x" not in own_names("x y", [])  # a generic word, a letter among words


@pytest.mark.parametrize("sections,expected", [
    ([("5.40", "This usage has been deprecated, and will be fatal in Acme 5.40."), ("5.40", "Once a second declaration …")],
     {"5.40": "will be fatal in Acme 5.40"}),
    ([("5.40", "will be fatal in Acme 5.40"), ("5.40", "Acme 5.40 adds the frobnicator.")], {}),  # stated as existing too
    ([("2.3", "The frobnicate() call accepts a timeout.")], {}),  # an entry that does not name its version says nothing
])
def test_a_section_that_only_announces_its_version(sections, expected):
    assert only_announced_sections(sections) == expected


def test_a_change_page_section_that_only_announces_its_version_is_no_release():
    deprecations = ("http://h/acmedeprecation.pod", "acmedeprecation - list Acme deprecations", "change", None,
                    [_ch("release", "5.40", "Downgrading a use VERSION below 5.11 is deprecated.",
                         path=["acmedeprecation", "Acme 5.40", "Downgrading a use VERSION"]),
                     _ch("release", "5.40", "This usage has been deprecated, and will be fatal in Acme 5.40.",
                         path=["acmedeprecation", "Acme 5.40", "Downgrading a use VERSION"])])
    d = _run([NOTES_ACME, deprecations], Timeline(TODAY, since="5.34"))
    assert {e.version for e in d.post + d.undated} == {"5.36"}
    rows = {r["version"]: r for r in d.version_line}
    assert not rows["5.40"]["release"] and rows["5.40"]["why"].startswith("only announced (its section only announces it")


NOTES_ACME = ("http://h/acme5360delta.pod", "acmedelta - what is new for acme v5.36.0", "change", "5.36",
              [_ch("release", "5.36", "The 5.36 bundle enables the signatures feature.", path=["acmedelta", "Core Enhancements"])])


def test_a_version_beyond_the_docs_own_version_is_no_release():
    migration = ("http://h/changelog/migration_20.html", "Migrating to Acme 2.0 — Acme 1.4 Documentation", "change", "2.0",
                 [_ch("release", "2.0", "The select() construct no longer accepts keyword arguments.", path=["Migrating to Acme 2.0"])])
    whatsnew = ("http://h/changelog/migration_14.html", "What's New in Acme 1.4? — Acme 1.4 Documentation", "change", "1.4",
                [_ch("release", "1.4", "The Result object is a named tuple now.", path=["What's New in Acme 1.4?"])])
    pages = [("http://h/p%d.html" % i, "Page %d — Acme 1.4 Documentation" % i, "doc", None, []) for i in range(6)]
    tl = Timeline(TODAY)
    tl.add("1.4.0", "2022-03-15", "test")
    tl.declare("2.0")
    d = _run([*pages, migration, whatsnew], tl)
    assert [e.version for e in d.post] == ["1.4"] and not d.undated
    rows = {r["version"]: r for r in d.version_line}
    assert not rows["2.0"]["release"] and "newer than the docs' own version 1.4" in rows["2.0"]["why"]


def test_a_stale_stamp_bounds_nothing():
    tl = Timeline(TODAY, since="1.0")
    tl.site_version = "1.0"
    for v in ("1.5", "2.0", "2.5"):
        tl.declare(v)
    assert tl.status("2.5", CUTOFF).state == "post"  # two or more newer series declared: the stamp is stale
    tl2 = Timeline(TODAY, since="1.0")
    tl2.site_version = "1.0"
    tl2.declare("1.1")
    assert tl2.status("1.1", CUTOFF).state == "undated" and "docs' own version" in tl2.status("1.1", CUTOFF).how
    tl2.add("1.1", "2023-01-01", "test")
    tl2._cache.clear()
    assert tl2.status("1.1", CUTOFF).state == "post"  # dated: a release whatever the stamp


def test_the_bundle_reasons_once_for_the_skill_and_the_sources(tmp_path):
    """Through the real bundle: pages stamped "Acme 3.25.1 Documentation", release notes of 3.25, a module page whose
    markers name CUDA's versions. The ledger leaves CUDA's versions out, and the sources' own change entries (what a
    model is given) carry the same verdict."""
    from synth.pipeline.bundle import Subject, rank_sources
    from tests.pipeline.corpus import make_item, write_jsonl

    kw = {"published": "2026-10-07", "topic": "acme", "cutoff": "2022-10"}
    items = [make_item(f"http://docs.acme.example/p{i}.html", excerpts=[f"Page {i} about acme."],
                       title=f"Page {i} — Acme 3.25.1 Documentation", **kw) for i in range(8)]
    notes = make_item("http://docs.acme.example/release/3.25.html", title="Acme 3.25 Release Notes — Acme 3.25.1 Documentation",
                      excerpts=["The try_compile command gained a signature."], **kw)
    notes.update(page_kind="change", page_version="3.25",
                 changes=[_ch("release", "3.25", "The try_compile command gained a signature.", path=["Acme 3.25 Release Notes"])])
    module = make_item("http://docs.acme.example/module/FindFoo.html", title="FindFoo — Acme 3.25.1 Documentation",
                       excerpts=["The nvPTX library. Introduced in CUDA 11.1"], **kw)
    module.update(page_kind="doc", changes=[_ch("added", "11.1", "The nvPTX library. Introduced in CUDA 11.1 This is static.")])
    feed = write_jsonl(tmp_path / "run.jsonl", [*items, notes, module])
    ranked = rank_sources([str(feed)], cutoff_start=date(2022, 10, 1), today=date(2026, 11, 1),
                          subject=Subject("acme", since_version="3.24"))
    assert {e.version for e in ranked.changes.post} == {"3.25"}
    rows = {r["version"]: r for r in ranked.changes.version_line}
    assert rows["11.1"]["release"] is False
    src = next(c for c in ranked.candidates if c.url.endswith("FindFoo.html"))
    (ch,) = src.changes
    assert not ch.post and ch.status.how == "not a release of the topic: another product's version (CUDA 11.1)"


@pytest.mark.parametrize("heading, version, name", [
    ("Python SDK 2.0.0", "2.0.0", "Python SDK"),
    ("Release notes for TypeScript SDK v2.0.0", "2.0.0", "TypeScript SDK"),
    ("What's New In Acme 2.3", "2.3", "Acme"),
    ("Version 2.1", "2.1", ""),
    ("2.3.0", "2.3.0", ""),
])
def test_the_line_a_heading_names(heading, version, name):
    from synth.delta.topic_line import line_name

    assert line_name(heading, version) == name


def test_several_version_lines_keep_their_products_names():
    changelog = ("http://h/changelog.html", "Changelog", "change", None, [
        _ch("release", "2.0.0", "The SSEServerTransport class is removed.", path=["Changelog", "Python SDK 2.0.0", "Removed"]),
        _ch("release", "2.0.0", "Streamable HTTP is the default transport.", path=["Changelog", "TypeScript SDK 2.0.0"]),
        _ch("release", "1.9.0", "An older change of the resources API.", path=["Changelog", "Python SDK 1.9.0"]),
    ])
    d = _run([changelog], Timeline(TODAY, since="1.9"), topic="mcp")
    assert {e.version for e in d.post} == {"Python SDK 2.0.0", "TypeScript SDK 2.0.0"}
    assert {s.version for s in d.post_versions()} == {"Python SDK 2.0.0", "TypeScript SDK 2.0.0"}
    removed = next(e for e in d.post if e.version.startswith("Python"))
    assert removed.label() == "Removed in Python SDK 2.0.0"


def test_a_links_address_is_not_read_for_a_product():
    text = ("The [flag](https://dev.example.com/doc/refman/5.6/en/vars.html#x) configuration flag introduced in MySQL 5.6 "
            "changes it.")
    assert bound_product(text, "5.6", OWN) == "MySQL 5.6"


def test_a_docs_index_stamping_its_own_version_bounds_the_line(tmp_path):
    """No title stamps a version, but the docs index heads itself "Suite 25.2.3": an announced "SUITE 26" section of a
    page about upcoming changes is beyond it and nothing dates it — no release, also with --since-version."""
    from synth.pipeline.bundle import Subject, rank_sources
    from tests.pipeline.corpus import make_item, write_jsonl

    kw = {"published": "2026-10-07", "topic": "suite", "cutoff": "2022-04"}
    index = make_item("http://docs.suite.example/index.html", title="Suite 25.2.3", excerpts=["Suite 25.2.3 docs."], **kw)
    index.update(page_kind="doc", changes=[_ch("release", "25.2.3", "The documentation of the whole suite, with guides.",
                                                path=["Suite 25.2.3"])])
    upcoming = make_item("http://docs.suite.example/general/upcoming.html", title="Upcoming Incompatibilities",
                         excerpts=["As of SUITE 26, the new link protocol becomes mandatory."], **kw)
    upcoming.update(page_kind="doc", changes=[
        _ch("release", "26", "As of SUITE 26, the new link protocol becomes mandatory for every node.", path=["Upcoming", "SUITE 26"]),
        _ch("release", "26", "Atoms are encoded as UTF-8 by default in the external term format.", path=["Upcoming", "SUITE 26"])])
    api = make_item("http://docs.suite.example/lib/lists.html", title="lists", excerpts=["enumerate/1. Since: SUITE 25.0"], **kw)
    api.update(page_kind="doc", changes=[_ch("added", "25.0", "enumerate(List) -> Pairs. Since: SUITE 25.0", api="lists.enumerate")])
    feed = write_jsonl(tmp_path / "run.jsonl", [index, upcoming, api])
    ranked = rank_sources([str(feed)], cutoff_start=date(2022, 4, 1), today=date(2026, 11, 1),
                          subject=Subject("suite", since_version="24"))
    assert {e.version for e in ranked.changes.post} == {"25.0"}
    rows = {r["version"]: r for r in ranked.changes.version_line}
    assert not rows["26"]["release"] and "newer than the docs' own version 25.2.3" in rows["26"]["why"]
