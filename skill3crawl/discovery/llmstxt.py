"""llms.txt (llmstxt.org): a markdown file whose links point at the site's LLM-ready pages."""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

_LINK = re.compile(r"\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def llms_txt_url(base: str) -> str:
    p = urlsplit(base)
    return f"{p.scheme}://{p.netloc}/llms.txt"


def parse_llms_txt(text: str, base_url: str, same_host: bool = True) -> list[tuple[str, str]]:
    """[(url, title)] of the links in an llms.txt, resolved against ``base_url``, in order, unique."""
    if not text or text.lstrip().startswith("<"):
        return []  # an HTML error page served as llms.txt
    host = urlsplit(base_url).hostname
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for title, href in _LINK.findall(text):
        url = urljoin(base_url, href)
        p = urlsplit(url)
        if p.scheme not in ("http", "https") or (same_host and p.hostname != host):
            continue
        url = url.split("#", 1)[0]
        if url not in seen:
            seen.add(url)
            out.append((url, title.strip()))
    return out
