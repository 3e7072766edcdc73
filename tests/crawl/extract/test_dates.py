"""How page dates combine htmldate with the other signals (tables), and that they never lose to htmldate."""

from datetime import date

import pytest
from htmldate import find_date

from skill3crawl.extract.dates import combine_dates, normalize_date, page_dates, page_languages

TODAY = date(2026, 11, 29)
D = date.fromisoformat
NO_LATE = [("sitemap-lastmod", None), ("http-last-modified", None), ("repository", None)]


def late(lastmod=None, last_modified=None, repository=None):
    return [("sitemap-lastmod", lastmod), ("http-last-modified", last_modified), ("repository", repository)]


@pytest.mark.parametrize(
    "hinted, htmldate, structured, late_signals, expected",
    [
        # the corpus's own date header wins over everything
        ("2026-01-15", "2026-03-01", [("json-ld", "2026-03-01", None)], NO_LATE, ("2026-01-15", None, "corpus")),
        # htmldate's date is the JSON-LD one: named after JSON-LD
        (None, "2026-03-01", [("json-ld", "2026-03-01T10:00:00Z", "2026-04-02")], NO_LATE, ("2026-03-01", "2026-04-02", "json-ld")),
        # htmldate took the OpenGraph date although JSON-LD says otherwise: its choice wins, named after OpenGraph
        (None, "2026-03-04", [("json-ld", "2026-03-01", "2026-04-02"), ("opengraph", "2026-03-04", None)], NO_LATE,
         ("2026-03-04", "2026-04-02", "opengraph")),
        # htmldate disagrees with every structured signal (e.g. the date in the URL): htmldate, honestly
        (None, "2026-03-04", [("json-ld", "2026-05-01", "2026-05-02"), ("meta", "2026-05-01", None)], NO_LATE,
         ("2026-03-04", "2026-05-02", "htmldate")),
        # a repository page's release date that htmldate read too
        (None, "2026-10-01", [], late(None, None, "2026-10-01T12:00:00Z"), ("2026-10-01", None, "repository")),
        # the sitemap's lastmod is no in-page statement: equal or not, htmldate found the date
        (None, "2026-02-01", [], late("2026-02-01"), ("2026-02-01", "2026-02-01", "htmldate")),
        # a numeric day-first value is compared too; free text is not parsed just to name the source
        (None, "2026-01-25", [("meta", "Di., 25.01.2026 - 14:45", None)], NO_LATE, ("2026-01-25", None, "meta")),
        (None, "2026-01-25", [("time", "25 January 2026", None)], NO_LATE, ("2026-01-25", None, "htmldate")),
        # htmldate found nothing: structured data in order, skipping unusable values
        (None, None, [("json-ld", "not a date", "2026-04-02"), ("opengraph", "2026-03-04", None)], NO_LATE,
         ("2026-03-04", "2026-04-02", "opengraph")),
        (None, None, [("json-ld", None, "2026-04-02"), ("time", "2026-06-07", None)], NO_LATE, ("2026-06-07", None, "time")),
        # a date htmldate rejects as after today stays visible, so the scorer can drop the page as future-dated
        (None, None, [("meta", "2027-02-01", None)], NO_LATE, ("2027-02-01", None, "meta")),
        # then sitemap lastmod, HTTP Last-Modified, repository (never a modification date)
        (None, None, [], late("2026-02-02", "Tue, 03 Mar 2026 10:00:00 GMT"), ("2026-02-02", "2026-02-02", "sitemap-lastmod")),
        (None, None, [], late(None, "Tue, 03 Mar 2026 10:00:00 GMT"), ("2026-03-03", "2026-03-03", "http-last-modified")),
        (None, None, [], late(None, None, "2026-08-09T00:00:00Z"), ("2026-08-09", None, "repository")),
        (None, None, [], late("yesterday", "garbage", None), (None, None, None)),
        # late signals still give the modification date when htmldate gave the published one
        (None, "2026-02-01", [], late("2026-02-20"), ("2026-02-01", "2026-02-20", "htmldate")),
        # a modification before publication is dropped
        (None, "2026-05-01", [("json-ld", "2026-05-01", "2026-04-01")], late("2026-03-01"), ("2026-05-01", None, "json-ld")),
        (None, None, [], NO_LATE, (None, None, None)),
    ],
)
def test_combine_dates(hinted, htmldate, structured, late_signals, expected):
    published, modified, source = combine_dates(hinted, htmldate, structured, late_signals)
    assert (published and published.isoformat(), modified and modified.isoformat(), source) == expected


