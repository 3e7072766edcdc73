"""Pure extraction functions: content, dates, URL canonicalisation, discovery parsers."""

from datetime import date

import pytest

import skill3crawl.extract.dates as dates_module
from skill3crawl.discovery.brave import freshness_window, parse_results, search_url
from skill3crawl.extract.content import code_language, extract_content, markdown_blocks
from skill3crawl.extract.dates import normalize_date, page_dates, tree_signals
from skill3crawl.extract.dom import parse
from skill3crawl.sitecrawl.sitemap import parse_sitemap
from synth.evidence.urls import canonical_url

TODAY = date(2026, 11, 29)
PROSE = "<p>" + "This paragraph explains the change in enough words to count as real content. " * 3 + "</p>"


# ---------------------------------------------------------------- URLs
@pytest.mark.parametrize(
    "url, canon",
    [
        ("https://Docs.Example.org/a?b=2&a=1#frag", "https://docs.example.org/a?a=1&b=2"),
        ("https://docs.example.org/a?utm_source=x&utm_medium=y&id=3", "https://docs.example.org/a?id=3"),
        ("https://docs.example.org/a?fbclid=1&gclid=2", "https://docs.example.org/a"),
        ("https://docs.example.org:443/", "https://docs.example.org/"),
        ("http://docs.example.org:80", "http://docs.example.org/"),
        ("http://docs.example.test:8123/p", "http://docs.example.test:8123/p"),
        ("https://docs.example.org/a%7Eb/ c", "https://docs.example.org/a~b/%20c"),
    ],
)
def test_canonical_url(url, canon):
    assert canonical_url(url) == canon


# ------------------------------------------------------------- content
SPHINX = (
    "<html><body><div class='sphinxsidebar'><p>" + "sidebar " * 50 + "</p></div>"
    "<div class='body' role='main'><h1>API<a class='headerlink' href='#'>¶</a></h1>" + PROSE +
    "<div class='highlight-python notranslate'><div class='highlight'><pre><span></span><span class='k'>import</span> x\n\n"
    "x.run(  1 )\n</pre></div></div></div></body></html>"
)
MKDOCS = (
    "<html><body><nav class='md-nav'>" + "nav " * 80 + "</nav><div class='md-content'><article class='md-content__inner md-typeset'>"
    "<h1>Guide</h1>" + PROSE + "<pre><code class='language-bash'>pip install  x\n</code></pre></article></div></body></html>"
)
DOCUSAURUS = (
    "<html><body><aside>" + "menu " * 80 + "</aside><div class='theme-doc-markdown markdown'><h1>Intro</h1>" + PROSE +
    "<div class='language-ts codeBlockContainer'><pre><code><span class='token-line'>const a = 1;<br></span>"
    "<span class='token-line'>  a++;</span></code></pre></div></div></body></html>"
)
PLAIN = "<html><head><title>Blog</title></head><body><nav>Home About</nav><article><h2>Post</h2>" + PROSE + PROSE + "</article></body></html>"


@pytest.mark.parametrize(
    "html, extractor, heading, code",
    [
        (SPHINX, "sphinx", "# API", [{"text": "import x\n\nx.run(  1 )\n", "language": "python"}]),
        (MKDOCS, "mkdocs", "# Guide", [{"text": "pip install  x\n", "language": "bash"}]),
        (DOCUSAURUS, "docusaurus", "# Intro", [{"text": "const a = 1;\n  a++;", "language": "ts"}]),
        (PLAIN, "trafilatura", "## Post", []),
    ],
)
def test_extract_content_picks_main_node_and_keeps_code(html, extractor, heading, code):
    out = extract_content(html, "https://docs.example.org/p")
    assert out["extractor"] == extractor
    assert out["excerpts"][0] == heading
    assert out["code_blocks"] == code
    assert out["drop_reason"] is None
    assert not any("sidebar" in e or "menu menu" in e or "nav nav" in e for e in out["excerpts"])
    assert len(out["content_hash"]) == 32


@pytest.mark.parametrize(
    "html, reason",
    [
        ("", "unparseable"),
        ("<html><body><p>Too short.</p></body></html>", "no_content"),
        ("<html><body><nav>" + "link " * 100 + "</nav></body></html>", "no_content"),
    ],
)
def test_pages_without_content_are_flagged(html, reason):
    assert extract_content(html, "https://a.example/")["drop_reason"] == reason


