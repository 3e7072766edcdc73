"""A ``<pre>`` as code: its text byte-exact and its language, and the line-number columns that are no code.

Shared by the page's code blocks (:mod:`skill3crawl.extract.content`) and a change entry's own examples
(:mod:`skill3crawl.extract.versions.scan`).
"""

from __future__ import annotations

import re
from typing import Any

NOT_CODE = ("linenos", "linenodiv")  # classes of line-number columns beside a code block
_LANG_CLASS = re.compile(r"(?:^|\s)(?:language|lang|highlight|brush)[-:]([\w+#.-]+)", re.I)


def code_text(pre: Any) -> str:
    """Text of a <pre>, byte-exact: <br> is a newline, everything else is its text."""
    parts: list[str] = []

    def walk(el: Any) -> None:
        if el.tag == "br":
            parts.append("\n")
        elif el.text and isinstance(el.tag, str):
            parts.append(el.text)
        for child in el:
            if isinstance(child.tag, str):
                walk(child)
            if child.tail:
                parts.append(child.tail)

    walk(pre)
    return "".join(parts)


def code_language(pre: Any) -> str:
    """Language from classes/data attributes on the <pre>, its <code>, or up to 5 ancestors (MkDocs line-number tables nest deep)."""
    nodes = [pre, *pre.xpath("./code")]
    anc = pre.getparent()
    for _ in range(5):
        if anc is None:
            break
        nodes.append(anc)
        anc = anc.getparent()
    for node in nodes:
        for attr in ("data-lang", "data-language"):
            if node.get(attr):
                return node.get(attr).strip().lower()
        m = _LANG_CLASS.search(node.get("class") or "")
        if m and m.group(1).lower() not in ("default", "none", "text", "plain", "plaintext"):
            return m.group(1).lower()
        if m:
            return ""
    return ""
