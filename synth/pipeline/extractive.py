"""Provider ``extractive``: a deterministic skill built only from the selected evidence, no model.

Every statement is a sentence or code block quoted from a source and ends with (or
is introduced by) that source's ``[n]``; the only other text is headings and a
fixed overview line that says how the skill was made. A sentence, heading or code block that
skill3's built-in screen flags (instruction override, text addressed to AI assistants,
concealment, exfiltration, pipe-to-shell, hidden text) is never quoted: the skill must not
carry a page's instructions to its reader's agent. It is the embedded default
when no model answers, not a substitute for synthesis: it cannot summarise,
reconcile or explain.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from synth.delta.versions import parse_version
from synth.evidence.consensus import claim_sentences
from synth.pipeline.bundle import STRUCTURE_ONLY_BELOW, Bundle
from synth.skill.markdown import CITATION, fence_for, heading_title
from synth.skill.names import display_topic
from synth.skill.quote import shorten
from synth.vet.screen import screen_markdown

if TYPE_CHECKING:
    from synth.delta.render import SkillParts

MAX_INSTRUCTIONS = 18
MAX_PER_SOURCE = 4
MAX_DEPRECATIONS = 8
MAX_EXAMPLES = 4
MAX_SENTENCE_CHARS = 400
DEPRECATION = re.compile(
    r"\bdeprecat\w*|\bno longer (?:supported|available|works)\b|\b(?:is|are|was|were|be) removed\b|\bremoved in\b|"
    r"\breplaced by\b|\bsupersed\w*|\blegacy\b", re.I
)


def _flagged(text: str) -> bool:
    """Whether the built-in screen finds anything in a text that would be quoted."""
    return bool(screen_markdown(text, "quote.md"))


def _quote(sentence: str) -> str:
    s = shorten(" ".join(sentence.split()), MAX_SENTENCE_CHARS)
    return CITATION.sub(r"\\[\1]", s)  # a source's own "[3]" is not our citation


def _headings(excerpts: list[str]) -> list[str]:
    """The titles of the heading excerpts (read by ``heading_title``) that the screen does not flag."""
    titles = ((heading_title(e), e) for e in excerpts)
    return [t for t, e in titles if t and any(ch.isalnum() for ch in t) and not _flagged(e)]  # "# ---" names nothing


MAX_DELTA_INSTRUCTIONS = 48
MAX_DELTA_PER_SOURCE = 32  # a change page; a page with version markers gets MAX_PER_SOURCE
MAX_DELTA_CHARS = 300
_MARKER_ONLY = re.compile(
    r"^\s*(?:\*+|_+)?(?:new|added|changed|deprecated|removed)(?: in| since)?(?: version)?\s+v?\d[\w.+-]*(?:,\s*(?:will be )?removed in(?: version)?\s+v?\d[\w.+-]*)?\s*[.:]?(?:\*+|_+)?\s*$", re.I)
_MARKER_PREFIX = re.compile(
    r"^(?:New|Added|Changed|Deprecated|Removed)(?: in| since)?(?: version)? v?\d[\w.+-]*(?:,\s*(?:and )?(?:will be )?removed in(?: version)? v?\d[\w.+-]*)?\s*:\s*", re.I)
_MARKER_SENTENCE = re.compile(r"(?:^|(?<=[.!?]\s))(?:New|Added) in version\s+v?\d[\w.+-]*\.?(?=\s|$)", re.I)


def _entry_text(excerpt: str, tag: str) -> str:
    """The change text of a bundle excerpt (its ``[version, date] Kind:`` tag removed, bare marker sentences dropped)."""
    text = excerpt[len(tag) + 1:] if tag and excerpt.startswith(tag) else excerpt
    text = " ".join(text.lstrip(": ").split())
    text = _MARKER_SENTENCE.sub("", text).strip()
    text = _MARKER_PREFIX.sub("", text)
    text = heading_title(text) or text
    text = text.replace("¶", "").strip()
    return shorten(text, MAX_DELTA_CHARS)


def _delta_lines(sources: list[dict]) -> tuple[list[str], list[str], list[dict]]:
    """Instructions and Modern-vs-deprecated lines from the sources' post-cutoff change entries, each cited."""
    entries = []
    for s in sources:
        for i, (ex, ch) in enumerate(zip(s.get("excerpts", []), s.get("changes") or [])):
            if ch.get("status") != "post":
                continue
            text = _entry_text(ex, ch.get("tag", ""))
            if len(text) < 3 or _MARKER_ONLY.match(text) or (text.endswith(":") and len(text) < 80):
                continue  # a bare marker, or a list's lead-in ("New syntax features:")
            if _flagged(text):
                continue
            entries.append((s, i, ch, text))
    # highlights first, then by score; a source's own order breaks ties
    entries.sort(key=lambda e: (not e[2].get("highlight"), -float(e[2].get("score") or 0), e[0]["n"], e[1]))
    instructions: list[str] = []
    deprecations: list[str] = []
    per_source: dict[int, int] = {}
    seen: set[str] = set()
    for s, _i, ch, text in entries:
        key = " ".join(text.lower().split())
        if key in seen:
            continue
        seen.add(key)
        label = _label(ch)
        line = f"- {label}: {_quote(text)} [{s['n']}]"
        deprecating = ch.get("kind") in ("deprecated", "removed") or (ch.get("kind") == "release" and DEPRECATION.search(text))
        if deprecating and not ch.get("highlight"):
            if len(deprecations) < MAX_DEPRECATIONS:
                deprecations.append(line)
            continue
        cap = MAX_DELTA_PER_SOURCE if s.get("page_kind") == "change" or any(
            c.get("kind") == "release" for c in s.get("changes") or []) else MAX_PER_SOURCE
        if per_source.get(s["n"], 0) >= cap or len(instructions) >= MAX_DELTA_INSTRUCTIONS:
            continue
        per_source[s["n"]] = per_source.get(s["n"], 0) + 1
        instructions.append(line)
    return instructions, deprecations, [e[0] for e in entries]


