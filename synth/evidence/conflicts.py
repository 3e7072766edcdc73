"""Conflicting advice between sources — the same API recommended by one and discouraged by another — settled by
authority, then date, before the bundle: the losing sentences (and the losing page's code that uses the API)
never reach the model. Pure functions over the candidates' text; no I/O.

A *claim* is a sentence of a source's excerpts that names an API — in inline code (`` `FastMCP` ``) or as an
identifier (``mcp.server.FastMCP``, ``MCPServer``, ``read_resource()``) — and gives advice about it:

* **discourages** it: "X is deprecated / removed / obsolete / no longer supported", "do not use X",
  "avoid X", "stop using X", "instead of X", "X was replaced by Y", "deprecated X";
* **recommends** it: "use X", "prefer X", "switch / migrate to X", "X is the recommended / preferred way",
  "replaced by X", and a code block that uses it.

When two sources give opposite advice on one API, the claim of the source with the higher standing wins:
authority first (authoritative ≥ 0.8, ordinary ≥ 0.5, structure-only below — a low-authority page never
overrides an authoritative one, as the scoring rules say), then freshness (published after the cutoff
before not, then the later date). Every claim of the other polarity from a source of lower standing is
removed (its sentence from the excerpt; a code block using the API, when the winner discourages it).
Sources of equal standing that disagree are left as they are and recorded as unresolved.

:func:`stale_constructs` turns what the fresh sources discourage (and nobody of higher standing
recommends) into lint's D1 facts, so the "deprecated construct recommended" check runs on every synthesis
that has fresh sources.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable

AUTHORITATIVE = 0.8
ORDINARY = 0.5
MAX_CLAIMS_PER_SOURCE = 400
MAX_RECORDED = 50

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)")
_API = (r"(?:`(?P<code>[^`\n]{2,80})`"
        r"|(?P<ident>\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b(?:\(\))?"
        r"|\b[A-Z]{2,}[a-z][A-Za-z0-9]*\b(?:\(\))?"
        r"|\b[a-z][a-z0-9]*_[a-z0-9_]+\b(?:\(\))?|\b[a-z][a-z0-9]*\(\)))")
_API_RE = re.compile(_API)
# advice words match in any case; the API itself keeps its case (``The`` is no CamelCase identifier)
_BE = r"(?i:is|are|was|were|has\s+been|have\s+been|will\s+be|is\s+now|are\s+now|becomes?)"
_DISCOURAGE = [re.compile(p) for p in (
    _API + rf"[^.;]{{0,40}}?\s{_BE}\s+(?i:now\s+|being\s+|formally\s+)?(?i:deprecated|removed|obsolete|discouraged|"
    r"unsupported|no\s+longer\s+(?:supported|recommended|available|needed|required)|replaced\b|superseded\b|legacy\b)",
    r"(?i:\b(?:do\s+not|don'?t|never|avoid|stop)\s+(?:use|using|call|calling|rely\s+on\s+)?\s*(?:the\s+)?)" + _API,
    r"(?i:\binstead\s+of\s+(?:the\s+)?(?:old\s+|legacy\s+|deprecated\s+)?)" + _API,
    r"(?i:\bdeprecat\w*\s+(?:the\s+)?)" + _API,
    r"(?i:\bremoved?\s+(?:the\s+)?)" + _API,
)]
_RECOMMEND = [re.compile(p) for p in (
    r"(?i:\b(?:use|call|prefer|switch\s+to|migrate\s+to|move\s+to|should\s+use|recommended\s+to\s+use|adopt)\s+"
    r"(?:the\s+)?(?:new\s+)?)" + _API,
    _API + rf"[^.;]{{0,30}}?\s(?:{_BE}|(?i:remains?))\s+(?i:still\s+)?(?i:the\s+)?(?i:recommended|preferred|supported|"
    r"standard|right|correct|best)\b",
    r"(?i:\b(?:replaced|superseded)\s+(?:by|with)\s+(?:the\s+)?(?:new\s+)?)" + _API,
)]
DISCOURAGES, RECOMMENDS = "discourages", "recommends"


def api_key(raw: str) -> str:
    """One API however it is written: inline code or identifier, without call parentheses, arguments or module path
    (``mcp.server.fastmcp.FastMCP()`` and `` `FastMCP` `` are ``FastMCP``)."""
    text = raw.strip().strip("`").strip()
    text = re.split(r"[\s(=:,]", text, maxsplit=1)[0]
    return text.rsplit(".", 1)[-1] if "." in text and not text.endswith(".") else text


def _apis(m: re.Match[str]) -> list[str]:
    keys = []
    for inner in _API_RE.finditer(m.group(0)):
        key = api_key(inner.group("code") or inner.group("ident") or "")
        if len(key) >= 3 and re.search(r"[A-Za-z]", key):
            keys.append(key)
    return keys


def advice(sentence: str) -> dict[str, str]:
    """``{api: "recommends"|"discourages"}`` for the APIs ``sentence`` gives advice about (discouraging wins a tie:
    "use Y instead of X" discourages X and recommends Y)."""
    out: dict[str, str] = {}
    for pattern in _RECOMMEND:
        for m in pattern.finditer(sentence):
            key = api_key(m.group("code") or m.group("ident") or "")
            if len(key) >= 3:
                out.setdefault(key, RECOMMENDS)
    for pattern in _DISCOURAGE:
        for m in pattern.finditer(sentence):
            key = api_key(m.group("code") or m.group("ident") or "")
            if len(key) >= 3:
                out[key] = DISCOURAGES
    return out


def standing(authority: float, post_cutoff: bool, published: str | None) -> tuple[int, int, str]:
    """What settles a conflict: the authority class, then fresh before not, then the later date."""
    tier = 2 if authority >= AUTHORITATIVE else 1 if authority >= ORDINARY else 0
    return tier, int(bool(post_cutoff)), str(published or "")[:10]


@dataclass
class _Claim:
    source: int
    api: str
    polarity: str
    excerpt: int  # index into the source's excerpts; -1 - i for code block i
    sentence: str


@dataclass
class SourceText:
    """What conflict resolution reads and edits of one source."""

    url: str
    authority: float
    post_cutoff: bool
    published: str | None
    excerpts: list[str]
    code: list[str] = field(default_factory=list)

    @property
    def standing(self) -> tuple[int, int, str]:
        return standing(self.authority, self.post_cutoff, self.published)


def _claims(sources: list[SourceText]) -> list[_Claim]:
    out: list[_Claim] = []
    for si, src in enumerate(sources):
        n = 0
        for ei, excerpt in enumerate(src.excerpts):
            for sentence in _SENTENCE.split(excerpt):
                for api, polarity in advice(sentence).items():
                    if n < MAX_CLAIMS_PER_SOURCE:
                        out.append(_Claim(si, api, polarity, ei, sentence))
                        n += 1
        for ci, code in enumerate(src.code):
            for api in {api_key(m.group("code") or m.group("ident") or "") for m in _API_RE.finditer(code)}:
                if len(api) >= 3 and n < MAX_CLAIMS_PER_SOURCE:
                    out.append(_Claim(si, api, RECOMMENDS, -1 - ci, ""))  # code that uses an API recommends it
                    n += 1
    return out


@dataclass
class Resolution:
    """What was settled: ``dropped`` claims (api, loser URL, winner URL, the sentence or "code block"), ``unresolved``
    disagreements between sources of equal standing, and per API the winning polarity and its source."""

    dropped: list[dict] = field(default_factory=list)
    unresolved: list[dict] = field(default_factory=list)
    winners: dict[str, tuple[str, int]] = field(default_factory=dict)  # api → (polarity, source index)

    def to_dict(self) -> dict:
        return {"dropped": self.dropped[:MAX_RECORDED], "unresolved": self.unresolved[:MAX_RECORDED],
                "dropped_count": len(self.dropped)}


@dataclass
class _Drops:
    sentences: dict[tuple[int, int], set[str]] = field(default_factory=dict)  # (source, excerpt) → sentences
    code: dict[int, set[int]] = field(default_factory=dict)  # source → code block indexes


def _settle(api: str, group: list[_Claim], sources: list[SourceText], res: Resolution, drops: _Drops) -> None:
    """One API's claims: the best stated advice wins over every opposite claim of lower standing."""
    prose = [c for c in group if c.excerpt >= 0]  # a conflict needs a stated opinion; code alone never starts one
    if not prose or len({c.polarity for c in group}) < 2:
        return
    best = max(prose, key=lambda c: sources[c.source].standing)
    top = sources[best.source].standing
    rivals = [c for c in prose if c.polarity != best.polarity and sources[c.source].standing == top]
    if rivals:
        res.unresolved.append({"api": api, "sources": sorted({sources[c.source].url for c in [best, *rivals]})})
        return
    res.winners[api] = (best.polarity, best.source)
    for c in group:
        if c.polarity == best.polarity or sources[c.source].standing >= top:
            continue
        if c.excerpt >= 0:
            drops.sentences.setdefault((c.source, c.excerpt), set()).add(c.sentence)
        elif best.polarity == DISCOURAGES:
            drops.code.setdefault(c.source, set()).add(-1 - c.excerpt)
        else:
            continue
        res.dropped.append({"api": api, "loser": sources[c.source].url, "winner": sources[best.source].url,
                            "advice": best.polarity, "dropped": (c.sentence or "code block")[:300]})


