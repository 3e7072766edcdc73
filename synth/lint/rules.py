"""The checks behind the catalogue: one function per rule id.

A check takes the read skill and the facts and yields ``Finding``s (the skill
is bad) or a ``Skip`` (the rule could not run: a missing fact, a crashed
validator). Checks never raise for a malformed skill; they stay silent when
what they read is absent (no frontmatter → no name check: S2 already said so).
"""

from __future__ import annotations

import difflib
import posixpath
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from urllib.parse import unquote

from synth.evidence.urls import url_key
from synth.lint.catalogue import BY_ID
from synth.lint.facts import Facts
from synth.lint.model import Finding, Skip
from synth.skill import echoes, frontmatter, markdown, size, structure
from synth.skill.document import (
    MAX_FILE_BYTES,
    SkillDoc,
    find_skill_file,
    parse_yaml,
    read_bounded,
    read_bounded_text,
)

Check = Callable[[SkillDoc, Facts], Iterable[Finding | Skip]]
CHECKS: dict[str, Check] = {}

REFERENCE_TOC_LINES = 100
SIMILAR_DESCRIPTION = 0.9


def check(rule_id: str) -> Callable[[Check], Check]:
    if rule_id not in BY_ID:
        raise KeyError(f"rule {rule_id} is not in the catalogue")

    def register(fn: Check) -> Check:
        CHECKS[rule_id] = fn
        return fn

    return register


def _f(rule: str, message: str, line: int = 0, file: str = "SKILL.md", severity: str | None = None) -> Finding:
    return Finding(rule, severity or BY_ID[rule].severity, message, file, line)  # type: ignore[arg-type]


def _meta(doc: SkillDoc) -> dict:
    return doc.meta if doc.meta is not None else {}


# --------------------------------------------------------------------------- S: structure, N: name and description
# The rules that read the SKILL.md text alone are synth.skill.structure's (the post-processor runs them too).

STRUCTURAL = structure.STRUCTURAL


def _found(problems: Iterable[structure.Problem]) -> Iterator[Finding]:
    for p in problems:
        yield _f(p.rule, p.message, p.line)


def structural_findings(text: str, rules: tuple[str, ...] = STRUCTURAL, max_lines: int | None = None) -> list[Finding]:
    """The findings of ``rules`` (the ``STRUCTURAL`` ones by default) on a SKILL.md text held in memory
    (:func:`synth.skill.structure.structural_problems` with lint's severities). ``max_lines``: B1's budget."""
    budget = Facts().max_lines if max_lines is None else max_lines
    return list(_found(structure.structural_problems(text, rules, budget)))


def _register(rule: str, problems: Callable[[SkillDoc], Iterator[structure.Problem]]) -> None:
    @check(rule)
    def run(doc: SkillDoc, facts: Facts) -> Iterator[Finding]:
        return _found(problems(doc))

    run.__name__ = problems.__name__


for _rule, _problems in structure.CHECKS.items():
    _register(_rule, _problems)


@check("S1")
def s1_skill_md(doc: SkillDoc, facts: Facts) -> Iterator[Finding]:
    if doc.skill_md is None:
        yield _f("S1", "no SKILL.md in the skill folder", file="")
        return
    if doc.skill_md.name != "SKILL.md":
        yield _f("S1", f"the file is named {doc.skill_md.name}; it must be SKILL.md", file=doc.skill_md.name)
    if doc.read_error:
        yield _f("S1", f"SKILL.md {doc.read_error}", file=doc.skill_md.name)


@check("N2")
def n2_folder(doc: SkillDoc, facts: Facts) -> Iterator[Finding]:
    name = _meta(doc).get("name")
    if isinstance(name, str) and name and name != doc.dir.name:
        yield _f("N2", f"name {name!r} differs from the folder name {doc.dir.name!r}", doc.key_line("name"))


@check("N7")
def n7_repeated_sentences(doc: SkillDoc, facts: Facts) -> Iterator[Finding]:
    desc = _meta(doc).get("description")
    if isinstance(desc, str):
        for sentence, n in echoes.repeated_sentences(desc)[:3]:
            yield _f("N7", f"description says {sentence[:60]!r} {n} times; say it once", doc.key_line("description"))