def _page(head="", body=""):
    return f"<html><head><title>T</title>{head}</head><body><h1>Post</h1>{body}<p>Text without any date in it.</p></body></html>"


LD = '<script type="application/ld+json">{"@type":"Article","datePublished":"%s","dateModified":"2026-06-01"}</script>'
OG = '<meta property="og:title" content="T"><meta property="article:published_time" content="%s">'
BROKEN_LD = '<script type="application/ld+json">{"@type": "Article", "datePublished": </script>'


@pytest.mark.parametrize(
    "url, html, expected",
    [
        # a re-stamped JSON-LD date against the date in the URL (a real pattern): htmldate's pick, honestly named
        ("https://blog.example/2026/03/04/post", _page(LD % "2026-05-01"), ("2026-03-04", "2026-06-01", "htmldate")),
        # OpenGraph against JSON-LD: the page's header wins in htmldate
        ("https://blog.example/post", _page(OG % "2026-03-04T10:00:00Z" + LD % "2026-03-01"), ("2026-03-04", "2026-06-01", "opengraph")),
        ("https://blog.example/post", _page(LD % "2026-03-01"), ("2026-03-01", "2026-06-01", "json-ld")),
        # a malformed JSON-LD script costs only itself
        ("https://blog.example/post", _page(BROKEN_LD + LD % "2026-03-01"), ("2026-03-01", "2026-06-01", "json-ld")),
        ("https://blog.example/post", _page("", "<p>Published on July 8, 2026 by the team.</p>"), ("2026-07-08", None, "htmldate")),
    ],
)
def test_page_dates_on_pages(url, html, expected):
    out = page_dates(html, url, {}, today=TODAY)
    assert (out["published"], out["modified"], out["date_source"]) == expected


def test_a_body_that_looks_like_a_url_is_never_downloaded(monkeypatch):
    import htmldate.utils

    fetched = []
    monkeypatch.setattr(htmldate.utils, "fetch_url", lambda url, *a, **k: fetched.append(url))
    out = page_dates("https://203.0.113.9/2026/01/01/x", "https://blog.example/post", {}, today=TODAY)
    assert fetched == [] and out["published"] is None


@pytest.mark.parametrize(
    "url, html",
    [
        ("https://blog.example/2026/03/04/post", _page(LD % "2026-05-01")),
        ("https://blog.example/post", _page(OG % "2026-03-04" + LD % "2026-03-01", '<time datetime="2026-02-02">Feb 2</time>')),
        ("https://blog.example/post", _page('<meta name="date" content="2026-05-06">', "<p>Updated 9 October 2026</p>")),
        ("https://blog.example/news/2025-12-30-item", _page("", '<p class="byline">December 31, 2025</p>')),
    ],
)
def test_never_differs_from_htmldate_when_it_has_a_date(url, html):
    alone = find_date(html, url=url, extensive_search=True, original_date=True, max_date=TODAY.isoformat())
    assert alone is not None
    assert page_dates(html, url, {"Last-Modified": "Tue, 03 Mar 2026 10:00:00 GMT"}, today=TODAY, lastmod="2026-01-01")["published"] == alone


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("2022-1-26T14:32:06+02:00", date(2022, 1, 26)),
        ("20201123T11:02:35Z", date(2020, 11, 23)),
        ("20231102", date(2023, 11, 2)),
        ("2020/10/04 15:05:21", date(2020, 10, 4)),
        ("Di., 25.01.2022 - 14:45", date(2022, 1, 25)),
        ("1.2.2026", date(2026, 2, 1)),
        ("2026-13-01", None),
        ("31.02.2026", None),
        ("1988", None),
    ],
)
def test_normalize_numeric_forms(raw, expected):
    assert normalize_date(raw, free_text=False) == expected


