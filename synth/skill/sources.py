"""The provenance of a skill: citation markers checked against the sources, the Sources section, the footer.

Citations are read with ``synth.skill.markdown.CITATION`` (the linter's pattern), outside
fences and inline code. Pure functions, no I/O.
"""

from __future__ import annotations

import re

from synth.skill.fixers import clean_text
from synth.skill.markdown import CITATION as _CITE
from synth.skill.markdown import blank_inline_code as _outside_code
from synth.skill.markdown import citation_numbers, fence_state, find_urls, section_span
from synth.skill.spec import FOOTER_PREFIX

__all__ = ["fix_citations", "remove_section", "sources_section", "footer"]


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


def footer(learned_date: str, cutoff: str, target_model: str) -> str:
    """The skill's last line: when it was made, from what, for which model."""
    return (
        f"{FOOTER_PREFIX} on {learned_date} from sources published after the {cutoff} "
        f"cutoff of {target_model}._"
    )