def test_same_content_same_hash_regardless_of_chrome():
    a = extract_content("<html><body><article>" + PROSE + "</article></body></html>", "https://a.example/")
    b = extract_content("<html><head><title>x</title></head><body><header>hdr</header><article>" + PROSE + "</article></body></html>", "https://b.example/")
    assert a["content_hash"] == b["content_hash"]


@pytest.mark.parametrize(
    "html, lang",
    [
        ("<pre class='language-rust'>x</pre>", "rust"),
        ("<pre><code class='lang-go'>x</code></pre>", "go"),
        ("<div class='highlight-java'><div><pre>x</pre></div></div>", "java"),
        ("<pre data-lang='Kotlin'>x</pre>", "kotlin"),
        ("<pre class='language-text'>x</pre>", ""),
        ("<pre>x</pre>", ""),
    ],
)
def test_code_language(html, lang):
    import lxml.html

    pre = lxml.html.fromstring("<div>" + html + "</div>").xpath("//pre")[0]
    assert code_language(pre) == lang


def test_markdown_blocks_skip_fences_and_keep_headings():
    md = "# H\n\nshort\n\nA paragraph long enough to keep.\n```py\ncode\n\nmore\n```\nAfter the fence paragraph text."
    assert markdown_blocks(md) == ["# H", "A paragraph long enough to keep.", "After the fence paragraph text."]


@pytest.mark.parametrize("md, blocks", [
    ("````\n```\n# inner heading\n````\nAfter the fence paragraph text.", ["After the fence paragraph text."]),
    ("~~~\n```\n# inner\n~~~\n# Real", ["# Real"]),
    ("#hashtag is a word, not a heading: keep it with\nits paragraph line", ["#hashtag is a word, not a heading: keep it with\nits paragraph line"]),
])
def test_markdown_blocks_read_fences_and_headings_as_commonmark(md: str, blocks: list[str]) -> None:
    """A shorter backtick line does not close a longer fence; ``#hashtag`` is no heading (the SKILL.md reader's rules)."""
    assert markdown_blocks(md) == blocks


# --------------------------------------------------------------- dates
def _page(head="", body=""):
    return f"<html><head>{head}</head><body>{body}<p>Some text without dates at all in it.</p></body></html>"


JSONLD = '<script type="application/ld+json">{"@graph":[{"@type":"Article","datePublished":"2026-03-01T10:00:00Z","dateModified":"2026-04-02"}]}</script>'
OG = '<meta property="article:published_time" content="2026-03-04T10:00:00Z"><meta property="article:modified_time" content="2026-03-20">'
META = '<meta name="date" content="2026-05-06">'
TIME = '<time datetime="2026-06-07">June 7</time>'
TEXT = "<p>Published on July 8, 2026 by the team.</p>"
REPO = '<relative-time datetime="2026-08-09T00:00:00Z">Aug 9</relative-time>'
LM = "Tue, 03 Mar 2026 10:00:00 GMT"


@pytest.mark.parametrize(
    "html, headers, lastmod, hinted, htmldate_on, expected",
    [
        # htmldate takes the OpenGraph date over the JSON-LD one here; its choice wins, named by the signal that states it
        (_page(JSONLD + OG), {}, None, None, True, ("2026-03-04", "2026-04-02", "opengraph")),
        (_page(OG + META), {}, None, None, True, ("2026-03-04", "2026-03-20", "opengraph")),
        (_page(META, TIME), {}, None, None, True, ("2026-05-06", None, "meta")),
        (_page("", TIME), {"Last-Modified": LM}, None, None, True, ("2026-06-07", None, "time")),
        (_page("", TEXT), {}, "2026-02-02", None, True, ("2026-07-08", None, "htmldate")),
        (_page(), {"Last-Modified": LM}, "2026-02-02", None, True, ("2026-02-02", "2026-02-02", "sitemap-lastmod")),
        (_page(), {"Last-Modified": LM}, None, None, True, ("2026-03-03", "2026-03-03", "http-last-modified")),
        (_page("", REPO), {}, None, None, False, ("2026-08-09", None, "repository")),
        (_page(META), {}, None, "2026-01-15", True, ("2026-01-15", None, "corpus")),
        (_page(), {}, None, None, True, (None, None, None)),
        (_page('<meta name="date" content="2027-02-01">'), {}, None, None, True, ("2027-02-01", None, "meta")),
    ],
)
def test_date_signal_order(html, headers, lastmod, hinted, htmldate_on, expected, monkeypatch):
    if not htmldate_on:
        monkeypatch.setattr(dates_module, "htmldate_signal", lambda *a, **k: None)
    out = page_dates(html, "https://a.example/p", headers, today=TODAY, lastmod=lastmod, hinted=hinted)
    assert (out["published"], out["modified"], out["date_source"]) == expected
    # the tree's signals read first by the caller (which then frees its tree before htmldate runs): the same dates
    signals = tree_signals(html, "https://a.example/p", parse(html))
    assert page_dates(html, "https://a.example/p", headers, today=TODAY, lastmod=lastmod, hinted=hinted, signals=signals) == out