@check("N8")
def n8_description_reads(doc: SkillDoc, facts: Facts) -> Iterator[Finding]:
    desc = _meta(doc).get("description")
    if isinstance(desc, str):
        for problem in echoes.description_problems(desc):
            yield _f("N8", f"description {problem}", doc.key_line("description"))


# --------------------------------------------------------------------------- V: the reference validator


@check("V1")
def v1_reference(doc: SkillDoc, facts: Facts) -> Iterator[Finding | Skip]:
    try:
        from skills_ref import validate
    except ImportError as exc:  # pragma: no cover - skills-ref is a dependency
        yield Skip("V1", f"skills-ref is not importable: {exc}")
        return
    if doc.refused:  # the validator reads SKILL.md whole and parses its YAML again: not past a bound
        yield Skip("V1", f"not run: {doc.refused}")
        return
    try:
        problems = validate(doc.dir)
    except Exception as exc:  # noqa: BLE001 - the validator crashing is "did not run", not a verdict
        yield Skip("V1", f"the reference validator crashed: {type(exc).__name__}: {exc}")
        return
    for problem in problems:
        yield _f("V1", f"skills-ref: {' '.join(str(problem).split())}")


# --------------------------------------------------------------------------- B: size


@check("B1")
def b1_lines(doc: SkillDoc, facts: Facts) -> Iterator[Finding]:
    return _found(structure.b1_lines(doc, facts.max_lines))


@check("B2")
def b2_tokens(doc: SkillDoc, facts: Facts) -> Iterator[Finding]:
    n = size.estimate_tokens(doc.body)
    if n > facts.max_tokens:
        yield _f("B2", f"body is ~{n} tokens (estimated); budget {facts.max_tokens} — move details to references/")


# --------------------------------------------------------------------------- T: trigger

TRIGGER = re.compile(
    r"\b(use (this|it|when|whenever|for|if|to)|used (when|for|to)|when (the )?(user|you|users|asked|working|building|"
    r"creating|writing|debugging|the task)|whenever|trigger(s|ed)?\b|if the user|invoke when|applies when|for tasks)",
    re.I,
)


@check("T1")
def t1_trigger(doc: SkillDoc, facts: Facts) -> Iterator[Finding]:
    desc = _meta(doc).get("description")
    if isinstance(desc, str) and desc.strip() and not TRIGGER.search(desc):
        yield _f("T1", "description does not say when to use the skill ('Use when …'): it is only reachable by name",
                 doc.key_line("description"))


# --------------------------------------------------------------------------- L: links and reference files

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_SKILL_PATH = re.compile(r"(?:^|(?<=[\s=\"'(]))(?:\./)?((?:references|scripts|assets)/[\w./-]*[\w-])")
_PLACEHOLDER = re.compile(r"[<>{}*$\[\]]|\.\.\.")


def _local_targets(text: str, first_line: int) -> Iterator[tuple[str, int]]:
    """Relative link targets, and `references/…`-style paths in inline code, outside fences."""
    for link in markdown.links(text, first_line):
        target = link.target
        if not target or target.startswith(("#", "/")) or _SCHEME.match(target):
            continue
        target = unquote(target.split("#", 1)[0].split("?", 1)[0])
        if target:
            yield posixpath.normpath(target), link.line
    for n, line in markdown.lines_outside_fences(text, first_line):
        for span in _CODE_SPAN.finditer(line):
            for m in _SKILL_PATH.finditer(span.group(1)):
                yield posixpath.normpath(m.group(1)), n


def _inside(root: Path, target: Path) -> bool:
    try:
        target.resolve().relative_to(root.resolve())
        return True
    except ValueError:
        return False


@check("L1")
def l1_links_exist(doc: SkillDoc, facts: Facts) -> Iterator[Finding]:
    seen = set()
    for target, line in _local_targets(doc.body, doc.body_start):
        if not target or _PLACEHOLDER.search(target) or (target, line) in seen:
            continue
        seen.add((target, line))
        path = doc.dir / target
        if not _inside(doc.dir, path):
            yield _f("L1", f"{target} points outside the skill folder; a skill must be self-contained", line)
        elif not path.exists():
            yield _f("L1", f"{target} does not exist in the skill folder", line)


