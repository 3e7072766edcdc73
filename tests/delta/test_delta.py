"""The delta's pure parts: versions, the timeline and boundary, change entries, page freshness, relevance."""

from collections import Counter
from datetime import date

import pytest

from synth.delta.changes import Change, HostDates, classify, entry_score, page_freshness, read_changes
from synth.delta.timeline import Timeline
from synth.delta.versions import parse_version, series, starts_series
from synth.evidence.relevance import BM25, is_boilerplate, query_terms, rank_texts
from synth.pipeline.bundle import Bundle, BundleDelta, fair_shares
from synth.pipeline.extractive import _entry_text, _label

TODAY = date(2026, 11, 29)


@pytest.mark.parametrize("text, expected", [
    ("3.11", "3.11"), ("v2.0.0", "2.0.0"), ("3.11.0 alpha 1", "3.11.0a1"), ("Python 3.11.0 beta 2", "3.11.0b2"),
    ("3.11.0rc1", "3.11.0rc1"), ("Version 3.2", "3.2"), ("2.0.0 (2026-04-20)", "2.0.0"), ("next", None), ("", None),
    # a decimal version: its fraction in groups of three digits (never newer than 5.36 because 305 > 36)
    ("5.00305", "5.3.50"), ("5.008001", "5.8.1"), ("v5.0050", "5.5.0"), ("1.05", "1.5"), ("2.010", "2.10"), ("5.003", "5.3"),
])
def test_parse_version_tolerates_prose(text, expected):
    v = parse_version(text)
    assert (str(v) if v else None) == expected


@pytest.mark.parametrize("text, ser, starts", [("3.11", (3, 11), True), ("3.11.0", (3, 11), True), ("3.11.2", (3, 11), False),
                                               ("3.11.0rc1", (3, 11), False), ("4", (4, 0), True)])
def test_series_and_series_start(text, ser, starts):
    v = parse_version(text)
    assert series(v) == ser and starts_series(v) is starts


def _timeline(*rows, declared=()):
    t = Timeline(TODAY)
    for v, d, src in rows:
        t.add(v, d, src)
    for v in declared:
        t.declare(v)
    return t


PY = [("3.9", "2020-10-05", "page"), ("3.10", "2021-10-04", "page"), ("3.11.0", "2022-10-24", "changelog"),
      ("3.11.0a1", "2021-10-05", "changelog"), ("3.12.0", "2023-10-02", "pypi")]


@pytest.mark.parametrize("version, cutoff, state, how", [
    ("3.11", date(2022, 1, 1), "post", "series start 3.11.0"),       # 3.11.0 dates 3.11
    ("3.11", date(2023, 1, 1), "pre", "series start"),
    ("3.10", date(2021, 10, 1), "post", "dated"),                    # released in the cutoff month: known only partly
    ("3.10", date(2021, 11, 1), "pre", "dated"),
    ("3.10", date(2021, 9, 1), "post", "dated"),
    ("3.11.4", date(2022, 1, 1), "post", "after 3.11.0"),            # a later patch of a post-cutoff series
    ("3.11.4", date(2023, 1, 1), "undated", "no known date"),        # could be either side: never fresh
    ("3.13", date(2022, 1, 1), "post", "after 3.12.0"),              # a newer series than a post-cutoff one the site names
    ("3.13", date(2024, 1, 1), "undated", "no known date"),
    ("2.6", date(2022, 1, 1), "pre", "before 3.9"),                  # an older series than a pre-cutoff one
    ("nonsense", date(2022, 1, 1), "undated", "not a version"),
    ("3.14", date(2022, 1, 1), "undated", "unverified: newer than every known version (3.13)"),  # never released
    ("99.0", date(2022, 1, 1), "undated", "unverified"),
    ("3.13.1", date(2022, 1, 1), "undated", "unverified"),
])
def test_version_status(version, cutoff, state, how):
    st = _timeline(*PY, declared=["3.13"]).status(version, cutoff)
    assert st.state == state and how in st.how, st


@pytest.mark.parametrize("version, declared, plausible", [
    ("3.0", [], True), ("3.0.0", [], True), ("2.9", [], True), ("3.0.1", [], False), ("3.1", [], False),
    ("99.0", [], False), ("99.0", ["99.0"], True), ("3.1", ["3.1.0"], True), ("not a version", [], False),
    ("3.0rc1", [], True),
])
def test_a_version_newer_than_every_known_one_is_not_plausible(version, declared, plausible):
    t = _timeline(("2.0", "2024-03-01", "pypi"), ("3.0", "2026-03-01", "changelog"), declared=declared)
    assert t.plausible(version) is plausible
    assert Timeline(TODAY).plausible("99.0")  # nothing known: nothing to compare with