def _label(ch: dict) -> str:
    v = ch.get("version") or "?"
    kind = ch.get("kind")
    if kind == "added":
        return f"Added in {v}"
    if kind == "changed":
        return f"Changed in {v}"
    if kind == "deprecated":
        return f"Deprecated in {v}" + (f", removed in {ch['removed_in']}" if ch.get("removed_in") else "")
    if kind == "removed":
        return f"Removed in {v}"
    return f"New in {v}"


def extractive_skill(bundle: Bundle) -> str:
    """A SKILL.md draft (frontmatter + body) from the bundle; the post-processor finishes it.

    With the run's post-cutoff change entries (``parts``: the delta ledger rendered) SKILL.md names the new
    versions, leads with their headline changes, lists modern-vs-deprecated pairs and examples, and indexes the
    reference files that hold every entry. With only undated versions it says they could not be dated and how
    to fix that. Without any fresh source nothing is presented as new: the skill says so.
    """
    topic, name, parts = bundle.topic, bundle.skill_name, bundle.parts
    cutoff = bundle.cutoff
    sources = bundle.sources
    if parts is not None and parts.headlines:
        return _ledger_skill(bundle, parts, topic=topic, name=name)
    if any(ch.get("status") == "post" for s in sources for ch in s.get("changes") or []):
        return _delta_skill(bundle, topic=topic, name=name)
    if parts is not None and parts.undated:
        return _undated_skill(bundle, parts, topic=topic, name=name)
    if bundle.delta.since_version:  # the delta is by version: a page's date makes nothing new
        return _nothing_new_skill(bundle, topic=topic, name=name)
    # honestly undated pages (no date found; not a build-dated site) may still be new; pre-cutoff ones never are
    undated = [s for s in sources if not s.get("published") and not s.get("build_date")]
    if not any(s.get("post_cutoff") for s in sources) and not undated:
        return _nothing_new_skill(bundle, topic=topic, name=name)
    # Claims and code only from sources at or above the structure-only line (STRUCTURE_ONLY_BELOW), fresh ones first.
    usable = [s for s in sources if float(s.get("authority", 0)) >= STRUCTURE_ONLY_BELOW] or sources
    fresh = [s for s in usable if s.get("post_cutoff")] or [s for s in usable if s in undated] or undated
    instructions: list[str] = []
    deprecations: list[str] = []
    _claim_lines(fresh, instructions, deprecations, MAX_INSTRUCTIONS)
    examples = _examples(fresh)

    topics = []
    for s in fresh[:5]:
        for h in _headings(s.get("excerpts", []))[:2]:
            topics.append(_quote(h))
    topic_title = display_topic(topic)
    covered = "; ".join(dict.fromkeys(topics)) or f"{len(fresh)} fresh source(s)"
    description = (
        f"What changed in {topic_title} after the {cutoff} training cutoff, quoted from fresh sources: {covered}. "
        f"Use when working with {topic_title} features or APIs published after {cutoff}."
    )
    lines = [
        "---",
        f"name: {name}",
        "description: " + _yaml_str(description),
        "---",
        f"# {topic_title}: what changed after {cutoff}",
        "",
        "## Overview / When to use",
        "",
        f"Compiled extractively by skill3, without a language model, from {len(sources)} source(s) about {topic_title} "
        f"ranked by authority and freshness against the {cutoff} cutoff of {bundle.target_model}. Each statement below "
        "is quoted from the source cited after it. Use it when a task touches what changed after that cutoff."
        + ("" if any(x.get("post_cutoff") for x in fresh) else
           " No source is dated after the cutoff: these statements come from undated sources and are not confirmed as new."),
        "",
        "## Instructions",
        "",
        *(instructions or ["- The sources contain no claim sentences; see the examples and sources below."]),
        "",
    ]
    return _finish(lines, deprecations, examples)


