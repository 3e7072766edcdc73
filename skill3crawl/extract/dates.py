"""Publication/modification dates of a page and which signal gave them.

htmldate (extensive, ``original_date=True``, bounded by today, given the
page's HTML text and ``url=``; a text that looks like a bare URL is never
handed over, so it never downloads) already reads JSON-LD, OpenGraph, meta
tags, ``<time>``, the URL and the text with heuristics; on real pages it beats
a fixed structured-data-first order (0.904 against 0.890 on htmldate's own
999 evaluation pages, ``bench/bench_dates.py``), so its answer is taken
whenever it has one. The other signals fill what it leaves open:

published: the corpus ``date:`` header (an offline run's own statement) →
htmldate → structured data (JSON-LD, OpenGraph, article meta, ``<time>``;
extruct + lxml: dates htmldate rejects, e.g. after today, which the scorer
then drops as future-dated; never a relative date such as "yesterday") → sitemap ``lastmod`` → HTTP ``Last-Modified`` →
repository signals (GitHub ``relative-time datetime=``).

modified: structured data → sitemap ``lastmod`` → HTTP ``Last-Modified``,
never before ``published``.

``date_source`` names the signal whose date was taken: when htmldate's date is
the one an in-page signal states, that signal (the first of :data:`STRUCTURED`,
then ``repository``), else ``htmldate``. Values are normalised to
``YYYY-MM-DD`` (dateparser for free text that states a date: relative expressions and dates
without a month and year are no publication dates).
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date, datetime
from email.utils import parsedate_to_datetime
from functools import lru_cache
from typing import Any, Iterable, Iterator

import lxml.html
from lxml import etree

MIN_YEAR = 1990
_NUMERIC = (
    (re.compile(r"^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)"), (1, 2, 3)),  # ISO 8601, also 2022-1-26
    (re.compile(r"^\s*(\d{4})(\d{2})(\d{2})(?:T|\s|$)"), (1, 2, 3)),  # ISO 8601 basic: 20201123T11:02:35Z
    (re.compile(r"(?<!\d)(\d{4})/(\d{1,2})/(\d{1,2})(?!\d)"), (1, 2, 3)),  # 2020/10/04
    (re.compile(r"(?<![\d.])(\d{1,2})\.(\d{1,2})\.(\d{4})(?!\d)"), (3, 2, 1)),  # 25.01.2022 (day first)
)

STRUCTURED = ("json-ld", "opengraph", "meta", "time")

_PUBLISHED_META = (
    "article:published_time", "og:published_time", "datepublished", "date", "dc.date", "dc.date.issued",
    "dcterms.created", "dcterms.issued", "citation_publication_date", "publish-date", "pubdate", "publication_date",
    "sailthru.date", "parsely-pub-date",
)
_MODIFIED_META = ("article:modified_time", "og:updated_time", "datemodified", "dcterms.modified", "last-modified")
_JSONLD_PUBLISHED = ("datePublished", "dateCreated", "uploadDate")
_JSONLD_MODIFIED = ("dateModified",)


# Free text names a publication date only when it states one: no relative expressions
# ("yesterday", "2 days ago", "Monday" — dateparser's relative-time parser reads them against the
# clock of the crawl, not of the page) and never without its month and year ("March 5" is this year's).
_DATEPARSER_SETTINGS = {
    "PREFER_DAY_OF_MONTH": "first", "RETURN_AS_TIMEZONE_AWARE": False,
    "PARSERS": ["timestamp", "custom-formats", "absolute-time"], "REQUIRE_PARTS": ["month", "year"],
}


def _numeric_date(s: str) -> date | None:
    """Unambiguous numeric forms: ISO (also basic and unpadded), ``Y/M/D``, ``D.M.Y``, HTTP dates."""
    for pattern, order in _NUMERIC:
        m = pattern.search(s)
        if m:
            y, mo, d = (int(m.group(i)) for i in order)
            try:
                return date(y, mo, d)
            except ValueError:
                return None
    try:
        return parsedate_to_datetime(s).date()
    except (TypeError, ValueError, IndexError):
        return None


def normalize_date(value: Any, *, free_text: bool = True, languages: list[str] | None = None) -> date | None:
    """A date from numeric forms, HTTP dates or (``free_text``) any text dateparser reads; None when unusable.

    dateparser is the slow path (its language detection compiles patterns per locale, seconds
    for all of them), so it comes last, only when asked, and limited to ``languages`` when the
    page declares its language.
    """
    if value is None:
        return None
    d: date | None
    if isinstance(value, datetime):
        d = value.date()
    elif isinstance(value, date):
        d = value
    else:
        s = str(value).strip()
        if not s or len(s) > 100:
            return None
        d = _numeric_date(s)
        if d is None and free_text:
            import dateparser

            settings = _DATEPARSER_SETTINGS
            try:
                parsed = dateparser.parse(s, languages=languages or None, settings=settings)
            except ValueError:  # a language dateparser does not know: all of them
                parsed = dateparser.parse(s, settings=settings)
            d = parsed.date() if parsed else None
    if d is None or d.year < MIN_YEAR:
        return None
    return d


def page_languages(tree: Any) -> list[str] | None:
    """The page's declared language (``<html lang>``, ``Content-Language`` meta) and English, for dateparser."""
    if tree is None:
        return None
    declared = tree.get("lang") or next(iter(tree.xpath("//meta[translate(@http-equiv,'CONTENT-LANGUAGE','content-language')='content-language']/@content")), "")
    primary = re.split(r"[-_,;\s]", declared.strip().lower(), maxsplit=1)[0]
    if not re.fullmatch(r"[a-z]{2,3}", primary):
        return None
    return [primary] if primary == "en" else [primary, "en"]


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


