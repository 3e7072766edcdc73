"""The delta as skill text: ``references/*.md`` written from every post-cutoff change entry, and the pieces of
``SKILL.md`` that name them (versions, headlines, modern vs deprecated, examples, the reference index).

Deterministic and the same with or without a model: the model writes the prose of SKILL.md from the headline
evidence; the references are written here, complete and cited, so a small model cannot drop or retype them.

Layout, decided by size: a delta of at most :data:`PER_VERSION_MAX` entries gets one file per version; a
larger one one file per area with at least :data:`MIN_AREA_ENTRIES` entries (smaller areas share
``other-changes.md``), the audience's areas first, internal ones (C API, build, internals…) after, in
``internals.md`` or files of their own when large. Every entry names its version, kind and the page(s) that
state it (a link to the page and anchor); "use X instead of Y" where the source says so; the source's own
code examples fenced byte-exact.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from synth.delta.classify import LEADING
from synth.delta.headlines import MAX_HEADLINES, extends, headline_entries, line_release
from synth.delta.ledger import Delta, Entry
from synth.delta.timeline import PRE, VersionStatus
from synth.delta.versions import newest_first, parse_version
from synth.skill.markdown import fence_for
from synth.skill.names import slugify
from synth.skill.quote import shorten

PER_VERSION_MAX = 80
MIN_AREA_ENTRIES = 4
MAX_FILES = 40
MAX_MODERN = 16
MAX_EXAMPLES = 5
MAX_UNDATED_LINES = 30
TOC_OVER = 60  # lines; lint L3 wants a table of contents in reference files over 100 lines
MAX_LINK_TITLE = 60
SKILL_TEXT = 600  # characters of an entry's text on a SKILL.md line (whole sentences; the reference files hold all)


@dataclass
class RefFile:
    path: str  # references/<slug>.md
    title: str
    entries: list[Entry]
    internal: bool = False
    undated: bool = False  # the changes of a version nothing places against the cutoff (:func:`undated_files`)

    def summary(self) -> str:
        kinds = Counter(e.kind for e in self.entries)
        versions = sorted({e.version for e in self.entries}, key=newest_first)
        shown = ", ".join(versions[:4]) + (f" and {len(versions) - 4} more" if len(versions) > 4 else "")
        parts = ", ".join(f"{n} {k}" for k, n in kinds.most_common(4))
        return f"{self.title}: {len(self.entries)} change(s) in {shown} ({parts})"


@dataclass
class Rendered:
    files: dict[str, str] = field(default_factory=dict)
    refs: list[RefFile] = field(default_factory=list)
    placed: dict[int, str] = field(default_factory=dict)  # id(entry) → the file holding it
    dropped: int = 0  # entries the screen flagged (never written)


# -- markdown safety ---------------------------------------------------------------------------------------------

_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
# relative, javascript:, data: … → text
_BAD_LINK = re.compile(r"!?\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]\(\s*(?!https?://)(?:[^()\n]|\([^()\n]*\))+\)", re.I)
_EMPTY_TARGET = re.compile(r"(?<!\\)\[([^\[\]\n]*)\]\(\s*\)")  # code that reads like a link: "obj[Symbol.dispose]()"
_CITATION_LIKE = re.compile(r"\[(\d{1,4})\]")


def safe_inline(text: str) -> str:
    """Scraped text made inert as one markdown line: no raw HTML, no links but http(s), no ``[n]`` that reads as
    a citation; inline code kept as it is."""
    text = _BAD_LINK.sub(r"\1", _EMPTY_TARGET.sub(r"\\[\1]()", text))
    out, last = [], 0
    for m in _INLINE_CODE.finditer(text):
        out.append(_safe_prose(text[last:m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(_safe_prose(text[last:]))
    return "".join(out).strip()


def _safe_prose(s: str) -> str:
    s = _TAG_START.sub(r"\\<", s)
    return _CITATION_LIKE.sub(r"\\[\1]", s)


def _link_title(title: str, url: str) -> str:
    t = " ".join((title or "").split())
    t = re.sub(r"[\[\]<>`*_]", "", t)[:MAX_LINK_TITLE].strip()
    if not t:
        path = url.split("://", 1)[-1].split("/", 1)[-1] or url
        t = path[:MAX_LINK_TITLE]
    return t


def _md_url(url: str) -> str:
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29").replace("<", "%3C").replace(">", "%3E")


def cite_links(e: Entry, limit: int = 3) -> str:
    """``([What's New In Python 3.11](url#anchor); [asyncio](url))`` — the pages that state the entry."""
    parts = []
    for url, anchor, title in e.citations[:limit]:
        full = url + (anchor or "") if anchor and "#" not in url else url
        parts.append(f"[{_link_title(title, url)}]({_md_url(full)})")
    return "(" + "; ".join(parts) + ")"


def when(status: VersionStatus) -> str:
    """``released 2022-10-24`` / ``released after 2021-10-04`` / ``newer than 3.24 (undated)`` / ``undated``."""
    label = status.label()
    return label.split(", ", 1)[1] if ", " in label else label


# -- references ----------------------------------------------------------------------------------------------------


def plan_files(delta: Delta) -> list[RefFile]:
    """Which reference files, holding which entries, in the order the index lists them: the post-cutoff delta's, then
    the undated releases that may be new (:func:`undated_files`)."""
    return _unique_paths([*_post_files(delta), *undated_files(delta)])


MAX_UNDATED_SERIES = 2  # undated release series whose every change the reference files hold


def undated_files(delta: Delta) -> list[RefFile]:
    """When no version is placed after the cutoff (the skill says which versions it could not date): the changes of
    the releases that may be new, one file per series, labelled undated — the versions newer than every version
    placed before the cutoff, or, when none is, the newest series the sources document. Beside a post-cutoff delta an
    undated version is no release the skill presents (it may be another product's, or only announced)."""
    if delta.post:
        return []
    pre = [pv for s in delta.states.values() if s.state == PRE and (pv := parse_version(s.version)) is not None]
    newest_pre = max(pre, default=None)
    series: dict[tuple[int, ...], list[Entry]] = {}
    for e in delta.undated:
        pv = parse_version(e.version)
        st = delta.states.get(e.version)
        if pv is None or (newest_pre is not None and pv <= newest_pre) or (st is not None and st.how.startswith("unverified")):
            continue  # known, or newer than every version the site documents with nothing to show it exists
        series.setdefault(pv.release[:2], []).append(e)
    keep = sorted(series, reverse=True)[:MAX_UNDATED_SERIES] if newest_pre is not None else sorted(series, reverse=True)[:1]
    files = []
    for key in keep:
        es = series[key]
        name = min((e.version for e in es), key=lambda v: (len(v), v))  # the series' shortest spelling: "9.0"
        files.append(RefFile(f"references/undated-{slugify(name) or 'version'}.md", f"{name} (undated)",
                             sorted(es, key=lambda e: (newest_first(e.version), e.internal, e.order)),  # as the source reads
                             undated=True))
    return files


def _post_files(delta: Delta) -> list[RefFile]:
    entries = delta.post
    if not entries:
        return []
    if len(entries) <= PER_VERSION_MAX:
        by_version: dict[str, list[Entry]] = {}
        for e in entries:
            by_version.setdefault(e.version, []).append(e)
        per_version = [RefFile(f"references/changes-{slugify(v) or 'version'}.md", f"Changes in {v}",
                               sorted(by_version[v], key=lambda e: (e.internal, e.area.lower(), -e.score, e.order)))
                       for v in sorted(by_version, key=newest_first)]
        return _unique_paths(per_version)
    groups = delta.by_area()
    public = {a: es for a, es in groups.items() if not all(e.internal for e in es)}
    internal = {a: es for a, es in groups.items() if a not in public}
    files: list[RefFile] = []
    other: list[Entry] = []
    for area, es in sorted(public.items(), key=lambda kv: (-sum(e.score for e in kv[1]), kv[0].lower())):
        if len(es) >= MIN_AREA_ENTRIES and len(files) < MAX_FILES - 2:
            files.append(RefFile(f"references/{slugify(area) or 'area'}.md", area, es))
        else:
            other.extend(es)
    if other:
        files.append(RefFile("references/other-changes.md", "Other changes", _ordered(other)))
    small_internal: list[Entry] = []
    for area, es in sorted(internal.items(), key=lambda kv: (-len(kv[1]), kv[0].lower())):
        if len(es) >= 3 * MIN_AREA_ENTRIES and len(files) < MAX_FILES - 1:
            files.append(RefFile(f"references/{slugify(area) or 'internal'}.md", area, es, internal=True))
        else:
            small_internal.extend(es)
    if small_internal:
        files.append(RefFile("references/internals.md", "Internals, build and C-level changes", _ordered(small_internal),
                             internal=True))
    return _unique_paths(files)


def _ordered(entries: list[Entry]) -> list[Entry]:
    return sorted(entries, key=lambda e: (newest_first(e.version), e.area.lower(), -e.score, e.order))


def _unique_paths(files: list[RefFile]) -> list[RefFile]:
    seen: set[str] = set()
    for f in files:
        base, k = f.path[:-3], 2
        while f.path in seen or f.path in ("references/sources.md",):
            f.path = f"{base}-{k}.md"
            k += 1
        seen.add(f.path)
    return files


def render_references(delta: Delta, *, topic: str, cutoff: str, flagged: Callable[[str], bool]) -> Rendered:
    """Every post-cutoff entry of ``delta`` in reference files (entries the screen flags are left out, counted)."""
    out = Rendered()
    for f in plan_files(delta):
        kept = []
        for e in f.entries:
            if flagged(e.text):
                out.dropped += 1
                continue
            kept.append(e)
        if not kept:
            continue
        f.entries = kept
        out.files[f.path] = _file_text(f, topic, cutoff, flagged)
        out.refs.append(f)
        for e in kept:
            out.placed[id(e)] = f.path
    return out


def _file_text(f: RefFile, topic: str, cutoff: str, flagged: Callable[[str], bool]) -> str:
    by_version: dict[str, list[Entry]] = {}
    for e in f.entries:
        by_version.setdefault(e.version, []).append(e)
    versions = sorted(by_version, key=newest_first)
    body: list[str] = []
    toc: list[str] = []
    multi_area = len({e.area.lower() for e in f.entries}) > 1 and not f.undated
    for v in versions:
        es = by_version[v]
        head = f"{v} ({when(es[0].status)})"
        body += [f"## {head}", ""]
        toc.append(f"- [{head}](#{_anchor(head)})")
        area = None
        for e in sorted(es, key=lambda e: (e.area.lower(), -e.score, e.order)) if multi_area else es:
            if multi_area and e.area != area:
                area = e.area
                body += [f"### {area}", ""]
            body.append(entry_line(e, with_area=f.undated, undated=f.undated))
            if e.use and e.instead_of:
                body.append(f"  Use `{_code(e.use)}` instead of `{_code(e.instead_of)}`.")
            for code, lang in list(zip(e.code, e.langs()))[:2]:
                block = _code_block(code, flagged, lang)
                if block:
                    body += ["", block, ""]
        body.append("")
    if f.undated:
        lines = [f"# {topic}: {f.title}", "",
                 f"Every change the sources document for {safe_inline(f.title.removesuffix(' (undated)'))}, a release nothing "
                 f"places before or after the {cutoff} cutoff: **undated**, these may or may not be new to the model. "
                 "Each entry names its version and kind and links the page(s) that state it.", ""]
    else:
        lines = [f"# {topic}: {f.title} (after the {cutoff} cutoff)", "",
                 f"Every change to {safe_inline(f.title)} that the sources document for versions released after {cutoff}, newest first. "
                 "Each entry names its version and kind and links the page(s) that state it.", ""]
    if len(body) > TOC_OVER:
        lines += ["## Contents", "", *toc, ""]
    return "\n".join(lines + body).rstrip() + "\n"


def _anchor(heading: str) -> str:
    return re.sub(r"[^\w\- ]", "", heading.lower()).strip().replace(" ", "-")


def _code(s: str) -> str:
    return s.replace("`", "")


def _code_block(code: str, flagged: Callable[[str], bool], lang: str = "") -> str:
    text = code.rstrip("\n")
    if not text.strip():
        return ""
    fence = fence_for(text)
    block = f"{fence}{lang}\n{text}\n{fence}"
    return "" if flagged(block) else block


def qualifier(e: Entry, with_area: bool = True) -> str:
    """`` (asyncio; …: since 3.9, before the cutoff)``: the area and what the label says that the quote does not."""
    name = e.area if e.area and e.area != "General" else ""
    if e.title and not _CLAIMS_VERSION.search(e.title):
        name = e.title  # the section's own title says what the area, cut from it, only hints at
    symbol = [f"`{e.symbol.replace('`', '')}`"] if e.symbol else []  # what an API page's marker is about (its quote does not name it)
    parts = (symbol or ([name] if with_area and name else [])) + e.notes
    return f" ({safe_inline('; '.join(parts))})" if parts else ""


# a title that itself dates something ("New in 2.0 compatibility") would read as the label's claim
_CLAIMS_VERSION = re.compile(r"(?i)\b(?:new|added|introduced|since|as\s+of)\b\W+(?:\w+\W+)?v?\d+(?:\.\d+)+")


def entry_line(e: Entry, *, with_area: bool = True, cite: str | None = None, undated: bool = False,
               limit: int | None = None) -> str:
    """``- **Added in 3.11** (asyncio): text ([page](url))`` — ``cite`` replaces the links (e.g. ``[3]``);
    ``undated``: the version could not be placed against the cutoff, and the label says so; ``limit``: the text
    shortened to that many characters by whole trailing sentences ("…")."""
    area = qualifier(e, with_area)
    text = safe_inline(shorten(e.text, limit) if limit else e.text)
    if undated:  # the version, then what happened: never "Added in X" for a version nothing places after the cutoff
        what = {"release": "release notes", "fixed": "fix", "breaking": "breaking change"}.get(e.kind, e.kind)
        return f"- **{e.version} (undated)**, {what}{area}: {text} {cite if cite is not None else cite_links(e)}"
    return f"- **{e.label()}**{area}: {text} {cite if cite is not None else cite_links(e)}"


# -- SKILL.md pieces -----------------------------------------------------------------------------------------------


def modern_entries(delta: Delta, limit: int = MAX_MODERN) -> list[Entry]:
    """"Use X instead of Y" pairs first, then deprecations and removals, by score (not internal)."""
    pairs = [e for e in delta.post if e.use and e.instead_of and not e.internal]
    rest = [e for e in delta.post if e.kind in ("deprecated", "removed") and not e.internal and e not in pairs]
    return (sorted(pairs, key=lambda e: (-e.score, e.order)) + sorted(rest, key=lambda e: (-e.score, e.order)))[:limit]


def example_entries(delta: Delta, limit: int = MAX_EXAMPLES) -> list[Entry]:
    """Entries whose sources show code for them, best first (one per area)."""
    out: list[Entry] = []
    areas: set[str] = set()
    for e in sorted((e for e in delta.post if e.code and not e.internal), key=lambda e: (-e.score, e.order)):
        if e.area.lower() in areas and len(out) < limit // 2:
            continue
        out.append(e)
        areas.add(e.area.lower())
        if len(out) >= limit:
            break
    return out


MAX_VERSION_LINES = 20  # versions listed one per line; more: the ones with the most changes, the rest named in one line


def version_lines(delta: Delta) -> list[str]:
    """One line per post-cutoff version (newest first): its date or bound and why; then undated ones. Past
    :data:`MAX_VERSION_LINES`, the versions with the most changes keep their lines (a major release before its twenty
    later minor ones) and the others are named on one last line."""
    lines = []
    counts = Counter(e.version for e in delta.post)
    folded = fold_patches(delta.post_versions())
    if len(folded) > MAX_VERSION_LINES:  # the releases with the most changes, never the latest few by number alone
        n_of = {id(s): counts[s.version] + sum(counts[p.version] for p in patches) for s, patches in folded}
        kept = {id(s) for s, _p in sorted(folded, key=lambda g: -n_of[id(g[0])])[:MAX_VERSION_LINES]}
        left = [s.version for s, _p in folded if id(s) not in kept]
        folded = [g for g in folded if id(g[0]) in kept]
    else:
        left = []
    for s, patches in folded:
        why = s.how.split(": ", 1)[1] if s.bound and ": " in s.how else s.how
        latest = max((p.date for p in patches if p.date and not p.bound and not p.how.startswith("after ")), default=None)
        more = (f", and {len(patches)} other release(s) of it ({', '.join(p.version for p in patches[:3])}"
                f"{', …' if len(patches) > 3 else ''}{f'; the latest released {latest.isoformat()}' if latest else ''})"
                if patches else "")
        n = counts[s.version] + sum(counts[p.version] for p in patches)
        lines.append(f"- **{s.version}** — {when(s)} ({why}); {n} change(s){more}")
    if left:
        lines.append(f"- and {len(left)} more with fewer changes: {', '.join(left[:12])}{', …' if len(left) > 12 else ''}"
                     " (every one in the reference files)")
    return lines


def fold_patches(versions: list[VersionStatus]) -> list[tuple[VersionStatus, list[VersionStatus]]]:
    """Patch releases and pre-releases under the release they belong to, when that is in the list: a version whose
    numbers extend another's (``15`` with 15.1–15.20, ``3.11`` with 3.11.1 and 3.11.0rc1, ``Erts 13.0`` with 13.0.1).
    Others stand alone, in order."""

    lrs = {id(s): line_release(s.version) for s in versions}
    known = {(lr[0], lr[1]): s for s in versions if (lr := lrs[id(s)]) is not None and not lr[2]}
    present = set(known)
    groups: dict[int, tuple[VersionStatus, list[VersionStatus]]] = {}
    out = []
    for s in versions:
        lr = lrs[id(s)]
        rel = extends(lr[0], lr[1], present) if lr is not None else None
        opener = known[(lr[0], rel)] if lr is not None and rel is not None else None
        if opener is not None:
            groups.setdefault(id(opener), (opener, []))[1].append(s)
            continue
        out.append(groups.setdefault(id(s), (s, [])))
    return out


def undated_lines(delta: Delta, limit: int = MAX_UNDATED_LINES) -> list[Entry]:
    """The best entries of versions that could not be placed before or after the cutoff (newest versions first)."""
    return sorted((e for e in delta.undated if e.section in LEADING and not e.internal),
                  key=lambda e: (newest_first(e.version), -e.score, e.order))[:limit]


# -- the new API of a release, by type ----------------------------------------------------------------------------

MAX_HEADLINES_BESIDE_INDEX = 20  # quoted headlines when SKILL.md also holds the index of the new API
MIN_INDEX_SYMBOLS = 12  # a release's new symbols that make an index worth its lines (fewer: the headlines name them)
MAX_INDEX_NAMES = 240
MAX_INDEX_LINE = 1600
MAX_INDEX_CHARS = 4000  # of names in SKILL.md, all releases (about 1,000 tokens of its budget)
MAX_INDEX_TYPES = 60


def api_index_lines(delta: Delta, flagged: Callable[[str], bool] = lambda _s: False) -> list[str]:
    """SKILL.md's index of the symbols an API reference's markers say each post-cutoff release added, by type: a
    release whose evidence is a marker per symbol (hundreds on a page-per-symbol reference) has more new symbols than
    the headlines hold, so SKILL.md names them all, compactly — the new types first ("(new)"), then the types with the
    most new members — each symbol once; the reference files hold every entry with its quote and page. Only symbols the
    entries name in their label (:attr:`Entry.symbol`); a release with fewer than :data:`MIN_INDEX_SYMBOLS` has none."""
    by_version: dict[str, dict[str, list[str]]] = {}
    for e in delta.post:
        if e.kind != "added" or not e.symbol or e.internal or flagged(e.symbol):
            continue
        names = by_version.setdefault(e.version, {}).setdefault(e.owner or "", [])
        if e.symbol not in names:
            names.append(e.symbol)
    lines: list[str] = []
    budget, chars = MAX_INDEX_NAMES, 0
    for version in sorted(by_version, key=newest_first):
        types = by_version[version]
        symbols = {n for names in types.values() for n in names}
        if len(symbols) < MIN_INDEX_SYMBOLS or budget <= 0:
            continue
        # a type whose own page is new is listed as new; its own symbol is not repeated among the namespace's members
        new_types = {t for t in types if t and t in symbols}
        order = sorted(types, key=lambda t: (t not in new_types, -len(types[t]), t))[:MAX_INDEX_TYPES]
        rows = []
        for t in order:
            names = [n for n in types[t] if n not in new_types]
            if not names and t not in new_types:
                continue
            shown: list[str] = []
            for n in names:
                if budget <= 0 or chars + len(n) > MAX_INDEX_CHARS or sum(len(x) + 4 for x in shown) + len(n) > MAX_INDEX_LINE:
                    break
                shown.append(n)
                budget -= 1
                chars += len(n) + 4
            more = len(names) - len(shown)
            head = f"`{t}`" + (" (new)" if t in new_types else "") if t else "other"
            tail = ", ".join(f"`{n}`" for n in shown) + (f" and {more} more" if more else "")
            rows.append(f"- {safe_inline(head)}" + (f": {safe_inline(tail)}" if tail else ""))
        if rows:
            lines += [f"New API in {version}, by type ({len(symbols)} symbol(s); each one's entry, quoted and cited, is in "
                      "the reference files):", "", *rows, ""]
    return lines


# -- the parts of one skill ----------------------------------------------------------------------------------------


@dataclass
class SkillParts:
    """The delta's share of one skill: the reference files, the entries SKILL.md names, and the source numbers
    its ``[n]`` citations use (the bundle's sources first, then the pages only the delta cites)."""

    rendered: Rendered
    headlines: list[Entry]
    modern: list[Entry]
    examples: list[Entry]
    undated: list[Entry]
    versions: list[str]
    version_names: list[str]
    api_index: list[str] = field(default_factory=list)  # the new symbols by type (:func:`api_index_lines`)
    page_code: list[tuple[str, str, str, str]] = field(default_factory=list)  # change pages' own examples
    extra_sources: list[dict] = field(default_factory=list)
    numbers: dict[str, int] = field(default_factory=dict)

    def n_for(self, e: Entry) -> int:
        """The source number of the page that states ``e`` (a new number for a page the bundle does not hold)."""
        url, _anchor, title = e.citations[0]
        return self.page_number(url, title)

    def page_number(self, url: str, title: str) -> int:
        """The source number of a page (a new number for a page the bundle does not hold)."""
        from synth.evidence.urls import url_key

        key = url_key(url)
        if key not in self.numbers:
            self.numbers[key] = max(self.numbers.values(), default=0) + 1
            self.extra_sources.append({"n": self.numbers[key], "url": url, "title": title, "delta_only": True})
        return self.numbers[key]

    def index_lines(self) -> list[str]:
        """The reference index: one line per file, saying what it holds."""
        return [f"- [{f.path}]({f.path}) — {safe_inline(f.summary())}" for f in self.rendered.refs]


def skill_parts(delta: Delta, bundle_sources: list[dict], *, topic: str, cutoff: str,
                flagged: Callable[[str], bool]) -> SkillParts:
    from synth.evidence.urls import url_key

    rendered = render_references(delta, topic=topic, cutoff=cutoff, flagged=flagged)
    ok = lambda es: [e for e in es if not flagged(e.text)]  # noqa: E731
    index = api_index_lines(delta, flagged)
    # the index names the new symbols: fewer quoted headlines keep SKILL.md within its budget
    headlines = headline_entries(delta, MAX_HEADLINES_BESIDE_INDEX if index else MAX_HEADLINES)
    parts = SkillParts(rendered=rendered, headlines=ok(headlines), modern=ok(modern_entries(delta)),
                       examples=ok(example_entries(delta)), undated=ok(undated_lines(delta)),
                       versions=version_lines(delta), version_names=[s.version for s, _ in fold_patches(delta.post_versions())],
                       api_index=index,
                       page_code=delta.page_code)
    for s in bundle_sources:
        parts.numbers.setdefault(url_key(s["url"]), int(s["n"]))
    placed = parts.rendered.placed
    for e in [*delta.post, *delta.undated]:  # the pages the reference files cite are sources the skill uses
        if id(e) in placed:
            for url, _anchor, title in e.citations:
                parts.page_number(url, title)
    return parts


MAX_RECORDED_ENTRIES = 5000
MAX_MISSING_SECTIONS = 50


def delta_record(delta: Delta, parts: SkillParts, skill: object) -> dict:
    """run.json's share of the delta: every post-cutoff entry (with the reference file holding it), the undated
    versions, and the recall a user can check — entries in the evidence, in SKILL.md, in references/, and the
    change-page sections of post-cutoff versions the skill does not represent."""
    placed = parts.rendered.placed
    in_skill = {id(e) for e in parts.headlines + parts.modern + parts.examples}
    entries = [e.to_dict(placed.get(id(e))) for e in delta.post[:MAX_RECORDED_ENTRIES]]
    represented = {(e.version, e.headings[-1]) for e in delta.post if id(e) in placed and e.headings}
    missing = [{"version": v, "heading": h, "url": url, "section": kind}
               for (v, h), (url, kind) in delta.sections.items() if (v, h) not in represented]
    return {
        "entries": entries,
        "entries_truncated": max(0, len(delta.post) - MAX_RECORDED_ENTRIES),
        "undated_versions": [{"version": s.version, "how": s.how} for s in delta.undated_versions()],
        "version_line": delta.version_line,
        "recall": {
            "post_cutoff_entries": len(delta.post),
            "in_skill_md": len(in_skill),
            "in_references": sum(1 for e in delta.post if id(e) in placed),
            "undated_in_references": sum(1 for e in delta.undated if id(e) in placed),
            "left_out_by_screen": parts.rendered.dropped,
            "undated_entries": len(delta.undated),
            "skipped": delta.skipped,
            "not_held": delta.overflow,
            "sections_not_represented": missing[:MAX_MISSING_SECTIONS],
            "sections_not_represented_total": len(missing),
            "reference_files": [{"path": f.path, "area": f.title, "entries": len(f.entries), "internal": f.internal}
                                for f in parts.rendered.refs],
        },
    }
