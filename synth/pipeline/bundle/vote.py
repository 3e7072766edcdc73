"""The consensus vote: the candidates' snippets clustered, every line of the run voting on those clusters through an
exact shingle index (:class:`Votes`), and the outcome applied to each candidate (:func:`apply_consensus`)."""

from __future__ import annotations

import re
from collections import defaultdict
from itertools import accumulate
from typing import Callable, Iterable, Sequence

from synth.evidence.consensus import (
    AUTHORITATIVE,
    SAME,
    VARIANT,
    ExactIndex,
    independent_host,
    item_snippets,
    shingles,
)
from synth.evidence.shingles import (
    LOWER_WORD_BYTES,
    caseless_words,
    fast_shingles,
    line_tokens,
    lower_words,
    prefix_tokens,
    snippet_groups,
    unpack_tokens,
    words_beyond_ascii,
)
from synth.evidence.urls import host_of, normalize_host
from synth.pipeline.bundle.candidate import Candidate
from synth.pipeline.bundle.read import vote_line

Met = tuple[int, frozenset[int]]  # a line's snippets as its tokens describe them: how many, those whose tokens met
STRUCTURE_ONLY_BELOW = 0.5  # authority below this: structure only
MAX_HOSTS_PER_CLUSTER = 64  # agreement saturates; bounds memory