def _linked_markdown(doc: SkillDoc) -> list[tuple[str, int]]:
    out = []
    for target, line in _local_targets(doc.body, doc.body_start):
        path = doc.dir / target
        if target.endswith(".md") and not _PLACEHOLDER.search(target) and path.is_file() and _inside(doc.dir, path):
            out.append((target, line))
    return out


@check("L2")
def l2_depth(doc: SkillDoc, facts: Facts) -> Iterator[Finding]:
    seen = set()
    for target, line in _local_targets(doc.body, doc.body_start):
        parts = target.split("/")
        if (target.endswith(".md") and len(parts) > 2 and parts[0] != ".." and not _PLACEHOLDER.search(target)
                and target not in seen):
            seen.add(target)
            yield _f("L2", f"{target} is nested {len(parts) - 1} folders deep; keep references one level deep", line)
    linked = dict(_linked_markdown(doc))
    direct = {(doc.dir / t).resolve() for t in linked}
    for target in linked:
        ref = doc.dir / target
        text = read_bounded_text(ref)
        if text is None:  # too large (L3 says so) or unreadable
            continue
        for link in markdown.links(text):
            t = link.target.split("#", 1)[0]
            nested = ref.parent / unquote(t)
            if t.endswith(".md") and not _SCHEME.match(t) and nested.is_file() and nested.resolve() not in direct:
                yield _f("L2", f"{target} links on to {t}: a nested reference the model may only partly read; "
                               "link it from SKILL.md instead", link.line, file=target)
                break


_TOC_HEADING = re.compile(r"\b(contents|toc|on this page|index)\b", re.I)


def _has_toc(text: str) -> bool:
    head = "\n".join(text.splitlines()[:60])
    if any(_TOC_HEADING.search(h.title) for h in markdown.headings(head)):
        return True
    return sum(1 for ln in markdown.links(head) if ln.target.startswith("#")) >= 3


@check("L3")
def l3_toc(doc: SkillDoc, facts: Facts) -> Iterator[Finding]:
    files = {t for t, _ in _linked_markdown(doc)}
    refdir = doc.dir / "references"
    if refdir.is_dir():
        files |= {p.relative_to(doc.dir).as_posix() for p in refdir.rglob("*.md") if p.is_file()}
    for rel in sorted(files):
        path = doc.dir / rel
        if path.name in ("SKILL.md", "skill.md"):
            continue
        text = read_bounded_text(path)
        if text is None:
            if path.is_file():
                yield _f("L3", f"{rel} is more than {MAX_FILE_BYTES // 2**20} MiB: not read", 1, file=rel)
            continue
        n = len(text.splitlines())
        if n > REFERENCE_TOC_LINES and not _has_toc(text):
            yield _f("L3", f"{rel} is {n} lines without a table of contents at the top", 1, file=rel)


# --------------------------------------------------------------------------- P: provenance


def _sources(doc: SkillDoc) -> markdown.SourcesSection | None:
    return markdown.find_sources(doc.body, doc.body_start)


@check("P1")
def p1_sources_section(doc: SkillDoc, facts: Facts) -> Iterator[Finding]:
    if doc.split is None or not doc.body.strip() or _sources(doc) is not None:
        return
    cited = markdown.citations(doc.body, doc.body_start)
    if cited:
        yield _f("P1", f"the body cites [{cited[0].number}] but has no Sources section", cited[0].line, severity="error")
    else:
        yield _f("P1", "no Sources section: nothing says where the instructions come from")


@check("P2")
def p2_citations(doc: SkillDoc, facts: Facts) -> Iterator[Finding]:
    src = _sources(doc)
    if src is None:
        return
    known, reported = src.numbers(), set()
    for c in markdown.citations(doc.body, doc.body_start, exclude=src.section):
        if c.number not in known and c.number not in reported:
            reported.add(c.number)
            yield _f("P2", f"citation [{c.number}] has no numbered entry in Sources", c.line)


