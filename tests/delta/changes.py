"""A crawled page's change row as the crawl writes it (``SourceItem.changes``), for the delta tests."""

from __future__ import annotations


def change(kind: str, version: str, text: str, path: list[str], api: str | None = None) -> dict:
    """One change row under the headings ``path`` (its last is the row's own heading), optionally of an API."""
    c = {"kind": kind, "version": version, "text": text, "heading": path[-1], "anchor": None, "date": None,
         "removed_in": None, "path": path}
    if api:
        c["api"] = api
    return c
