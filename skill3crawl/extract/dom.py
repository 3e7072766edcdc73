"""The page's tree: parsed by lxml's HTML parser into plain elements, and the two ``lxml.html`` element methods
the extraction uses, as functions.

``lxml.html``'s parser gives each element a Python class of its own, looked up in Python every time an element
is handed to Python code (``HtmlElementClassLookup.lookup``): a page's walks cost several thousand such lookups,
~1.6 ms of CPU a page on the Python docs. The same parser without that lookup (``etree.HTMLParser``) builds the
same tree; :func:`text_content` and :func:`drop_tree` do what the ``HtmlElement`` methods of those names do, on
plain and ``lxml.html`` elements alike.
"""

from __future__ import annotations

from typing import Any

import lxml.html
from lxml import etree

# The page arrives decoded (Scrapy's TextResponse.text: HTTP header, BOM, <meta>, then detection), so lxml
# gets UTF-8 bytes and is told so: a <meta charset> inside the text must not decode it a second time.
HTML_PARSER = etree.HTMLParser(encoding="utf-8")
HTML_ELEMENT_PARSER = lxml.html.HTMLParser(encoding="utf-8")  # the same tree of ``lxml.html`` elements (trafilatura's input)
text_content = etree.XPath("string()")  # HtmlElement.text_content: the element's text, its descendants' in order


def parse(html: str, parser: Any = HTML_PARSER) -> Any:
    """The page's tree (``lxml.html.document_fromstring``'s, with ``parser``); None for an empty page."""
    if not html or not html.strip():
        return None
    try:
        return etree.fromstring(html.replace("\x00", "").encode("utf-8", "replace"), parser)  # None: no document
    except (etree.ParserError, ValueError):
        return None


def drop_tree(el: Any) -> None:
    """``HtmlElement.drop_tree``: the element and its subtree removed, its tail joined to the text before it."""
    parent = el.getparent()
    assert parent is not None
    if el.tail:
        previous = el.getprevious()
        if previous is None:
            parent.text = (parent.text or "") + el.tail
        else:
            previous.tail = (previous.tail or "") + el.tail
    parent.remove(el)
