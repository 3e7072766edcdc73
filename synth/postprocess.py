"""The deterministic SKILL.md post-processor: the generator, not the model, guarantees the format.

Whatever the model wrote (chatter, a skill wrapped in a code fence, two frontmatter
blocks, a reserved or invalid name, a 3000-character description with tags,
unclosed fences, extra keys), ``postprocess`` returns a skill that satisfies the
Agent Skills spec and skill3's format rules below, or raises ``PostProcessError`` with
the problems it could not fix (the caller re-prompts once, then fails loudly).

Rules:
- exactly one YAML frontmatter block, at the top; keys limited to the spec's;
  ``allowed-tools`` and ``license`` from a model are dropped (a skill learned from
  the web never pre-approves tools, and sources do not state a licence);
  ``metadata`` holds exactly the string values version, learned-date,
  target-model, cutoff (set by the generator, never by the model);
- ``name``: ``[a-z0-9-]``, ≤64, no leading/trailing/double hyphen, reserved words
  ``anthropic``/``claude`` removed, fallback ``<topic>-skill`` (``learned-skill``);
- ``description``: no tags or angle brackets, ≤1024, derived from the body when
  the model's is degenerate;
- every code fence closed; a Sources section listing exactly the cited sources;
- a body over ~500 lines is split into ``references/`` linked one level deep.

The format itself (limits, frontmatter, fences, headings, citations) is read
through ``synth.skill``, the same reader lint and the output vetting use.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

import yaml

from synth.skill.frontmatter import YAMLISH as _YAMLISH
from synth.skill.frontmatter import read_frontmatter as split_frontmatter
from synth.skill.markdown import CITATION as _CITE
from synth.skill.markdown import URL as _URL
from synth.skill.markdown import blank_inline_code as _outside_code
from synth.skill.markdown import citation_numbers, fence_marker, fence_state, find_fences, headings, looks_like_heading
from synth.skill.spec import (  # noqa: F401  (re-exported: callers import the limits from here)
    ALLOWED_KEYS,
    DROPPED_KEYS,
    FOOTER_PREFIX,
    MAX_BODY_LINES,
    MAX_COMPATIBILITY,
    MAX_DESCRIPTION,
    MAX_NAME,
    NAME_RE,
    RESERVED_WORDS,
)

SPLIT_TARGET_LINES = 450
MIN_CONTENT_WORDS = 15
_TAG = re.compile(r"</?[A-Za-z][^<>]*>|<!--.*?-->", re.S)
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_PLACEHOLDER_DESC = re.compile(
    r"^(?:<?\s*what it does|todo|tbd|description|n/?a|none|null|placeholder|a skill|skill description|\.\.\.|…)\b", re.I
)


class PostProcessError(ValueError):
    """The draft has problems no deterministic fix can repair."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


@dataclass
class SkillContext:
    topic: str
    target_model: str
    cutoff: str  # YYYY-MM
    learned_date: str  # YYYY-MM-DD
    sources: list[dict]  # bundle sources: {"n", "url", "title", ...}
    version: str = "1.0.0"


@dataclass
class Skill:
    name: str
    frontmatter: dict
    body: str
    references: dict[str, str] = field(default_factory=dict)  # "references/x.md" -> text
    cited: list[int] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)

    def skill_md(self) -> str:
        fm = yaml.safe_dump(self.frontmatter, sort_keys=False, allow_unicode=True, width=10**6, default_flow_style=False)
        return f"---\n{fm}---\n{self.body.rstrip()}\n"

    def files(self) -> dict[str, str]:
        return {"SKILL.md": self.skill_md(), **self.references}


# --------------------------------------------------------------------------- names


def slugify(text: str) -> str:
    text = unicodedata.normalize("NFKD", text or "").encode("ascii", "ignore").decode("ascii").lower()
    return re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9]+", "-", text)).strip("-")