BUILD = "2026-01-10"


@pytest.mark.parametrize(
    "html, headers, expected",
    [
        # no date in the markup: the host's build date, htmldate not run (the text's own date is not read)
        (_page("", TEXT), {}, (BUILD, None, "build-date")),
        (_page(), {"Last-Modified": LM}, (BUILD, "2026-03-03", "build-date")),
        # a date in the markup or a repository date: htmldate reads the page as on any other host
        (_page(META, TEXT), {}, ("2026-05-06", None, "meta")),
        (_page(JSONLD + OG), {}, ("2026-03-04", "2026-04-02", "opengraph")),
        (_page("", TIME), {"Last-Modified": LM}, ("2026-06-07", None, "time")),
    ],
)
def test_a_build_dated_hosts_page_without_markup_dates_takes_the_build_date(html, headers, expected, monkeypatch):
    calls = []
    real = dates_module.htmldate_signal
    monkeypatch.setattr(dates_module, "htmldate_signal", lambda *a, **k: calls.append(a) or real(*a, **k))
    out = page_dates(html, "https://a.example/p", headers, today=TODAY, build_date=BUILD)
    assert (out["published"], out["modified"], out["date_source"]) == expected
    assert bool(calls) == (expected[2] != "build-date")


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("2026-03-01", date(2026, 3, 1)),
        ("2026-03-01T23:59:59+05:00", date(2026, 3, 1)),
        ("Tue, 03 Mar 2026 10:00:00 GMT", date(2026, 3, 3)),
        ("March 3, 2026", date(2026, 3, 3)),
        ("3 mars 2026", date(2026, 3, 3)),
        ("2026-02-30", None),
        ("1970-01-01", None),
        ("not a date", None),
        (None, None),
    ],
)
def test_normalize_date(raw, expected):
    assert normalize_date(raw) == expected


# ----------------------------------------------------------- discovery
def test_brave_request_and_results():
    url = search_url("https://api.search.brave.com/res/v1/web/search", "mcp auth 2026", date(2026, 1, 1), TODAY)
    assert url == "https://api.search.brave.com/res/v1/web/search?q=mcp+auth+2026&count=20&freshness=2026-01-01to2026-11-29"
    assert freshness_window(date(2025, 8, 1), TODAY) == "2025-08-01to2026-11-29"
    body = b'{"web": {"results": [{"url": "https://a.example/x", "title": "A", "description": "d", "page_age": "2026-02-01"}, {"url": "javascript:alert(1)"}, {"title": "no url"}, 3]}}'
    (r,) = parse_results(body)
    assert (r.url, r.title, r.age) == ("https://a.example/x", "A", "2026-02-01")
    assert parse_results(b'{"query": {}}') == []
    with pytest.raises(ValueError):
        parse_results(b"<html>rate limited</html>")


def test_sitemap_entries_keep_lastmod():
    body = (
        b'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<url><loc>https://docs.example.org/a</loc><lastmod>2026-04-01</lastmod></url>"
        b"<url><loc>https://docs.example.org/b</loc></url></urlset>"
    )
    kind, entries = parse_sitemap(body)
    assert kind == "urlset"
    assert [(e.loc, e.lastmod) for e in entries] == [("https://docs.example.org/a", "2026-04-01"), ("https://docs.example.org/b", None)]
    index = b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://docs.example.org/s1.xml</loc></sitemap></sitemapindex>'
    assert parse_sitemap(index)[0] == "sitemapindex"
    assert parse_sitemap(b"<html>not found</html>") == ("invalid", [])


