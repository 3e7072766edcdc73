"""Selection: the ranked sources that fit the token budget (:func:`select_evidence`), the text the model sees for
each (:func:`render_source`), the bundle dict (:func:`to_bundle`) and the ranking table (:func:`ranking_rows`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from synth.evidence.consensus import AUTHORITATIVE
from synth.evidence.urls import host_of
from synth.pipeline.bundle.candidate import DEFAULT_MAX_SOURCES, Candidate
from synth.skill.markdown import fence_for
from synth.skill.size import CHARS_PER_TOKEN, estimate_tokens

MIN_SOURCE_TOKENS = 120  # a trimmed source keeps at least this much


def render_source(n: int, c: Candidate, excerpts: list[str] | None = None, code_blocks: list[dict] | None = None) -> str:
    """The text the model sees for one source (without the untrusted-data fence)."""
    excerpts = c.excerpts if excerpts is None else excerpts
    code_blocks = c.code_blocks if code_blocks is None else code_blocks
    parts = [f"[{n}] {c.item.title or c.url}", f"url: {c.url}", f"published: {c.item.published or 'undated'}"]
    parts += excerpts
    for cb in code_blocks:  # a fence the code cannot close, as everywhere skill3 fences code
        fence = fence_for(cb["text"])
        parts.append(f"{fence}{cb.get('language', '')}\n{cb['text']}\n{fence}")
    return "\n\n".join(parts)


def source_tokens(c: Candidate) -> int:
    return estimate_tokens(render_source(0, c))


@dataclass
class Selection:
    mode: str  # "direct" | "map-reduce" | "trimmed"
    budget: int
    sources: list[Candidate]
    trimmed: list[str] = field(default_factory=list)  # URLs cut to fit (trimmed mode)
    excluded: list[str] = field(default_factory=list)  # URLs left out to fit
    tokens: int = 0
    note: str = ""


def _trim(c: Candidate, max_tokens: int) -> Candidate:
    """A copy of ``c`` cut to ``max_tokens`` by dropping trailing code blocks, then trailing paragraphs."""
    excerpts = list(c.excerpts)
    blocks = list(c.code_blocks)
    while estimate_tokens(render_source(0, c, excerpts, blocks)) > max_tokens and (excerpts or blocks):
        if blocks and (len(blocks) > 1 or not excerpts):
            blocks.pop()
        elif len(excerpts) > 1:
            excerpts.pop()
        else:
            room = max(0, int(max_tokens * CHARS_PER_TOKEN) - len(render_source(0, c, [], blocks)) - 4)
            excerpts = [excerpts[0][:room].rsplit(" ", 1)[0] + " …"] if room > 40 else []
            if not excerpts:
                blocks = []
            break
    return Candidate(**{**c.__dict__, "excerpts": excerpts, "code_blocks": blocks})


def _select_entries(sources: list[Candidate], budget: int) -> tuple[list[Candidate], int]:
    """Fill ``budget`` with the best-scored change entries across ``sources`` (a source's header is paid once, when
    its first entry is taken); returns copies of the sources holding only their chosen entries, and the tokens used."""
    header = [estimate_tokens(render_source(0, c, [], [])) for c in sources]
    units = sorted(
        (-ch.score, si, ei, estimate_tokens(text) + 1)
        for si, c in enumerate(sources) for ei, (text, ch) in enumerate(zip(c.excerpts, c.delta))
    )
    picked: dict[int, list[int]] = {}
    used = 0
    for _neg, si, ei, tokens in units:
        extra = tokens + (0 if si in picked else header[si])
        if used + extra > budget:
            continue
        picked.setdefault(si, []).append(ei)
        used += extra
    out = []
    for si, c in enumerate(sources):
        if si in picked:
            idx = sorted(picked[si])
            out.append(Candidate(**{**c.__dict__, "excerpts": [c.excerpts[i] for i in idx], "delta": [c.delta[i] for i in idx],
                                    "code_blocks": []}))
    return out, sum(source_tokens(c) for c in out)


def _fill_in_order(sources: list[Candidate], remaining: int, chosen: list, trimmed: list, excluded: list) -> int:
    """Take ``sources`` in order while they fit, trimming the first that does not (when enough room is left),
    leaving out the rest; appends to the three lists and returns the tokens still free."""
    for c in sources:
        need = source_tokens(c)
        if need <= remaining:
            chosen.append(c)
            remaining -= need
        elif remaining >= MIN_SOURCE_TOKENS:
            chosen.append(_trim(c, remaining))
            trimmed.append(c.url)
            remaining -= source_tokens(chosen[-1])
        else:
            excluded.append(c.url)
    return remaining


def _fair_shares(demands: list[int], budget: int) -> list[int]:
    """Water-filling: each demand gets at most an equal share of what the smaller demands left."""
    shares = [0] * len(demands)
    left = budget
    order = sorted(range(len(demands)), key=lambda i: demands[i])
    for k, i in enumerate(order):
        fair = left // (len(order) - k)
        shares[i] = min(demands[i], fair)
        left -= shares[i]
    return shares


def select_evidence(candidates: list[Candidate], budget: int, *, max_sources: int = DEFAULT_MAX_SOURCES, can_condense: bool = True) -> Selection:
    """Choose the sources the synthesizer sees within ``budget`` tokens.

    Ranked order, authoritative post-cutoff sources first so they always make it in.
    Everything fits → ``direct``. Otherwise, with a model → ``map-reduce`` (each source is
    condensed by the model, then synthesised: nothing is silently cut); without one
    (extractive, dry run) → ``trimmed``: sources cut or left out, and the selection says which.
    """
    pool = candidates[:max_sources]
    total = sum(source_tokens(c) for c in pool)
    if total <= budget:
        return Selection("direct", budget, pool, tokens=total)
    if can_condense:
        return Selection(
            "map-reduce", budget, pool, tokens=total,
            note=f"evidence ({total} tokens) exceeds the budget ({budget}): each source is condensed by the model, then synthesised",
        )
    def primary(c: Candidate) -> bool:  # post-cutoff change entries, or an authoritative post-cutoff page
        return bool(c.delta) or (c.authority >= AUTHORITATIVE and c.post_cutoff)

    first = [c for c in pool if primary(c)]
    rest = [c for c in pool if not primary(c)]
    chosen: list[Candidate] = []
    trimmed: list[str] = []
    excluded: list[str] = []
    remaining = budget
    # change entries compete across every candidate, not only the first max_sources pages
    delta_sources = [c for c in candidates if c.delta]
    if delta_sources and sum(source_tokens(c) for c in delta_sources) > budget:
        # ranking on snippets: the best change entries of all sources, whatever page they are on
        chosen, used = _select_entries(delta_sources, budget)
        kept = {c.url: c for c in chosen}
        trimmed = [c.url for c in delta_sources if c.url in kept and source_tokens(kept[c.url]) < source_tokens(c)]
        excluded = [c.url for c in delta_sources if c.url not in kept]
        remaining -= used
        remaining = _fill_in_order([c for c in pool if not c.delta], remaining, chosen, trimmed, excluded)
    elif first and sum(source_tokens(c) for c in first) > budget:
        # max-min fair shares: small sources fit whole, the large ones split what is left
        shares = _fair_shares([source_tokens(c) for c in first], budget)
        for c, share in zip(first, shares):
            share = max(MIN_SOURCE_TOKENS, share)
            t = _trim(c, share) if source_tokens(c) > share else c
            if t is not c:
                trimmed.append(c.url)
            chosen.append(t)
            remaining -= source_tokens(t)
        excluded = [c.url for c in rest]
    else:
        remaining = _fill_in_order(first + rest, remaining, chosen, trimmed, excluded)
    order = {id(c): i for i, c in enumerate(pool)}
    by_url = {c.url: i for i, c in enumerate(pool)}
    chosen.sort(key=lambda c: order.get(id(c), by_url.get(c.url, 0)))
    used = sum(source_tokens(c) for c in chosen)
    return Selection(
        "trimmed", budget, chosen, trimmed, excluded, used,
        note=f"evidence ({total} tokens) exceeds the budget ({budget}) and no model condenses it: {len(trimmed)} source(s) trimmed, {len(excluded)} left out",
    )


def source_rows(selection: Selection) -> list[dict]:
    """The bundle's sources: each selected page numbered, with its excerpts, code and post-cutoff change entries.

    Sources with post-cutoff change entries come first (their excerpts *are* those entries, tagged
    ``[3.11, released 2022-10-24] Added: …``), so no pre-cutoff-version snippet is ever ahead of them.
    ``changes[i]`` describes ``excerpts[i]`` (its text is the excerpt: vetted and redacted like the rest).
    """
    ordered = sorted(selection.sources, key=lambda c: not c.delta)  # stable: rank order within each group
    return [
        {
            "n": i,
            "url": c.url,
            "title": c.item.title,
            "host": c.item.host or host_of(c.url),
            "authority": c.authority,
            "published": c.item.published,
            "date_source": c.item.date_source,
            "build_date": c.build_date,
            "post_cutoff": c.post_cutoff,
            "recency_weight": c.recency_weight,
            "combined_score": c.combined_score,
            "rank_score": c.rank_score,
            "consensus_count": c.consensus_count,
            "page_kind": c.item.page_kind or "",
            "excerpts": c.excerpts,
            "changes": [{**ch.to_dict(), "text": None, "tag": ch.tag()} for ch in c.delta[: len(c.excerpts)]],
            "code_blocks": [cb["text"] for cb in c.code_blocks],
            "code_languages": [cb.get("language", "") for cb in c.code_blocks],
        }
        for i, c in enumerate(ordered, 1)
    ]


@dataclass(frozen=True)
class BundleDelta:
    """What the bundle says of the delta: the boundary and post-cutoff versions from the ranking (None when the
    run has no delta record), the versions and reference files the delta's rendering lists (None without one),
    ``--since-version`` and how much of the site the crawl read."""

    boundary: dict | None = None
    post_cutoff_versions: list[str] | None = None
    versions: list[str] | None = None
    reference_index: list[str] | None = None
    since_version: str | None = None
    coverage: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        out: dict[str, object] = {}
        if self.post_cutoff_versions is not None:
            out.update(boundary=self.boundary, post_cutoff_versions=self.post_cutoff_versions)
        if self.versions is not None:
            out.update(versions=self.versions, reference_index=self.reference_index)
        out.update(since_version=self.since_version, coverage=self.coverage)
        return out


@dataclass(frozen=True)
class Bundle:
    """What a synthesizer drafts the skill from, built once (:func:`synth.pipeline.draft.synthesize`), never
    changed after: the selected sources (numbered, :func:`source_rows`), the cutoff, the delta (:class:`BundleDelta`
    and its rendering, ``parts``), the selection and its token budget, and what the skill is
    (name, topic, target model, date). :meth:`to_dict` is its JSON form (run.json's ``bundle.content``; the prompt's
    nonce hashes it)."""

    skill_name: str
    target_model: str
    cutoff: str
    sources: list[dict]
    delta: BundleDelta = field(default_factory=BundleDelta)
    selection: Selection = field(default_factory=lambda: Selection("direct", 0, []))
    topic: str = ""
    today: str = ""
    context_tokens: int = 0
    parts: Any = None  # synth.delta.render.SkillParts: the references and the entries SKILL.md names (or None)

    def to_dict(self, delta_sources: list[dict] | None = None) -> dict:
        """The bundle as JSON (``delta_sources``: the pages only the delta's lines cite, once the draft cited them)."""
        out: dict[str, object] = {"skill_name": self.skill_name, "target_model": self.target_model, "cutoff": self.cutoff,
                                  "sources": self.sources, "delta": self.delta.to_dict()}
        if delta_sources:
            out["delta_sources"] = delta_sources
        return out

    @property
    def budget(self) -> int:
        """The token budget the sources were selected for."""
        return self.selection.budget


def to_bundle(selection: Selection, *, skill_name: str, target_model: str, cutoff: str, delta: dict | None = None) -> dict:
    """The context bundle as JSON before the delta's rendering (skill name, target model, cutoff, sources
    (:func:`source_rows`), the ranking's boundary and post-cutoff versions)."""
    sources = source_rows(selection)
    bundle: dict[str, object] = {"skill_name": skill_name, "target_model": target_model, "cutoff": cutoff, "sources": sources}
    if delta is not None:
        bundle["delta"] = {"boundary": delta.get("boundary"), "post_cutoff_versions": post_versions(selection)}
    return bundle


def post_versions(selection: Selection) -> list[str]:
    """The post-cutoff versions of the selected sources' change entries, newest first, each with its date."""
    return _post_versions(sorted(selection.sources, key=lambda c: not c.delta))


def _post_versions(candidates: list[Candidate]) -> list[str]:
    from synth.delta.versions import parse_version

    labels = {ch.version: ch.when() for c in candidates for ch in c.delta}
    return [labels[v] for v in sorted(labels, key=lambda v: (parse_version(v) is None, parse_version(v) or v), reverse=True)]


def ranking_rows(candidates: list[Candidate], selection: Selection | None = None) -> list[dict]:
    chosen = {c.url for c in selection.sources} if selection else set()
    return [
        {
            "rank": i,
            "url": c.url,
            "title": c.item.title,
            "combined_score": c.combined_score,
            "rank_score": c.rank_score,
            "relevance": c.relevance,
            "authority": c.authority,
            "authority_reason": c.item.authority_reason,
            "recency_weight": c.recency_weight,
            "post_cutoff": c.post_cutoff,
            "published": c.item.published,
            "date_source": c.item.date_source,
            "consensus_count": c.consensus_count,
            "tokens": source_tokens(c),
            "selected": c.url in chosen,
            "dropped_snippets": len(c.dropped_snippets),
            "query": c.item.query,
            "discovery": c.item.discovery,
            "build_date": c.build_date,
            "freshness_basis": c.basis,
            "post_cutoff_changes": sum(1 for ch in c.changes if ch.post),
            "reasons": c.reasons(),
        }
        for i, c in enumerate(candidates, 1)
    ]
