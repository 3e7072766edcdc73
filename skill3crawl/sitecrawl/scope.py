"""Where a docs-mode crawl may go: one host, a path prefix, optional sitemap filters, the site's own locale.

Pure (no Scrapy objects): :class:`Scope` answers, for any URL a sitemap, an llms.txt or a page
link names, whether it is inside, or why not (``offsite``, ``outside_prefix``,
``sitemap_filter``, ``not_a_page``, ``locale``) — the reasons the crawl counts as dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from posixpath import dirname, splitext
from typing import Iterable
from urllib.parse import urlsplit

from scrapy.linkextractors import IGNORED_EXTENSIONS

# Locale path segments skipped by default (docs sites publish translations under these).
LOCALES = frozenset(
    """ar bg bn ca cs da de el es es-419 es-es es-mx et fa fi fr he hi hr hu id it ja ko lt lv
    ms nb nl no pl pt pt-br pt-pt ro ru sk sl sr sv ta th tr uk ur vi zh zh-cn zh-hans zh-hant
    zh-hk zh-tw""".split()
)
# File extensions that are never documentation pages: Scrapy's link extractor's list (images, audio,
# video, office files, archives, executables) and the assets and data files of a docs build.
NON_PAGE_EXTENSIONS = frozenset(IGNORED_EXTENSIONS) | frozenset(
    "mjs map woff woff2 ttf eot gz tgz whl epub json xml atom txt csv ipynb".split()
)
# Pages despite their extension: markdown twins and llmstxt.org's full text.
PAGE_SUFFIXES = (".md", "llms-full.txt")


# A plain-text change log by its conventional name ("NEWS.txt", "CHANGES.txt", "RelNotes.txt"): read as a change
# page. A second extension is a build's copy of a page ("_sources/changelog.rst.txt"), not a change log.
CHANGE_LOG_STEMS = frozenset("news changes changelog change-log history releases release-notes release_notes releasenotes "
                             "relnotes whatsnew whats-new".split())


# A file named after a release ("version9.html", "new_features_2_4.html", "v1.5.0.html", "3.40.0.html", "2.39.0.txt"):
# a word that introduces a version, or nothing, then a version with at least a major number and a separator
# (or a word glued to a major number: "version9").
RELEASE_FILE = re.compile(
    r"(?:(?:version|release|rel|v|news|changes|new[-_]?features?|whats[-_]?new|notes)[-_]?v?\d+(?:[._-]\d+)*"
    r"|v?\d+(?:[._]\d+)+)"
)


def not_a_page(path: str) -> bool:
    """The URL path names a file that is not a page (an image, an archive, a stylesheet …). A ``.txt`` file is a page
    when it is a change log: named as one (``NEWS.txt``), named after a release (``2.39.0.txt``), or in a folder of
    release notes (``RelNotes/…``, ``release-notes/…``)."""
    if path.endswith(PAGE_SUFFIXES):
        return False
    folders = path.rsplit("/", 1)[0].lower().split("/")
    stem, ext = splitext(path.rsplit("/", 1)[-1])
    if ext.lower() == ".txt" and (stem.lower() in CHANGE_LOG_STEMS or RELEASE_FILE.fullmatch(stem.lower())
                                  or folders[-1] in CHANGE_LOG_STEMS):
        return False
    return ext[1:].lower() in NON_PAGE_EXTENSIONS


@dataclass(frozen=True)
class Scope:
    """Where a docs crawl may go: one scheme+host and a path prefix."""

    origin: str  # scheme://host[:port]
    prefix: str  # always ends with "/"
    filters: tuple[str, ...] = ()  # sitemap_filter path prefixes (empty: the prefix itself)
    skip_locales: bool = True

    @classmethod
    def from_start_url(cls, url: str, filters: Iterable[str] = (), skip_locales: bool = True) -> "Scope":
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"start_urls: not an http(s) URL: {url!r}")
        path = parts.path or "/"
        prefix = path if path.endswith("/") else dirname(path).rstrip("/") + "/"
        norm = tuple(f if f.startswith("/") else "/" + f for f in filters if f)
        return cls(f"{parts.scheme}://{parts.netloc.lower()}", prefix, norm, skip_locales)

    def host(self) -> str:
        """``host[:port]`` of the scope's origin."""
        return urlsplit(self.origin).netloc

    def own_locale(self) -> str | None:
        """The locale of the start URL's own path (its pages are never dropped as ``locale``)."""
        return locale_of(self.prefix)

    def allows(self, url: str) -> str | None:
        """None when ``url`` is inside the scope, else the drop reason."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            return "offsite"
        if parts.netloc.lower() != self.host():
            return "offsite"
        path = parts.path or "/"
        if not (path.startswith(self.prefix) or path + "/" == self.prefix):
            return "outside_prefix"
        if self.filters and not any(path.startswith(f) for f in self.filters):
            return "sitemap_filter"
        if not_a_page(path):
            return "not_a_page"
        if self.skip_locales:
            loc = locale_of(path)
            if loc and loc != self.own_locale():
                return "locale"
        return None


def locale_of(path: str) -> str | None:
    """The first locale-looking segment of a URL path (``/ja/``, ``/zh-cn/``, ``/pt_BR/``), else None."""
    for seg in path.split("/"):
        s = seg.lower().replace("_", "-")
        if s in LOCALES:
            return s
    return None