_JSONLD_SCRIPTS = etree.XPath('//script[@type="application/ld+json"]')
# the repository signals in priority order, found in one pass over the tree (document order) instead of one per kind
_REPOSITORY = etree.XPath("//relative-time[@datetime] | //local-time[@datetime] | //*[@data-release-date]")
_REPOSITORY_KINDS = (("relative-time", "datetime"), ("local-time", "datetime"), (None, "data-release-date"))


def _jsonld_nodes(tree: Any) -> list[dict]:
    """Every JSON object of the page's JSON-LD scripts; one malformed script loses only itself."""
    scripts = _JSONLD_SCRIPTS(tree)
    if not scripts:  # most documentation pages: no extractor built
        return []
    from extruct.jsonld import JsonLdExtractor

    extractor = JsonLdExtractor()
    items: list[Any] = []
    for script in scripts:
        try:
            items += extractor.extract_items(script)
        except (ValueError, TypeError, RecursionError):  # hostile or broken JSON: a missing signal
            continue
    return list(_walk_jsonld(items))


class _HtmlDocument:
    """A tree of plain elements (:mod:`skill3crawl.extract.dom`) as extruct's OpenGraph extractor reads an
    ``lxml.html`` document: ``xpath`` and ``head`` (``HtmlElement.head``: the root's ``<head>`` child)."""

    def __init__(self, tree: Any) -> None:
        self.xpath = tree.xpath
        self.head = tree.getroottree().getroot().find("head")


def _opengraph(tree: Any) -> dict[str, str]:
    from extruct.opengraph import OpenGraphExtractor

    og: dict[str, str] = {}
    try:
        for block in OpenGraphExtractor().extract_items(_HtmlDocument(tree)):
            for k, v in block.get("properties", []):
                og.setdefault(k.lower(), v)
    except (AttributeError, IndexError, TypeError):  # no <head>, odd markup
        return {}
    return og


def structured_dates(html: str, url: str, tree: Any = None) -> list[tuple[str, str | None, str | None]]:
    """[(signal, published, modified)] (raw values) from JSON-LD, OpenGraph, meta tags and ``<time>``, in that order."""
    out: list[tuple[str, str | None, str | None]] = []
    if tree is None:
        try:
            tree = lxml.html.document_fromstring(html.encode("utf-8", "replace"))
        except (etree.ParserError, ValueError):
            return out
    nodes = _jsonld_nodes(tree)
    pub = _first(n.get(k) for n in nodes for k in _JSONLD_PUBLISHED)
    mod = _first(n.get(k) for n in nodes for k in _JSONLD_MODIFIED)
    if pub or mod:
        out.append(("json-ld", pub, mod))
    og = _opengraph(tree)
    pub = _first(og.get(k) for k in ("article:published_time", "og:published_time"))
    mod = _first(og.get(k) for k in ("article:modified_time", "og:updated_time"))
    if pub or mod:
        out.append(("opengraph", pub, mod))
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


