"""Main content → markdown excerpts (headings + paragraphs) and byte-exact code blocks.

Known documentation generators get their content node selected (Sphinx
``div[role=main]``, MkDocs ``article``, Docusaurus ``.theme-doc-markdown``) and
converted to markdown on the lxml tree (:mod:`.fastmd`); everything else goes through trafilatura. Code
blocks always come from the ``<pre>`` elements themselves, never from the
markdown, so whitespace survives exactly.
"""

from __future__ import annotations

import hashlib
import re
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from lxml import etree

from skill3crawl.extract.code import NOT_CODE, code_language, code_text  # noqa: F401 - code_language: part of this module's API
from skill3crawl.extract.dom import HTML_ELEMENT_PARSER, drop_tree, parse, text_content
from skill3crawl.extract.fastmd import to_markdown
from skill3crawl.extract.versions import redact_changes, scan
from synth.skill.markdown import paragraphs
from synth.vet.redact import redact_fields

MIN_CONTENT_CHARS = 200
MAX_EXCERPTS = 200
MAX_EXCERPT_CHARS = 4000
MAX_CODE_BLOCKS = 100
MIN_EXCERPT_CHARS = 20

# (name, CSS-ish XPath) of main-content nodes of known generators, most specific first.
DOC_GENERATOR_NODES: list[tuple[str, str]] = [
    # Read the Docs theme (Sphinx): the article body inside .rst-content
    ("readthedocs", "//div[@itemprop='articleBody']"),
    # GitBook: the page's content editor node
    ("gitbook", "//*[@data-testid='page.contentEditor']"),
    ("docusaurus", "//*[contains(concat(' ', normalize-space(@class), ' '), ' theme-doc-markdown ')]"),
    ("mkdocs", "//div[contains(concat(' ', normalize-space(@class), ' '), ' md-content ')]//article"),
    ("sphinx", "//div[@role='main']"),
    ("mkdocs", "//article[contains(concat(' ', normalize-space(@class), ' '), ' md-content__inner ')]"),
    # Sphinx themes without role=main (alabaster, classic): div.body
    ("sphinx", "//div[contains(@class,'bodywrapper')]//div[contains(concat(' ', normalize-space(@class), ' '), ' body ')]"),
]
# <pre>s that are not code: line-number gutters (Pygments/MkDocs tables, Docusaurus)
_BOILERPLATE = {"nav", "header", "footer", "aside", "script", "style", "noscript", "form", "button"}
_WS = re.compile(r"\s+")


_NOT_PROSE = etree.XPath(".//pre|.//script|.//style|.//nav|.//*[contains(@class,'headerlink')]")


@contextmanager
def dropped(node: Any, find: Callable[[Any], list[Any]]) -> Iterator[None]:
    """Inside the block, ``node`` is as after ``drop_tree(el)`` of every element ``find(node)`` returns (each
    element and its subtree gone, its tail joined to the text before it); after it, exactly as before.

    What a ``copy.deepcopy(node)`` with the drops did, without the copy: a large page's content node copied was
    its tree's size again (tens of MB for a 1-2 MB index page) at each extraction worker's peak. The elements are
    put back in the reverse order, each after the element it followed, with the text its tail was joined to restored, so the
    elements, their texts and their identity (other readers key on them) are the same after the block."""
    undo: list[tuple[Any, Any, Any, str | None]] = []
    try:
        for el in find(node):
            parent = el.getparent()
            if parent is None:  # ``node`` itself: not a descendant
                continue
            previous = el.getprevious()
            undo.append((parent, el, previous, previous.tail if previous is not None else parent.text))
            drop_tree(el)
        yield
    finally:
        for parent, el, previous, text in reversed(undo):
            if previous is not None:
                previous.addnext(el)  # after the previous element's tail, with its own
                previous.tail = text
            else:
                parent.insert(0, el)
                parent.text = text


def _title(tree: Any) -> str:
    for xp in ("//meta[@property='og:title']/@content", "//title/text()", "//h1//text()"):
        vals = [v.strip() for v in tree.xpath(xp) if v and v.strip()]
        if vals:
            return _WS.sub(" ", vals[0])[:300]
    return ""


