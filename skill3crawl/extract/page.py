"""One page, one parse: content, redaction, version markers, dates and links from one lxml tree.

:func:`process_page` runs in the extraction pool (:mod:`skill3crawl.extract.executor`) for every HTML page
of a docs-mode crawl: the page is parsed once, and the content (:func:`~skill3crawl.extract.content.extract_redacted`:
excerpts, code blocks, version markers, secrets redacted), the dates (:func:`~skill3crawl.extract.dates.page_dates`),
the links to follow (:class:`LinkRules`) and the ``<link rel=canonical>`` href all come from that tree; the
crawler's thread only schedules the links it gets back. Each stage's CPU time (``time.process_time``) comes
back with the result (``cpu``), so a benchmark can name the stage a regression is in.

:class:`LinkRules` are Scrapy's :class:`~scrapy.linkextractors.LinkExtractor` rules (``tags``, ``attrs``,
``deny_tags``, ``deny_attrs``, ``allow``, ``deny``, ``allow_domains``, ``deny_domains``, ``deny_extensions``,
``canonicalize``, ``unique``, ``strip``; ``<base href>`` as :func:`w3lib.html.get_base_url` reads it) over a
tree already parsed, without Scrapy (the pool's workers never import it): the same calls, in the same order,
each done once per distinct attribute value. ``tests/crawl/extract/test_page_links.py`` compares it with
``LinkExtractor`` on a table of pages.
"""

from __future__ import annotations

import operator
import re
import time
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from typing import Any, Iterable
from urllib.parse import urldefrag, urljoin, urlparse

from lxml import etree
from w3lib.html import get_base_url, strip_html5_whitespace
from w3lib.url import canonicalize_url, safe_url_string

from skill3crawl.extract.dom import parse

# Scrapy's IGNORED_EXTENSIONS (scrapy.linkextractors), for LinkRules(deny_extensions=None) without importing Scrapy
IGNORED_EXTENSIONS = [
    "7z", "7zip", "bz2", "rar", "tar", "tar.gz", "xz", "zip",
    "mng", "pct", "bmp", "gif", "jpg", "jpeg", "png", "pst", "psp", "tif", "tiff", "ai", "drw", "dxf", "eps", "ps",
    "svg", "cdr", "ico", "webp",
    "mp3", "wma", "ogg", "wav", "ra", "aac", "mid", "au", "aiff",
    "3gp", "asf", "asx", "avi", "mov", "mp4", "mpg", "qt", "rm", "swf", "wmv", "m4a", "m4v", "flv", "webm",
    "xls", "xlsm", "xlsx", "xltm", "xltx", "potm", "potx", "ppt", "pptm", "pptx", "pps", "doc", "docb", "docm",
    "docx", "dotm", "dotx", "odt", "ods", "odg", "odp",
    "css", "pdf", "exe", "bin", "rss", "dmg", "iso", "apk", "jar", "sh", "rb", "js", "hta", "bat", "cpl", "msi", "msp", "py",
]
BASE_SCAN_CHARS = 4096  # Scrapy's get_base_url(response) reads <base href> in the first 4096 characters
XHTML_NAMESPACE = "http://www.w3.org/1999/xhtml"
_string = etree.XPath("string()")
_CANONICAL = etree.XPath("//link[@rel='canonical']/@href")


def _nons(tag: Any) -> Any:
    if isinstance(tag, str) and tag[0] == "{" and tag[1:len(XHTML_NAMESPACE) + 1] == XHTML_NAMESPACE:
        return tag.split("}")[-1]
    return tag


def _names(value: str | Iterable[str] | None) -> frozenset[str]:
    if value is None:
        return frozenset()
    return frozenset([value] if isinstance(value, str) else value)


def _regexes(value: str | re.Pattern[str] | Iterable[str | re.Pattern[str]] | None) -> tuple[re.Pattern[str], ...]:
    if value is None:
        return ()
    items = [value] if isinstance(value, (str, re.Pattern)) else list(value)
    return tuple(x if isinstance(x, re.Pattern) else re.compile(x) for x in items)


def _from_domain(host: str, domains: frozenset[str]) -> bool:
    return bool(host) and any(host == d or host.endswith(f".{d}") for d in domains)


def nofollow(rel: str | None) -> bool:
    """Scrapy's ``rel_has_nofollow``."""
    return rel is not None and "nofollow" in rel.lower().replace(",", " ").split()


@dataclass(frozen=True)
class Link:
    """A link as Scrapy's :class:`scrapy.link.Link` has it."""

    url: str
    text: str = ""
    fragment: str = ""
    nofollow: bool = False


_EXTRACTOR_DEFAULTS: dict[str, Any] = {
    "tags": ("a", "area"), "attrs": ("href",), "deny_tags": (), "deny_attrs": (), "allow": (), "deny": (),
    "allow_domains": (), "deny_domains": (), "deny_extensions": None, "canonicalize": False, "unique": True, "strip": True,
}