def _strip_reserved(slug: str) -> str:
    for word in RESERVED_WORDS:
        slug = slug.replace(word, "-")
    return re.sub(r"-{2,}", "-", slug).strip("-")


def _cap(slug: str, limit: int = MAX_NAME) -> str:
    if len(slug) <= limit:
        return slug
    cut = slug[:limit]
    return (cut.rsplit("-", 1)[0] if "-" in cut else cut).strip("-")


def fallback_name(topic: str) -> str:
    base = _cap(_strip_reserved(slugify(topic)), MAX_NAME - len("-skill"))
    return f"{base}-skill" if base else "learned-skill"


def sanitize_name(raw: str | None, topic: str) -> str:
    """A spec-valid skill name from the model's (or the topic's) name; ``<topic>-skill`` fallback."""
    for candidate in (raw, topic):
        if not isinstance(candidate, str):
            continue
        slug = _cap(_strip_reserved(slugify(candidate)))
        if slug and NAME_RE.match(slug) and slug not in ("skill", "skills"):
            return slug
    return fallback_name(topic)


# --------------------------------------------------------------------------- description


def _plain(text: str) -> str:
    text = re.sub(r"`([^`]*)`", r"\1", text)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\s*" + _CITE.pattern, "", text)
    text = re.sub(r"[*_]{1,3}([^*_]+)[*_]{1,3}", r"\1", text)
    return clean_text(text)