def htmldate_signal(html: Any, url: str, today: date, languages: list[str] | None = None) -> str | None:
    """htmldate's original publication date of a page's HTML text, bounded by today (and its own lower bound).

    A text that looks like a bare URL is never handed over: htmldate would download it. ``languages``: the
    page's declared ones (:func:`page_languages`), which its free-text dates are read in (:func:`_scope_htmldate`).
    """
    if isinstance(html, str) and html.startswith("http") and " " not in html:
        return None
    try:
        from htmldate import find_date

        with _htmldate_languages(tuple(languages) if languages else None):
            return find_date(
                html,
                url=url or None,
                extensive_search=True,
                original_date=True,
                outputformat="%Y-%m-%d",
                max_date=today.isoformat(),
            )
    except Exception:  # htmldate on hostile HTML: no signal
        return None


# htmldate reads the free-text dates its extensive search finds with one dateparser ``DateDataParser`` over every
# locale (``htmldate.extractors.get_external_parser``, no parameter for the languages). Detecting the language of a
# string among all locales compiles each locale's patterns once per process (~30 MB and ~12 ms of CPU per page over
# the Python docs) although the page declares its language. The page's declared languages (and English) are used
# instead, as for the dates read here (:func:`normalize_date`); a page that declares none keeps every locale, and so
# does any other caller of htmldate in the process (the languages are set for the call only).
_HTMLDATE_LANGUAGES: ContextVar[tuple[str, ...] | None] = ContextVar("htmldate_languages", default=None)
_htmldate_state: dict[str, Any] = {}  # "original": htmldate's own parser factory; "cached": the languages of its cache


@contextmanager
def _htmldate_languages(languages: tuple[str, ...] | None) -> Iterator[None]:
    """htmldate's external date parser reads in ``languages`` inside the block (None: every locale, its own choice)."""
    import htmldate.extractors as hx

    if "original" not in _htmldate_state:
        original = getattr(hx, "get_external_parser", None)
        usable = original is not None and hasattr(getattr(hx, "try_date_expr", None), "cache_clear")
        _htmldate_state["original"] = original if usable else None  # another htmldate: left as it is
        if usable:
            hx.get_external_parser = _external_parser  # type: ignore[assignment]
    if _htmldate_state["original"] is None:
        yield
        return
    _cached_in(hx, languages)
    token = _HTMLDATE_LANGUAGES.set(languages)
    try:
        yield
    finally:
        _HTMLDATE_LANGUAGES.reset(token)


def _cached_in(hx: Any, languages: tuple[str, ...] | None) -> None:
    """htmldate caches each string's date (``try_date_expr``): read in other languages, the cache is emptied."""
    if _htmldate_state.get("cached", languages) != languages:
        hx.try_date_expr.cache_clear()
    _htmldate_state["cached"] = languages


def _external_parser() -> Any:
    import htmldate.extractors as hx

    languages = _HTMLDATE_LANGUAGES.get()
    _cached_in(hx, languages)  # another caller's strings (outside the block) are read in every locale
    return _parser_for(languages)


@lru_cache(maxsize=16)
def _parser_for(languages: tuple[str, ...] | None) -> Any:
    """htmldate's own parser (its settings) for ``languages``; htmldate's all-locale one for None."""
    original = _htmldate_state["original"]
    if languages is None:
        return original()
    from dateparser import DateDataParser
    from dateparser.data.languages_info import language_order

    if not set(languages) <= set(language_order):  # a language dateparser does not know: every locale
        return original()
    return DateDataParser(languages=list(languages), settings=HTMLDATE_PARSER_SETTINGS)


# htmldate 1.x's DateDataParser settings (extractors.get_external_parser); a test compares them with its parser's
HTMLDATE_PARSER_SETTINGS = {
    "NORMALIZE": True, "PARSERS": ["custom-formats", "absolute-time"], "PREFER_DATES_FROM": "past",
    "PREFER_LOCALE_DATE_ORDER": True, "RETURN_AS_TIMEZONE_AWARE": False, "STRICT_PARSING": True,
}


def repository_signal(tree: Any) -> str | None:
    """GitHub-style release/commit dates shown in the page (``<relative-time datetime=…>``)."""
    if tree is None:
        return None
    found = _REPOSITORY(tree)
    if not found:
        return None
    for tag, attr in _REPOSITORY_KINDS:  # the first element of the first kind that has one, as one XPath per kind
        for el in found:
            if (tag is None or el.tag == tag) and el.get(attr) is not None:
                return el.get(attr)
    return None


