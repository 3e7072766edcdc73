"""The consensus vote: the candidates' snippets clustered, every line of the run voting on those clusters through an
exact shingle index (:class:`_Votes`), and the outcome applied to each candidate (:func:`_apply_consensus`)."""

from __future__ import annotations

import re
from collections import defaultdict
from functools import lru_cache

from synth.evidence.consensus import (
    AUTHORITATIVE,
    SAME,
    VARIANT,
    ExactIndex,
    independent_host,
    item_snippets,
    shingles,
)
from synth.evidence.urls import host_of, normalize_host
from synth.pipeline.bundle.candidate import Candidate

STRUCTURE_ONLY_BELOW = 0.5  # authority below this: structure only
MAX_HOSTS_PER_CLUSTER = 64  # agreement saturates; bounds memory


class _Votes:
    """The candidates' snippet clusters plus an exact shingle index the whole run votes through."""

    def __init__(self, *, clustering: bool = True) -> None:
        """``clustering=False``: only the vote's index (a worker of :mod:`.parallel`; no candidate is added there)."""
        self.index = ExactIndex() if clustering else None  # the candidates' snippets: a few thousand at most
        self.rep: dict[int, frozenset[tuple]] = {}
        self.hosts: dict[int, set[str]] = defaultdict(set)
        self.authoritative_variant: set[int] = set()  # clusters an authoritative source published a variant of
        self._inverted: dict[tuple, list[int]] = defaultdict(list)
        self._all: set[tuple] = set()
        self._short: set[tuple] = set()  # shingles of candidate snippets under 3 words (1- or 2-word tuples)
        self._low_authority: set[int] = set()  # clusters holding a snippet of a candidate below AUTHORITATIVE

    def add_candidate_snippet(self, text: str, host: str, authority: float) -> int:
        verdict = self.clustering.add(text, host, authority)
        cid = verdict.cluster
        if authority < AUTHORITATIVE:
            self._low_authority.add(cid)
        if cid not in self.rep:
            sh = fast_shingles(text)
            self.rep[cid] = sh
            self._all |= sh
            self._short.update(s for s in sh if len(s) < 3)
            for s in sh:
                self._inverted[s].append(cid)
        return cid

    def state(self) -> dict:
        """What a vote-only copy needs (:meth:`from_state`): the clusters' shingles and the index over them."""
        return {"rep": self.rep, "inverted": dict(self._inverted), "all": self._all, "short": self._short,
                "low_authority": self._low_authority}

    @classmethod
    def from_state(cls, state: dict) -> "_Votes":
        votes = cls(clustering=False)
        votes.rep, votes._all, votes._short, votes._low_authority = state["rep"], state["all"], state["short"], state["low_authority"]
        votes._inverted.update(state["inverted"])
        return votes

    def merge(self, hosts: dict[int, set[str]], authoritative_variant: set[int]) -> None:
        """Another copy's votes added: agreement is the union of the hosts, capped as one pass caps it."""
        for cid, more in hosts.items():
            mine = self.hosts[cid]
            for host in more:
                if len(mine) >= MAX_HOSTS_PER_CLUSTER:
                    break
                mine.add(host)
        self.authoritative_variant |= authoritative_variant

    def observe_fields(self, data: dict) -> None:
        """One run.jsonl line's vote (its checked fields, as :func:`~.read._vote_items` yields them)."""
        host = normalize_host(data.get("host") or host_of(data.get("final_url") or data["url"]))
        self.observe_item(data.get("excerpts", []), data.get("code_blocks", []), host, float(data.get("authority", 0.5)))

    def observe_item(self, excerpts: list[str], code_blocks: list[dict], host: str, authority: float) -> None:
        """Let every snippet of one item vote, skipping the item when none of its snippets can match a candidate.

        A vote needs a Jaccard of at least ``VARIANT`` > 0 with a candidate's snippet, so at least one shared
        shingle; the shingles of each snippet (a claim sentence is a run of words of one paragraph, a code block is
        one text) are among the item's word 3-shingles taken over all its texts at once — one C-speed pass instead
        of a sentence split and a shingle set per snippet. A snippet under 3 words is one 1- or 2-word shingle, so
        those are looked up only when a candidate has such a snippet. Lowercasing the joined texts is lowercasing
        each one: the only context-dependent case mapping (final sigma) stops at whitespace.
        """
        if not self._may_match(lower_words("\n".join([*excerpts, *(cb.get("text", "") for cb in code_blocks)]))):
            return
        for _kind, text in item_snippets(excerpts, code_blocks):
            self.observe(text, host, authority)

    def may_vote(self, raw: bytes) -> bool:
        """False when no text of this raw run.jsonl line can share a shingle with a candidate snippet (no parsing).

        Every string of the line is its text with JSON escapes; ``\\n``, ``\\"``, ``\\\\``… stand for non-word
        characters, so turned into spaces the line's words contain every word run of every text (more words only
        add shingles: the test stays one-sided). A ``\\uXXXX`` escape may stand for a letter: such a line is parsed.
        Lowercasing the whole line is lowercasing each string: JSON quotes and the escaped characters stop the
        final-sigma context as whitespace does. A line that is not UTF-8 is read with replacement characters (which
        are not word characters), as the parser reads it.
        """
        if b"\\" in raw:
            raw = _JSON_ESCAPE.sub(b" ", raw)  # one C pass (a replace per escape copied the line eight times)
            if b"\\" in raw:
                return True
        if raw.isascii():
            return self._may_match(raw.translate(_LOWER_WORD_BYTES).split())
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            return self._may_match(lower_words(raw.decode("utf-8", "replace")))
        words = _caseless_words(raw)
        return self._may_match(_words_beyond_ascii(line.lower()) if words is None else words)

    def _may_match(self, words: list[bytes]) -> bool:
        if not self._all.isdisjoint(zip(words, words[1:], words[2:])):
            return True
        return bool(self._short) and not (self._short.isdisjoint(zip(words)) and self._short.isdisjoint(zip(words, words[1:])))

    def observe(self, text: str, host: str, authority: float) -> None:
        sh = fast_shingles(text)
        common = sh & self._all  # C-speed pre-filter: most snippets share nothing with the candidates
        if not common:
            return
        overlap: dict[int, int] = defaultdict(int)
        for s in common:
            for cid in self._inverted[s]:
                overlap[cid] += 1
        for cid, inter in overlap.items():
            rep = self.rep[cid]
            j = inter / (len(sh) + len(rep) - inter)
            if j >= SAME:
                hosts = self.hosts[cid]
                if len(hosts) < MAX_HOSTS_PER_CLUSTER:
                    hosts.add(independent_host(host))
                    self._retire_if_decided(cid)
            elif j >= VARIANT and authority >= AUTHORITATIVE and cid not in self.authoritative_variant:
                self.authoritative_variant.add(cid)
                self._retire_if_decided(cid)

    def _retire_if_decided(self, cid: int) -> None:
        """Stop looking for votes on a cluster no further line can change: its host count is at the cap, and an
        authoritative variant is already known or no low-authority candidate would be dropped for one. Its shingles
        leave the index (those no other cluster shares), so lines that only it could match are skipped unparsed."""
        if len(self.hosts[cid]) < MAX_HOSTS_PER_CLUSTER or (cid in self._low_authority and cid not in self.authoritative_variant):
            return
        for s in self.rep[cid]:
            owners = self._inverted[s]
            if cid in owners:
                owners.remove(cid)
                if not owners:
                    self._all.discard(s)
                    self._short.discard(s)

    @property
    def clustering(self) -> ExactIndex:
        assert self.index is not None, "a vote-only copy has no clusters"
        return self.index

    def agreement(self, cid: int) -> int:
        return max(1, len(self.hosts.get(cid, ())))