def _code_blocks(root: Any, by_pre: dict[Any, dict[str, str]] | None = None) -> list[dict[str, str]]:
    """The code blocks under ``root``; ``by_pre`` gets each ``<pre>`` element's block."""
    blocks: list[dict[str, str]] = []
    for pre in root.iter("pre"):
        if any(a.tag in _BOILERPLATE for a in pre.iterancestors()):
            continue
        if any(c in (a.get("class") or "") for a in (pre, *pre.iterancestors()) for c in NOT_CODE):
            continue
        text = code_text(pre)
        if text.strip():
            blocks.append({"text": text, "language": code_language(pre)})
            if by_pre is not None:
                by_pre[pre] = blocks[-1]
        if len(blocks) >= MAX_CODE_BLOCKS:
            break
    return blocks


def markdown_blocks(md: str) -> list[str]:
    """Split markdown into excerpts (headings and paragraphs); fenced code is left out.

    The blocks are the SKILL.md reader's (``synth.skill.markdown.paragraphs``: CommonMark fences
    and ATX headings); a heading is kept as written, a paragraph when it is long enough.
    """
    out = [text[:MAX_EXCERPT_CHARS] for kind, text in paragraphs(md)
           if text and (kind == "heading" or len(text) >= MIN_EXCERPT_CHARS)]
    return out[:MAX_EXCERPTS]


def _generator_node(tree: Any) -> tuple[str, Any] | tuple[None, None]:
    for name, xp in DOC_GENERATOR_NODES:
        nodes = tree.xpath(xp)
        if nodes:
            return name, nodes[0]
    return None, None


def content_hash(excerpts: list[str], code_blocks: list[dict[str, str]]) -> str:
    h = hashlib.sha256()
    for e in excerpts:
        h.update(_WS.sub(" ", e).strip().lower().encode("utf-8") + b"\x00")
    for cb in code_blocks:
        h.update(b"\x01" + cb["text"].strip().encode("utf-8"))
    return h.hexdigest()[:32]


MAX_SCREEN_TABLES = 200
MAX_SCREEN_LABELS = 200
_SINCE_LABEL_XP = etree.XPath("//*[contains(@class, 'since')]")


def _since_labels(tree: Any) -> str:
    """The text of each element classed as a since label (``<span class="since" title="Stable since …">1.63.0</span>``
    beside a page's or an API's heading) as a line of its own, for the version scan's pre-screen: the main-content
    extractor leaves out a page's heading block, and with it the label that dates the page's own API."""
    lines = []
    for el in _SINCE_LABEL_XP(tree):
        text = " ".join(text_content(el).split())
        if text and len(text) <= 40:
            lines.append(text)
        if len(lines) >= MAX_SCREEN_LABELS:
            break
    return "\n" + "\n".join(lines) if lines else ""


def _table_headers(tree: Any) -> str:
    """The header row of each table of the page as markdown lines (``| Version | Changes |``), for the version scan's
    pre-screen: the main-content extractor leaves out blocks it takes for metadata or chrome — a History table in a
    collapsed ``<details>`` under an API's heading — that the scan, which reads the tree, still finds."""
    rows = []
    for table in tree.iterfind(".//table"):
        first = next(table.iterfind(".//tr"), None)
        if first is not None:
            cells = [" ".join(text_content(c).split())[:40] for c in first if isinstance(c.tag, str) and c.tag in ("th", "td")]
            rows.append("| " + " | ".join(cells) + " |")
        if len(rows) >= MAX_SCREEN_TABLES:
            break
    return "\n" + "\n".join(rows) if rows else ""