def combine_dates(
    hinted: Any,
    from_htmldate: Any,
    structured: list[tuple[str, Any, Any]],
    late: list[tuple[str, Any]],
    languages: list[str] | None = None,
) -> tuple[date | None, date | None, str | None]:
    """→ (published, modified, date_source) from raw signal values; pure, the rule of the module docstring.

    ``structured``: [(signal, published, modified)] in :data:`STRUCTURED` order; ``late``:
    [(signal, value)] for sitemap ``lastmod``, HTTP ``Last-Modified`` and repository, in that order
    (a repository date never counts as a modification). ``languages``: for free-text values.
    """
    source: str | None
    published, source = normalize_date(hinted), "corpus"
    if published is None:
        published, source = normalize_date(from_htmldate), "htmldate"
        if published is not None:  # name the in-page signal that states the same date, if one does
            in_page = [(sig, pub) for sig, pub, _ in structured] + [(sig, raw) for sig, raw in late if sig == "repository"]
            source = next((sig for sig, raw in in_page if normalize_date(raw, free_text=False) == published), "htmldate")
    if published is None:
        published, source = next(((d, sig) for sig, pub, _ in structured if (d := normalize_date(pub, languages=languages)) is not None), (None, None))
    modified = next((d for _, _, mod in structured if (d := normalize_date(mod, languages=languages)) is not None), None)
    for signal, raw in late:  # machine formats (W3C datetime, HTTP date, ISO attributes): no free text
        if published is not None and modified is not None:
            break
        d = normalize_date(raw, free_text=False)
        if d is None:
            continue
        if published is None:
            published, source = d, signal
        if modified is None and signal != "repository":
            modified = d
    if modified is not None and published is not None and modified < published:
        modified = None
    return published, modified, source if published is not None else None


@dataclass(frozen=True)
class TreeSignals:
    """What :func:`page_dates` reads of a page's parsed tree (:func:`tree_signals`): with it, the tree can be
    freed before htmldate parses the page's text into its own (one tree fewer at a worker's peak)."""

    parsed: bool
    structured: list[tuple[str, str | None, str | None]]
    languages: list[str] | None
    repository: str | None


def tree_signals(html: str, url: str, tree: Any) -> TreeSignals:
    """The structured dates, declared languages and repository date of a page's tree (None: not parsed)."""
    if tree is None:
        return TreeSignals(False, [], page_languages(None), repository_signal(None))
    return TreeSignals(True, structured_dates(html, url, tree), page_languages(tree), repository_signal(tree))


def page_dates(
    html: str,
    url: str,
    headers: dict[str, str] | None = None,
    *,
    today: date,
    lastmod: str | None = None,
    hinted: str | None = None,
    signals: TreeSignals | None = None,
    build_date: str | None = None,
) -> dict[str, Any]:
    """→ ``{published, modified, date_source}`` (ISO dates or None) of one page; see :func:`combine_dates`.

    ``signals``: :func:`tree_signals` of the page already parsed (the caller's tree, which it can then free
    before htmldate parses the page), else the page is parsed here. ``build_date``: the page's host stamps its
    pages with this one date (the crawl recognised it, :mod:`skill3crawl.site_timeline`): a page whose markup
    states no date of its own takes it in place of htmldate's reading (``date_source`` ``build-date``), as
    synthesis ignores a date read from a build-dated page's text (``synth.pipeline.bundle.rank.own_page_date``)."""
    headers = {k.lower(): v for k, v in (headers or {}).items()}
    if signals is None:
        try:
            tree = lxml.html.document_fromstring(html.encode("utf-8", "replace")) if html and html.strip() else None
        except (etree.ParserError, ValueError):
            tree = None
        signals = tree_signals(html, url, tree)
        del tree
    from_htmldate = None
    stamped = build_date is not None and not signals.structured and signals.repository is None
    if signals.parsed and normalize_date(hinted) is None:
        from_htmldate = build_date if stamped else htmldate_signal(html, url, today, signals.languages)
    late = [
        ("sitemap-lastmod", lastmod),
        ("http-last-modified", headers.get("last-modified")),
        ("repository", signals.repository),
    ]
    published, modified, source = combine_dates(hinted, from_htmldate, signals.structured, late, signals.languages)
    if stamped and source == "htmldate":
        source = "build-date"
    return {
        "published": published.isoformat() if published else None,
        "modified": modified.isoformat() if modified else None,
        "date_source": source,
    }
