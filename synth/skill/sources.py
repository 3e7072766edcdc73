"""The provenance of a skill: citation markers checked against the sources, the Sources section, the footer.

Citations are read with ``synth.skill.markdown.CITATION`` (the linter's pattern), outside
fences and inline code. Pure functions, no I/O.
"""

from __future__ import annotations

import re

from synth.skill.fixers import clean_text
from synth.skill.markdown import CITATION as _CITE
from synth.skill.markdown import blank_inline_code as _outside_code
from synth.skill.markdown import citation_numbers, fence_state, find_sources, find_urls, heading_index, section_span
from synth.skill.spec import FOOTER_PREFIX

__all__ = ["fix_citations", "remove_section", "sources_section", "footer", "listed_sources", "attribute_claims"]


def fix_citations(body: str, n_sources: int, source_urls: dict[str, int]) -> tuple[str, set[int], list[str]]:
    """Drop citation markers that name no source; return the cited source numbers (markers and source URLs)."""
    cited: set[int] = set()
    dropped: set[str] = set()
    out = []
    for line, fenced in zip(body.split("\n"), fence_state(body)):
        if fenced:
            out.append(line)
            continue
        visible = _outside_code(line)
        new = []
        last = 0
        for m in _CITE.finditer(visible):
            nums = citation_numbers(m.group(1))
            good = [n for n in nums if 1 <= n <= n_sources]
            bad = [n for n in nums if not 1 <= n <= n_sources]
            if not bad:
                continue
            dropped.update(str(b) for b in bad)
            cited.update(good)
            new.append(line[last : m.start()].rstrip(" ") if not good else line[last : m.start()])
            new.append("[" + ", ".join(map(str, good)) + "]" if good else "")
            last = m.end()
        if new:
            line = "".join(new) + line[last:]
            visible = _outside_code(line)
        for m in _CITE.finditer(visible):
            cited.update(n for n in citation_numbers(m.group(1)) if 1 <= n <= n_sources)
        for url in find_urls(visible):
            n = source_urls.get(url)
            if n:
                cited.add(n)
        out.append(line)
    fixes = [f"dropped citation(s) [{', '.join(sorted(dropped, key=int))}] that name no source"] if dropped else []
    return "\n".join(out), cited, fixes


def listed_sources(body: str, n_sources: int, source_urls: dict[str, int]) -> set[int]:
    """The bundle sources the draft's own Sources section names — by a number in range or by URL — before the
    post-processor replaces that section: a model that listed its sources without citing them inline used them."""
    section = find_sources(body)
    if section is None:
        return set()
    out: set[int] = set()
    for e in section.entries:
        if e.url and source_urls.get(e.url):
            out.add(source_urls[e.url])
        elif e.number is not None and 1 <= e.number <= n_sources and (e.url is None or e.url in source_urls):
            out.add(e.number)
    return out


_TOKEN = re.compile(r"[a-z0-9][a-z0-9_.-]*[a-z0-9]|[a-z0-9]{2,}")
_STOP = frozenset("the and for with that this from are was were has have not but you your use used can will its "
                  "into when which what also than then there their them they more most such only any all each".split())
MIN_CLAIM_WORDS = 6
MIN_CONTAINMENT = 0.75
_CLAIM_LINE = re.compile(r"^\s*(?:[-*+]\s+|\d{1,3}[.)]\s+)?(?P<text>[^#|>].*\S)\s*$")


def _tokens(text: str) -> set[str]:
    return {t for t in _TOKEN.findall(text.lower()) if len(t) > 2 and t not in _STOP}


def attribute_claims(body: str, sources: list[dict]) -> tuple[str, set[int], list[str]]:
    """Cite, deterministically, the claim lines of a draft that cites nothing: a list item or paragraph line of at
    least :data:`MIN_CLAIM_WORDS` words gets ``[n]`` when at least :data:`MIN_CONTAINMENT` of its words are in
    source ``n`` (its title, excerpts and code; the best such source). Lines no source supports stay uncited."""
    texts = {int(s.get("n", i)): _tokens(" ".join([str(s.get("title") or ""), *map(str, s.get("excerpts") or []),
                                                      *map(str, s.get("code_blocks") or [])]))
             for i, s in enumerate(sources, 1)}
    heads = heading_index(body)
    out, cited, added = [], set(), 0
    for i, (line, fenced) in enumerate(zip(body.split("\n"), fence_state(body))):
        m = None if fenced or i in heads or _CITE.search(_outside_code(line)) else _CLAIM_LINE.match(line)
        words = _tokens(m.group("text")) if m else set()
        if len(words) >= MIN_CLAIM_WORDS:
            score, n = max(((len(words & t) / len(words), -n) for n, t in texts.items() if t), default=(0.0, 0))
            if score >= MIN_CONTAINMENT:
                line = f"{line.rstrip()} [{-n}]"
                cited.add(-n)
                added += 1
        out.append(line)
    fixes = [f"cited {added} uncited line(s) by the source whose text holds them"] if added else []
    return "\n".join(out), cited, fixes


def remove_section(body: str, title: re.Pattern) -> tuple[str, bool]:
    """``body`` without every section whose heading matches ``title``; whether one was removed."""
    lines = body.split("\n")
    removed = False
    while True:
        b = section_span("\n".join(lines), title)
        if not b:
            break
        del lines[b[0] : b[1]]
        removed = True
    return "\n".join(lines), removed


def sources_section(cited: list[int], sources: list[dict]) -> str:
    """``## Sources``: one line per cited number of the bundle ``sources`` (title, URL, date or versions)."""
    by_n = {int(s.get("n", i)): s for i, s in enumerate(sources, 1)}
    lines = ["## Sources", ""]
    if not cited:
        lines.append("No statement in this skill cites a source; the sources it was built from are listed in run.json.")
    for n in cited:
        s = by_n[n]
        title = clean_text(s.get("title") or "").replace("[", "(").replace("]", ")")
        date = f" ({s['published']})" if s.get("published") and not s.get("build_date") else ""  # a site build date is no publication date
        versions = sorted({c["version"] for c in s.get("changes") or [] if c.get("status") == "post"})
        if versions:
            date = f" (changes in {', '.join(versions[:4])})"
        lines.append(f"- [{n}] {title + ' — ' if title else ''}{s['url']}{date}")
    return "\n".join(lines)


def footer(learned_date: str, cutoff: str, target_model: str, account: str | None = None) -> str:
    """The skill's last line: when it was made, from what, for which model (``account``: what the cited sources were,
    ``synth.skill.stale.source_account``)."""
    return f"{FOOTER_PREFIX} on {learned_date} from {account or f'sources published after the {cutoff} cutoff of {target_model}'}._"
