"""llms.txt (llmstxt.org): where to look for it, its links, and the ``.md`` twins it asks sites to offer."""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit, urlunsplit

from skill3crawl.sitecrawl.scope import Scope

_MD_LINK = re.compile(r"\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def parse_llms_txt(text: str, base_url: str) -> list[tuple[str, str]]:
    """Links of an llms.txt file (llmstxt.org: markdown lists of ``[title](url): notes``) as (title, absolute URL)."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for title, href in _MD_LINK.findall(text or ""):
        absolute = urljoin(base_url, href.strip())
        if urlsplit(absolute).scheme not in ("http", "https"):
            continue
        absolute = absolute.split("#", 1)[0]
        if absolute not in seen:
            seen.add(absolute)
            out.append((title.strip(), absolute))
    return out


def md_variant(url: str) -> str | None:
    """The ``.md`` twin llmstxt.org asks sites to offer: ``/a/b.html`` → ``/a/b.html.md``, ``/a/`` → ``/a/index.html.md``."""
    parts = urlsplit(url)
    path = parts.path or "/"
    if path.endswith((".md", ".txt")):
        return None
    path = path + "index.html.md" if path.endswith("/") else path + ".md"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def llms_candidates(scope: Scope) -> list[str]:
    """Where a site's llms.txt may be: under the scope's prefix, then at the host's root."""
    out = [scope.origin + scope.prefix + "llms.txt"]
    if scope.prefix != "/":
        out.append(scope.origin + "/llms.txt")
    return out