@check("P3")
def p3_used_sources(doc: SkillDoc, facts: Facts) -> Iterator[Finding | Skip]:
    src = _sources(doc)
    if src is None or not src.entries:
        return
    if facts.used_sources is None:
        yield Skip("P3", "needs facts 'run' or 'used_sources' (the URLs the run used)")
        return
    used = {url_key(u) for u in facts.used_sources}
    for e in src.entries:
        if e.url is None:
            yield _f("P3", f"Sources entry {e.text[:60]!r} has no URL to match against the run", e.line)
        elif url_key(e.url) not in used:
            yield _f("P3", f"{e.url} is not a source the run used", e.line)


@check("P4")
def p4_carries_sources(doc: SkillDoc, facts: Facts) -> Iterator[Finding | Skip]:
    if doc.split is None or not doc.body.strip():
        return
    if facts.used_sources is None:
        yield Skip("P4", "needs facts 'run' or 'used_sources' (whether the skill was built from sources)")
        return
    if not facts.used_sources:
        return
    src = _sources(doc)
    cites = markdown.citations(doc.body, doc.body_start, exclude=src.section if src else None)
    urls = src.urls() if src else []
    if not cites and not urls:
        yield _f("P4", "no statement cites a source and no Sources entry has a URL: nothing says where the "
                       "instructions come from", src.section.start if src else doc.body_start)
    elif not cites:
        yield _f("P4", "no statement cites a source ([n]): the Sources list is not tied to any instruction",
                 src.section.start if src else doc.body_start)
    elif not urls:
        yield _f("P4", "the Sources section has no URL: the citations lead nowhere", src.section.start if src else doc.body_start)


# --------------------------------------------------------------------------- D: stale constructs

DEPRECATED_SECTION = re.compile(r"deprecat", re.I)
NOT_RECOMMENDED = re.compile(
    r"deprecat|\bremoved\b|no longer|\bdon'?t use\b|do not use|never use|instead of|replaced by|superseded|"
    r"\blegacy\b|obsolete|\bavoid\b|\bold:",
    re.I,
)


@check("D1")
def d1_stale(doc: SkillDoc, facts: Facts) -> Iterator[Finding | Skip]:
    if facts.stale is None:
        yield Skip("D1", "needs facts 'stale' (patterns the fresh sources mark deprecated)")
        return
    sections = markdown.find_sections(doc.body, DEPRECATED_SECTION, doc.body_start)
    lines = doc.body.splitlines()
    for construct in facts.stale:
        rx = construct.regex
        for i, line in enumerate(lines):
            n = doc.body_start + i
            if any(s.contains(n) for s in sections):
                continue
            if rx.search(line) and not NOT_RECOMMENDED.search(line):
                instead = f" — use {construct.instead}" if construct.instead else ""
                yield _f("D1", f"{construct.what} is deprecated or removed{instead}", n)


# --------------------------------------------------------------------------- M: model output written to the writer


@check("M1")
def m1_template_echo(doc: SkillDoc, facts: Facts) -> Iterator[Finding]:
    for e in echoes.template_echoes(doc.body, doc.body_start):
        yield _f("M1", f"{e.what}: the synthesis prompt's words, not an instruction for the agent", e.line)


# --------------------------------------------------------------------------- A: tools

_TOOL = re.compile(r"([A-Za-z_][\w.-]*)(\([^)]*\))?")
_MCP_CALL = re.compile(r"\bmcp__([A-Za-z0-9_-]+)")
_MCP_PHRASE = re.compile(r"`([\w.-]+)`\s+MCP server|MCP server\s+`([\w.-]+)`")


def allowed_tool_names(value: object) -> list[str]:
    """Tool names of an allowed-tools value: "Read Bash(git:*)" or a list; arguments dropped."""
    items = value if isinstance(value, list) else [value] if isinstance(value, str) else []
    out: list[str] = []
    for item in items:
        if isinstance(item, str):
            out.extend(m.group(1) for m in _TOOL.finditer(item))
    return out