def clean_text(text: str) -> str:
    """No XML/HTML tags, no angle brackets, one line."""
    text = _TAG.sub(" ", str(text))
    text = text.replace("<", " ").replace(">", " ")
    return " ".join(text.split()).strip(" \"'")


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit]
    sentence_end = max(cut.rfind(". "), cut.rfind("! "), cut.rfind("? "))
    if sentence_end >= limit // 2:
        return cut[: sentence_end + 1]
    return cut[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def is_degenerate_description(desc: str, name: str, topic: str) -> bool:
    d = desc.strip().lower().rstrip(".")
    return (
        len(d) < 20
        or bool(_PLACEHOLDER_DESC.match(d))
        or d in (name.lower(), topic.lower(), slugify(topic))
        or "{" in d
    )


def derive_description(body: str, ctx: SkillContext) -> str:
    """Overview's first sentences + a when-to-use clause; always non-empty."""
    topic = ctx.topic.strip() or "this topic"
    sentences: list[str] = []
    section = _section_text(body, re.compile(r"overview|when to use|summary", re.I)) or _first_prose(body)
    for para in (section or "").split("\n\n"):
        if para.lstrip().startswith(("#", "```", "~~~", "|")):
            continue
        for s in re.split(r"(?<=[.!?])\s+", _plain(para)):
            if len(s) >= 25:
                sentences.append(s if s.endswith((".", "!", "?")) else s + ".")
            if len(" ".join(sentences)) > 300:
                break
        if sentences:
            break
    lead = " ".join(sentences[:2]) or f"What changed in {topic} after the {ctx.cutoff} training cutoff, compiled from fresh sources."
    when = f" Use when working with {topic} features, APIs or changes published after {ctx.cutoff}."
    return _truncate(clean_text(_truncate(lead, MAX_DESCRIPTION - len(when)) + when), MAX_DESCRIPTION)


def _first_prose(body: str) -> str:
    out = []
    heads = _heading_lines(body)
    for i, (line, fenced) in enumerate(_lines_with_fence_state(body)):
        if fenced or i in heads or line.lstrip().startswith(("-", "*", "|", ">")):
            if out:
                break
            continue
        if line.strip():
            out.append(line.strip())
        elif out:
            break
    return " ".join(out)


# --------------------------------------------------------------------------- text structure


def _lines_with_fence_state(body: str):
    """(line, inside_or_on_fence) pairs, one per ``body.split("\\n")`` line."""
    return list(zip(body.split("\n"), fence_state(body)))


def _heading_lines(body: str) -> dict[int, tuple[int, str]]:
    """0-based body line → (level, title) of each top-level ATX heading."""
    return {h.line - 1: (h.level, h.title) for h in headings(body)}


def close_fences(body: str) -> tuple[str, list[str]]:
    """Close every unclosed fence: before the next heading-looking line when one follows, else at its end."""
    fixes: list[str] = []
    lines = body.split("\n")
    for _ in range(100):
        fence = next((f for f in find_fences("\n".join(lines)) if not f.closed), None)
        if fence is None:
            break
        open_at, stop = fence.start - 1, min(fence.last, len(lines))
        insert = stop
        for j in range(open_at + 1, stop):
            if looks_like_heading(lines[j]):
                insert = j
                break
        while insert > open_at + 1 and not lines[insert - 1].strip():
            insert -= 1
        lines.insert(insert, fence.closing_line())
        fixes.append(f"closed the code fence opened on body line {open_at + 1}")
    return "\n".join(lines), fixes


def _section_bounds(lines: list[str], title: re.Pattern) -> tuple[int, int, int] | None:
    """(start, end, level) of the first section whose heading matches ``title`` (outside fences)."""
    heads = sorted(_heading_lines("\n".join(lines)).items())
    for k, (i, (level, text)) in enumerate(heads):
        if title.search(text):
            end = next((j for j, (lv, _t) in heads[k + 1 :] if lv <= level), len(lines))
            return i, end, level
    return None


def _section_text(body: str, title: re.Pattern) -> str | None:
    lines = body.split("\n")
    b = _section_bounds(lines, title)
    return "\n".join(lines[b[0] + 1 : b[1]]).strip() if b else None


# --------------------------------------------------------------------------- recovery


def recover_skill_text(text: str) -> tuple[str, list[str]]:
    """Strip reasoning blocks, chatty preambles and a code fence wrapped around the whole skill."""
    fixes: list[str] = []
    text = (text or "").replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    if _THINK.search(text):
        text = _THINK.sub("", text)
        fixes.append("removed reasoning blocks")
    text = text.strip("\n")
    lines = text.split("\n")
    if lines and lines[0].strip() == "---":
        return text, fixes
    # A skill wrapped in a fence: an opener whose next non-blank line is '---'.
    for i, line in enumerate(lines):
        m = fence_marker(line)
        if not m or m[1].lower() not in ("", "markdown", "md", "yaml", "skill", "skill.md", "text"):
            continue
        nxt = next((k for k in range(i + 1, len(lines)) if lines[k].strip()), None)
        if nxt is None or lines[nxt].strip() != "---":
            continue
        fence = m[0]
        end = None
        for k in range(len(lines) - 1, nxt, -1):
            if lines[k].strip() and set(lines[k].strip()) == {fence[0]} and len(lines[k].strip()) >= len(fence):
                end = k
                break
        inner = lines[nxt : end if end is not None else len(lines)]
        fixes.append("unwrapped a skill the model put inside a code fence" + (" after a preamble" if i else ""))
        return "\n".join(inner).strip("\n"), fixes
    # Chatter before the frontmatter: a '---' line followed by a key line.
    for i, line in enumerate(lines):
        if line.strip() == "---" and i + 1 < len(lines) and re.match(r"^(name|description)\s*:", lines[i + 1]):
            fixes.append("removed text before the frontmatter")
            return "\n".join(lines[i:]), fixes
    return text, fixes


_CHATTER = re.compile(
    r"^(?:i hope|hope (?:this|that)|let me know|feel free|is there anything|if you (?:have|need|want)|"
    r"happy to help|good luck|enjoy|would you like|do you want|this skill (?:should|will) help)\b",
    re.I,
)


def strip_trailing_chatter(body: str) -> tuple[str, list[str]]:
    """Drop closing pleasantries the model appended after the skill (outside fences)."""
    lines = body.rstrip().split("\n")
    fenced = [f for _l, f in _lines_with_fence_state("\n".join(lines))]
    removed = False
    while lines:
        i = len(lines) - 1
        if not lines[i].strip():
            lines.pop()
            continue
        if not fenced[i] and _CHATTER.match(lines[i].strip().lstrip("*_> ")):
            lines.pop()
            removed = True
            continue
        break
    return "\n".join(lines), (["removed closing chatter after the skill"] if removed else [])


_EMPTY_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s*$")
MAX_REPEAT = 2


_SCAFFOLD = re.compile(
    r"<<<\s*(?:END\s+)?(?:SOURCE|DRAFT)\b[^\n]*?>>>|^\s*(?:Write the SKILL\.md now\.|Output the corrected SKILL\.md\.|"
    r"SOURCES \((?:quoted pages|condensed notes)[^)]*\):|Today is \d{4}-\d{2}-\d{2}\. Topic: .*)\s*$",
    re.I,
)


def remove_scaffolding(body: str) -> tuple[str, list[str]]:
    """Remove prompt scaffolding a model echoed back: source/draft markers and the prompt's own instruction lines."""
    out, n = [], 0
    for line, _fenced in _lines_with_fence_state(body):
        if _SCAFFOLD.search(line):
            n += 1
            continue
        out.append(line)
    return "\n".join(out), ([f"removed {n} line(s) of echoed prompt scaffolding"] if n else [])


def drop_empty_fences(body: str) -> tuple[str, list[str]]:
    """Remove code blocks with nothing inside."""
    empty = [f for f in find_fences(body) if f.end == f.start + 1]
    drop = {n - 1 for f in empty for n in (f.start, f.end)}
    lines = [line for i, line in enumerate(body.split("\n")) if i not in drop]
    return "\n".join(lines), ([f"removed {len(empty)} empty code block(s)"] if empty else [])


def drop_degenerate_lines(body: str) -> tuple[str, list[str]]:
    """Remove empty list items and collapse runs of identical lines (a small model's loops), outside fences."""
    out: list[str] = []
    empty = repeated = 0
    run = 0
    for line, fenced in _lines_with_fence_state(body):
        if not fenced and _EMPTY_ITEM.match(line):
            empty += 1
            continue
        if not fenced and line.strip() and out and line == out[-1]:
            run += 1
            if run >= MAX_REPEAT:
                repeated += 1
                continue
        else:
            run = 0
        out.append(line)
    out, looped = _collapse_periodic(out)
    repeated += looped
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(out))
    fixes = []
    if empty:
        fixes.append(f"removed {empty} empty list item(s)")
    if repeated:
        fixes.append(f"removed {repeated} repeated line(s)")
    return text, fixes


