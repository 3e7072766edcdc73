"""Links read from the extraction worker's one tree (``skill3crawl.extract.page.LinkRules``) are exactly the links
Scrapy's ``LinkExtractor`` returns for the same response: a table of pages × a table of extractor arguments."""

from __future__ import annotations

from datetime import date
from urllib.parse import urldefrag

import pytest
from scrapy.http import HtmlResponse
from scrapy.linkextractors import LinkExtractor

from skill3crawl.extract.dom import parse
from skill3crawl.extract.page import LinkRules, PageContext, canonical_href, page_base_url, process_page

URL = "http://docs.example.org/guide/v2/page.html"
PAGES = {
    "relative and absolute": """<html><body><a href='intro.html'>Intro</a> <a href='../up.html'>Up</a>
        <a href='/root.html'>Root</a> <a href='//cdn.example.net/x.html'>Scheme-relative</a>
        <a href='http://other.example/y'>Other host</a> <a href='?q=1'>Query</a> <a href=''>Empty</a>
        <a>No href</a> <a href='./a/./b/../c.html'>Dots</a></body></html>""",
    "base href absolute": """<html><head><base href='http://docs.example.org/other/'></head><body>
        <a href='intro.html'>x</a> <a href='/abs.html'>y</a> <a href='#frag'>z</a></body></html>""",
    "base href relative": """<html><head><base href='../v1/'></head><body><a href='intro.html'>x</a>
        <a href='sub/p.html#a'>y</a></body></html>""",
    "base without href, then one": """<html><head><base target='_blank'><base href='/b/'></head>
        <body><a href='p.html'>p</a></body></html>""",
    "fragments and duplicates": """<html><body><a href='#top'>top</a><a href='#top'>top again</a>
        <a href='p.html#a'>a</a><a href='p.html#b'>b</a><a href='p.html'>plain</a><a href='P.html'>case</a>
        <a href='p.html?b=2&amp;a=1'>query order</a><a href='p.html?a=1&amp;b=2'>query order 2</a>
        <a href='#'>bare hash</a></body></html>""",
    "nofollow and rel": """<html><body><a rel='nofollow' href='n.html'>n</a><a rel='NoFollow, noopener' href='m.html'>m</a>
        <a rel='follow' href='f.html'>f</a></body></html>""",
    "non-page extensions": """<html><body><a href='manual.pdf'>pdf</a><a href='BUNDLE.ZIP'>zip</a>
        <a href='setup.tar.gz'>tgz</a><a href='img.PNG?x=1'>png</a><a href='style.css'>css</a><a href='x.py'>py</a>
        <a href='page.html'>page</a><a href='notes.md'>md</a><a href='data.json'>json</a></body></html>""",
    "schemes": """<html><body><a href='mailto:a@example.org'>mail</a><a href='javascript:void(0)'>js</a>
        <a href='ftp://ftp.example.org/f'>ftp</a><a href='file:///etc/x'>file</a><a href='data:text/html,x'>data</a>
        <a href='tel:+100'>tel</a><a href='HTTPS://Docs.Example.org/Up.html'>upper</a></body></html>""",
    "whitespace and odd characters": """<html><body><a href='  spaced.html  '>s</a><a href='
        newline.html'>n</a><a href='caf\u00e9.html'>accent</a><a href='sp ace.html'>space</a>
        <a href='http://b\u00fccher.example/x'>idn</a><a href='a%20b.html'>escaped</a>
        <a href='http://[::1/'>bad ipv6</a><a href='x.html?q=\u00e9'>query accent</a></body></html>""",
    "area, link and other tags": """<html><head><link rel='canonical' href='/canon.html'><link href='style2.html'></head>
        <body><map><area href='area.html'></map><img src='img.html'><iframe src='frame.html'></iframe>
        <A HREF='upper-tag.html'>upper</A><div href='div.html'>div</div><a data-href='data.html' href='both.html'>b</a>
        </body></html>""",
    "text of nested elements": """<html><body><a href='t.html'>Some <b>bold</b> <i>text</i></a>
        <a href='t.html'>second text</a><a href='u.html'><img alt='x'></a><!-- <a href='comment.html'>c</a> -->
        </body></html>""",
    "xhtml": """<?xml version="1.0"?><!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml"><body>
        <a href="x.html">x</a><svg><a href="svg.html">s</a></svg></body></html>""",
    "a docs page": """<html><head><title>T</title><link rel="index" href="../genindex.html"></head><body>
        <div class="sphinxsidebar"><ul><li><a href="../index.html">Home</a></li><li><a href="#sec">Sec</a></li></ul></div>
        <div role="main"><h1 id="sec">Sec<a class="headerlink" href="#sec">¶</a></h1><p>See <a class="reference internal"
        href="lib.html#lib.func" title="lib.func"><code>func()</code></a> and <a href="lib.html#lib.other">other</a>.</p></div>
        </body></html>""",
}
EXTRACTORS = {
    "default": {},
    "docs crawl (no extension filter)": {"deny_extensions": []},
    "canonicalize": {"canonicalize": True},
    "not unique": {"unique": False},
    "allow/deny": {"allow": r"/guide/", "deny": [r"up\.html", r"#b$"]},
    "domains": {"allow_domains": ["example.org"], "deny_domains": "cdn.example.net"},
    "every tag, src too": {"tags": "*", "attrs": ("href", "src"), "deny_tags": ["img"]},
    "every attribute": {"tags": ("a",), "attrs": "*", "deny_attrs": "data-href"},
    "no strip": {"strip": False},
    "custom extensions": {"deny_extensions": ["html", "md"]},
}