def extract_content(html: str, url: str, *, tree: Any = None, cpu: dict[str, float] | None = None) -> dict[str, Any]:
    """→ ``{title, excerpts, code_blocks, content_hash, extractor, chars, drop_reason}`` and the version markers /
    change-page fields of :func:`~skill3crawl.extract.versions.scan` (``changes``, ``page_kind``,
    ``page_version``, ``release_dates``).

    ``drop_reason`` is ``"no_content"`` when the page has too little main content
    (fewer than :data:`MIN_CONTENT_CHARS` characters of prose and code) or
    ``"unparseable"`` when it is not HTML at all.

    ``tree``: the page already parsed by :func:`~skill3crawl.extract.dom.parse` (read, never changed); ``cpu``: a dict that gets the
    CPU seconds of the version-marker pass added under ``"versions"``.
    """
    if tree is None:
        tree = parse(html)
    if tree is None:
        return {"title": "", "excerpts": [], "code_blocks": [], "content_hash": "", "extractor": "", "chars": 0, "drop_reason": "unparseable"}
    title = _title(tree)
    name, node = _generator_node(tree)
    code_of: dict[Any, dict[str, str]] = {}  # <pre> → its block, for the change entries' code
    if node is not None:
        code_blocks = _code_blocks(node, code_of)
        with dropped(node, _NOT_PROSE):
            md = to_markdown(node)  # on the lxml tree: markdownify's re-parse cost ~95% of the page's time
        extractor = name
    else:
        cleaned = parse(html, HTML_ELEMENT_PARSER)  # the tree again, of lxml.html elements: trafilatura reads it
        for el in cleaned.xpath(
            "//nav|//header[not(ancestor::article or ancestor::main)]|//footer[not(ancestor::article or ancestor::main)]"
            "|//aside|//script|//style|//noscript|//form"
        ):
            drop_tree(el)
        import trafilatura  # here, not with the module: the crawler imports this module and never extracts (~27 MB)

        md = trafilatura.extract(
            cleaned, url=url, output_format="markdown", include_tables=True, include_comments=False, with_metadata=False
        ) or ""
        body = tree.find("body")
        code_blocks = _code_blocks(body if body is not None else tree, code_of)
        extractor = "trafilatura"
    excerpts = markdown_blocks(md)
    chars = sum(len(e) for e in excerpts) + sum(len(c["text"]) for c in code_blocks)
    result = {
        "title": title,
        "excerpts": excerpts,
        "code_blocks": code_blocks,
        "content_hash": content_hash(excerpts, code_blocks) if chars else "",
        "extractor": extractor,
        "chars": chars,
        "drop_reason": None if chars >= MIN_CONTENT_CHARS else "no_content",
    }
    if result["drop_reason"] is None:
        t = time.process_time()
        screen = md if node is not None else md + _table_headers(tree) + _since_labels(tree)
        result.update(scan(node if node is not None else tree.find("body"), url, title, body=node is None, text=screen,
                           code_chars=sum(len(c["text"]) for c in code_blocks), code_of=code_of).to_json())
        if cpu is not None:
            cpu["versions"] = cpu.get("versions", 0.0) + time.process_time() - t
    return result


def extract_redacted(html: str, url: str, title_hint: str, corpus: bool, *, tree: Any = None,
                     cpu: dict[str, float] | None = None) -> dict[str, Any]:
    """:func:`extract_content`, the title chosen, then every secret in the title, excerpts and code blocks
    replaced by ``[REDACTED:<kind>]`` (``redactions``: the count, never the secret) — one call in the
    extraction pool, so a secret never reaches ``run.jsonl`` and the reactor thread does none of the work.
    ``tree``, ``cpu``: as for :func:`extract_content` (``cpu`` also gets ``"redact"``)."""
    result = extract_content(html, url, tree=tree, cpu=cpu)
    if result["drop_reason"]:
        return result
    t = time.process_time()
    # the curated corpus file's title header wins; elsewhere the page's own title
    title = (title_hint or result["title"]) if corpus else (result["title"] or title_hint)
    raw_code = [c["text"] for c in result["code_blocks"]]
    result["title"], result["excerpts"], result["code_blocks"], result["redactions"] = redact_fields(
        title, result["excerpts"], result["code_blocks"]
    )
    changes = result.get("changes") or []
    if changes:  # the annotated snippets (and their code) are quoted text too
        code_map = dict(zip(raw_code, (c["text"] for c in result["code_blocks"])))
        result["redactions"] += redact_changes(changes, result["excerpts"], trusted=result["extractor"] != "trafilatura",
                                               code_map=code_map)
    if cpu is not None:
        cpu["redact"] = cpu.get("redact", 0.0) + time.process_time() - t
    return result