MAX_PERIOD = 8


def _collapse_periodic(lines: list[str]) -> tuple[list[str], int]:
    """Keep one copy of a block of 2..8 lines that repeats three or more times in a row (outside fences)."""
    fenced = [f for _l, f in _lines_with_fence_state("\n".join(lines))]
    removed = 0
    i = 0
    out: list[str] = []
    n = len(lines)
    while i < n:
        collapsed = False
        if not fenced[i] and lines[i].strip():
            for p in range(2, MAX_PERIOD + 1):
                block = lines[i : i + p]
                if len(block) < p or any(fenced[i : i + p]):
                    break
                k = 1
                while lines[i + k * p : i + (k + 1) * p] == block and not any(fenced[i + k * p : i + (k + 1) * p]):
                    k += 1
                if k >= 3:
                    tail = 0  # a cut-off last copy of the block
                    while tail < p - 1 and i + k * p + tail < n and lines[i + k * p + tail] == block[tail] and not fenced[i + k * p + tail]:
                        tail += 1
                    out.extend(block)
                    removed += (k - 1) * p + tail
                    i += k * p + tail
                    collapsed = True
                    break
        if not collapsed:
            out.append(lines[i])
            i += 1
    return out, removed


def remove_extra_frontmatter(body: str) -> tuple[str, list[str]]:
    """Remove secondary frontmatter blocks (``---`` + key lines + ``---``) outside fences."""
    fixes: list[str] = []
    lines = body.split("\n")
    fenced = [f for _l, f in _lines_with_fence_state(body)]
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not fenced[i] and lines[i].strip() == "---" and i + 1 < len(lines) and _YAMLISH.match(lines[i + 1]):
            j = i + 1
            while j < len(lines) and lines[j].strip() not in ("---", "...") and (
                _YAMLISH.match(lines[j]) or lines[j].startswith((" ", "\t", "-")) or not lines[j].strip()
            ):
                j += 1
            if j < len(lines) and lines[j].strip() in ("---", "..."):
                keys = {m.group(0).split(":")[0].strip() for m in (_YAMLISH.match(x) for x in lines[i + 1 : j]) if m}
                if keys & {"name", "description", "metadata", "allowed-tools", "license"}:
                    fixes.append("removed a second frontmatter block from the body")
                    i = j + 1
                    continue
        out.append(lines[i])
        i += 1
    return "\n".join(out), fixes


