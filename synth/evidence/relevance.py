"""Lexical relevance: Okapi BM25 of pages and snippets against the topic and the planned queries.

Streaming-friendly: the corpus statistics (document count, average length, document frequency
of the *query* terms only) are accumulated while the run is read; a document is scored from its
own term counts. ``relevance`` maps a BM25 score to 0..1 by saturating the number of matched
term-equivalents (a score equal to the mean IDF ≈ one matched term at average length).

A cheap URL/title prior marks boilerplate pages (about, copyright, license, bug reporting,
index, search, glossary…): relevance still comes from the text; the prior only damps them.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

_TOKEN = re.compile(r"[a-z0-9][a-z0-9_]*", re.I)
_WORDCHAR = re.compile(r"[a-z0-9_]").match
K1 = 1.2
B = 0.75
STOPWORDS = frozenset(
    "a an and are as at be by for from how in into is it of on or the this to what when where which with new use using "
    "vs docs documentation guide latest after before since".split()
)

BOILERPLATE_PRIOR = 0.3
_BOILERPLATE_PATH = re.compile(
    r"(?:^|/)(?:about|copyright|license|licen[cs]ing|bugs|reporting-bugs|genindex(?:-[\w-]+)?|py-modindex|modindex|index-\w+|"
    r"search|glossary|contents|sitemap|privacy|terms|legal|imprint|404|code[-_]of[-_]conduct|download)"
    r"(?:\.html?|\.md|/)?$", re.I)
_BOILERPLATE_TITLE = re.compile(
    r"^\s*(?:about (?:these|this|the) (?:documents?|documentation|site)|copyright|history and license|licen[cs]e|"
    r"dealing with bugs|reporting bugs|(?:general |python module )?index|search(?: results)?|glossary|table of contents|"
    r"privacy(?: policy)?|terms of (?:use|service)|page not found|download)\s*(?:[—–|:-].*)?$", re.I)


def tokens(text: str) -> list[str]:
    """Content words: lowercased, stopwords and bare numbers (version digits carry no topic) left out."""
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS and not t.isdigit()]


def query_terms(*texts: str) -> tuple[str, ...]:
    """The distinct content terms of the topic and queries (order kept)."""
    out: dict[str, None] = {}
    for t in texts:
        for w in tokens(t or ""):
            out.setdefault(w, None)
    return tuple(out)


_SCHEME_HOST = re.compile(r"^[a-z][a-z0-9+.-]*://[^/]+", re.I)


def is_boilerplate(url: str, title: str = "") -> bool:
    path = _SCHEME_HOST.sub("", url or "").split("?")[0].split("#")[0]
    return bool(_BOILERPLATE_PATH.search(path) or _BOILERPLATE_TITLE.match(title or ""))


@dataclass
class BM25:
    """Okapi BM25 over a stream of documents, for a fixed set of query terms."""

    terms: tuple[str, ...]
    docs: int = 0
    total_len: int = 0
    df: Counter = field(default_factory=Counter)

    def observe(self, text: str) -> tuple[dict[str, int], int]:
        """Count a document into the statistics; returns its (query-term counts, length) for ``score``."""
        tf, length = self.counts(text)
        self.add(tf, length)
        return tf, length

    def add(self, tf: Mapping[str, int], length: int) -> None:
        """A document's :meth:`counts` into the statistics."""
        self.docs += 1
        self.total_len += length
        df = self.df
        for term in tf:  # a plain loop: Counter.update costs more than the few terms a document has
            df[term] += 1

    def counts(self, text: str) -> tuple[dict[str, int], int]:
        """A document's (query-term counts, length), the statistics unchanged.

        A substring test, then a word-bounded count, per query term; the length is the whitespace count
        (the same for every document, so the length normalisation is consistent).
        """
        low = text.lower()
        tf: dict[str, int] = {}  # a plain dict: built and pickled (the bundle's workers) faster than a Counter
        for term, finditer in self._finders:
            if term in low:  # C substring search first: most documents miss most terms
                # a pattern that starts with the literal term is searched at C speed; the left word boundary is checked here
                n = sum(1 for m in finditer(low) if m.start() == 0 or not _WORDCHAR(low[m.start() - 1]))
                if n:
                    tf[term] = n
        return tf, text.count(" ") + text.count("\n") + 1

    def __post_init__(self) -> None:
        self._set = frozenset(self.terms)
        self._finders = [(t, re.compile(rf"{re.escape(t)}(?![a-z0-9_])").finditer) for t in self.terms]

    def idf(self, term: str) -> float:
        n = self.df.get(term, 0)
        return math.log(1 + (self.docs - n + 0.5) / (n + 0.5))

    def score(self, tf: Mapping[str, int], length: int) -> float:
        if not tf or not self.docs:
            return 0.0
        avg = self.total_len / self.docs or 1.0
        s = 0.0
        for term, f in tf.items():
            s += self.idf(term) * f * (K1 + 1) / (f + K1 * (1 - B + B * length / avg))
        return s

    def relevance(self, tf: Mapping[str, int], length: int, terms: tuple[str, ...] | None = None) -> float:
        """0..1: ``1 - exp(-score / mean IDF of the query terms)``; 0 when no query term occurs.

        ``terms``: score against this subset of the query terms (e.g. the topic plus one page's title).
        """
        s = self.score(tf, length)
        terms = terms or self.terms
        if s <= 0 or not terms:
            return 0.0
        mean_idf = sum(self.idf(t) for t in terms) / len(terms)
        return round(1 - math.exp(-s / (mean_idf or 1.0)), 4)


def rank_texts(query: str, texts: list[str]) -> list[float]:
    """Relevance (0..1) of each text against ``query`` with the texts themselves as the corpus."""
    bm = BM25(query_terms(query))
    stats = [bm.observe(t) for t in texts]
    return [bm.relevance(tf, n) for tf, n in stats]