_JSON_ESCAPE = re.compile(rb'\\[\\nt"/rbf]')  # every JSON escape but \\uXXXX, left to right as the parser reads them
_ASCII_NON_WORD = frozenset(i for i in range(128) if not (chr(i).isalnum() or chr(i) == "_"))
_NON_WORD_BYTES = bytes(32 if i in _ASCII_NON_WORD else i for i in range(256))  # bytes of 128 and up are kept
_LOWER_WORD_BYTES = _NON_WORD_BYTES.translate(bytes.maketrans(bytes(range(65, 91)), bytes(range(97, 123))))
_ASCII_BYTES = bytes(range(128))


def lower_words(text: str) -> list[bytes]:
    """``re.findall(r"\\w+", text.lower())`` as UTF-8 (a word character: ``isalnum()`` or ``_``, as the engine
    defines it), at C speed: words as bytes split faster than as strings, and tuples of them hash alike.

    An ASCII text is lowercased and split in one byte translation (non-word characters to spaces). Beyond ASCII, the
    lowercased text's UTF-8 has its ASCII non-word bytes turned into spaces by the same translation and its
    non-word characters beyond ASCII (a dash, a quote, '¶': a handful a page) by one pattern; UTF-8 never holds one
    character's bytes inside another's, so the split gives the same words."""
    if text.isascii():
        return text.encode("ascii").translate(_LOWER_WORD_BYTES).split()
    words = _caseless_words(text.encode("utf-8", "surrogatepass"))
    return _words_beyond_ascii(text.lower()) if words is None else words