# --------------------------------------------------------------------------- citations and Sources


def fix_citations(body: str, n_sources: int, source_urls: dict[str, int]) -> tuple[str, set[int], list[str]]:
    """Drop citation markers that name no source; return the cited source numbers (markers and source URLs)."""
    cited: set[int] = set()
    dropped: set[str] = set()
    out = []
    for line, fenced in _lines_with_fence_state(body):
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
        for url in _URL.findall(visible):
            n = source_urls.get(url.rstrip(".,;:"))
            if n:
                cited.add(n)
        out.append(line)
    fixes = [f"dropped citation(s) [{', '.join(sorted(dropped, key=int))}] that name no source"] if dropped else []
    return "\n".join(out), cited, fixes


def remove_section(body: str, title: re.Pattern) -> tuple[str, bool]:
    lines = body.split("\n")
    removed = False
    while True:
        b = _section_bounds(lines, title)
        if not b:
            break
        del lines[b[0] : b[1]]
        removed = True
    return "\n".join(lines), removed


def sources_section(cited: list[int], ctx: SkillContext) -> str:
    by_n = {int(s.get("n", i)): s for i, s in enumerate(ctx.sources, 1)}
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


def footer(ctx: SkillContext) -> str:
    return (
        f"{FOOTER_PREFIX} on {ctx.learned_date} from sources published after the {ctx.cutoff} "
        f"cutoff of {ctx.target_model}._"
    )


# --------------------------------------------------------------------------- references split


def split_references(body: str) -> tuple[str, dict[str, str], list[str]]:
    """Move the largest level-2 sections into ``references/`` until SKILL.md is under the line limit.

    Sections are read once: moving one (its content becomes a four-line stub) changes no other
    section's extent, so the largest remaining one is chosen from the same list each time.
    """
    lines = body.split("\n")
    if len(lines) <= MAX_BODY_LINES - 20:
        return body, {}, []
    keep_first = re.compile(r"^(overview|when to use|sources)\b", re.I)
    refs: dict[str, str] = {}
    fixes: list[str] = []
    sections = [s for s in _level2_sections(lines) if not _is_stub(lines, s)]
    moved: dict[int, list[str]] = {}  # start line -> the stub that replaces the section
    total = len(lines)
    for pass_keep in (re.compile(r"^(overview|when to use|sources|instructions)\b", re.I), keep_first):
        while total > SPLIT_TARGET_LINES:
            movable = [s for s in sections if s[0] not in moved and not pass_keep.search(s[2])]
            if not movable:
                break
            start, end, title = max(movable, key=lambda s: s[1] - s[0])
            slug = slugify(title) or f"section-{len(refs) + 1}"
            path = f"references/{slug}.md"
            k = 2
            while path in refs:
                path = f"references/{slug}-{k}.md"
                k += 1
            content = "\n".join(lines[start + 1 : end]).strip("\n")
            refs[path] = f"# {title}\n\n{content}\n"
            moved[start] = [lines[start], "", f"Details: [{title}]({path}).", ""]
            total += 4 - (end - start)
            fixes.append(f"moved section '{title}' to {path} (SKILL.md over {MAX_BODY_LINES} lines)")
    for start, end, _title in sorted(sections, reverse=True):
        if start in moved:
            lines[start:end] = moved[start]
    return "\n".join(lines), refs, fixes


