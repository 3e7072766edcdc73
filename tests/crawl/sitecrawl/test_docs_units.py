"""Docs mode: pure helpers (scope, locales, llms.txt, .md twins, canonical keys, lastmod, progress line)."""

import pytest

from skill3crawl.progress import dropped_by_reason, progress_line
from skill3crawl.sitecrawl.crawl import lastmod_day
from skill3crawl.sitecrawl.llms import md_variant, parse_llms_txt
from skill3crawl.sitecrawl.scope import Scope, locale_of
from synth.evidence.urls import url_key

SCOPE = Scope.from_start_url("https://docs.example.org/guide/intro.html")


@pytest.mark.parametrize(
    "url, reason",
    [
        ("https://docs.example.org/guide/", None),
        ("https://docs.example.org/guide", None),
        ("https://docs.example.org/guide/a/b.html", None),
        ("https://docs.example.org/guide/a.md", None),
        ("https://docs.example.org/blog/post.html", "outside_prefix"),
        ("https://other.example.org/guide/a.html", "offsite"),
        ("ftp://docs.example.org/guide/a.html", "offsite"),
        ("https://docs.example.org/guide/ja/a.html", "locale"),
        ("https://docs.example.org/guide/zh-cn/a.html", "locale"),
        ("https://docs.example.org/guide/pt_BR/a.html", "locale"),
        ("https://docs.example.org/guide/img/logo.png", "not_a_page"),
        ("https://docs.example.org/guide/jakarta/a.html", None),
        ("https://docs.example.org/guide/NEWS.txt", None),  # a plain-text change log by its conventional name
        ("https://docs.example.org/guide/RelNotes/CHANGES.txt", None),
        ("https://docs.example.org/guide/notes.txt", "not_a_page"),
        ("https://docs.example.org/guide/_sources/changelog.rst.txt", "not_a_page"),  # a build's copy of a page
        # a folder of release notes as plain text: a file named after a release, or any file in a folder named as notes
        ("https://docs.example.org/guide/RelNotes/2.39.0.txt", None),
        ("https://docs.example.org/guide/notes/v1.5.txt", None),
        ("https://docs.example.org/guide/release-notes/upcoming.txt", None),
        ("https://docs.example.org/guide/howto/setup.txt", "not_a_page"),
        ("https://docs.example.org/guide/release-notes/logo.png", "not_a_page"),
    ],
)
def test_scope_allows(url, reason):
    assert SCOPE.allows(url) == reason


def test_scope_prefix_from_file_url_and_filters():
    assert SCOPE.prefix == "/guide/"
    s = Scope.from_start_url("https://docs.example.org/", filters=["api/", "/howto/"])
    assert s.filters == ("/api/", "/howto/")
    assert s.allows("https://docs.example.org/api/x.html") is None
    assert s.allows("https://docs.example.org/blog/x.html") == "sitemap_filter"


def test_scope_keeps_its_own_locale_and_can_keep_all():
    ja = Scope.from_start_url("https://docs.example.org/ja/")
    assert ja.allows("https://docs.example.org/ja/a.html") is None
    keep = Scope.from_start_url("https://docs.example.org/", skip_locales=False)
    assert keep.allows("https://docs.example.org/fr/a.html") is None


def test_bad_start_url_is_one_line_error():
    with pytest.raises(ValueError, match="start_urls: not an http"):
        Scope.from_start_url("docs.example.org/guide")


@pytest.mark.parametrize("path, loc", [("/ja/x", "ja"), ("/docs/zh_CN/", "zh-cn"), ("/docs/java/", None), ("/", None)])
def test_locale_of(path, loc):
    assert locale_of(path) == loc


def test_parse_llms_txt_links_resolved_unique():
    text = (
        "# Project\n\n> Summary\n\n## Docs\n\n- [Intro](/guide/intro.html.md): start\n"
        "- [API](https://docs.example.org/api/ \"API ref\")\n- [Intro again](/guide/intro.html.md#top)\n"
        "- [Mail](mailto:a@b.c)\n\n## Optional\n\n- [Full](llms-full.txt)\n"
    )
    assert parse_llms_txt(text, "https://docs.example.org/llms.txt") == [
        ("Intro", "https://docs.example.org/guide/intro.html.md"),
        ("API", "https://docs.example.org/api/"),
        ("Full", "https://docs.example.org/llms-full.txt"),
    ]