def resolve(sources: list[SourceText]) -> Resolution:
    """Settle opposite advice between ``sources`` (edited in place: losing sentences and code blocks removed)."""
    by_api: dict[str, list[_Claim]] = {}
    for c in _claims(sources):
        by_api.setdefault(c.api, []).append(c)
    res, drops = Resolution(), _Drops()
    for api, group in by_api.items():
        _settle(api, group, sources, res, drops)
    for (si, ei), sentences in drops.sentences.items():
        kept = [s for s in _SENTENCE.split(sources[si].excerpts[ei]) if s not in sentences]
        sources[si].excerpts[ei] = " ".join(kept).strip()
    for si, src in enumerate(sources):
        src.excerpts[:] = [e for e in src.excerpts if e]
        if si in drops.code:
            src.code[:] = [code for ci, code in enumerate(src.code) if ci not in drops.code[si]]
    drop_superseded(sources, res)
    return res


def resolve_candidates(candidates: list[Any]) -> Resolution:
    """:func:`resolve` over the ranked candidates (``synth.pipeline.bundle.Candidate``: excerpts and code blocks edited in place,
    each candidate the same object), before the evidence is selected and the bundle built."""
    texts = [SourceText(c.url, float(c.authority), bool(c.post_cutoff), c.item.published, list(c.excerpts),
                        [b.get("text", "") for b in c.code_blocks]) for c in candidates]
    before = [(list(t.excerpts), list(t.code)) for t in texts]
    res = resolve(texts)
    for c, t, (excerpts, code) in zip(candidates, texts, before):
        if t.excerpts != excerpts:
            c.excerpts = t.excerpts
        if t.code != code:
            kept = set(range(len(code))) - {i for i, text in enumerate(code) if text not in t.code}
            c.code_blocks = [b for i, b in enumerate(c.code_blocks) if i in kept]
    return res