def _level2_sections(lines: list[str]) -> list[tuple[int, int, str]]:
    heads = [(i, title) for i, (level, title) in sorted(_heading_lines("\n".join(lines)).items()) if level == 2]
    out = []
    for idx, (i, title) in enumerate(heads):
        end = heads[idx + 1][0] if idx + 1 < len(heads) else len(lines)
        out.append((i, end, title))
    return out


def _is_stub(lines: list[str], s: tuple[int, int, str]) -> bool:
    return any(l.startswith("Details: [") and "(references/" in l for l in lines[s[0] : s[1]])


# --------------------------------------------------------------------------- the pipeline


def display_topic(topic: str) -> str:
    """'mcp' → 'MCP', 'tidewire' → 'Tidewire'; a topic with capitals is kept as written."""
    t = " ".join((topic or "").split()) or "Skill"
    if t != t.lower():
        return t
    return t.upper() if len(t) <= 4 and t.isalnum() else t[:1].upper() + t[1:]


def normalize_rules(body: str) -> tuple[str, list[str]]:
    """A '---' horizontal rule in the body becomes '***' so no reader mistakes it for a frontmatter delimiter."""
    lines = body.split("\n")
    fenced = [f for _l, f in _lines_with_fence_state(body)]
    n = 0
    for i, line in enumerate(lines):
        if not fenced[i] and line.strip() == "---" and (i == 0 or not lines[i - 1].strip()):
            lines[i] = "***"
            n += 1
    return "\n".join(lines), ([f"rewrote {n} '---' rule(s) as '***'"] if n else [])


def _ensure_title(body: str, ctx: SkillContext) -> tuple[str, list[str]]:
    heads = _heading_lines(body)
    for i, (line, fenced) in enumerate(_lines_with_fence_state(body)):
        if fenced or not line.strip():
            continue
        if heads.get(i, (0, ""))[0] == 1 and heads[i][1]:
            return body, []
        break
    title = f"# {display_topic(ctx.topic)}: what changed after {ctx.cutoff}"
    return f"{title}\n\n{body.lstrip()}", ["added a title heading"]


def _content_words(body: str) -> int:
    """Words of real content: prose and code, not headings, citations or the footer."""
    n = 0
    heads = _heading_lines(body)
    for i, (line, fenced) in enumerate(_lines_with_fence_state(body)):
        if not fenced and (i in heads or line.startswith(FOOTER_PREFIX)):
            continue
        n += len(re.findall(r"[^\W\d_]{2,}", _CITE.sub("", line)))
    return n


