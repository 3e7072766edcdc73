"""A chapter's release: a page that heads a group of pages and states, in a key/value table or definition list at its
top, the release its pages belong to ("Release version | 1.56.0", "Available since: 2.3"). The page is about that
release, and so are the pages nested under it — in the site's navigation (the list under the page's own entry), else in
its directory when it is the directory's index.

The page itself is read where it is extracted (:func:`chapter_field`, :func:`chapter_pages`); its pages are extracted
on their own, in any order, so they inherit the release when the crawl's feed is complete
(:func:`inherited_changes`, applied by :func:`skill3crawl.extensions.rewrite_feed`): every block of a nested page
is an entry of the chapter's release, its heading path the chapter's title and the page's own headings.

A key that states a requirement — a minimum, required or supported version ("Minimum Rust version", "MSRV",
"Requires") — names no release, and neither does a table that is not at the page's top. Pure and lxml-only.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

from skill3crawl.extract.dom import text_content
from skill3crawl.extract.releases import find_date, free_date, heading_text, is_date_label, is_version_label, label_version, since_label
from skill3crawl.extract.versions.bounds import MAX_CHANGES, MAX_PATH, MAX_PATH_CHARS, MAX_TEXT, MIN_ENTRY_CHARS
from skill3crawl.extract.versions.tree import HEADINGS, cap, in_chrome, pairs_of, plain_text, tag_of

MAX_CHAPTER_PAGES = 200  # pages one chapter passes its release to
MAX_TOP_HEADINGS = 3  # the headings whose blocks are read: a theme's menu title may come before the page's
MAX_WRAPPER_CHARS = 1000
MAX_TOP_BLOCKS = 4  # the field table is among the first blocks after the page's first heading
# a key that states a requirement, not the release the page is about
_REQUIREMENT = re.compile(r"(?i)\b(?:min(?:imum)?|max(?:imum)?|required?|requires|msrv|supported|compatib\w*|target|tested)\b")
_HEADING_LINE = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def _release_key(label: str) -> bool:
    """A key that says which release the page belongs to: version / release / since / available ("Release version",
    "Available since"), never a requirement ("Minimum Rust version")."""
    if not label or _REQUIREMENT.search(label):
        return False
    return is_version_label(label) or since_label(label) == "added" or bool(
        re.match(r"(?i)^\W*(?:released?|available|introduced|stabili[sz]ed)\s+in\s*:?\s*$", label))


def chapter_field(node: Any, body: bool) -> tuple[str, str | None, str] | None:
    """(version, date or None, the heading's text) of the key/value table or definition list among the first blocks
    after one of the page's first headings (a theme's menu title may come first) whose key names the release the page
    belongs to; None when there is none."""
    heads = [h for h in node.iter(*HEADINGS) if not (body and in_chrome(h))][:MAX_TOP_HEADINGS]
    top = min((HEADINGS[tag_of(h)] for h in heads), default=0)
    for h in heads:
        if HEADINGS[tag_of(h)] > top:
            continue  # a section's heading: its table is not at the page's top
        hit = _field_after(h, node)
        if hit:
            return hit[0], hit[1], heading_text(h)
    return None


def _field_after(first: Any, node: Any) -> tuple[str, str | None] | None:
    blocks = 0
    el = first
    while blocks < MAX_TOP_BLOCKS:
        nxt = el.getnext()
        if nxt is None:
            parent = el.getparent()  # a heading wrapped in a header of its own: the blocks after the header
            if parent is None or parent is node or tag_of(parent) not in ("header", "hgroup", "div"):
                return None
            el = parent
            continue
        el = nxt
        tag = tag_of(el)
        if not tag:
            continue
        if tag in HEADINGS:
            return None
        blocks += 1
        if tag in ("table", "dl"):
            containers = [el]
        elif next(el.iter(*HEADINGS), None) is None and len(text_content(el)) <= MAX_WRAPPER_CHARS:
            containers = [c for c in el.iter("table", "dl")][:2]  # a table in a wrapper of its own
        else:
            return None  # a block holding more of the page: the field table is not at its top
        for container in containers:
            if (hit := _release_fields(container)) is not None:
                return hit
    return None


def _release_fields(container: Any) -> tuple[str, str | None] | None:
    """(version, date) of a key/value table or definition list whose key names the release, else None."""
    ver = when = None
    for label_el, value_el in pairs_of(container):
        label = plain_text(label_el).rstrip(": ")
        if ver is None and _release_key(label):
            ver = label_version(plain_text(value_el))
        elif when is None and is_date_label(label):
            when = find_date(plain_text(value_el)) or free_date(plain_text(value_el))
    return (ver, when) if ver else None


def _norm(url: str) -> str:
    """A page's URL without query and fragment, ``dir/index.html`` as ``dir/``."""
    parts = urlsplit(url)
    path = re.sub(r"/index\.html?$", "/", parts.path or "/")
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, "", ""))


