"""Secrets in the change entries: each entry's text, path, API and code redacted in place."""

from __future__ import annotations

import re
from typing import Any

from skill3crawl.extract.versions.tree import WS
from synth.vet.redact import filename_for_language, redact_text

_CHUNK = re.compile(r"(?<=[.:;!?])\s+| — ")
_NOTE = re.compile(r"(?:New|Added|Changed|Removed) in version \d+(?:\.\d+)*[.:]")  # a bare note: nothing to hide


def redact_changes(changes: list[dict[str, Any]], excerpts: list[str], trusted: bool,
                   code_map: dict[str, str] | None = None) -> int:
    """Redact each change's text, path, api and code in place; → secrets redacted.

    A change's text is rendered from the same blocks as the excerpts, which were just scanned. On a
    generator page (``trusted``) a text every sentence of which occurs verbatim in the scanned excerpts
    (a redacted excerpt no longer matches the original sentence) or is a bare "New in version 3.7." is
    not scanned again — on a Sphinx page most notes and definitions are such texts; everything else
    goes through :func:`redact_text`. Heading paths and API names are scanned once per distinct text;
    a code block that is one of the page's code blocks takes its redacted text from ``code_map``
    (original → redacted), any other is scanned.
    """
    seen = "\n".join(WS.sub(" ", e) for e in excerpts) if trusted else ""
    total = 0
    short: dict[str, str] = {}

    def clean_short(value: str) -> str:
        nonlocal total
        if value not in short:
            if seen and value in seen:
                short[value] = value
            else:
                short[value], n = redact_text(value)
                total += n
        return short[value]

    for change in changes:
        text = change["text"]
        if not (seen and all(chunk in seen or _NOTE.fullmatch(chunk) for chunk in _CHUNK.split(text) if chunk)):
            change["text"], n = redact_text(text)
            total += n
        if change.get("path"):
            change["path"] = [clean_short(p) for p in change["path"]]
        if change.get("api"):
            change["api"] = clean_short(change["api"])
        for block in change.get("code") or ():
            if code_map is not None and block["text"] in code_map:
                block["text"] = code_map[block["text"]]
            else:
                block["text"], n = redact_text(block["text"], filename=filename_for_language(block.get("language", "")))
                total += n
    return total