def _claim_lines(fresh: list[dict], instructions: list[str], deprecations: list[str], limit: int) -> None:
    """Quoted claim sentences of ``fresh`` sources (at most MAX_PER_SOURCE each), each cited, appended to the
    Instructions (up to ``limit`` lines) or, when a post-cutoff source states a deprecation, Modern vs deprecated."""
    seen = {" ".join(line.lower().split()) for line in instructions + deprecations}
    for s in fresh:
        taken = 0
        for sentence in claim_sentences(s.get("excerpts", []), limit=200):
            key = " ".join(sentence.lower().split())
            if key in seen or _flagged(sentence):
                continue
            seen.add(key)
            line = f"- {_quote(sentence)} [{s['n']}]"
            if DEPRECATION.search(sentence) and s.get("post_cutoff"):
                if len(deprecations) < MAX_DEPRECATIONS:
                    deprecations.append(line)
            elif taken < MAX_PER_SOURCE and len(instructions) < limit:
                instructions.append(line)
                taken += 1


def _finish(lines: list[str], deprecations: list[str], examples: list[str]) -> str:
    """The optional sections after Instructions: Modern vs deprecated, Examples."""
    if deprecations:
        lines += ["## Modern vs deprecated", "", *deprecations, ""]
    if examples:
        lines += ["## Examples", ""]
        for e in examples:
            lines += [e, ""]
    return "\n".join(lines)


def _title(source: dict) -> str:
    title = source.get("title") or ""
    return source["url"] if not title or _flagged(title) else title


def _examples(fresh: list[dict]) -> list[str]:
    """Code blocks of the fresh sources, fenced, each with its origin; identical code from several sources is
    shown once; code the built-in screen flags is never quoted."""
    examples: list[str] = []
    blocks: dict[str, tuple[list[dict], str, str]] = {}
    for s in fresh:
        langs = s.get("code_languages") or [""] * len(s.get("code_blocks", []))
        for code, lang in zip(s.get("code_blocks", []), langs):
            fence = fence_for(code)  # screened as it is written: a fence the code cannot close
            if _flagged(f"{fence}\n{code}\n{fence}"):
                continue
            key = " ".join(code.split())
            if key in blocks:
                if s not in blocks[key][0]:
                    blocks[key][0].append(s)
            else:
                blocks[key] = ([s], code, lang)
    for srcs, code, lang in list(blocks.values())[:MAX_EXAMPLES]:
        fence = fence_for(code)
        origin = ", ".join(f"{_quote(' '.join(_title(s).split()))} [{s['n']}]" for s in srcs)
        examples.append(f"From {origin}:\n\n{fence}{re.sub(r'[^A-Za-z0-9_+-]', '', lang or '')}\n{code.rstrip()}\n{fence}")
    return examples


def _frontmatter(name: str, description: str, title: str) -> list[str]:
    return ["---", f"name: {name}", "description: " + _yaml_str(description), "---", title, ""]


