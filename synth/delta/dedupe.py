"""One entry per change: entries that state the same change (the same version and text, the same "use X instead of Y",
or an API page's marker whose API a change page's entry of that version names) merged, citations kept."""

from __future__ import annotations

import re

from synth.delta.changes import identifiers
from synth.delta.model import DeltaEntry as Entry


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


_SIGNATURE = re.compile(r"^\W{0,3}(?:[a-z]+\s+){0,3}([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)\b")


def _names(e: Entry) -> set[str]:
    """The API a marker annotates: the crawl's ``api``, else the dotted or CamelCase name its signature starts with."""
    name = e.api
    if not name:
        m = _SIGNATURE.match(e.text)
        name = m.group(1) if m else None
    if not name:
        return set()
    names = {name, re.split(r"[.:/#]", name)[-1]}
    return {n for n in names if len(n) > 4 and (("." in n) or re.search(r"[a-z][A-Z]|_", n) or n[0].isupper())}


def dedupe(entries: list[Entry]) -> list[Entry]:
    """Merge entries that state the same change: the same version and text, or a marker on an API page whose
    API a change-page entry of the same version names (the change page's text is kept, both citations)."""
    by_text: dict[tuple[str, str], Entry] = {}
    out: list[Entry] = []
    for e in entries:
        k = (e.version, _key(e.text)[:300])
        first = by_text.get(k)
        if first is not None:
            _merge(first, e)
            continue
        by_text[k] = e
        out.append(e)
    # the same "use X instead of Y" of one version stated on two pages is one entry
    pairs: dict[tuple, Entry] = {}
    merged: list[Entry] = []
    for e in out:
        pk = (e.version, e.use, e.instead_of) if e.use and e.instead_of else None
        if pk is not None and pk in pairs:
            _merge(pairs[pk], e)
            continue
        if pk is not None:
            pairs[pk] = e
        merged.append(e)
    out = merged
    # markers (not on change pages) onto the change-page entry of the same version that names their API
    mentions: dict[tuple[str, str], Entry] = {}
    for e in out:
        if e.change_page:
            for name in identifiers(e.text):
                mentions.setdefault((e.version, name), e)
    kept: list[Entry] = []
    for e in out:
        if not e.change_page:
            target = next((mentions[(e.version, n)] for n in sorted(_names(e), key=len, reverse=True)
                           if (e.version, n) in mentions), None)
            if target is not None and target is not e:
                _merge(target, e)
                continue
        kept.append(e)
    return kept


def _merge(into: Entry, other: Entry) -> None:
    for c in other.citations:
        if c not in into.citations and len(into.citations) < 8:
            into.citations.append(c)
    if not into.code and other.code:
        into.code, into.code_langs = other.code, other.code_langs
    if into.area == "General" and other.area != "General":
        into.area, into.internal = other.area, other.internal
    if not into.title and other.title:
        into.title = other.title
    if not into.api and other.api:
        into.api = other.api
    if into.use is None and other.use:
        into.use, into.instead_of = other.use, other.instead_of
    into.highlight = into.highlight or other.highlight