def test_a_never_released_version_is_unverified_not_post_cutoff():
    t = _timeline(("2.0", "2024-03-01", "pypi"), ("3.0", "2026-03-01", "changelog"))
    assert t.status("3.0", date(2026, 1, 1)).post
    st = t.status("99.0", date(2026, 1, 1))  # "New in version 99.0" on a site whose newest release is 3.0
    assert not st.post and st.date is None and st.label() == "99.0, undated" and "unverified" in st.how
    [c] = _changes(("added", "99.0", ""), cutoff=date(2026, 1, 1), timeline=t)
    assert not c.post
    f = page_freshness(date(2026, 10, 7), [c], build_dated=True, cutoff_start=date(2026, 1, 1), today=TODAY)
    assert not f.post_cutoff


def test_undated_version_between_known_ones_is_never_fresh():
    t = _timeline(("3.10", "2021-10-04", "page"), ("3.12", "2023-10-02", "page"))
    st = t.status("3.11", date(2022, 6, 1))  # 3.10 before, 3.12 after the cutoff: 3.11 could be either
    assert st.state == "undated" and st.date is None and not st.post


def test_a_newer_series_than_a_release_in_the_cutoff_month_is_post_cutoff():
    t = _timeline(("3.10", "2021-10-04", "page"), declared=["3.11"])  # the site's What's New in 3.11 names it
    assert t.status("3.11", date(2021, 10, 1)).state == "post"  # after 3.10, itself in the (partly known) cutoff month
    assert t.status("3.11", date(2021, 11, 1)).state == "undated"  # 3.10 known; 3.11 could be either side


def test_conflicting_dates_keep_the_earliest_plausible_and_record_all():
    t = _timeline(("2.0.0", "2026-05-01", "pypi"), ("2.0.0", "2026-04-20", "changelog"), ("2.0.0", "2027-01-01", "blog"),
                  ("2.0.0", "1970-01-01", "bogus"))
    [row] = t.entries()
    assert row["date"] == "2026-04-20" and row["source"] == "changelog" and len(row["sources"]) == 2 and row["conflict"]
    assert {r["reason"] for r in t.rejected} == {"in the future", "implausibly early"}


def test_boundary():
    b = _timeline(*PY).boundary(date(2022, 1, 1))
    assert b["last_pre_cutoff"]["version"] == "3.10" and b["first_post_cutoff"]["version"] == "3.11.0"
    assert b["post_cutoff_series"] == ["3.11", "3.12"] and b["post_cutoff_from"] == "2022-01-01" and "2022-01" in b["rule"]
    assert _timeline(*PY).boundary(date(2021, 10, 1))["last_pre_cutoff"]["version"] == "3.9"
    assert _timeline(*PY).boundary(date(2021, 11, 1))["last_pre_cutoff"]["version"] == "3.10"
    late = _timeline(*PY).boundary(date(2025, 1, 1))
    assert late["first_post_cutoff"] is None and late["post_cutoff_series"] == []


def _changes(*rows, page_kind="doc", cutoff=date(2022, 1, 1), timeline=None):
    raw = [{"kind": k, "version": v, "text": f"text {i} {v}", "heading": h} for i, (k, v, h) in enumerate(rows)]
    ch = read_changes(raw)
    classify(ch, timeline or _timeline(*PY, declared=["3.14"]), cutoff, page_kind)
    return ch


def test_read_changes_skips_malformed_entries():
    raw = [None, "x", {"kind": "bogus", "version": "1", "text": "t"}, {"kind": "added", "version": None, "text": "t"},
           {"kind": "added", "version": "3.11", "text": ""}, {"kind": "Added", "version": 3.11, "text": "x" * 5000, "removed_in": ""}]
    [c] = read_changes(raw)
    assert c.kind == "added" and c.version == "3.11" and len(c.text) == 1500 and c.removed_in is None
    assert read_changes("not a list") == []


