"""A public API object of a release (what the API delta compares) and the helpers both readers share: the Python
reader (:mod:`skill3crawl.packages.apidelta`) and the TypeScript one (:mod:`skill3crawl.packages.tsdelta`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_OBJECTS = 20_000  # public objects of one release


@dataclass(frozen=True)
class ApiObject:
    path: str  # the public dotted path (``attr.frozen``)
    kind: str  # function | class | attribute | module
    module: str  # the public module it is exported from
    signature: str
    doc: str  # the docstring's first sentence
    file: str  # where it is defined, relative to the release's folder
    target: str = ""  # where it is defined, as a dotted path (one object exported under two names has one target)


def first_sentence(text: str | None, limit: int = 240) -> str:
    """The first sentence of a docstring's first paragraph."""
    para = re.split(r"\n\s*\n", (text or "").strip(), maxsplit=1)[0]
    para = " ".join(para.split())
    m = re.match(r"(.+?[.!?])(?:\s|$)", para)
    s = m.group(1) if m else para
    return s if len(s) <= limit else s[: limit - 1].rstrip() + "…"