@dataclass(frozen=True)
class LinkRules:
    """``LinkExtractor(...)``'s filtering rules as plain, picklable data (``restrict_*`` and ``process_value``
    are not supported)."""

    tags: frozenset[str] = frozenset(("a", "area"))
    attrs: frozenset[str] = frozenset(("href",))
    deny_tags: frozenset[str] = frozenset()
    deny_attrs: frozenset[str] = frozenset()
    allow: tuple[re.Pattern[str], ...] = ()
    deny: tuple[re.Pattern[str], ...] = ()
    allow_domains: frozenset[str] = frozenset()
    deny_domains: frozenset[str] = frozenset()
    deny_extensions: frozenset[str] = field(default_factory=lambda: frozenset("." + e for e in IGNORED_EXTENSIONS))
    canonicalize: bool = False
    unique: bool = True
    strip: bool = True

    @classmethod
    def of(cls, **kwargs: Any) -> LinkRules:
        """The rules ``LinkExtractor(**kwargs)`` builds (its keyword arguments, the unsupported ones left out)."""
        unknown = set(kwargs) - set(_EXTRACTOR_DEFAULTS)
        if unknown:
            raise TypeError(f"LinkRules.of: unsupported LinkExtractor argument(s): {', '.join(sorted(unknown))}")
        k = {**_EXTRACTOR_DEFAULTS, **kwargs}
        ext = IGNORED_EXTENSIONS if k["deny_extensions"] is None else k["deny_extensions"]
        return cls(_names(k["tags"]), _names(k["attrs"]), _names(k["deny_tags"]), _names(k["deny_attrs"]),
                   _regexes(k["allow"]), _regexes(k["deny"]), _names(k["allow_domains"]), _names(k["deny_domains"]),
                   frozenset("." + e for e in _names(ext)), k["canonicalize"], k["unique"], k["strip"])

    @cached_property
    def _walked(self) -> tuple[Any, ...]:
        """What :meth:`_raw`'s walk visits: every element for a ``*`` tag, else the named tags in no namespace or XHTML's."""
        return (etree.Element,) if "*" in self.tags else (*self.tags, *(f"{{{XHTML_NAMESPACE}}}{t}" for t in self.tags))

    def _name_ok(self, allowed: frozenset[str], denied: frozenset[str], name: str) -> bool:
        return name not in denied and ("*" in allowed or name in allowed)

    def _raw(self, tree: Any) -> Iterable[tuple[Any, str]]:
        """(element, attribute value) in document order: LxmlParserLinkExtractor._iter_links. Without a ``*`` tag
        only the elements of the named tags (in no namespace or XHTML's) are visited, picked out by lxml's own walk."""
        for el in tree.iter(*self._walked):
            if not self._name_ok(self.tags, self.deny_tags, _nons(el.tag)):
                continue
            attribs = el.attrib
            for attrib in attribs:
                if self._name_ok(self.attrs, self.deny_attrs, attrib):
                    yield el, attribs[attrib]

    def _url(self, value: str, response_url: str, base_url: str, encoding: str) -> str | None:
        """LxmlParserLinkExtractor._extract_links for one value, then LxmlLinkExtractor._link_allowed (None: no link)."""
        try:
            if self.strip:
                value = strip_html5_whitespace(value)
            value = urljoin(base_url, value)
        except ValueError:
            return None
        try:
            url = safe_url_string(value, encoding=encoding)
        except ValueError:
            return None
        url = urljoin(response_url, url)
        if url.split("://", 1)[0] not in {"http", "https", "file", "ftp"}:
            return None
        if self.allow and not any(r.search(url) for r in self.allow):
            return None
        if self.deny and any(r.search(url) for r in self.deny):
            return None
        if self.allow_domains or self.deny_domains or self.deny_extensions:
            parsed = urlparse(url)
            host = parsed.netloc.lower()
            if self.allow_domains and not _from_domain(host, frozenset(map(str.lower, self.allow_domains))):
                return None
            if self.deny_domains and _from_domain(host, frozenset(map(str.lower, self.deny_domains))):
                return None
            path = parsed.path.lower()
            if self.deny_extensions and any(path.endswith(e) for e in self.deny_extensions):
                return None
        return canonicalize_url(url) if self.canonicalize else url

    def links(self, tree: Any, response_url: str, base_url: str, encoding: str = "utf-8") -> list[Link]:
        """What ``LinkExtractor(...).extract_links(response)`` returns for the response this tree is of."""
        memo: dict[str, str | None] = {}
        out: list[Link] = []
        for el, value in self._raw(tree):
            if value not in memo:
                memo[value] = self._url(value, response_url, base_url, encoding)
            url = memo[value]
            if url is not None:
                out.append(Link(url, _string(el) or "", "", nofollow(el.get("rel"))))
        if self.unique:
            seen: set[str] = set()
            kept = []
            for link in out:
                if link.url not in seen:  # LinkExtractor's dedupe: keyed on the (canonicalized, if asked) URL
                    seen.add(link.url)
                    kept.append(link)
            out = kept
        return out

    def follow_urls(self, tree: Any, response_url: str, base_url: str, encoding: str = "utf-8") -> list[str]:
        """The distinct URLs of :meth:`links` without their fragments, sorted (what a crawl follows); no link
        text, no per-link canonicalisation (a set decides what :meth:`links`' dedupe would).

        Without ``allow``/``deny`` patterns (which could match a fragment) each value is resolved without its
        fragment, once per distinct rest: joining, quoting and resolving leave everything before a ``#`` as it
        is without it (``urljoin(base, "#x")`` is ``base`` with ``#x``)."""
        memo: dict[str, str | None] = {}
        urls: set[str] = set()
        by_rest = not (self.allow or self.deny)
        for _el, value in self._raw(tree):
            if by_rest:
                value = (strip_html5_whitespace(value) if self.strip else value).partition("#")[0]
            if value in memo:
                continue
            url = memo[value] = self._url(value, response_url, base_url, encoding)
            if url is not None:
                urls.add(urldefrag(url).url)
        return sorted(urls)