def test_highlights_are_the_summary_or_first_section_of_a_change_page():
    ch = _changes(("release", "3.11", "Introduction"), ("release", "3.11", "New Features"), page_kind="change")
    assert [c.highlight for c in ch] == [True, False]
    # a highlights heading wins over the first-section rule
    ch = _changes(("release", "3.11", "Introduction"), ("release", "3.11", "Summary – Release highlights"), page_kind="change")
    assert [c.highlight for c in ch] == [False, True]
    assert [c.highlight for c in _changes(("added", "3.11", "foo"))] == [False]


@pytest.mark.parametrize("rows, build_dated, published, post, basis", [
    ([("added", "3.11", "")], True, "2026-10-07", True, "post-cutoff changes (3.11)"),
    ([("added", "3.9", "")], True, "2026-10-07", False, "only pre-cutoff versions"),   # old marker on a page built yesterday
    ([], True, "2026-10-07", False, "page date says nothing"),
    ([("added", "3.14", "")], True, "2026-10-07", True, "post-cutoff changes (3.14)"),   # newer series than 3.12.0, declared
    ([("added", "3.15", "")], True, "2026-10-07", False, "page date says nothing"),  # newer than every known version
    ([], False, "2026-10-07", True, "page date"),                                      # an honest page date still counts
    ([("added", "3.9", "")], False, "2020-01-01", False, "page date"),
    ([], False, None, False, "undated"),
])
def test_page_freshness(rows, build_dated, published, post, basis):
    f = page_freshness(date.fromisoformat(published) if published else None, _changes(*rows), build_dated=build_dated,
                       cutoff_start=date(2022, 1, 1), today=TODAY)
    assert f.post_cutoff is post and basis in f.basis, f


def test_strict_cutoff_drops_build_dated_pages_without_fresh_changes():
    f = page_freshness(date(2026, 10, 7), _changes(("added", "3.9", "")), build_dated=True,
                       cutoff_start=date(2022, 1, 1), today=TODAY, strict=True)
    assert f.drop_reason == "pre_cutoff_strict"


def test_host_dates_detect_build_dated_hosts():
    h = HostDates()
    for i in range(12):
        h.observe("docs.example", "2026-10-07" if i < 11 else "2026-01-01")
        h.observe("blog.example", f"2026-{1 + i % 9:02d}-01")
    for i in range(4):
        h.observe("tiny.example", "2026-10-07")
    assert h.build_dated() == {"docs.example": "2026-10-07"}


def test_change_labels_and_tags():
    c = Change(kind="deprecated", version="3.12", removed_in="3.14", text="use x")
    assert c.label() == "Deprecated in 3.12, removed in 3.14"
    [d] = _changes(("added", "3.11", ""))
    assert d.tag() == "[3.11, released 2022-10-24] Added" and d.render().endswith(": text 0 3.11")
    assert _label({"kind": "release", "version": "2.0"}) == "New in 2.0"


@pytest.mark.parametrize("excerpt, expected", [
    ("[3.11, released 2022-10-24] Added: Added the TaskGroup class. New in version 3.11.", "Added the TaskGroup class."),
    ("[3.12, released 2023-10-02] Deprecated: Deprecated since version 3.12, will be removed in version 3.14: use y.", "use y."),
    ("[3.11, released 2022-10-24] Changed: Changed in version 3.11: Added the foo parameter.", "Added the foo parameter."),
])
def test_entry_text_drops_the_tag_and_bare_markers(excerpt, expected):
    tag = excerpt.split(":", 1)[0]
    assert _entry_text(excerpt, tag) == expected


def test_bm25_ranks_the_matching_text_first_and_scores_zero_without_terms():
    texts = ["asyncio task groups run tasks together", "copyright notice of the foundation", "tasks tasks tasks and more"]
    rel = rank_texts("asyncio tasks", texts)
    assert rel[0] > rel[2] > rel[1] == 0.0
    bm = BM25(query_terms("python"))
    tf, n = bm.observe("python python python")
    assert bm.relevance(tf, n) > 0 and bm.relevance(Counter(), 5) == 0.0


def test_bm25_matches_the_reference_formula():
    bm = BM25(("cat",))
    a = bm.observe("cat sat")
    bm.observe("dog sat here now")
    import math

    idf = math.log(1 + (2 - 1 + 0.5) / (1 + 0.5))
    avg = 6 / 2
    expected = idf * 1 * 2.2 / (1 + 1.2 * (1 - 0.75 + 0.75 * 2 / avg))
    assert bm.score(*a) == pytest.approx(expected)