@pytest.mark.parametrize(
    "url, md",
    [
        ("https://d.org/a/b.html", "https://d.org/a/b.html.md"),
        ("https://d.org/a/", "https://d.org/a/index.html.md"),
        ("https://d.org/a/b.md", None),
        ("https://d.org/llms-full.txt", None),
    ],
)
def test_md_variant(url, md):
    assert md_variant(url) == md


def test_url_key_folds_index_fragment_and_query_order() -> None:
    assert url_key("https://D.org/a/index.html#x") == url_key("https://d.org/a/")
    assert url_key("https://d.org/a?b=2&a=1") == url_key("https://d.org/a?a=1&b=2")
    assert url_key("https://d.org/a/") != url_key("https://d.org/b/")


@pytest.mark.parametrize(
    "value, out",
    [("2026-03-04", "2026-03-04"), ("2026-03-04T10:00:00+00:00", "2026-03-04"), ("", None), (None, None), ("yesterday", None), ("2026-13-01", None)],
)
def test_lastmod_day(value: str | None, out: str | None) -> None:
    assert lastmod_day(value) == out


@pytest.mark.parametrize(
    "value, out",
    [("2026-02-30", None), ("20260304T10:00:00Z", "2026-03-04"), ("2026/03/04", "2026-03-04"),
     ("Wed, 04 Mar 2026 10:00:00 GMT", "2026-03-04"), ("1989-12-31", None)],
)
def test_lastmod_day_reads_dates_as_the_date_pipeline_does(value: str, out: str | None) -> None:
    """One date reader (extract.dates.normalize_date, without free text): its forms, no impossible days."""
    assert lastmod_day(value) == out


def test_progress_line_and_dropped_reasons():
    stats = {"skill3/dropped/locale": 3, "item_dropped_reasons_count/DropItem": 2, "skill3/dropped/canonical_duplicate": 1, "other": 9}
    assert dropped_by_reason(stats) == {"DropItem": 2, "canonical_duplicate": 1, "locale": 3}
    line = progress_line(10, 5, 2.5, 2.0, dropped_by_reason(stats))
    assert line == "progress: 10 pages done, 5 queued, 2.5 pages/s (avg 2.0), dropped: DropItem=2 canonical_duplicate=1 locale=3"


def test_page_budget_window_and_waiting_list() -> None:
    """LocalState: max_pages counts pages written; at most `window` in flight; the rest wait in FIFO order."""
    from types import SimpleNamespace

    from skill3crawl.sitecrawl.budget import LocalState

    st = LocalState(SimpleNamespace(state={}), window=2)
    claims = [st.claim(f"u{i}", 3, [f"u{i}"]) for i in range(6)]
    assert claims == ["new", "new", "waiting", "waiting", "waiting", "waiting"]
    assert st.claim("u0", 3, ["u0"]) == "seen"
    assert st.finish(written=True, limit=3) == [["u2"]]  # a slot in the window: the first waiting page
    assert st.finish(written=True, limit=3) == []  # 2 written + 1 in flight = the budget
    assert st.finish(written=False, limit=3) == [["u3"]]  # u2 failed: its budget slot passes on
    assert st.finish(written=True, limit=3) == []
    assert st.waiting_count() == 2  # u4, u5: never fetched, the budget is spent


def test_page_budget_waiting_list_is_bounded() -> None:
    from types import SimpleNamespace

    from skill3crawl.sitecrawl.budget import LocalState, waiting_cap

    st = LocalState(SimpleNamespace(state={}), window=1)
    results = [st.claim(f"u{i}", 5, [f"u{i}"]) for i in range(waiting_cap(5) + 3)]
    assert results.count("new") == 1 and results.count("waiting") == waiting_cap(5) and results.count("over") == 2
