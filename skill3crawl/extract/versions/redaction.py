"""Secrets in the change entries: each entry's text, path, API and code redacted in place."""

from __future__ import annotations

import re
from typing import Any

from skill3crawl.extract.versions.tree import WS
from synth.vet.redact import filename_for_language, redact_text, shared_scope

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
    scanned = [_scanned(change["text"], seen) for change in changes]
    fresh = [[code_map is None or block["text"] not in code_map for block in change.get("code") or ()] for change in changes]
    # Every text scanned below, tested once together: each is then searched only with what can match there.
    scope = shared_scope([
        *(change["text"] for change, scan in zip(changes, scanned) if scan),
        *(v for change in changes for v in _names(change) if not (seen and v in seen)),
        *(block["text"] for change, new in zip(changes, fresh) for block, is_new in zip(change.get("code") or (), new) if is_new),
    ])
    total = 0
    short: dict[str, str] = {}

    def clean_short(value: str) -> str:
        nonlocal total
        if value not in short:
            short[value], n = (value, 0) if seen and value in seen else redact_text(value, within=scope)
            total += n
        return short[value]

    for change, scan, new in zip(changes, scanned, fresh):
        if scan:
            change["text"], n = redact_text(change["text"], within=scope)
            total += n
        if change.get("path"):
            change["path"] = [clean_short(p) for p in change["path"]]
        if change.get("api"):
            change["api"] = clean_short(change["api"])
        for block, is_new in zip(change.get("code") or (), new):
            if is_new:
                block["text"], n = redact_text(block["text"], filename=filename_for_language(block.get("language", "")), within=scope)
                total += n
            else:
                block["text"] = code_map[block["text"]]  # type: ignore[index]
    return total


def _scanned(text: str, seen: str) -> bool:
    """Whether a change's text is scanned: not when each of its sentences is in the scanned excerpts or a bare note."""
    return not (seen and all(chunk in seen or _NOTE.fullmatch(chunk) for chunk in _CHUNK.split(text) if chunk))


def _names(change: dict[str, Any]) -> list[str]:
    """A change's heading path and API name (the short texts scanned once per distinct text)."""
    return [v for v in (*(change.get("path") or ()), change.get("api") or "") if v]
