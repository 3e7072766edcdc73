"""Main content of documentation pages: generator-aware node selection, code byte-exact.

Pure functions (picklable, so :mod:`skill3crawl.cpu` can run them in worker
processes). Known generators — Sphinx, Read the Docs, MkDocs / Material,
Docusaurus, GitBook — get their content node selected directly, which keeps
``<pre>`` text byte-exact with its language; anything else goes to trafilatura.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from lxml import etree
from lxml import html as lxml_html

# (generator name, how to recognise it, content node selectors in order)
GENERATORS: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = [
    (
        "readthedocs",
        ("//div[contains(concat(' ',normalize-space(@class),' '),' rst-content ')]",),
        ("//div[@itemprop='articleBody']", "//div[contains(@class,'rst-content')]//div[@role='main']"),
    ),
    (
        "docusaurus",
        ("//meta[@name='generator'][starts-with(@content,'Docusaurus')]", "//*[contains(@class,'theme-doc-markdown')]"),
        ("//*[contains(concat(' ',normalize-space(@class),' '),' theme-doc-markdown ')]", "//article//*[contains(@class,'markdown')]"),
    ),
    (
        "mkdocs-material",
        ("//*[contains(@class,'md-content__inner')]",),
        ("//article[contains(@class,'md-content__inner')]", "//div[contains(@class,'md-content')]//article"),
    ),
    (
        "mkdocs",
        ("//meta[@name='generator'][starts-with(@content,'mkdocs')]",),
        ("//div[@role='main']", "//main", "//article"),
    ),
    (
        "gitbook",
        ("//meta[@name='generator'][contains(@content,'GitBook')]", "//*[@data-testid='page.contentEditor']"),
        ("//*[@data-testid='page.contentEditor']", "//main//*[contains(@class,'whitespace-pre-wrap')]/ancestor::main[1]", "//main"),
    ),
    (
        "sphinx",
        ("//div[@class='sphinxsidebar']", "//link[contains(@href,'_static/pygments.css')]", "//div[contains(@class,'document')]//div[@role='main']", "//meta[@name='generator'][starts-with(@content,'Docutils')]"),
        ("//div[@role='main']", "//div[contains(concat(' ',normalize-space(@class),' '),' body ')]", "//section[@id]"),
    ),
]

_DROP = (
    "//script|//style|//noscript|//template|//nav|//footer|//*[contains(@class,'headerlink')]"
    "|//*[contains(@class,'copybutton')]|//button|//*[contains(@class,'linenos')]|//*[contains(@class,'linenodiv')]"
    "|//*[contains(@class,'md-source-file')]|//*[contains(@class,'theme-edit-this-page')]|//*[contains(@class,'pagination-nav')]"
)
_LANG_CLASS = re.compile(r"(?:^|\s)(?:language|lang|highlight|brush)-([A-Za-z0-9_+#.-]+)")
_WS = re.compile(r"\s+")
_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=fence)[ \t]*$", re.M | re.S)
MAX_EXCERPTS = 400


def detect_generator(doc) -> str | None:
    for name, probes, _ in GENERATORS:
        if any(doc.xpath(p) for p in probes):
            return name
    return None


def _content_node(doc, generator: str | None):
    for name, _, selectors in GENERATORS:
        if name != generator:
            continue
        for sel in selectors:
            found = doc.xpath(sel)
            if found:
                return found[0]
    return None


def _language(pre) -> str:
    """Language of a code block from its own, its <code>'s, or its wrappers' classes (Sphinx: highlight-python)."""
    nodes = [pre, *pre.xpath("./code")]
    parent = pre.getparent()
    for _ in range(3):
        if parent is None:
            break
        nodes.append(parent)
        parent = parent.getparent()
    for node in nodes:
        lang = node.get("data-language") or node.get("data-lang")
        if lang:
            return lang.lower()
        m = _LANG_CLASS.search(node.get("class") or "")
        if m and m.group(1).lower() not in ("default", "none", "text", "plaintext", "notranslate"):
            return m.group(1).lower()
    return ""


def _code_text(pre) -> str:
    """The exact text of a <pre>: <br> becomes a newline (Docusaurus emits one line per span + <br>)."""
    for br in pre.iter("br"):
        br.tail = "\n" + (br.tail or "")
    text = pre.text_content()
    return text


def _excerpts_from_node(node) -> list[str]:
    out: list[str] = []
    for el in node.iter("h1", "h2", "h3", "h4", "h5", "h6", "p", "li", "dt", "dd", "blockquote", "td"):
        if el.xpath("ancestor::pre") or (el.tag in ("li", "dd", "td", "blockquote") and el.xpath(".//p")):
            continue
        text = _WS.sub(" ", el.text_content()).strip()
        if not text:
            continue
        if el.tag[0] == "h" and el.tag[1:].isdigit():
            text = "#" * int(el.tag[1:]) + " " + text
        elif el.tag == "li":
            text = "- " + text
        out.append(text)
        if len(out) >= MAX_EXCERPTS:
            break
    return out


def extract_markdown(text: str) -> dict[str, Any]:
    """Excerpts and fenced code blocks (byte-exact, with the info string's language) of a markdown page."""
    code_blocks = [
        {"text": m.group("body"), "language": (m.group("info").strip().split() or [""])[0].lower()}
        for m in _FENCE.finditer(text)
    ]
    prose = _FENCE.sub("\n", text)
    excerpts: list[str] = []
    title = ""
    for block in re.split(r"\n\s*\n", prose):
        block = block.strip()
        if not block:
            continue
        if block.startswith("#"):
            for line in block.splitlines():
                line = line.strip()
                if line:
                    excerpts.append(line)
                    if not title and line.startswith("# "):
                        title = line[2:].strip()
        else:
            excerpts.append(_WS.sub(" ", block))
        if len(excerpts) >= MAX_EXCERPTS:
            break
    return {"title": title, "excerpts": excerpts, "code_blocks": code_blocks, "generator": "markdown"}


def extract_html(html: str | bytes, url: str) -> dict[str, Any]:
    """Title, excerpts and code blocks of an HTML documentation page."""
    try:
        doc = lxml_html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        return {"title": "", "excerpts": [], "code_blocks": [], "generator": None}
    title_el = doc.find(".//title")
    title = _WS.sub(" ", title_el.text_content()).strip() if title_el is not None else ""
    canonical = (doc.xpath("//link[@rel='canonical']/@href") or [None])[0]
    generator = detect_generator(doc)
    node = _content_node(doc, generator) if generator else None
    if node is None:
        return {**_trafilatura(html, url), "title": title, "canonical": canonical, "generator": None}
    for bad in node.xpath("." + _DROP.replace("|//", "|.//")):
        bad.drop_tree()
    code_blocks = [{"text": _code_text(pre), "language": _language(pre)} for pre in node.iter("pre")]
    excerpts = _excerpts_from_node(node)
    h1 = node.xpath(".//h1")
    if h1 and not title:
        title = _WS.sub(" ", h1[0].text_content()).strip()
    return {"title": title, "excerpts": excerpts, "code_blocks": code_blocks, "canonical": canonical, "generator": generator}


def _trafilatura(html, url: str) -> dict[str, Any]:
    import trafilatura

    md = trafilatura.extract(html, url=url, output_format="markdown", include_comments=False, favor_recall=True) or ""
    return extract_markdown(md)


def find_dates(html: str | bytes, url: str) -> tuple[str | None, str | None]:
    """(published, modified) from the page itself with htmldate (original and latest), YYYY-MM-DD."""
    from htmldate import find_date

    if isinstance(html, bytes):
        html = html.decode("utf-8", "replace")
    kw = {"url": url, "extensive_search": True, "outputformat": "%Y-%m-%d", "deferred_url_extractor": True}
    try:
        published = find_date(html, original_date=True, **kw)
        modified = find_date(html, original_date=False, **kw)
    except Exception:  # htmldate on hostile markup: undated, never a crash
        return None, None
    return published, modified


def extract_page(body: bytes, url: str, content_type: str = "", with_dates: bool = True) -> dict[str, Any]:
    """Everything the docs crawl wants from one fetched page; runs in a worker process."""
    from skill3crawl.docs import is_markdown

    if is_markdown(url, content_type):
        text = body.decode("utf-8", "replace")
        out = extract_markdown(text)
        out["published"] = out["modified"] = None
        out["canonical"] = None
    else:
        out = extract_html(body, url)
        out["published"], out["modified"] = find_dates(body, url) if with_dates else (None, None)
    joined = "\n".join(out["excerpts"]) + "\n" + "\n".join(c["text"] for c in out["code_blocks"])
    out["content_hash"] = hashlib.sha256(_WS.sub(" ", joined).strip().encode("utf-8")).hexdigest()
    return out
