"""Docs mode: pure helpers for crawling a documentation site (no Scrapy objects here).

Order of discovery for each start URL: sitemaps (robots.txt ``Sitemap:`` lines
and ``/sitemap.xml``; index sitemaps followed; ``lastmod`` kept), then
``llms.txt`` / ``llms-full.txt`` (llmstxt.org; ``.md`` variants preferred), then
in-site link following restricted to the start URL's path prefix, breadth-first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from posixpath import dirname
from urllib.parse import urljoin, urlsplit, urlunsplit

from w3lib.url import canonicalize_url

# Locale path segments skipped by default (docs sites publish translations under these).
LOCALES = frozenset(
    """ar bg bn ca cs da de el es es-419 es-es es-mx et fa fi fr he hi hr hu id it ja ko lt lv
    ms nb nl no pl pt pt-br pt-pt ro ru sk sl sr sv ta th tr uk ur vi zh zh-cn zh-hans zh-hant
    zh-hk zh-tw""".split()
)
_NON_PAGE_EXT = re.compile(
    r"\.(png|jpe?g|gif|svg|webp|ico|css|js|mjs|map|woff2?|ttf|eot|pdf|zip|tar|gz|tgz|bz2|xz|whl|"
    r"exe|dmg|mp4|mp3|webm|ogg|wav|avi|mov|epub|json|xml|rss|atom|txt|csv|ipynb)$",
    re.I,
)
_MD_LINK = re.compile(r"\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


@dataclass(frozen=True)
class Scope:
    """Where a docs crawl may go: one scheme+host and a path prefix."""

    origin: str  # scheme://host[:port]
    prefix: str  # always ends with "/"
    filters: tuple[str, ...] = ()  # sitemap_filter path prefixes (empty: the prefix itself)
    skip_locales: bool = True

    @classmethod
    def from_start_url(cls, url: str, filters=(), skip_locales: bool = True) -> "Scope":
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"start_urls: not an http(s) URL: {url!r}")
        path = parts.path or "/"
        prefix = path if path.endswith("/") else dirname(path).rstrip("/") + "/"
        norm = tuple(f if f.startswith("/") else "/" + f for f in filters if f)
        return cls(f"{parts.scheme}://{parts.netloc.lower()}", prefix, norm, skip_locales)

    def host(self) -> str:
        return urlsplit(self.origin).netloc

    def own_locale(self) -> str | None:
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
        if _NON_PAGE_EXT.search(path) and not path.endswith((".md", "llms-full.txt")):
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


def normalize_url(url: str) -> str:
    """The key used for canonical de-duplication: no fragment, sorted query, ``index.html`` folded."""
    url = canonicalize_url(url, keep_fragments=False)
    parts = urlsplit(url)
    path = parts.path or "/"
    for index in ("index.html", "index.htm"):
        if path.endswith("/" + index):
            path = path[: -len(index)]
    return urlunsplit((parts.scheme, parts.netloc.lower(), path, parts.query, ""))


def parse_llms_txt(text: str, base_url: str) -> list[tuple[str, str]]:
    """Links of an llms.txt file (llmstxt.org: markdown lists of ``[title](url): notes``) as (title, absolute URL)."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for title, href in _MD_LINK.findall(text or ""):
        absolute = urljoin(base_url, href.strip())
        if urlsplit(absolute).scheme not in ("http", "https"):
            continue
        absolute = absolute.split("#", 1)[0]
        if absolute not in seen:
            seen.add(absolute)
            out.append((title.strip(), absolute))
    return out


def md_variant(url: str) -> str | None:
    """The ``.md`` twin llmstxt.org asks sites to offer: ``/a/b.html`` → ``/a/b.html.md``, ``/a/`` → ``/a/index.html.md``."""
    parts = urlsplit(url)
    path = parts.path or "/"
    if path.endswith((".md", ".txt")):
        return None
    path = path + "index.html.md" if path.endswith("/") else path + ".md"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def is_markdown(url: str, content_type: str = "") -> bool:
    ct = (content_type or "").lower()
    return "markdown" in ct or urlsplit(url).path.lower().endswith((".md", "llms-full.txt"))


def sitemap_candidates(scope: Scope, robots_sitemaps=()) -> list[str]:
    """Sitemaps to try: robots.txt ``Sitemap:`` lines first, then the conventional locations."""
    out = list(dict.fromkeys(robots_sitemaps))
    for path in ("/sitemap.xml", scope.prefix + "sitemap.xml"):
        url = scope.origin + path
        if url not in out:
            out.append(url)
    return out


def llms_candidates(scope: Scope) -> list[str]:
    out = [scope.origin + scope.prefix + "llms.txt"]
    if scope.prefix != "/":
        out.append(scope.origin + "/llms.txt")
    return out


def lastmod_date(value: str | None) -> str | None:
    """Sitemap ``lastmod`` (W3C datetime) to YYYY-MM-DD, or None when malformed."""
    if not value:
        return None
    m = re.match(r"\s*(\d{4})-(\d{2})-(\d{2})", value)
    if not m:
        return None
    y, mo, d = (int(g) for g in m.groups())
    if not (1990 <= y <= 2100 and 1 <= mo <= 12 and 1 <= d <= 31):
        return None
    return f"{y:04d}-{mo:02d}-{d:02d}"