def stale_constructs(sources: Iterable[dict]) -> list[dict] | None:
    """Lint D1's facts from a bundle's sources: every API a fresh (post-cutoff) source of ordinary or higher
    authority discourages, unless a source of higher standing recommends it — ``{pattern, what, instead}``.
    None when no source is fresh (D1 then has nothing to check against and says so)."""
    texts = [SourceText(str(s.get("url")), float(s.get("authority") or 0), bool(s.get("post_cutoff")), s.get("published"),
                        [str(e) for e in s.get("excerpts") or []], [str(c) for c in s.get("code_blocks") or []])
             for s in sources]
    if not any(t.post_cutoff for t in texts):
        return None
    claims = _claims(texts)
    best: dict[str, _Claim] = {}

    def rank(c: _Claim) -> tuple:  # standing, then stated advice before code that merely uses the API
        return texts[c.source].standing, c.excerpt >= 0

    for c in claims:
        if c.api not in best or rank(c) > rank(best[c.api]):
            best[c.api] = c
    out = []
    for api, c in sorted(best.items()):
        src = texts[c.source]
        if c.polarity != DISCOURAGES or c.excerpt < 0 or not src.post_cutoff or src.authority < ORDINARY:
            continue
        instead = next((a for a, p in advice(c.sentence).items() if p == RECOMMENDS and a != api), "")
        out.append({"pattern": rf"(?<![\w.]){re.escape(api)}(?![\w])", "what": f"`{api}`", "instead": f"`{instead}`" if instead else ""})
    return out


# -- statements a fresh source says are no longer true ---------------------------------------------------------------