@pytest.mark.parametrize("url, title, boiler", [
    ("http://h/about.html", "About these documents", True), ("http://h/copyright.html", "", True),
    ("http://h/bugs.html", "Dealing with Bugs", True), ("http://h/genindex-A.html", "", True), ("http://h/search.html", "", True),
    ("http://h/glossary.html", "", True), ("http://h/py-modindex.html", "", True), ("http://h/x/", "Index — Foo", True),
    ("http://h/library/asyncio-task.html", "Coroutines and Tasks", False), ("http://h/whatsnew/3.11.html", "What's New", False),
    ("http://h/library/index.html", "The Python Standard Library", False), ("http://h/blog/about-asyncio", "About asyncio", False),
    ("http://h/indexes.html", "Index types in PostgreSQL", False), ("http://h/api/search-api", "Search API", False),
    ("http://h/s.html", "Search results — Docs", True), ("http://h/l.html", "License", True),
])
def test_boilerplate_prior(url, title, boiler):
    assert is_boilerplate(url, title) is boiler


@pytest.mark.parametrize("demands, budget, expected", [
    ([100, 100], 1000, [100, 100]), ([50, 5000], 1000, [50, 950]), ([600, 600, 30], 900, [435, 435, 30]), ([], 10, []),
])
def test_fair_shares(demands, budget, expected):
    assert fair_shares(demands, budget) == expected


@pytest.mark.parametrize("text, names", [
    ("class asyncio.TaskGroup — An asynchronous context manager", {"asyncio.TaskGroup", "TaskGroup"}),
    ("sys.set_int_max_str_digits(maxdigits)", {"sys.set_int_max_str_digits", "set_int_max_str_digits"}),
    ("Added the TaskGroup class to asyncio.", {"TaskGroup"}),
    ("plain words only here", set()),
])
def test_identifiers(text, names):
    from synth.delta.changes import identifiers

    assert identifiers(text) == names


def test_entry_selection_takes_the_best_entries_across_sources(tmp_path):
    """Over budget without a model: the best-scored change entries of all sources, each source's header paid once."""
    from synth.pipeline.bundle import Subject, rank_sources, select_evidence, source_tokens
    from tests.pipeline.corpus import make_item, write_jsonl

    def page(url, entries, title):
        it = make_item(url, published="2026-10-07", title=title, excerpts=[e[2] for e in entries], topic="quill")
        it["changes"] = [{"kind": k, "version": v, "text": t, "heading": h} for k, v, t, h in entries]
        it["build_date"] = "2026-10-07"
        return it

    filler = " ".join(["padding words"] * 60)
    whatsnew = page("http://d.example/whatsnew/2.0.html",
                    [("release", "2.0", f"Highlight {i}: quill feature number {i}.", "Summary – Release highlights") for i in range(5)]
                    + [("release", "2.0", f"Detail {i}. {filler}", "Improved Modules") for i in range(30)], "What's New In Quill 2.0")
    whatsnew["page_kind"] = "change"
    ref = page("http://d.example/library/crew.html", [("added", "2.0", "quill TaskCrew runs quill tasks together.", "TaskCrew")]
               + [("added", "2.0", f"Minor {i}. {filler}", "x") for i in range(20)], "quill crew")
    old = page("http://d.example/library/old.html", [("added", "1.0", "quill spawn starts a task.", "spawn")], "quill old")
    feed = write_jsonl(tmp_path / "run.jsonl", [whatsnew, ref, old])
    (tmp_path / "crawl.json").write_text('{"timeline": [{"version": "2.0", "date": "2022-10-24", "source": "t"}]}')
    import json

    r = rank_sources([str(feed)], cutoff_start=date(2022, 1, 1), today=TODAY,
                     subject=Subject("quill", crawl_meta=json.loads((tmp_path / "crawl.json").read_text())))
    sel = select_evidence(r.candidates, 900, can_condense=False)
    assert sel.mode == "trimmed" and sum(source_tokens(c) for c in sel.sources) <= 900
    by = {c.url: c for c in sel.sources}
    kept = by["http://d.example/whatsnew/2.0.html"].excerpts
    assert all(any(f"Highlight {i}:" in e for e in kept) for i in range(5))
    assert any("TaskCrew runs" in e for e in by["http://d.example/library/crew.html"].excerpts)
    assert not any("Minor 19" in e for c in sel.sources for e in c.excerpts)
    # the pre-cutoff page comes after every source with post-cutoff entries, if at all
    urls = [c.url for c in sel.sources]
    assert "http://d.example/library/old.html" not in urls[:2]