def page_base_url(html: str, response_url: str, encoding: str = "utf-8") -> str:
    """The page's base URL as Scrapy's ``get_base_url(response)`` reads it (``<base href>`` in the first 4096 characters)."""
    return get_base_url(html[:BASE_SCAN_CHARS], response_url, encoding)


def canonical_href(tree: Any) -> str | None:
    """The first ``<link rel=canonical>`` href, as ``response.xpath("//link[@rel='canonical']/@href").get()``."""
    hrefs = _CANONICAL(tree)
    return str(hrefs[0]) if hrefs else None


_STAGE_ORDER = ("parse", "content", "versions", "redact", "dates", "links")
_by_stage = operator.itemgetter(*_STAGE_ORDER)


@dataclass(frozen=True)
class PageContext:
    """What :func:`process_page` needs besides the page: the content's and the dates' arguments and the link rules."""

    today: date
    title_hint: str = ""
    corpus: bool = False
    headers: dict[str, str] | None = None
    lastmod: str | None = None
    hinted: str | None = None
    rules: LinkRules | None = None  # None: no links read
    encoding: str = "utf-8"  # the response's (links are quoted in it, as LinkExtractor does)
    build_date: str | None = None  # the host's build date, once the crawl recognised it (page_dates: no htmldate then)


def process_page(html: str, url: str, ctx: PageContext) -> dict[str, Any]:
    """→ ``{content, dates, links, canonical, base_url, cpu}`` of one HTML page, from one parse.

    ``content`` is :func:`~skill3crawl.extract.content.extract_redacted`'s result, ``dates``
    :func:`~skill3crawl.extract.dates.page_dates`' (None when the page is dropped for its content),
    ``links`` :meth:`LinkRules.follow_urls` (None without ``ctx.rules``), ``canonical`` the raw
    ``<link rel=canonical>`` href, ``base_url`` the URL relative links resolve against, ``cpu`` the
    CPU seconds of each stage (``parse``, ``content``, ``versions``, ``redact``, ``dates``, ``links``).
    """
    from skill3crawl.extract import content as content_mod
    from skill3crawl.extract.dates import page_dates, tree_signals

    cpu: dict[str, float] = dict.fromkeys(_STAGE_ORDER, 0.0)
    clock = time.process_time
    t0 = clock()
    tree = parse(html)
    t1 = clock()
    cpu["parse"] = t1 - t0
    result = content_mod.extract_redacted(html, url, ctx.title_hint, ctx.corpus, tree=tree, cpu=cpu)
    t2 = clock()
    cpu["content"] = (t2 - t1) - cpu["versions"] - cpu["redact"]
    # Everything read from the tree is read before htmldate parses the page into a tree of its own, and the tree
    # is freed then: the two trees of a large page are not held at once (a worker's peak).
    signals = tree_signals(html, url, tree) if not result["drop_reason"] else None
    t3 = clock()
    links: list[str] | None = None
    canonical = None
    base = page_base_url(html, url, ctx.encoding)
    if tree is not None:
        canonical = canonical_href(tree)
        if ctx.rules is not None:
            links = ctx.rules.follow_urls(tree, url, base, ctx.encoding)
    del tree
    t4 = clock()
    cpu["links"] = t4 - t3
    dates = None
    if signals is not None:
        dates = page_dates(html, url, ctx.headers, today=ctx.today, lastmod=ctx.lastmod, hinted=ctx.hinted, signals=signals,
                           build_date=ctx.build_date)
    cpu["dates"] = (t3 - t2) + (clock() - t4)
    return {"content": result, "dates": dates, "links": links, "canonical": canonical, "base_url": base, "cpu": cpu}
