"""Publication/modification dates of a page and which signal gave them (DESIGN §5).

Order: the corpus ``date:`` header (offline runs) → structured data (JSON-LD,
OpenGraph, article meta, ``<time>``; extruct + lxml) → htmldate (extensive,
``original_date=True``, bounded by today, always given the HTML text and
``url=``, so it never downloads) → sitemap ``lastmod`` → HTTP ``Last-Modified``
→ repository signals (GitHub ``relative-time datetime=``). Values are
normalised to ``YYYY-MM-DD`` with dateparser.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Iterable

import lxml.html
from lxml import etree

MIN_YEAR = 1990
_ISO = re.compile(r"^\s*(\d{4})-(\d{2})-(\d{2})")

# Order of signals; the first that yields a valid published date wins.
SIGNALS = ("corpus", "json-ld", "opengraph", "meta", "time", "htmldate", "sitemap-lastmod", "http-last-modified", "repository")

_PUBLISHED_META = (
    "article:published_time", "og:published_time", "datepublished", "date", "dc.date", "dc.date.issued",
    "dcterms.created", "dcterms.issued", "citation_publication_date", "publish-date", "pubdate", "publication_date",
    "sailthru.date", "parsely-pub-date",
)
_MODIFIED_META = ("article:modified_time", "og:updated_time", "datemodified", "dcterms.modified", "last-modified")
_JSONLD_PUBLISHED = ("datePublished", "dateCreated", "uploadDate")
_JSONLD_MODIFIED = ("dateModified",)


def normalize_date(value: Any) -> date | None:
    """A date from ISO strings, HTTP dates or free text (dateparser); None when unusable."""
    if value is None:
        return None
    if isinstance(value, datetime):
        d = value.date()
    elif isinstance(value, date):
        d = value
    else:
        s = str(value).strip()
        if not s or len(s) > 100:
            return None
        d = None
        m = _ISO.match(s)
        if m:
            try:
                d = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
            except ValueError:
                return None
        if d is None:
            try:
                d = parsedate_to_datetime(s).date()
            except (TypeError, ValueError, IndexError):
                d = None
        if d is None:
            import dateparser

            parsed = dateparser.parse(s, settings={"PREFER_DAY_OF_MONTH": "first", "RETURN_AS_TIMEZONE_AWARE": False})
            d = parsed.date() if parsed else None
    if d is None or d.year < MIN_YEAR:
        return None
    return d


def _walk_jsonld(node: Any) -> Iterable[dict]:
    if isinstance(node, dict):
        yield node
        for v in node.values():
            if isinstance(v, (dict, list)):
                yield from _walk_jsonld(v)
    elif isinstance(node, list):
        for v in node:
            yield from _walk_jsonld(v)


def _first(values: Iterable[Any]) -> Any:
    for v in values:
        if isinstance(v, list):
            v = v[0] if v else None
        if v:
            return v
    return None


def structured_dates(html: str, url: str, tree: Any = None) -> list[tuple[str, str | None, str | None]]:
    """[(signal, published, modified)] from JSON-LD, OpenGraph, meta tags and ``<time>``, in that order."""
    out: list[tuple[str, str | None, str | None]] = []
    try:
        import extruct

        data = extruct.extract(html, base_url=url, syntaxes=["json-ld", "opengraph"], uniform=True, errors="ignore")
    except Exception:  # extruct on hostile HTML: a missing signal, never a crash
        data = {}
    nodes = list(_walk_jsonld(data.get("json-ld", [])))
    pub = _first(n.get(k) for n in nodes for k in _JSONLD_PUBLISHED)
    mod = _first(n.get(k) for n in nodes for k in _JSONLD_MODIFIED)
    if pub or mod:
        out.append(("json-ld", pub, mod))
    og = {}
    for block in data.get("opengraph", []):
        og.update({k.lower(): v for k, v in block.items() if isinstance(k, str)})
    pub = _first(og.get(k) for k in ("article:published_time", "og:published_time"))
    mod = _first(og.get(k) for k in ("article:modified_time", "og:updated_time"))
    if pub or mod:
        out.append(("opengraph", pub, mod))
    if tree is None:
        try:
            tree = lxml.html.document_fromstring(html.encode("utf-8", "replace"))
        except (etree.ParserError, ValueError):
            return out
    metas: dict[str, str] = {}
    for m in tree.xpath("//meta[@content]"):
        key = (m.get("name") or m.get("property") or m.get("itemprop") or m.get("http-equiv") or "").strip().lower()
        if key and key not in metas:
            metas[key] = m.get("content")
    pub = _first(metas.get(k) for k in _PUBLISHED_META)
    mod = _first(metas.get(k) for k in _MODIFIED_META)
    if pub or mod:
        out.append(("meta", pub, mod))
    times = [t.get("datetime") for t in tree.xpath("//time[@datetime]") if t.get("datetime")]
    pub_times = [t.get("datetime") for t in tree.xpath("//time[@datetime][@pubdate or @itemprop='datePublished']")]
    if times:
        out.append(("time", (pub_times or times)[0], None))
    return out


def htmldate_signal(html: str, url: str, today: date) -> str | None:
    try:
        from htmldate import find_date

        return find_date(
            html,
            url=url,
            extensive_search=True,
            original_date=True,
            outputformat="%Y-%m-%d",
            min_date=f"{MIN_YEAR}-01-01",
            max_date=today.isoformat(),
        )
    except Exception:  # htmldate on hostile HTML: no signal
        return None


def repository_signal(tree: Any) -> str | None:
    """GitHub-style release/commit dates shown in the page (``<relative-time datetime=…>``)."""
    if tree is None:
        return None
    for xp in ("//relative-time/@datetime", "//local-time/@datetime", "//*[@data-release-date]/@data-release-date"):
        vals = tree.xpath(xp)
        if vals:
            return vals[0]
    return None


def page_dates(
    html: str,
    url: str,
    headers: dict[str, str] | None = None,
    *,
    today: date,
    lastmod: str | None = None,
    hinted: str | None = None,
    use_htmldate: bool = True,
) -> dict[str, Any]:
    """→ ``{published, modified, date_source}`` (ISO dates or None), signals tried in :data:`SIGNALS` order."""
    headers = {k.lower(): v for k, v in (headers or {}).items()}
    try:
        tree = lxml.html.document_fromstring(html.encode("utf-8", "replace")) if html and html.strip() else None
    except (etree.ParserError, ValueError):
        tree = None
    candidates: list[tuple[str, Any, Any]] = []
    if hinted:
        candidates.append(("corpus", hinted, None))
    if tree is not None:
        candidates += structured_dates(html, url, tree)
    published: date | None = None
    source: str | None = None
    modified: date | None = None
    for signal, pub, mod in candidates:
        if modified is None:
            modified = normalize_date(mod)
        if published is None:
            published = normalize_date(pub)
            if published is not None:
                source = signal
    if published is None and use_htmldate and tree is not None:
        published = normalize_date(htmldate_signal(html, url, today))
        source = "htmldate" if published else None
    late = [
        ("sitemap-lastmod", lastmod),
        ("http-last-modified", headers.get("last-modified")),
        ("repository", repository_signal(tree)),
    ]
    for signal, raw in late:
        d = normalize_date(raw)
        if d is None:
            continue
        if published is None:
            published, source = d, signal
        if modified is None and signal != "repository":
            modified = d
    if modified is not None and published is not None and modified < published:
        modified = None
    return {
        "published": published.isoformat() if published else None,
        "modified": modified.isoformat() if modified else None,
        "date_source": source,
    }
