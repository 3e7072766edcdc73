"""The order a docs crawl spends its page budget in: change-record candidates first, then by link depth from the
start pages, then spread across the site's folders — never the order a sitemap lists its pages in.

Pure (no Scrapy objects). :class:`PageOrder` gives each page found its rank (:func:`~skill3crawl.sitecrawl.budget.page_rank`);
the crawl puts the rank on the page's request as its Scrapy ``priority`` and the local page budget lets the
best waiting page take a freed slot. A page a sitemap or an llms.txt lists, whose link depth is not known yet,
is ranked by the depth of its path below the start URL's folder (``/a/b.html`` under ``/``: 2).
"""

from __future__ import annotations

from collections.abc import Callable
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


# -- the yield so far: the pages a marker of a new version points to ------------------------------------------------

MIN_NAME = 5  # characters of a page's name that may match a marker's API (shorter ones name too many things)
MAX_YIELD_NAMES = 200  # names read from one page's markers


def _squash(text: str) -> str:
    """Letters and digits only, lower-cased: ``gtk_label_get_tabs`` and ``Label.get_tabs`` meet as ``…labelgettabs``."""
    return "".join(ch for ch in text.lower() if ch.isalnum())


def page_name(url: str) -> str:
    """The API a page of a page-per-symbol reference is named after: its file name without the extension and without a
    leading kind word (``method.Label.get_tabs.html`` → ``labelgettabs``, ``fn.scope.html`` → ``scope``), squashed."""
    stem = splitext(unquote(urlsplit(url).path).rsplit("/", 1)[-1])[0]
    parts = stem.split(".")
    if len(parts) > 1 and parts[0].isalpha() and parts[0].islower():
        parts = parts[1:]  # "method.", "class.", "fn.", "struct.": the kind, not the name
    return _squash("".join(parts))


def version_numbers(version: str | None) -> tuple[int, ...]:
    """``"1.63.0"`` → ``(1, 63)``, ``"v4.8"`` → ``(4, 8)``: a version's numbers without trailing zeros (empty when none)."""
    nums: list[int] = []
    for part in str(version or "").lstrip("vV").split("."):
        if not part.isdigit() or len(nums) == 4:
            break
        nums.append(int(part))
    while len(nums) > 1 and nums[-1] == 0:
        nums.pop()
    return tuple(nums)


class NewVersions:
    """Which marker versions count as new while a crawl reads the site: newer than the target model's version when
    it is given (``--since-version``), else of the newest series any page's markers named so far."""

    def __init__(self, since: str | None) -> None:
        self.floor = version_numbers(since) if since else None
        self.top: tuple[int, ...] = ()

    def observe(self, changes: list[dict]) -> None:
        for ch in changes[:MAX_YIELD_NAMES]:
            if isinstance(ch, dict) and ch.get("kind") != "release":
                self.top = max(self.top, version_numbers(str(ch.get("version") or ""))[:2])

    def __call__(self, version: str) -> bool:
        nums = version_numbers(version)
        if not nums:
            return False
        return nums > self.floor if self.floor else bool(self.top) and nums[:2] >= self.top


def yield_names(changes: list[dict], is_new: Callable[[str], bool]) -> set[str]:
    """The APIs a page's markers name for new versions (``is_new``: :class:`NewVersions`): each marker's API, heading
    and text's first words, squashed — what a link to that API's own page is named after."""
    names: set[str] = set()
    for ch in changes[:MAX_YIELD_NAMES]:
        if not isinstance(ch, dict) or ch.get("kind") == "release" or not is_new(str(ch.get("version") or "")):
            continue
        for text in (ch.get("api"), ch.get("heading"), " ".join(str(ch.get("text") or "").split()[:4])):
            if text and len(s := _squash(str(text))) >= MIN_NAME:
                names.add(s)
    return names


def name_endings(names: set[str]) -> frozenset[str]:
    """Every ending of at least :data:`MIN_NAME` characters of ``names`` (what :func:`points_to_yield` looks a page's
    name up in: one set lookup per link, whatever the number of markers)."""
    return frozenset(n[i:] for n in names for i in range(len(n) - MIN_NAME + 1))


def points_to_yield(url: str, endings: frozenset[str]) -> bool:
    """Whether a link is the own page of an API a new version's marker names: the page's name (:func:`page_name`)
    ends one of the names ("…labelgettabs" for ``method.Label.get_tabs.html`` beside ``gtk_label_get_tabs``);
    ``endings``: :func:`name_endings` of the names."""
    return page_name(url) in endings