def _split_mcp(token: str) -> tuple[str, str | None]:
    server, _, tool = token.partition("__")
    return server, tool or None


@check("A1")
def a1_allowed_tools(doc: SkillDoc, facts: Facts) -> Iterator[Finding | Skip]:
    value = _meta(doc).get("allowed-tools")
    if value is None:
        return
    line = doc.key_line("allowed-tools")
    if not isinstance(value, (str, list)):
        yield _f("A1", f"allowed-tools must be a string or list, not {type(value).__name__}", line)
        return
    names = allowed_tool_names(value)
    if facts.tools is None:
        if names:
            yield Skip("A1", "needs facts 'tools' (the tools that exist)")
        return
    for name in names:
        if name in facts.tools:
            continue
        if name.startswith("mcp__") and facts.mcp is not None:
            server, tool = _split_mcp(name[5:])
            if server in facts.mcp and (tool is None or tool in facts.mcp[server]):
                continue
        yield _f("A1", f"allowed-tools names {name!r}, which is not a known tool", line)


def _mcp_mentions(doc: SkillDoc) -> list[tuple[str, str | None, int]]:
    out = []
    for i, line in enumerate(doc.body.splitlines()):
        n = doc.body_start + i
        for m in _MCP_CALL.finditer(line):
            server, tool = _split_mcp(m.group(1))
            out.append((server, tool, n))
        for m in _MCP_PHRASE.finditer(line):
            out.append((m.group(1) or m.group(2), None, n))
    return out


@check("A2")
def a2_mcp(doc: SkillDoc, facts: Facts) -> Iterator[Finding | Skip]:
    mentions = _mcp_mentions(doc)
    if not mentions:
        return
    if facts.mcp is None:
        yield Skip("A2", f"needs facts 'mcp' (servers and their tools); the body names {mentions[0][0]!r}")
        return
    for server, tool, n in mentions:
        if server not in facts.mcp:
            yield _f("A2", f"MCP server {server!r} is not a known server", n)
        elif tool is not None and tool not in facts.mcp[server]:
            yield _f("A2", f"MCP server {server!r} has no tool {tool!r}", n)


# --------------------------------------------------------------------------- C: catalogue


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def catalogue_entries(folder: Path) -> list[tuple[Path, str | None, str | None]]:
    """(folder, name, description) of each skill folder directly under ``folder`` (unparsable ones skipped)."""
    out = []
    for child in sorted(p for p in folder.iterdir() if p.is_dir()):
        md = find_skill_file(child)
        if md is None:
            continue
        try:
            data = read_bounded(md)
            if data is None:
                continue
            split = frontmatter.split_frontmatter(data.decode("utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
        value, err, _ = parse_yaml(split.yaml_text) if split.closed else (None, "x", 0)
        if err is None and isinstance(value, dict):
            name, desc = value.get("name"), value.get("description")
            out.append((child, name if isinstance(name, str) else None, desc if isinstance(desc, str) else None))
    return out


@check("C1")
def c1_catalogue(doc: SkillDoc, facts: Facts) -> Iterator[Finding | Skip]:
    if facts.catalogue is None:
        yield Skip("C1", "needs facts 'catalogue' (a folder of skills to compare with)")
        return
    meta = _meta(doc)
    name, desc = meta.get("name"), meta.get("description")
    me = doc.dir.resolve()
    for folder, other_name, other_desc in catalogue_entries(facts.catalogue):
        if folder.resolve() == me:
            continue
        if isinstance(name, str) and name and name == other_name:
            yield _f("C1", f"{folder} has the same name {name!r}", doc.key_line("name"))
        elif isinstance(desc, str) and other_desc and desc.strip():
            ratio = difflib.SequenceMatcher(None, _norm(desc), _norm(other_desc)).ratio()
            if ratio >= SIMILAR_DESCRIPTION:
                yield _f("C1", f"description is {ratio:.0%} similar to {other_name or folder.name!r}'s: "
                               "both skills claim the same requests", doc.key_line("description"), severity="warn")
