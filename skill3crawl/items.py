"""The item the spider yields: a :class:`synth.evidence.item.SourceItem` plus transient page data.

Only the ``SourceItem`` fields are exported (the feed's ``fields`` option), in
declaration order; the transient fields carry the fetched page through the
pipelines and are cleared by the last one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from synth.evidence.item import SourceItem

EXPORT_FIELDS = SourceItem.field_names()


@dataclass
class PageItem(SourceItem):
    html: str = ""  # the page as HTML (markdown/text bodies are converted first)
    headers: dict[str, str] = field(default_factory=dict)  # response headers (first value, lower-case names)
    lastmod: str | None = None  # the sitemap's lastmod for this URL
    date_hint: str | None = None  # the corpus file's date: header
    title_hint: str = ""  # title from search results or the corpus header
    extracted: dict[str, Any] | None = None  # skill3crawl.extract.page.process_page's result, when the spider has it
    date_hint_source: str = ""  # what date_hint is (e.g. "registry": a release's upload time); "" → "corpus"
    given_changes: list[dict[str, Any]] | None = None  # change entries the spider made itself (the package's API delta)


@dataclass(frozen=True)
class FetchedPage:
    """A page as a spider found it, before the pipelines: what ``LearnSpider._item`` makes a :class:`PageItem` of.

    ``url`` the URL asked for (or the source's), ``final_url`` where it was read (after redirects), ``html`` the
    page as HTML, ``discovery`` how it was found and ``query`` the search that found it; the hints are
    :class:`PageItem`'s."""

    url: str
    final_url: str
    html: str
    discovery: str
    headers: dict[str, str] = field(default_factory=dict)
    query: str | None = None
    lastmod: str | None = None
    title_hint: str = ""
    date_hint: str | None = None

    @classmethod
    def of_response(cls, response: Any, url: str, html: str, discovery: str, **hints: Any) -> FetchedPage:
        """The page ``response`` answered for ``url`` (its final URL and headers the response's)."""
        return cls(url, response.url, html, discovery, response_headers(response), **hints)


def response_headers(response: Any) -> dict[str, str]:
    """A response's headers for :attr:`PageItem.headers`: lower-case names, first values."""
    out = {}
    for k, v in response.headers.items():
        if v:
            out[k.decode("latin-1").lower()] = v[0].decode("latin-1", "replace")
    return out