@pytest.mark.parametrize("sources, expect", [
    # only pre-cutoff sources: nothing is presented as new
    ([{"published": "2020-01-01", "post_cutoff": False}], "nothing new after"),
    # a build-dated page without post-cutoff changes is not news either
    ([{"published": "2026-10-07", "build_date": "2026-10-07", "post_cutoff": False}], "nothing new after"),
    # an honestly undated page may be new: quoted, and said to be unconfirmed
    ([{"published": None, "post_cutoff": False}], "not confirmed as new"),
    ([{"published": "2026-05-01", "post_cutoff": True}], "what changed after"),
])
def test_extractive_never_presents_old_sources_as_new(sources, expect):
    from synth.pipeline.extractive import extractive_skill

    srcs = [{"n": i, "url": f"https://x.example/{i}", "title": "t", "authority": 0.5,
             "excerpts": ["The frobnicator now accepts a timeout argument for every call it makes."], "code_blocks": [], **s}
            for i, s in enumerate(sources, 1)]
    text = extractive_skill(Bundle("frob", "m", "2026-01", srcs, topic="frob"))
    assert expect in text
    assert ("frobnicator now accepts" in text) is (expect != "nothing new after")


@pytest.mark.parametrize("coverage, unread", [({"pages": 1500, "left_at_max_pages": 29728}, True), ({"pages": 300}, False)])
def test_with_since_version_a_fresh_page_date_is_no_delta(coverage, unread):
    """--since-version defines the delta by versions: pages whose dates are after the cutoff but that document no
    newer version are not presented as new, and a crawl cut short by its page limit says so."""
    from synth.pipeline.extractive import extractive_skill

    srcs = [{"n": 1, "url": "https://x.example/1", "title": "t", "authority": 0.5, "published": "2026-05-01", "post_cutoff": True,
             "excerpts": ["The frobnicator now accepts a timeout argument for every call it makes."], "code_blocks": []}]
    bundle = Bundle("frob", "m", "2026-01", srcs, BundleDelta(since_version="1.62", coverage=coverage), topic="frob")
    text = extractive_skill(bundle)
    assert "no version newer than 1.62 in the sources read" in text and "frobnicator now accepts" not in text
    assert ("left 29,728 more of the site unread" in text) is unread


def test_a_release_date_equal_to_the_hosts_build_date_is_rejected():
    t = _timeline(("3.11.0", "2022-10-24", "changelog"))
    t.add("3.11.2", "2026-10-07", "page", "http://docs.example/whatsnew/3.11.html")  # "Release: 3.11.2 Date: <build date>"
    t.add("3.11.1", "2022-12-06", "page", "http://docs.example/whatsnew/changelog.html")
    from synth.evidence.urls import site_host

    assert t.reject_build_dates({"docs.example": "2026-10-07"}, site_host) == 1
    assert [r["version"] for r in t.entries()] == ["3.11.0", "3.11.1"]
    assert t.rejected[-1]["reason"] == "the build date of the page's host"


@pytest.mark.parametrize("excerpt", ["New features: the parser is faster.", "Added ordering: sort keys are stable."])
def test_entry_text_keeps_prose_that_only_looks_like_a_marker(excerpt):
    assert _entry_text(excerpt, "") == excerpt


@pytest.mark.parametrize("text, count", [("cpython python pythonic", 1), ("Python, python_x (python)", 2), ("go good gopher go", 2)])
def test_bm25_counts_whole_words_only(text, count):
    term = "go" if "go" in text.split() else "python"
    tf, _n = BM25((term,)).observe(text)
    assert tf[term] == count


def test_a_highlight_scores_the_same_whatever_its_wording():
    [plain, worded] = _changes(("release", "3.11", "Summary – Release highlights"), ("release", "3.11", "Summary – Release highlights"))
    plain.relevance, worded.relevance = 0.0, 1.0
    assert plain.highlight and entry_score(plain, 1.0) == entry_score(worded, 1.0)
    [marker] = _changes(("added", "3.11", "Reference"))
    marker.relevance = 0.0
    assert entry_score(marker, 1.0) < entry_score(plain, 1.0)