def _delta_skill(bundle: Bundle, *, topic: str, name: str) -> str:
    cutoff = bundle.cutoff
    sources = bundle.sources
    instructions, deprecations, used = _delta_lines(sources)
    delta_sources = [s for s in sources if any(ch.get("status") == "post" for ch in s.get("changes") or [])]
    # pages dated after the cutoff on their own (not a docs build's date) that carry no version marker are
    # fresh evidence too: a few of their sentences follow the versioned changes
    dated = [s for s in sources if s not in delta_sources and s.get("post_cutoff") and not s.get("build_date")
             and float(s.get("authority", 0)) >= STRUCTURE_ONLY_BELOW]
    _claim_lines(dated, instructions, deprecations, len(instructions) + MAX_INSTRUCTIONS // 2)
    versions = bundle.delta.post_cutoff_versions or sorted(
        {ch["version"] for s in delta_sources for ch in s.get("changes") or [] if ch.get("status") == "post"})
    topic_title = display_topic(topic)
    shown = "; ".join(versions[:4])
    covered = "; ".join(dict.fromkeys(_quote(t.split(":", 1)[1].split("[")[0].strip()) for t in instructions[:6] if ":" in t))
    description = (
        f"What changed in {topic_title} after the {cutoff} training cutoff (versions {', '.join(v.split(',')[0] for v in versions[:4])}), "
        f"quoted from version markers and release notes: {covered}. Use when working with {topic_title} features or APIs "
        f"introduced or deprecated after {cutoff}."
    )
    lines = _frontmatter(name, description, f"# {topic_title}: what changed after {cutoff}")
    lines += [
        "## Overview / When to use",
        "",
        f"Compiled extractively by skill3, without a language model, from the version markers and release notes of "
        f"{len(delta_sources)} source(s) about {topic_title}: only versions released after the {cutoff} cutoff of "
        f"{bundle.target_model} ({shown})"
        + (f", and {len(dated)} page(s) dated after the cutoff" if dated else "")
        + ". Each versioned statement below names its version; every statement is quoted from the source cited after it. "
        "Use it when a task touches those versions." + _unreached_note(bundle),
        "",
        "## Instructions",
        "",
        *instructions,
        "",
    ]
    return _finish(lines, deprecations, _examples(delta_sources + dated))


def _unreached_note(bundle: Bundle, most: int = 3) -> str:
    """`` The crawl stopped at its page limit before reaching N page(s) that look like change records (…)``: what a site
    too big for the page budget left unread (run.json's ``unreached_change_records``), or ``""``."""
    cover = bundle.delta.coverage or {}
    urls = [u for u in cover.get("unreached") or [] if isinstance(u, str)]
    count = cover.get("unreached_count") or len(urls)
    if not urls:
        return ""
    named = ", ".join(f"<{u}>" for u in urls[:most]) + (", …" if count > most else "")
    return (f" The crawl stopped at its page limit before reaching {count:,} page(s) that look like change records "
            f"({named}; all in run.json): the releases they document may be missing here — raise max_pages or start "
            "from them (start_urls).")


def _examined(bundle: Bundle, most: int = 5) -> str:
    """``[1, 2, 3]``: the first sources a "nothing new" skill examined (it still says where it looked)."""
    numbers = [str(s.get("n", i)) for i, s in enumerate(bundle.sources[:most], 1)]
    return f"[{', '.join(numbers)}]" if numbers else ""


def _nothing_new_skill(bundle: Bundle, *, topic: str, name: str) -> str:
    """No source is post-cutoff (by its date or its versions): say so, present nothing as new."""
    cutoff = bundle.cutoff
    topic_title = display_topic(topic)
    boundary = bundle.delta.boundary or {}
    last = boundary.get("last_pre_cutoff")
    since = bundle.delta.since_version
    newest = f" The newest dated version in the sources, {last['version']} ({last['date']}), came out before the cutoff." if last else ""
    known = (f"documents a version newer than {since}, the version the model is said to know (--since-version)" if since
             else f"is published after the {cutoff} cutoff of {bundle.target_model} or documents a version released after it")
    cover = bundle.delta.coverage or {}
    unread = (f" The crawl stopped at its page limit: it kept {cover.get('pages', 0):,} pages and left "
              f"{cover['left_at_max_pages']:,} more of the site unread, where newer versions may be documented — raise "
              "max_pages or start from the part of the site that documents the changes (start_urls)."
              if cover.get("left_at_max_pages") else "") + _unreached_note(bundle)
    after = f"after {since}" if since else f"after {cutoff}"
    description = (f"Notes that none of the sources about {topic_title} read by skill3 documents a change {after}. "
                   f"Use when checking whether {topic_title} changed {after}.")
    title = f"no version newer than {since}" if since else f"nothing new after {cutoff}"
    lines = _frontmatter(name, description, f"# {topic_title}: {title} in the sources read")
    lines += [
        "## Overview / When to use",
        "",
        f"Compiled extractively by skill3 from {len(bundle.sources)} source(s) about {topic_title}: none of them "
        f"{known}.{newest}{unread} Nothing here is presented as new.",
        "",
        "## Instructions",
        "",
        f"- No change {after} was found in the sources examined: rely on what you know about {topic_title}, and "
        f"check the sources when in doubt {_examined(bundle)}.",
        "",
    ]
    return "\n".join(lines)


def _yaml_str(text: str) -> str:
    import json

    return json.dumps(" ".join(text.split()), ensure_ascii=False)  # a JSON string is a valid YAML scalar


KIND_ORDER = ("added", "breaking", "changed", "deprecated", "removed", "fixed", "release")
KIND_WORDS = {"added": "new features", "breaking": "breaking changes", "changed": "behaviour changes",
              "deprecated": "deprecations", "removed": "removals", "fixed": "fixes", "release": "release notes"}


def _ledger_examples(parts: "SkillParts") -> list[str]:
    """Two to five examples: the entries' own code, then the change pages' code blocks (one block of each shape:
    not a second traceback or shell session), each fenced so it cannot close its block, never one the screen flags."""
    from synth.delta.render import qualifier, safe_inline

    examples: list[str] = []
    seen: set[str] = set()
    first_lines: set[str] = set()

    def add(code: str, lang: str, intro: str) -> None:
        code = code.rstrip("\n")
        key, first = " ".join(code.split()), code.strip().split("\n", 1)[0]
        fence = fence_for(code)
        if len(examples) >= MAX_EXAMPLES or key in seen or first in first_lines or _flagged(f"{fence}\n{code}\n{fence}"):
            return
        seen.add(key)
        first_lines.add(first)
        examples.append(f"{intro}:\n\n{fence}{re.sub(r'[^A-Za-z0-9_+-]', '', lang or '')}\n{code}\n{fence}")

    for e in parts.examples:
        add(e.code[0], e.langs()[0], f"{e.label()}{qualifier(e)} — {safe_inline(shorten(e.text, 160))} [{parts.n_for(e)}]")
    for url, title, code, lang in parts.page_code:
        if len(code.strip().splitlines()) >= 2:
            add(code, lang, f"From {_quote(' '.join((title or url).split()))} [{parts.page_number(url, title)}]")
    return examples


def _ledger_description(topic_title: str, cutoff: str, parts: "SkillParts") -> str:
    """A trigger an agent can match: the topic, the versions, the kinds of change and the main areas."""
    areas = list(dict.fromkeys(e.area for f in parts.rendered.refs if not f.internal for e in f.entries
                               if e.area != "General"))[:6]
    kinds = sorted({e.kind for e in parts.headlines + parts.modern}, key=lambda k: KIND_ORDER.index(k) if k in KIND_ORDER else 9)
    return (f"What changed in {topic_title} after the {cutoff} training cutoff: "
            f"{', '.join(parts.version_names[:4]) or 'new versions'} — {', '.join(KIND_WORDS.get(k, k) for k in kinds[:5])}"
            + (f" in {', '.join(areas)}" if areas else "")
            + f". Use when writing, reviewing or upgrading {topic_title} code that may rely on APIs added, changed, "
            f"deprecated or removed after {cutoff}.")


def _ledger_skill(bundle: Bundle, parts: "SkillParts", *, topic: str, name: str) -> str:
    """The delta skill from the ledger: versions, headline changes, modern vs deprecated, examples (the
    post-processor adds the index of the reference files)."""
    from synth.delta.render import SKILL_TEXT, entry_line, safe_inline

    cutoff = bundle.cutoff
    topic_title = display_topic(topic)
    modern = [f"- Use `{e.use.replace('`', '')}` instead of `{e.instead_of.replace('`', '')}` "
              f"({'; '.join([e.label(), *e.notes])}): {safe_inline(shorten(e.text, SKILL_TEXT))} [{parts.n_for(e)}]"
              if e.use and e.instead_of else entry_line(e, cite=f"[{parts.n_for(e)}]", limit=SKILL_TEXT)
              for e in parts.modern]
    examples = _ledger_examples(parts)
    # pages dated after the cutoff on their own (not a docs build's date) that carry no post-cutoff change entry are
    # fresh evidence too: a few of their sentences follow the versioned changes
    dated = [s for s in bundle.sources if s.get("post_cutoff") and not s.get("build_date")
             and float(s.get("authority", 0)) >= STRUCTURE_ONLY_BELOW
             and not any(ch.get("status") == "post" for ch in s.get("changes") or [])]
    fresh: list[str] = []
    _claim_lines(dated, fresh, modern, MAX_INSTRUCTIONS // 2)
    lines = _frontmatter(name, _ledger_description(topic_title, cutoff, parts), f"# {topic_title}: what changed after {cutoff}")
    lines += [
        "## Overview / When to use",
        "",
        f"{topic_title} versions released after the {cutoff} cutoff of {bundle.target_model}: "
        f"{', '.join(parts.version_names[:6]) or 'see below'}. The sources document {len(parts.rendered.placed)} change(s) "
        "for them; the headline changes are below and every change is in the reference files, grouped by area, each "
        "citing the page that states it. Use this skill when a task touches those versions; open the reference file of "
        "the area at hand for details. Compiled extractively by skill3 (every statement is quoted from the cited source)."
        + _unreached_note(bundle),
        "",
        "## Versions after the cutoff",
        "",
        *parts.versions,
        "",
        "## Instructions",
        "",
        "Headline changes, release by release (each release's own highlights and new features first):",
        "",
        *[entry_line(e, cite=f"[{parts.n_for(e)}]", limit=SKILL_TEXT) for e in parts.headlines],
        "",
        *parts.api_index,
        *(["From pages dated after the cutoff:", "", *fresh, ""] if fresh else []),
    ]
    if modern:
        lines += ["## Modern vs deprecated", "", *modern, ""]
    if examples:
        lines += ["## Examples", "", *(x for ex in examples for x in (ex, ""))]
    return "\n".join(lines)


def _undated_skill(bundle: Bundle, parts: "SkillParts", *, topic: str, name: str) -> str:
    """Versions the sources document but nothing dates: say so, label their changes undated, name the fix."""
    from synth.delta.render import SKILL_TEXT, entry_line

    cutoff = bundle.cutoff
    topic_title = display_topic(topic)
    versions = sorted({e.version for e in parts.undated}, key=lambda v: parse_version(v) or v, reverse=True)
    boundary = bundle.delta.boundary or {}
    last = boundary.get("last_pre_cutoff")
    known = f" The newest version dated before the cutoff is {last['version']} ({last['date']})." if last else ""
    description = (f"{topic_title} versions {', '.join(versions[:4])} are documented but could not be dated against the "
                   f"{cutoff} training cutoff; their changes are listed as undated. Use when working with {topic_title} "
                   f"{versions[0] if versions else ''} or checking what may have changed after {cutoff}.")
    lines = _frontmatter(name, description, f"# {topic_title}: versions that could not be dated against {cutoff}")
    lines += [
        "## Overview / When to use",
        "",
        f"The sources about {topic_title} document versions {', '.join(versions[:8])}, but print no release date for "
        f"them and nothing else places them before or after the {cutoff} cutoff of {bundle.target_model}.{known} "
        "Their changes below are **undated**: they may or may not be new to the model. To decide, run again with "
        "`--since-version X` (`-a since_version=X`: the newest version the model knows; every newer one is then the "
        "delta) or a `--cutoff-time` your sources can date." + _unreached_note(bundle),
        "",
        "## Instructions",
        "",
        *[entry_line(e, cite=f"[{parts.n_for(e)}]", undated=True, limit=SKILL_TEXT) for e in parts.undated],
        "",
    ]
    return "\n".join(lines)
