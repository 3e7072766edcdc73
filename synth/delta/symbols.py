"""The symbol an API reference's marker is about, when its text does not name it.

An API reference with a page per symbol (or a type's page listing its members, each under its own heading) marks
a member "since 4.8" under a heading that is the member's name ("gtk_label_get_tabs" over "Gets the tabs for
``self``. since: 4.8"), or on a page whose title is the symbol's dotted name ("Acme.Layout.get_width") and whose
declaration spells it in the library's own language ("int acme_layout_get_width (AcmeLayout* layout)"). The
quote says what the symbol does, never its name: the entry's label names it instead (``Added in 4.8``,
``acme_layout_get_width``), and SKILL.md's index of the new API lists it under its type (:func:`type_of`).

Pure: no I/O.
"""

from __future__ import annotations

import re

MAX_SYMBOL = 120
MAX_CODE_READ = 2000  # characters of a declaration read for the symbol's own spelling

_IDENT = r"[A-Za-z_][\w]*"
# a name, qualified by ".", "::", "->" or "#"; a property or signal of a type after ":" or "::" ("Acme.Label:max-width")
_SYMBOL = re.compile(rf"{_IDENT}(?:(?:\.|::|->|#){_IDENT})*(?:::?[A-Za-z_][\w-]*)?(?:\(\))?")
_DOTTED = re.compile(rf"{_IDENT}(?:\.{_IDENT})+")
_CALLED = re.compile(rf"(?<![\w.])({_IDENT})\s*\(")


def is_symbol(text: str | None) -> bool:
    """Whether a heading is a symbol's name, not words: one identifier token that is qualified (``Acme.Layout``,
    ``ns::f``), snake_case (``acme_layout_new``) or camelCase / PascalCase with an inner capital (``AcmeLayout``,
    ``getWidth``); a plain word ("Description", "Parameters") is not."""
    s = (text or "").strip()
    if not s or len(s) > MAX_SYMBOL or not _SYMBOL.fullmatch(s):
        return False
    bare = s.removesuffix("()")
    return bool(re.search(r"[.:#>]|_\w|[a-z][A-Z]", bare)) and not bare.startswith("_")


def declared_name(title: str, code: list[str]) -> str | None:
    """The name a page's declaration gives the symbol its dotted title names: the called identifier of a code
    block that is the title's last part or ends with it after an underscore (``Acme.Layout.get_width`` declared
    as ``acme_layout_get_width (…)``); None when no declaration spells it so."""
    last = title.rsplit(".", 1)[-1]
    for block in code[:4]:
        for m in _CALLED.finditer(block[:MAX_CODE_READ]):
            name = m.group(1)
            if name == last or name.endswith("_" + last):
                return name
    return None


def page_symbol(title: str | None, code: list[str]) -> str | None:
    """The symbol a page is about when its title is one dotted name ("Acme.Layout.get_width"): its declared name
    when a declaration on the page spells it (:func:`declared_name`), else the title; None for any other title."""
    t = " ".join((title or "").split())
    if not t or len(t) > MAX_SYMBOL or not _DOTTED.fullmatch(t):
        return None
    return declared_name(t, code) or t


def entry_symbol(heading: str | None, title: str | None, code: list[str], depth: int = 0) -> tuple[str, str] | None:
    """``(symbol, its type)`` of a marker on an API page: the heading when it names a member (the type is the page's
    own dotted title: a type's page listing its members), else — for a marker at the page's top (``depth``: its
    heading path's length, at most one: the page's badge, its description) — the page's symbol (its type: the title
    without its last part, "Acme.Layout.get_width" → "Acme.Layout"); None when neither names one."""
    t = " ".join((title or "").split())
    if is_symbol(heading):
        head = (heading or "").strip().removesuffix("()")
        return head, (t if _DOTTED.fullmatch(t) or is_symbol(t) else "")
    if depth > 1:
        return None  # a marker inside a section of the page is not about the page's own symbol
    sym = page_symbol(t, code)
    if sym is None:
        return None
    return sym, t.rsplit(".", 1)[0]