def test_gzipped_sitemap():
    import gzip

    body = gzip.compress(b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://d.example.org/z</loc><lastmod>2026-05-01</lastmod></url></urlset>')
    assert parse_sitemap(body) == ("urlset", [type(parse_sitemap(body)[1][0])("https://d.example.org/z", "2026-05-01")])
    assert parse_sitemap(b"\x1f\x8bnot really gzip") == ("invalid", [])


# --------------------------------------------------------------------------- decoding: the response's own, once

_CAFE = "Le café du matin: 日本語のテキスト, Ünïcödé everywhere. "


@pytest.mark.parametrize("ctype, meta, encoding, expect", [
    ("text/html; charset=utf-8", "", "utf-8", _CAFE),  # charset only in the HTTP header
    ("text/html; charset=iso-8859-1", "", "latin-1", "Le café du matin"),
    ("text/html", "<meta charset='utf-8'>", "utf-8", _CAFE),
    ("text/html", "", "utf-8", _CAFE),  # no charset anywhere: detected
    ("text/html; charset=utf-16", "", "latin-1", "Le café du matin"),  # claims UTF-16, sends latin-1
    ("text/html", "<meta charset='utf-16'>", "latin-1", "Le café du matin"),
    ("text/html", "", "utf-16", _CAFE),  # real UTF-16 with its BOM
])
def test_pages_are_decoded_by_the_response_not_guessed_again(ctype, meta, encoding, expect):
    from scrapy.http import HtmlResponse

    from skill3crawl.extract.encoding import page_text

    text = _CAFE if encoding != "latin-1" else "Le café du matin, à la française. "
    html = f"<html><head>{meta}<title>Café</title></head><body><main><h1>Café</h1><p>{text * 8}</p></main></body></html>"
    response = HtmlResponse("https://x.example/p", body=html.encode(encoding), headers={"Content-Type": ctype})
    result = extract_content(page_text(response), response.url)
    assert result["title"] == "Café"
    assert expect in result["excerpts"][1], result["excerpts"][1][:80]


def test_nul_bytes_in_a_page_are_dropped_not_garbled():
    html = "<html><body><main><p>" + ("Caf\x00é and more text here. " * 10) + "</p></main></body></html>"
    excerpt = extract_content(html, "https://x.example/")["excerpts"][0]
    assert "Café and more" in excerpt and "\ufffd" not in excerpt and "ï¿½" not in excerpt


@pytest.mark.parametrize("body, expected", [
    ("", None),
    (REPO, "2026-08-09T00:00:00Z"),
    # the kinds in their order, whatever the document order: relative-time, local-time, data-release-date
    ('<p data-release-date="2026-01-01">x</p><local-time datetime="2026-02-02">y</local-time>' + REPO, "2026-08-09T00:00:00Z"),
    ('<p data-release-date="2026-01-01">x</p><local-time datetime="2026-02-02">y</local-time>', "2026-02-02"),
    ('<local-time>no attribute</local-time><p data-release-date="2026-01-01">x</p>', "2026-01-01"),
    ('<relative-time datetime="">empty</relative-time>' + REPO, ""),  # the first value, as an XPath per kind gave it
    ('<RELATIVE-TIME datetime="2026-03-03">upper case</RELATIVE-TIME>', "2026-03-03"),
])
def test_repository_signal_order(body, expected):
    import lxml.html

    from skill3crawl.extract.dates import repository_signal

    assert repository_signal(lxml.html.document_fromstring(_page("", body))) == expected


@pytest.mark.parametrize("head, expected", [
    ("", []),
    (JSONLD, [("json-ld", "2026-03-01T10:00:00Z", "2026-04-02")]),
    ('<script type="application/ld+json">{broken</script>' + JSONLD, [("json-ld", "2026-03-01T10:00:00Z", "2026-04-02")]),
])
def test_structured_dates_jsonld(head, expected):
    import lxml.html

    from skill3crawl.extract.dates import structured_dates

    html = _page(head)
    assert structured_dates(html, "http://x/", lxml.html.document_fromstring(html)) == expected
