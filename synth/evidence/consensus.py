"""Consensus over snippets (code blocks and claim sentences) across independent hosts.

Schema-free: a snippet is trusted when it recurs across independent
hosts; near-duplicates count (MinHash LSH finds candidates, an exact Jaccard
check over the shingle sets confirms); a snippet that is a *variant* of one an
authoritative source (≥0.8) published — similar, but not the same — conflicts
with the high-authority version and is dropped. An authoritative source bypasses
the count.

Memory: the index keeps one representative per cluster (its shingle set and
MinHash), never the items themselves.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable

from synth.skill.markdown import heading_title

if TYPE_CHECKING:
    import tldextract
    from datasketch import MinHash

AUTHORITATIVE = 0.8
SAME = 0.8  # exact Jaccard at or above: the same snippet
VARIANT = 0.5  # between VARIANT and SAME: a different version of the same snippet
NUM_PERM = 64
LSH_THRESHOLD = 0.3  # candidate recall well below VARIANT; the exact check decides
_WS = re.compile(r"\s+")
_WORD = re.compile(r"\w+", re.UNICODE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(\[])")
MIN_CLAIM_CHARS = 40
# At most this many LSH candidates get the exact check, and a snippet that already has this
# many candidates is not indexed itself: templated pages (API references, generated docs)
# produce families of thousands of near-variants, and unbounded that is O(n²) per crawl.
MAX_CANDIDATES = 64
MAX_CLAIMS_PER_ITEM = 40


@lru_cache(maxsize=1)
def _tld_extract() -> tldextract.TLDExtract:
    import tldextract

    return tldextract.TLDExtract(suffix_list_urls=())  # bundled snapshot: no network


@lru_cache(maxsize=1 << 16)  # the vote asks for the same few hosts again and again
def independent_host(host: str) -> str:
    """The registrable domain: docs.python.org and peps.python.org are one publisher."""
    host = (host or "").lower().strip(".")
    if not host or host.replace(".", "").isdigit() or ":" in host:
        return host
    ext = _tld_extract()(host)
    return ext.top_domain_under_public_suffix or host


def normalize(text: str) -> str:
    return _WS.sub(" ", text).strip().lower()


def fingerprint(text: str) -> str:
    return hashlib.sha1(normalize(text).encode("utf-8")).hexdigest()[:16]


def shingles(text: str, k: int = 3) -> frozenset[str]:
    words = _WORD.findall(normalize(text))
    if len(words) < k:
        return frozenset([" ".join(words)]) if words else frozenset()
    return frozenset(" ".join(words[i : i + k]) for i in range(len(words) - k + 1))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def claim_sentences(excerpts: list[str], limit: int = MAX_CLAIMS_PER_ITEM) -> list[str]:
    """Claim-like sentences from prose excerpts (headings and short fragments skipped)."""
    out: list[str] = []
    for para in excerpts:
        if heading_title(para) is not None:
            continue
        for sentence in _SENTENCE.split(para.strip()):
            if len(sentence) >= MIN_CLAIM_CHARS:
                out.append(sentence)
                if len(out) >= limit:
                    return out
    return out


def item_snippets(excerpts: list[str], code_blocks: list[dict]) -> list[tuple[str, str]]:
    """(kind, text) pairs: every code block and the claim sentences."""
    snippets = [("code", cb.get("text", "")) for cb in code_blocks if cb.get("text", "").strip()]
    snippets += [("claim", s) for s in claim_sentences(excerpts)]
    return snippets


@dataclass
class _Cluster:
    shingles: frozenset[str]
    hosts: set[str] = field(default_factory=set)
    best_authority: float = 0.0
    authoritative_fps: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Verdict:
    fingerprint: str
    cluster: int
    conflict: bool  # a low-authority variant of an authoritative snippet


class _Clusters:
    """What both indexes share: the clusters, and where a snippet goes given its candidates' Jaccards."""

    _clusters: list[_Cluster]

    def _place(self, text: str, sh: frozenset[str], host: str, authority: float,
               scored: Iterable[tuple[int, float]]) -> tuple[Verdict, bool]:
        """The snippet joins the best candidate at :data:`SAME` or above, else opens a cluster (a conflict when it
        is a low-authority variant of an authoritative one); → its verdict and whether the cluster is new."""
        best: tuple[float, int] | None = None
        for key, j in scored:
            if best is None or j > best[0]:
                best = (j, key)
        conflict = new = False
        if best is not None and best[0] >= SAME:
            cid = best[1]
        else:
            if best is not None and best[0] >= VARIANT:
                variant_of = self._clusters[best[1]]
                conflict = variant_of.best_authority >= AUTHORITATIVE and authority < AUTHORITATIVE
            cid, new = len(self._clusters), True
            self._clusters.append(_Cluster(sh))
        fp = fingerprint(text)
        cluster = self._clusters[cid]
        cluster.hosts.add(independent_host(host))
        cluster.best_authority = max(cluster.best_authority, authority)
        if authority >= AUTHORITATIVE:
            cluster.authoritative_fps.add(fp)
        return Verdict(fp, cid, conflict), new

    def agreement(self, cluster: int) -> int:
        """Independent hosts that published this snippet (or a near-duplicate)."""
        return len(self._clusters[cluster].hosts)

    def __len__(self) -> int:
        return len(self._clusters)