# "X no longer returns a list of chunks", "X does not return a list of chunks anymore", "X returns bytes instead of a
# list of chunks": the phrase is what an older source may still state as current.
_NO_LONGER = (
    re.compile(r"(?i)\bno\s+longer\s+(?P<phrase>[^.;:!?()]{3,80})"),
    re.compile(r"(?i)\b(?:does|do|did|is|are|will|can)(?:n[’']t|\s+not)\s+(?P<phrase>[^.;:!?()]{3,80}?)\s+any\s*more\b"),
    re.compile(r"(?i)\binstead\s+of\s+(?P<phrase>[^.;:!?(),]{3,60})"),
)
# a line that itself says the old behaviour is gone, or was: it states the change, not the stale claim
_NEGATED = re.compile(r"(?i)\bno\s+longer\b|\binstead\s+of\b|\bnot\b|n[’']t\b|\bremoved\b|\bdeprecated\b|\bused\s+to\b|"
                      r"\bpreviously\b|\bformerly\b|\bbefore\s+(?:version\s+)?v?\d|\buntil\s+(?:version\s+)?v?\d|\bwas\b|\bwere\b")
_STOP = frozenset("the a an it its it's this that these those of to in on at by for with as and or be is are was were "
                  "now also any more can will may from into your you their them they which when then than".split())
MIN_SUPERSEDED_WORDS = 2
MIN_WORDS_WITHOUT_API = 3
MAX_SUPERSEDED = 200


def _stem(word: str) -> str:
    w = word.lower()
    for suffix in ("ing", "es", "ed", "s"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[: -len(suffix)]
    return w


def _content_words(text: str) -> frozenset[str]:
    return frozenset(_stem(w) for w in re.findall(r"[A-Za-z_][\w]*", text) if w.lower() not in _STOP and len(w) > 1)


def _api_keys(text: str) -> frozenset[str]:
    keys = (api_key(m.group("code") or m.group("ident") or "") for m in _API_RE.finditer(text))
    return frozenset(k for k in keys if len(k) >= 3 and re.search(r"[A-Za-z]", k))


@dataclass(frozen=True)
class Superseded:
    """A claim a post-cutoff source of ordinary or higher authority says is no longer true: the APIs its sentence
    names and the content words of the phrase it negates."""

    apis: frozenset[str]
    words: frozenset[str]
    sentence: str
    url: str

    def contradicted_by(self, line: str) -> bool:
        """Whether ``line`` states the superseded claim as current: it holds the negated phrase's words, names one of
        the APIs (or, naming none, holds at least three of the phrase's words), and does not itself say the claim is
        gone or past."""
        if _NEGATED.search(line):
            return False
        words = _content_words(line)
        if not self.words <= words:
            return False
        return bool(self.apis & _api_keys(line)) or len(self.words) >= MIN_WORDS_WITHOUT_API


def superseded_claims(sources: Iterable[dict]) -> list[Superseded]:
    """What the fresh sources (post-cutoff, authority ≥ ORDINARY) say is no longer true, from their excerpts."""
    out: list[Superseded] = []
    for s in sources:
        if not s.get("post_cutoff") or float(s.get("authority") or 0) < ORDINARY:
            continue
        for excerpt in s.get("excerpts") or []:
            for sentence in _SENTENCE.split(str(excerpt)):
                apis = _api_keys(sentence)
                for rx in _NO_LONGER:
                    for m in rx.finditer(sentence):
                        words = _content_words(m.group("phrase"))
                        if len(words) >= MIN_SUPERSEDED_WORDS and (apis or len(words) >= MIN_WORDS_WITHOUT_API):
                            out.append(Superseded(apis, words, sentence.strip()[:300], str(s.get("url") or "")))
                            if len(out) >= MAX_SUPERSEDED:
                                return out
    return out


def drop_superseded(sources: list[SourceText], res: Resolution) -> None:
    """Sentences of sources below the fresh ones' standing that state what a fresh source says is no longer true are
    removed (recorded in ``res.dropped``): a pre-cutoff page gives structure, never a statement a post-cutoff
    authoritative source contradicts."""
    claims = superseded_claims({"post_cutoff": t.post_cutoff, "authority": t.authority, "excerpts": t.excerpts, "url": t.url}
                               for t in sources)
    if not claims:
        return
    by_url = {t.url: t.standing for t in sources}
    for t in sources:
        if t.post_cutoff:
            continue
        for ei, excerpt in enumerate(t.excerpts):
            kept = []
            for sentence in _SENTENCE.split(excerpt):
                rule = next((c for c in claims if by_url.get(c.url, (0, 0, "")) > t.standing and c.contradicted_by(sentence)), None)
                if rule is None:
                    kept.append(sentence)
                    continue
                res.dropped.append({"api": ", ".join(sorted(rule.apis)) or "-", "loser": t.url, "winner": rule.url,
                                    "advice": "superseded", "dropped": sentence[:300]})
            t.excerpts[ei] = " ".join(kept).strip()
        t.excerpts[:] = [e for e in t.excerpts if e]