def _response(body: str) -> HtmlResponse:
    return HtmlResponse(URL, body=body.encode("utf-8"), encoding="utf-8")


@pytest.mark.parametrize("kwargs", EXTRACTORS.values(), ids=EXTRACTORS.keys())
@pytest.mark.parametrize("body", PAGES.values(), ids=PAGES.keys())
def test_tree_links_are_link_extractors(body: str, kwargs: dict) -> None:
    response = _response(body)
    expected = [(link.url, link.text, link.nofollow) for link in LinkExtractor(**kwargs).extract_links(response)]
    html = response.text
    tree = parse(html)
    rules = LinkRules.of(**kwargs)
    base = page_base_url(html, URL, response.encoding)
    got = [(link.url, link.text, link.nofollow) for link in rules.links(tree, URL, base, response.encoding)]
    assert got == expected
    # what the crawl follows: the same URLs without their fragments, each once
    assert rules.follow_urls(tree, URL, base, response.encoding) == sorted({urldefrag(u).url for u, _, _ in expected})


@pytest.mark.parametrize("body", PAGES.values(), ids=PAGES.keys())
def test_canonical_and_base_are_the_responses(body: str) -> None:
    response = _response(body)
    tree = parse(response.text)
    assert canonical_href(tree) == response.xpath("//link[@rel='canonical']/@href").get()
    assert page_base_url(response.text, URL) == response.urljoin("")


def test_process_page_is_the_separate_calls() -> None:
    """One parse gives what the separate content and date functions give on their own parses."""
    from skill3crawl.extract.content import extract_redacted
    from skill3crawl.extract.dates import page_dates

    prose = "<p>" + "This section explains the configuration of the crawler in enough words. " * 5 + "</p>"
    html = (f"<html><head><title>T</title><meta property='article:published_time' content='2026-03-01'></head><body>"
            f"<div role='main'><h1>T</h1>{prose}<p>Changed in version 3.2: the default.</p>"
            f"<pre>key = 'AKIAIOSFODNN7EXAMPLE'</pre><a href='next.html#x'>next</a></div></body></html>")
    today = date(2026, 12, 1)
    ctx = PageContext(today, headers={"Last-Modified": "Tue, 03 Mar 2026 10:00:00 GMT"}, rules=LinkRules.of(deny_extensions=[]))
    out = process_page(html, URL, ctx)
    assert out["content"] == extract_redacted(html, URL, "", False)
    assert out["dates"] == page_dates(html, URL, {"Last-Modified": "Tue, 03 Mar 2026 10:00:00 GMT"}, today=today)
    assert out["links"] == ["http://docs.example.org/guide/v2/next.html"]
    assert set(out["cpu"]) == {"parse", "content", "versions", "redact", "dates", "links"}
    dropped = process_page("<html><body><p>short</p></body></html>", URL, PageContext(today))
    assert dropped["content"]["drop_reason"] == "no_content" and dropped["dates"] is None