class ConsensusIndex(_Clusters):
    """Incremental clustering of snippets; ``agreement`` tells how many independent hosts share one."""

    def __init__(self, num_perm: int = NUM_PERM, minhash_cache: int = 0) -> None:
        """``minhash_cache``: keep the MinHashes of this many recent snippets (for a caller that asks about the same
        snippets again, as the bundle does; off by default so a crawl-long index holds nothing extra).

        datasketch (with numpy and scipy, ~65 MB of a process) is imported here, not with the module: a docs
        crawl of one publisher fingerprints snippets (:func:`fingerprint`) without ever building an index."""
        from datasketch import MinHash, MinHashLSH

        self._MinHash = MinHash
        self._num_perm = num_perm
        self._lsh = MinHashLSH(threshold=LSH_THRESHOLD, num_perm=num_perm)
        self._clusters: list[_Cluster] = []
        # The seeded permutations are the same for every MinHash: build them once (datasketch
        # regenerates them per instance otherwise, ~0.3 ms each — the crawl's hottest line).
        proto = MinHash(num_perm=num_perm)
        self._perms, self._scheme = proto.permutations, proto.scheme
        self._recent: dict[frozenset[str], MinHash] = {}
        self._cache_size = minhash_cache

    def _minhash(self, sh: frozenset[str]) -> MinHash:
        m = self._recent.get(sh)  # a MinHash is read-only once built
        if m is None:
            m = self._MinHash(num_perm=self._num_perm, permutations=self._perms, scheme=self._scheme)
            m.update_batch([s.encode("utf-8") for s in sh])
            if self._cache_size:
                if len(self._recent) >= self._cache_size:
                    del self._recent[next(iter(self._recent))]  # oldest first
                self._recent[sh] = m
        return m

    def add(self, text: str, host: str, authority: float) -> Verdict:
        sh = shingles(text)
        mh = self._minhash(sh)
        candidates = self._lsh.query(mh)
        keys = sorted(candidates)[:MAX_CANDIDATES] if len(candidates) > MAX_CANDIDATES else candidates
        verdict, new = self._place(text, sh, host, authority, ((k, jaccard(sh, self._clusters[k].shingles)) for k in keys))
        if new and len(candidates) < MAX_CANDIDATES:
            self._lsh.insert(verdict.cluster, mh)
        return verdict

    def conflicts_with_authority(self, cluster: int, authority: float, text_shingles: frozenset[str]) -> bool:
        """True when a low-authority snippet is a variant of a later-seen authoritative one."""
        if authority >= AUTHORITATIVE:
            return False
        for key in self._lsh.query(self._minhash(text_shingles)):
            other = self._clusters[key]
            if key != cluster and other.best_authority >= AUTHORITATIVE:
                if VARIANT <= jaccard(text_shingles, other.shingles) < SAME:
                    return True
        return False

class ExactIndex(_Clusters):
    """:class:`ConsensusIndex`'s clustering with every Jaccard computed exactly, for a bounded set of snippets (the
    bundle's candidates: at most a few thousand): a snippet's candidates are the clusters whose Jaccard with it
    reaches :data:`LSH_THRESHOLD` (what the LSH approximates), found through an inverted shingle index. Nothing is
    missed by chance, and datasketch (with numpy and scipy: ~0.5 s and ~65 MB to import) is not needed."""

    def __init__(self) -> None:
        self._clusters: list[_Cluster] = []
        self._inverted: dict[str, list[int]] = {}

    def _candidates(self, sh: frozenset[str]) -> dict[int, float]:
        """Indexed clusters with a Jaccard of at least :data:`LSH_THRESHOLD` with ``sh``, and that Jaccard."""
        overlap: dict[int, int] = {}
        for s in sh:
            for key in self._inverted.get(s, ()):
                overlap[key] = overlap.get(key, 0) + 1
        out = {}
        for key, inter in overlap.items():
            j = inter / (len(sh) + len(self._clusters[key].shingles) - inter)
            if j >= LSH_THRESHOLD:
                out[key] = j
        return out

    def add(self, text: str, host: str, authority: float) -> Verdict:
        sh = shingles(text)
        candidates = self._candidates(sh)
        keys = sorted(candidates)[:MAX_CANDIDATES] if len(candidates) > MAX_CANDIDATES else candidates
        verdict, new = self._place(text, sh, host, authority, ((k, candidates[k]) for k in keys))
        if new and len(candidates) < MAX_CANDIDATES:
            for s in sh:
                self._inverted.setdefault(s, []).append(verdict.cluster)
        return verdict

    def conflicts_with_authority(self, cluster: int, authority: float, text_shingles: frozenset[str]) -> bool:
        """As :meth:`ConsensusIndex.conflicts_with_authority`."""
        if authority >= AUTHORITATIVE:
            return False
        for key, j in self._candidates(text_shingles).items():
            if key != cluster and self._clusters[key].best_authority >= AUTHORITATIVE and VARIANT <= j < SAME:
                return True
        return False


def is_trusted(agreeing_hosts: int, authority: float, required: int = 2) -> bool:
    """Trusted when N independent hosts agree, or the source is authoritative."""
    return authority >= AUTHORITATIVE or agreeing_hosts >= required
