"""The order a docs crawl spends its page budget in: change-record candidates first, then by link depth from the
start pages, then spread across the site's folders — never the order a sitemap lists its pages in.

Pure (no Scrapy objects). :class:`PageOrder` gives each page found its rank (:func:`~skill3crawl.sitecrawl.budget.page_rank`);
the crawl puts the rank on the page's request as its Scrapy ``priority`` and the local page budget lets the
best waiting page take a freed slot. A page a sitemap or an llms.txt lists, whose link depth is not known yet,
is ranked by the depth of its path below the start URL's folder (``/a/b.html`` under ``/``: 2).
"""

from __future__ import annotations

from posixpath import splitext
from urllib.parse import unquote, urlsplit

from skill3crawl.extract.versions import change_like_url
from skill3crawl.sitecrawl.budget import page_rank
from skill3crawl.sitecrawl.scope import CHANGE_LOG_STEMS, RELEASE_FILE

MAX_FOLDERS = 10_000  # folders counted for the spread (beyond it, a new folder counts as one seen once)


def change_candidate(url: str) -> bool:
    """Whether a URL may hold change records: its path names a change page (``change_like_url``), a file named
    after a release, or a plain-text change log by its conventional name whatever its extension (``NEWS``,
    ``CHANGES.txt``, ``HISTORY.rst``)."""
    if change_like_url(url):
        return True
    name = unquote(urlsplit(url).path).rsplit("/", 1)[-1].lower()
    stem, ext = splitext(name)
    if stem in CHANGE_LOG_STEMS and ext in ("", ".txt", ".rst", ".md", ".html", ".htm", ".text"):
        return True
    return bool(RELEASE_FILE.fullmatch(stem))


def path_depth(url: str, prefix: str) -> int:
    """Folders and file below ``prefix`` in the URL's path (``/docs/a/b.html`` under ``/docs/``: 2; the prefix itself: 0)."""
    path = urlsplit(url).path or "/"
    rest = path[len(prefix):] if path.startswith(prefix) else path.lstrip("/")
    return len([seg for seg in rest.split("/") if seg])


def folder_of(url: str) -> str:
    """The folder of a URL's path (``/a/b.html`` → ``/a/``)."""
    path = urlsplit(url).path or "/"
    return path.rsplit("/", 1)[0] + "/"


class PageOrder:
    """Ranks the pages a crawl finds (the rank travels with the page's budget entry and request)."""

    def __init__(self) -> None:
        self.per_folder: dict[str, int] = {}

    def _nth(self, folder: str, count: bool) -> int:
        n = self.per_folder.get(folder, 0)
        if count and (folder in self.per_folder or len(self.per_folder) < MAX_FOLDERS):
            self.per_folder[folder] = n + 1
        return n

    def rank(self, url: str, hops: int | None, prefix: str, *, count: bool = True) -> tuple[int, int]:
        """(rank, depth) of the page at ``url``: ``hops`` links from a start page, or None when not found through a
        link (its path depth below ``prefix`` stands in). ``count``: the page takes its place in its folder's share."""
        depth = hops if hops is not None else path_depth(url, prefix)
        return page_rank(change_candidate(url), depth, self._nth(folder_of(url), count)), depth

    def best_first(self, urls: list[str], prefix: str, hops: int | None = None) -> list[str]:
        """``urls`` in the order they are worth their budget slots (stable), without counting them yet."""
        preview: dict[str, int] = {}
        ranks = []
        for url in urls:
            folder = folder_of(url)
            nth = self.per_folder.get(folder, 0) + preview.get(folder, 0)
            preview[folder] = preview.get(folder, 0) + 1
            depth = hops if hops is not None else path_depth(url, prefix)
            ranks.append(page_rank(change_candidate(url), depth, nth))
        order = sorted(range(len(urls)), key=lambda i: -ranks[i])
        return [urls[i] for i in order]