class Votes:
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
        self._prefix: dict[int, int] = {}  # the tokens of the clusters' prefixes (a line's tokens meet them to vote): owners
        self._prefix_of: dict[int, list[int]] = {}  # a cluster's prefix tokens
        self._table: tuple | None = None  # :meth:`meeting`'s arrays of them, made at its first call

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
            self._prefix_of[cid] = tokens = list(set(prefix_tokens(sh)))
            self._own(tokens)
            for s in sh:
                self._inverted[s].append(cid)
        return cid

    def state(self) -> dict:
        """What a vote-only copy needs (:meth:`from_state`): the clusters' shingles, the index over them and their
        prefix tokens (the sets derived from these are made again there: a set of tuples unpickles slowly)."""
        return {"rep": self.rep, "inverted": {s: owners for s, owners in self._inverted.items() if owners},
                "low_authority": self._low_authority, "prefix_of": self._prefix_of}

    @classmethod
    def from_state(cls, state: dict) -> "Votes":
        votes = cls(clustering=False)
        votes.rep, votes._low_authority, votes._prefix_of = state["rep"], state["low_authority"], state["prefix_of"]
        votes._inverted.update(state["inverted"])
        votes._all = set(votes._inverted)
        votes._short = {s for s in votes._all if len(s) < 3}
        for tokens in votes._prefix_of.values():
            votes._own(tokens)
        return votes

    def _own(self, tokens: list[int]) -> None:
        """A cluster's prefix tokens counted in (:attr:`_prefix` keeps how many clusters own each)."""
        for t in tokens:
            self._prefix[t] = self._prefix.get(t, 0) + 1
        self._table = None

    def fresh_votes(self) -> None:
        """No vote counted yet (a vote-only copy reused for another chunk: what it retired stays retired)."""
        self.hosts = defaultdict(set)
        self.authoritative_variant = set()

    def merge(self, hosts: dict[int, set[str]], authoritative_variant: set[int]) -> None:
        """Another copy's votes added: agreement is the union of the hosts, capped as one pass caps it."""
        for cid, more in hosts.items():
            mine = self.hosts[cid]
            for host in more:
                if len(mine) >= MAX_HOSTS_PER_CLUSTER:
                    break
                mine.add(host)
        self.authoritative_variant |= authoritative_variant

    def observe_fields(self, data: dict, *, met: Met | None = None) -> None:
        """One run.jsonl line's vote (its checked fields, as :func:`~.read.vote_line` gives them); ``met``: as
        :meth:`observe_item`'s."""
        host = normalize_host(data.get("host") or host_of(data.get("final_url") or data["url"]))
        self.observe_item(data.get("excerpts", []), data.get("code_blocks", []), host, float(data.get("authority", 0.5)),
                          met=met)

    def observe_item(self, excerpts: list[str], code_blocks: list[dict], host: str, authority: float, *,
                     met: Met | None = None) -> None:
        """Let every snippet of one item vote, skipping the item when none of its snippets can match a candidate.

        ``met``: (the number of snippets its snippet tokens describe, the indexes of those whose tokens met a
        cluster's): only those can vote, when the item has that many snippets (else its tokens are not its texts').

        A vote needs a Jaccard of at least ``VARIANT`` > 0 with a candidate's snippet, so at least one shared
        shingle; the shingles of each snippet (a claim sentence is a run of words of one paragraph, a code block is
        one text) are among the item's word 3-shingles taken over all its texts at once — one C-speed pass instead
        of a sentence split and a shingle set per snippet. A snippet under 3 words is one 1- or 2-word shingle, so
        those are looked up only when a candidate has such a snippet. Lowercasing the joined texts is lowercasing
        each one: the only context-dependent case mapping (final sigma) stops at whitespace.
        """
        if met is not None:
            snippets = item_snippets(excerpts, code_blocks)
            if len(snippets) == met[0]:
                for k in sorted(met[1]):
                    self.observe(snippets[k][1], host, authority)
                return
        if not self._may_match(lower_words("\n".join([*excerpts, *(cb.get("text", "") for cb in code_blocks)]))):
            return
        for _kind, text in item_snippets(excerpts, code_blocks):
            self.observe(text, host, authority)

    def meeting(self, packed: list[bytes]) -> list[int]:
        """The indexes of the lines, each given by its :func:`~synth.evidence.shingles.line_tokens`, one of whose
        tokens is a token of a cluster's prefix: the lines that may vote (:meth:`meeting_joined`)."""
        return self.meeting_joined(b"".join(packed), list(accumulate(len(p) // 4 for p in packed)))

    def meeting_joined(self, tokens: bytes, ends: Sequence[int]) -> list[int]:
        """:meth:`meeting` of lines whose tokens are ``tokens``, one line after another, line ``i``'s ending at value
        ``ends[i]``. A large batch is tested in one vectorised pass (numpy, imported only then: ~0.1 s): a table of
        the prefix tokens' low bits first, then the few tokens it lets through looked up exactly; a small one line by
        line."""
        if not ends or not self._prefix:
            return []
        if len(ends) < NUMPY_LINES:
            values, keys, start, out = unpack_tokens(tokens), self._prefix.keys(), 0, []
            for i, end in enumerate(ends):
                if not keys.isdisjoint(values[start:end]):
                    out.append(i)
                start = end
            return out
        import numpy as np

        if self._table is None:
            prefix = np.fromiter(self._prefix, dtype=np.uint32, count=len(self._prefix))
            table = np.zeros(_TABLE_SIZE, dtype=np.bool_)
            table[prefix & (_TABLE_SIZE - 1)] = True
            self._table = (table, np.sort(prefix))
        table, ordered = self._table
        every = np.frombuffer(tokens, dtype="<u4")
        near = np.flatnonzero(table[every & (_TABLE_SIZE - 1)])
        found = every[near]
        at = np.minimum(np.searchsorted(ordered, found), len(ordered) - 1)
        hits = near[ordered[at] == found]
        if not hits.size:
            return []
        return sorted(set(np.searchsorted(np.asarray(ends), hits, side="right").tolist()))

    def vote_lines(self, lines: Iterable[tuple[bytes, bool]]) -> None:
        """Every raw line votes, given as (line, whether its snippet tokens may be used). A line that carries its
        tokens (:func:`~synth.evidence.shingles.line_tokens`) may vote only when one of them is a token of a
        cluster's prefix (:mod:`synth.evidence.shingles`): those are tested together, a batch at a time
        (:meth:`meeting`), and only the lines that pass are parsed. Any other line is tested on its words
        (:meth:`may_vote`). The order the lines vote in changes no outcome (votes only add; see :mod:`.parallel`)."""
        held: list[bytes] = []
        packed: list[bytes] = []
        size = 0
        for raw, usable in lines:
            found = line_tokens(raw) if usable else None
            if found is None:
                self._vote_raw(raw, self.may_vote)
                continue
            held.append(raw)
            packed.append(found)
            size += len(raw)
            if len(held) >= BATCH_LINES or size >= BATCH_BYTES:
                self.vote_met(self.meeting(packed), packed.__getitem__, held.__getitem__)
                held.clear()
                packed.clear()
                size = 0
        self.vote_met(self.meeting(packed), packed.__getitem__, held.__getitem__)

    def vote_met(self, met: Iterable[int], packed: Callable[[int], bytes], line: Callable[[int], bytes]) -> None:
        """The lines :meth:`meeting` found vote, each with the snippets whose tokens met: line ``i``'s tokens are
        ``packed(i)``, its raw bytes ``line(i)``."""
        prefix = self._prefix.keys()
        for i in met:
            groups = snippet_groups(packed(i))
            if groups is None:  # the counts do not add up: every snippet votes (or none, on its words)
                self._vote_raw(line(i), None)
                continue
            found = frozenset(k for k, group in enumerate(groups) if not prefix.isdisjoint(group))
            if found:  # else only a count met a token
                self._vote_raw(line(i), None, met=(len(groups), found))

    def _vote_raw(self, raw: bytes, may_vote: Callable[[bytes], bool] | None, *, met: Met | None = None) -> None:
        data = vote_line(raw, may_vote)
        if data is not None:
            self.observe_fields(data, met=met)

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
            return self._may_match(raw.translate(LOWER_WORD_BYTES).split())
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            return self._may_match(lower_words(raw.decode("utf-8", "replace")))
        words = caseless_words(raw)
        return self._may_match(words_beyond_ascii(line.lower()) if words is None else words)

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
        for t in self._prefix_of.pop(cid, ()):
            self._prefix[t] -= 1
            if not self._prefix[t]:
                del self._prefix[t]
                self._table = None

    @property
    def clustering(self) -> ExactIndex:
        assert self.index is not None, "a vote-only copy has no clusters"
        return self.index

    def agreement(self, cid: int) -> int:
        return max(1, len(self.hosts.get(cid, ())))


BATCH_LINES = 4096  # lines whose tokens are tested together (and held until then)
BATCH_BYTES = 16 * 1024 * 1024
NUMPY_LINES = 1024  # a smaller batch is tested line by line (a small run never imports numpy)
_TABLE_SIZE = 1 << 20  # 1 MB, in cache: one in ~100 random tokens passes it when 10,000 prefix tokens are in it
_JSON_ESCAPE = re.compile(rb'\\[\\nt"/rbf]')  # every JSON escape but \\uXXXX, left to right as the parser reads them


def apply_consensus(c: Candidate, snippets: list[tuple[str, str, int]], votes: Votes) -> None:
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