def test_free_text_uses_the_page_language():
    import lxml.html

    assert page_languages(lxml.html.fromstring('<html lang="de-AT"><body>x</body></html>')) == ["de", "en"]
    assert page_languages(lxml.html.fromstring('<html lang="en"><body>x</body></html>')) == ["en"]
    assert page_languages(lxml.html.fromstring("<html><head><meta http-equiv='Content-Language' content='fr'></head><body>x</body></html>")) == ["fr", "en"]
    assert page_languages(lxml.html.fromstring('<html lang="x-klingon-42"><body>x</body></html>')) is None
    assert normalize_date("23. Juni 2016", languages=["de", "en"]) == date(2016, 6, 23)
    assert normalize_date("23 juin 2016", languages=["zz"]) == date(2016, 6, 23)  # unknown language: all of them
    assert normalize_date("23 juin 2016", free_text=False) is None


@pytest.mark.parametrize("raw", ["yesterday", "2 days ago", "today", "now", "tomorrow", "last week", "a year ago",
                                 "Monday", "March 5", "in 3 days", "il y a 2 jours", "vor 3 Tagen", "yesterday 10:00"])
def test_relative_dates_are_never_publication_dates(raw):
    assert normalize_date(raw) is None
    page = f'<html><head><script type="application/ld+json">{{"@type": "Article", "datePublished": "{raw}"}}</script>' \
           f'<meta property="article:published_time" content="{raw}"></head><body><p>Text of the page.</p></body></html>'
    assert page_dates(page, "https://blog.example/post", today=date(2026, 11, 29), hinted=raw)["published"] is None


@pytest.mark.parametrize("raw, expected", [("5 March 2026", date(2026, 3, 5)), ("Monday, March 5, 2026", date(2026, 3, 5)),
                                           ("March 2026", date(2026, 3, 1)), ("5 mars 2026", date(2026, 3, 5))])
def test_absolute_free_text_dates_still_parse(raw, expected):
    assert normalize_date(raw) == expected


# A string htmldate's extensive search hands to its external (dateparser) parser: found on a real docs page.
_EXTERNAL = "(c_int * 3)(9, 2, 8)"


def _page(lang: str | None, text: str) -> str:
    attr = f' lang="{lang}"' if lang is not None else ""
    return f"<html{attr}><head><title>t</title></head><body><div><p>{text}</p><p>Body text.</p></div></body></html>"


@pytest.mark.parametrize("lang, expected", [
    ("fr", ["fr", "en"]),  # the declared language and English
    ("en-GB", ["en"]),
    (None, None),  # none declared: every locale, htmldate's own parser
    ("zz", None),  # a language dateparser does not know: every locale
])
def test_htmldate_reads_free_text_in_the_declared_languages(monkeypatch, lang, expected):
    import htmldate.extractors as hx

    from skill3crawl.extract import dates

    used = []
    original_date = hx._external_date

    def spy(string):
        used.append(hx.get_external_parser())
        return original_date(string)

    monkeypatch.setattr(hx, "_external_date", spy)
    hx.try_date_expr.cache_clear()
    page_dates(_page(lang, f"Item {_EXTERNAL} shown"), "https://example.org/a", today=TODAY)
    assert used, "the page's string no longer reaches htmldate's external parser: pick another"
    languages = used[0].languages
    assert (sorted(languages) if languages else None) == (sorted(expected) if expected else None)
    if expected is None:
        assert used[0] is dates._htmldate_state["original"](), "not htmldate's own all-locale parser"


def test_other_htmldate_callers_keep_every_locale(monkeypatch):
    import htmldate.extractors as hx

    used = []
    original_date = hx._external_date
    monkeypatch.setattr(hx, "_external_date", lambda s: (used.append(hx.get_external_parser()), original_date(s))[1])
    page_dates(_page("fr", f"Article {_EXTERNAL} vu"), "https://example.org/a", today=TODAY)
    find_date(_page("fr", f"Article {_EXTERNAL} vu"), extensive_search=True, original_date=True)  # not through skill3
    assert len(used) == 2, "htmldate's cached answer for the string was reused across languages"
    assert used[0].languages and used[1].languages is None


def test_htmldate_parser_settings_are_htmldates():
    from dateparser import DateDataParser

    from skill3crawl.extract import dates

    page_dates(_page("fr", "x"), "https://example.org/a", today=TODAY)  # installs the scoped parser
    theirs = dates._htmldate_state["original"]()._settings
    ours = DateDataParser(languages=["fr"], settings=dates.HTMLDATE_PARSER_SETTINGS)._settings
    assert vars(ours) == vars(theirs)