def _caseless_words(raw: bytes) -> list[bytes] | None:
    """The words of valid UTF-8 ``raw`` when lowercasing changes none of its characters beyond ASCII (most pages:
    they hold '¶', dashes, quotes, lowercase accented letters), so lowercasing is the ASCII translation and the text
    is neither decoded nor lowered; None otherwise (an uppercase letter beyond ASCII, a capital sigma)."""
    beyond = set(raw.translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass"))
    if any(ch.lower() != ch for ch in beyond):
        return None
    others = frozenset(ch for ch in beyond if not (ch.isalnum() or ch == "_"))
    spaced = raw.translate(_LOWER_WORD_BYTES)
    return (_non_word_pattern(others).sub(b" ", spaced) if others else spaced).split()


def _words_beyond_ascii(low: str) -> list[bytes]:
    raw = low.encode("utf-8", "surrogatepass")  # a lone surrogate (JSON allows one) is a non-word character too
    spaced = raw.translate(_NON_WORD_BYTES)
    others = frozenset(ch for ch in raw.translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass")
                       if not (ch.isalnum() or ch == "_"))
    if others:
        spaced = _non_word_pattern(others).sub(b" ", spaced)
    return spaced.split()


@lru_cache(maxsize=4096)
def _non_word_pattern(chars: frozenset[str]) -> re.Pattern[bytes]:
    """One pattern for a text's non-word characters beyond ASCII (their UTF-8 is prefix-free: any order matches)."""
    return re.compile(b"|".join(re.escape(ch.encode("utf-8", "surrogatepass")) for ch in sorted(chars)))


def fast_shingles(text: str, k: int = 3) -> frozenset[tuple]:
    """The same word 3-shingles as ``consensus.shingles``, as tuples of UTF-8 words (no joins): the hot path of pass 2."""
    words = lower_words(text)
    if len(words) < k:
        return frozenset([tuple(words)]) if words else frozenset()
    return frozenset(zip(words, words[1:], words[2:]))


def _apply_consensus(c: Candidate, snippets: list[tuple[str, str, int]], votes: _Votes) -> None:
    conflicting_claims: list[str] = []
    best = 1
    code_consensus: dict[str, int] = {}
    conflicting_code: set[str] = set()
    for kind, text, cid in snippets:
        agree = votes.agreement(cid)
        conflict = c.authority < AUTHORITATIVE and (
            cid in votes.authoritative_variant or votes.clustering.conflicts_with_authority(cid, c.authority, shingles(text))
        )
        if conflict:
            c.dropped_snippets.append({"kind": kind, "reason": "conflicts with the authoritative version", "text": text[:200]})
            if kind == "claim":
                conflicting_claims.append(text)
            else:
                conflicting_code.add(text)
            continue
        best = max(best, agree)
        if kind == "code":
            code_consensus[text] = agree
    c.consensus_count = best
    excerpts = []
    for para in c.item.excerpts:
        for claim in conflicting_claims:
            para = para.replace(claim, "").strip()
        if para:
            excerpts.append(para)
    c.excerpts = excerpts
    blocks = []
    for cb in c.item.code_blocks:
        text = cb.get("text", "")
        if not text.strip() or text in conflicting_code:
            continue
        agree = code_consensus.get(text, 1)
        if c.authority < STRUCTURE_ONLY_BELOW and agree < 2:
            c.dropped_snippets.append({"kind": "code", "reason": "low-authority code without consensus", "text": text[:200]})
            continue
        blocks.append({"text": text, "language": cb.get("language", "") or "", "consensus": agree})
    c.code_blocks = blocks
