"""The page's tree of plain elements against lxml.html's: the same tree, text and drops."""

import lxml.html
import pytest
from lxml import etree

from skill3crawl.extract.dom import HTML_ELEMENT_PARSER, drop_tree, parse, text_content

PAGES = [
    "<html><body><p>a<b>b</b>c<i>d</i>e</p></body></html>",
    "<p>bare fragment with a <a href='x'>link</a> tail</p>",
    "<html><head><title>t</title><meta property='og:title' content='x'></head><body><!-- c --><div>x<span>y</span>z</div></body></html>",
    "<html><body><ul><li>one<li>two</ul>tail text<table><tr><td>c</table></body></html>",
    "<html><body>\x00nul<p>caf\u00e9 \u00b6</p></body></html>",
]


@pytest.mark.parametrize("html", PAGES)
def test_the_same_tree_as_lxml_html(html):
    plain, rich = parse(html), parse(html, HTML_ELEMENT_PARSER)
    assert isinstance(rich, lxml.html.HtmlElement) and not isinstance(plain, lxml.html.HtmlElement)
    assert etree.tostring(plain) == etree.tostring(rich)
    for a, b in zip(plain.iter(etree.Element), rich.iter(etree.Element)):
        assert text_content(a) == b.text_content()


@pytest.mark.parametrize("html", PAGES)
def test_drop_tree_as_lxml_html(html):
    plain, rich = parse(html), parse(html, HTML_ELEMENT_PARSER)
    for tag in ("b", "i", "span", "li", "a", "p"):
        for a, b in zip(list(plain.iter(tag))[::-1], list(rich.iter(tag))[::-1]):
            if a.getparent() is not None:
                drop_tree(a)
                b.drop_tree()
    assert etree.tostring(plain) == etree.tostring(rich)


@pytest.mark.parametrize("html", ["", "   ", "\x00"])
def test_an_empty_page_has_no_tree(html):
    assert parse(html) is None