def postprocess(raw: str, ctx: SkillContext) -> Skill:
    """Fix the draft deterministically, or raise ``PostProcessError`` listing what cannot be fixed."""
    fixes: list[str] = []
    text, f = recover_skill_text(raw)
    fixes += f
    fm, body, f = split_frontmatter(text)
    fixes += f
    body, f = remove_extra_frontmatter(body)
    fixes += f

    extra = sorted(k for k in fm if k not in ALLOWED_KEYS)
    if extra:
        fixes.append(f"removed frontmatter keys outside the spec: {', '.join(map(str, extra))}")
    dropped = [k for k in DROPPED_KEYS if k in fm]
    if dropped:
        fixes.append(f"removed model-written {', '.join(dropped)}")

    raw_name = fm.get("name") if isinstance(fm.get("name"), str) else None
    name = sanitize_name(raw_name, ctx.topic)
    if raw_name != name:
        fixes.append(f"name {raw_name!r} → {name!r}")

    body = body.strip("\n")
    for step in (remove_scaffolding, strip_trailing_chatter, close_fences, drop_empty_fences, normalize_rules,
                 drop_degenerate_lines):
        body, f = step(body)
        fixes += f
    body, f = _ensure_title(body, ctx)
    fixes += f
    body, removed = remove_section(body, re.compile(r"^sources\b|^references\s*$", re.I))
    body = "\n".join(l for l in body.split("\n") if not l.startswith(FOOTER_PREFIX)).rstrip()
    if _content_words(body) < MIN_CONTENT_WORDS:
        raise PostProcessError([f"the draft has no skill content (fewer than {MIN_CONTENT_WORDS} words outside headings)"])

    urls = {s["url"]: int(s.get("n", i)) for i, s in enumerate(ctx.sources, 1)}
    body, cited, f = fix_citations(body, len(ctx.sources), urls)
    fixes += f
    if removed:
        fixes.append("rebuilt the Sources section from the cited sources")

    raw_desc = fm.get("description")
    desc = clean_text(raw_desc) if isinstance(raw_desc, (str, int, float)) else ""
    if is_degenerate_description(desc, name, ctx.topic):
        desc = derive_description(body, ctx)
        fixes.append("derived the description from the body (the model's was missing or degenerate)")
    elif desc != raw_desc or len(desc) > MAX_DESCRIPTION:
        desc = _truncate(desc, MAX_DESCRIPTION)
        fixes.append("cleaned the description (tags, angle brackets, length)")

    out: dict = {"name": name, "description": desc}
    compat = fm.get("compatibility")
    if isinstance(compat, str) and compat.strip():
        out["compatibility"] = _truncate(clean_text(compat), MAX_COMPATIBILITY)
    out["metadata"] = {
        "version": str(ctx.version),
        "learned-date": str(ctx.learned_date),
        "target-model": str(ctx.target_model),
        "cutoff": str(ctx.cutoff),
    }

    body, refs, f = split_references(body)
    fixes += f
    body = f"{body.rstrip()}\n\n{sources_section(sorted(cited), ctx)}\n\n{footer(ctx)}\n"
    skill = Skill(name=name, frontmatter=out, body=body, references=refs, cited=sorted(cited), fixes=fixes)
    problems = validate_skill(skill)
    if problems:
        raise PostProcessError(problems)
    return skill


def validate_skill(skill: Skill) -> list[str]:
    """Re-read what would be written and check every rule (a last guard; the fixes above should make this empty)."""
    problems: list[str] = []
    text = skill.skill_md()
    fm, body, _ = split_frontmatter(text)
    if set(fm) - set(ALLOWED_KEYS):
        problems.append("frontmatter keys outside the spec")
    name = fm.get("name", "")
    if not (isinstance(name, str) and NAME_RE.match(name) and len(name) <= MAX_NAME) or any(w in name for w in RESERVED_WORDS):
        problems.append(f"invalid name {name!r}")
    desc = fm.get("description", "")
    if not isinstance(desc, str) or not desc.strip() or len(desc) > MAX_DESCRIPTION or "<" in desc or ">" in desc:
        problems.append("invalid description")
    meta = fm.get("metadata", {})
    if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
        problems.append("metadata values must be strings")
    if len(re.findall(r"^---\s*$", text, re.M)) < 2:
        problems.append("frontmatter is not closed")
    for path, content in {"SKILL.md": body, **skill.references}.items():
        closed, _ = close_fences(content)
        if closed != content:
            problems.append(f"{path} has an unclosed code fence")
    if len(text.split("\n")) > MAX_BODY_LINES + 40:
        problems.append("SKILL.md is over the line limit after splitting")
    return problems