def _links(el: Any, base: str) -> list[str]:
    out = []
    for a in el.iter("a"):
        href = (a.get("href") or "").strip()
        if href and not href.startswith(("#", "javascript:", "mailto:")):
            out.append(urljoin(base, href))
    return out


def chapter_pages(node: Any, url: str) -> list[str]:
    """The pages nested under ``url`` in the navigation of the document ``node`` belongs to (the list inside, or right
    after, the list item linking to the page itself), else — when the page is its directory's index — the pages it
    links to in that directory. Same host, the page itself left out, at most :data:`MAX_CHAPTER_PAGES`; none for the
    site's home page."""
    root = node.getroottree().getroot()
    own = _norm(url)
    host = urlsplit(own).netloc
    if urlsplit(own).path == "/":
        return []  # the site's home heads every page: a version box there is the docs' version, no chapter's release
    found = _nested_links(root, url, own)
    if not found and urlsplit(own).path.endswith("/"):
        found = [u for u in _links(root, url) if _norm(u).startswith(own)]
    out: list[str] = []
    seen = {own}
    for u in found:
        n = _norm(u)
        if n in seen or urlsplit(n).netloc != host:
            continue
        seen.add(n)
        out.append(n)
        if len(out) >= MAX_CHAPTER_PAGES:
            break
    return out


def _nested_links(root: Any, url: str, own: str) -> list[str]:
    """The links of the list nested under the navigation's list item that links to the page itself (inside it, or the
    list item right after it holding only a list)."""
    for a in root.iter("a"):
        href = (a.get("href") or "").strip()
        if not href or "#" in href or _norm(urljoin(url, href)) != own:
            continue
        li = next(a.iterancestors("li"), None)
        if li is None:
            continue
        lists = [c for c in li.iter("ol", "ul") if c is not li]
        sib = li.getnext()
        if not lists and sib is not None and tag_of(sib) == "li" and not any(tag_of(c) == "a" for c in sib):
            lists = [c for c in sib if tag_of(c) in ("ol", "ul")]
        found = [u for lst in lists for u in _links(lst, url)]
        if found:
            return found
    return []


def chapter_key(url: str) -> str:
    """The key a page is looked up by among a chapter's pages."""
    return _norm(url)


def inherited_changes(excerpts: list[str], version: str, date: str | None, chapter_title: str, anchor_base: str = ""
                      ) -> list[dict[str, Any]]:
    """The change entries of a page nested in a chapter of release ``version``: each block of its text (``excerpts``,
    the page's markdown blocks) an entry of kind ``release``, under the chapter's title and the page's own headings.
    Tables, lead-ins ("… by running:") and blocks shorter than an entry are left out; at most :data:`~.bounds.MAX_CHANGES` entries."""
    out: list[dict[str, Any]] = []
    stack: list[tuple[int, str]] = []
    for block in excerpts or []:
        if not isinstance(block, str):
            continue
        text = block.strip()
        m = _HEADING_LINE.match(text) if "\n" not in text else None
        if m:
            level = len(m.group(1))
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, m.group(2)))
            continue
        if len(text) < MIN_ENTRY_CHARS or text.startswith("|") or text.endswith(":"):
            continue  # a table, a line too short, a lead-in to code or a list the entry would not hold
        path = [t[:MAX_PATH_CHARS] for t in [chapter_title, *(s for _l, s in stack)] if t][-MAX_PATH:]
        out.append({"kind": "release", "version": version, "removed_in": None, "date": date, "text": cap(text, MAX_TEXT),
                    "anchor": None, "heading": path[-1] if path else "", "path": path, "api": None, "code": []})
        if len(out) >= MAX_CHANGES:
            break
    return out
