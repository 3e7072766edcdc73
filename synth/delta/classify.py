"""What an entry is about: the section kind of the headings it sits under (highlights, features, breaking,
deprecations, removals, behaviour, fixes, security, docs, internal), the area it belongs to (the change page's own
section headings, the API a marker annotates, the page's place in the site; internal areas flagged), and the "use X
instead of Y" it states.

Pure: no I/O, no Scrapy.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

from synth.core.literals import search
from synth.delta.cleaning import _WS, clean_heading
from synth.delta.versions import parse_version

# -- section kinds ----------------------------------------------------------------------------------------------

SECTION_KINDS = ("highlights", "breaking", "features", "deprecations", "removals", "behaviour", "other", "fixes",
                 "security", "docs", "internal")
# what leads: the project's own highlights, then what a user must change or can newly use
SECTION_WEIGHT = {"highlights": 3.0, "breaking": 2.2, "features": 2.0, "deprecations": 1.6, "removals": 1.6,
                  "behaviour": 1.3, "other": 1.0, "fixes": 0.25, "security": 0.3, "docs": 0.15, "internal": 0.2}
LEADING = frozenset({"highlights", "breaking", "features", "deprecations", "removals", "behaviour", "other"})
_SECTION_RES = (
    ("highlights", re.compile(r"\b(?:highlights?|summary|overview|at a glance|tl;?dr|key (?:features|changes)|"
                              r"major (?:features|changes|new features)|headline)\b", re.I)),
    ("security", re.compile(r"\bsecurity\b|\bcve\b|\bvulnerabilit", re.I)),
    ("fixes", re.compile(r"\bbug\s*-?\s*fix|\bfixes\b|\bfixed\b|\bbugs\b|\bregressions?\b", re.I)),
    ("docs", re.compile(r"\bdoc(?:s|umentation)\b", re.I)),
    ("internal", re.compile(r"\binternal\b|\bcontributors?\b|\backnowledg\w*|\bcredits\b|\btrivial\b|\binfrastructure\b|\bbuild\b|"
                            r"\bpackaging\b|\btests?\b|\btesting\b|\bci\b|\bc[ -]api\b|\bbytecode\b|\bimplementation\b|"
                            r"\bdevelopment\b|\bdependenc|\bvendored\b", re.I)),
    ("removals", re.compile(r"\bremov(?:ed|al|als|ing)\b", re.I)),
    ("deprecations", re.compile(r"\bdeprecat", re.I)),
    ("breaking", re.compile(r"\bbreaking\b|\bincompatib|\bbackwards?[- ]incompat|\bporting\b|\bupgrad(?:e|ing)\b|"
                            r"\bmigrat", re.I)),
    ("behaviour", re.compile(r"\bbehaviou?r\b|\bchanged\b|\bchanges\b|\bimproved\b|\bimprovements?\b|"
                             r"\boptimi[sz]ations?\b|\bperformance\b|\bfaster\b|\bupdated?\b", re.I)),
    ("features", re.compile(r"\bnew\b|\bfeatures?\b|\badded\b|\badditions?\b|\benhancements?\b|\bintroduc", re.I)),
)
_ENTRY_KIND = {"features": "added", "breaking": "breaking", "deprecations": "deprecated", "removals": "removed",
               "fixes": "fixed", "security": "fixed", "behaviour": "changed"}
_KIND_OF_MARKER = {"added": "features", "changed": "behaviour", "deprecated": "deprecations", "removed": "removals"}

# An entry's own first word, on change pages that list entries without subsections ("Fixed a crash …").
_LEAD_VERB = (
    ("breaking", re.compile(r"^\W*(?:\*\*)?(?:breaking(?: change)?|backwards?[- ]incompatible|incompatible)\b", re.I)),
    ("deprecations", re.compile(r"^\W*(?:deprecate[ds]?|deprecation)\b", re.I)),
    ("removals", re.compile(r"^\W*(?:removed?|drop(?:ped)?)\b", re.I)),
    ("fixes", re.compile(r"^\W*(?:fix(?:ed|es)?|bug ?fix|correct(?:ed)?|resolved?)\b", re.I)),
    ("features", re.compile(r"^\W*(?:add(?:ed|s)?|new|introduc(?:e|ed|es)|support(?:s|ed)? for|now supports?)\b", re.I)),
)

# "will be removed in 4.0", "scheduled for removal in 4.0", "pending removal in 4.0", "to be removed in 4.0"
_SCHEDULE = re.compile(r"(?i)\b(?:will|would|shall|is\s+(?:going|scheduled|planned|slated)\s+to|to)\s+be\s+removed\s+"
                       r"(?:in|by|from)\s+(?:version\s+|[A-Za-z][\w+#-]{0,30}\s+(?=v?\d))?(v?\d+(?:\.\d+)*)|"
                       r"\b(?:scheduled|planned|pending)\s+(?:for\s+)?removal\s+(?:in|by)\s+"
                       r"(?:version\s+|[A-Za-z][\w+#-]{0,30}\s+(?=v?\d))?(v?\d+(?:\.\d+)*)")


def section_of(headings: list[str] | tuple[str, ...], version: str | None) -> str:
    """The section kind of the innermost heading (below the version's own heading) that names one, else ``other``."""
    for h in reversed(_below_version(headings, version)):
        for kind, rx in _SECTION_RES:
            if rx.search(h):
                return kind
    return "other"


_VERSION_TOKEN = re.compile(r"(?<![\w.])v?(\d+(?:\.\d+)*)(?![\w]|\.\d)")


def names_version(text: str, version: str) -> bool:
    """Whether ``text`` prints ``version`` in any spelling of it (``4.2.0`` names ``4.2``)."""
    want = parse_version(version)
    if want is None:
        return False
    return any(parse_version(m.group(1)) == want for m in _VERSION_TOKEN.finditer(text or ""))


def _below_version(headings: list[str] | tuple[str, ...], version: str | None) -> list[str]:
    """The headings after the first one that names ``version`` (a page about one release names it in its title;
    a sub-section may name it again: "Backwards incompatible changes in 2.3")."""
    hs = [clean_heading(h) for h in headings if h]
    if version:
        for i, h in enumerate(hs):
            if names_version(h, version):
                return hs[i + 1:]
    # no heading names the version: a release page's own title still is not a section
    return hs[1:] if len(hs) > 1 else []


# -- areas ------------------------------------------------------------------------------------------------------

_CONTAINER = re.compile(r"^(?:(?:standard\s+)?(?:library|libraries|modules?|packages?|components?|apis?|"
                        r"extensions?|plugins?|features?|changes?|misc(?:ellaneous)?|general|others?|notes?|"
                        r"details|summary|highlights|items|updates?|bugs?|fixes|list|malfunctions?|problems?|known\s+issues|issues|"
                        r"defects?|corrections?)\s*)*$", re.I)
_KIND_WORDS = re.compile(
    r"(?i)\b(?:other|new|notable|improved|improvements?|updated?|updates|changes?|changed|additions?|added|summary|"
    r"highlights?|overview|porting|upgrading|upgrade|migrating|migration|guide|notes|release|"
    r"deprecat\w*|removals?|removed|pending|breaking|incompatib\w*|backwards?|bug\s*fix(?:es)?|fixes|fixed|"
    r"features?|related\s+to|enhancements?|behaviou?r|in|to|the|and|of|for|with|since|release|version|v?\d+(?:\.\d+)*)\b")
_INTERNAL_AREA = re.compile(r"(?i)\bc[ -]api\b|\bsource\s+code\b|\bbuild\b|\bpackaging\b|\binternals?\b|\bbytecode\b|\btests?\b|"
                            r"\btesting\b|\bci\b|\binfrastructure\b|\bcontributors?\b|\bimplementation\b|"
                            r"\bdevelopment\b|\bdependenc\w*|\btooling\b|\bvendored\b")
MAX_AREA_WORDS = 4
MAX_AREA_CHARS = 40
_URL_STEM_SKIP = frozenset({"index", "html", "docs", "doc", "api", "en", "latest", "stable", "reference", "library",
                            "manual", "guide", "content", "pages", "main", "master", "current", "release", "releases",
                            "whatsnew", "changelog", "news", "changes", "history", "notes", "release-notes"})


def area_from_headings(headings: list[str] | tuple[str, ...], version: str | None) -> str | None:
    """The component a change-page entry belongs to, from the headings below its version: kind words removed
    ("Other Language Changes" → Language, "C API Changes" → C API); a container ("Improved Modules") hands on to
    its sub-heading ("asyncio"); a long heading is a feature's title, not an area."""
    area = None
    hs = [clean_heading(x) for x in headings if x]
    # the words of the heading that names the version ("What's New In Acme 2.3") name the product, not an area
    own = next((h for h in hs if version and names_version(h, version)), "")
    product = {w.lower() for w in re.findall(r"[A-Za-z][\w+#-]*", own)}
    for h in _below_version(headings, version):
        rest = _WS.sub(" ", _KIND_WORDS.sub(" ", h))
        rest = " ".join(w for w in rest.split() if w.lower().strip(":-–—,.()[]") not in product).strip(" :-–—,.()[]")
        if not rest or _CONTAINER.match(rest):
            continue
        words = rest.split()
        if len(words) > MAX_AREA_WORDS or len(rest) > MAX_AREA_CHARS or re.match(r"(?i)^(?:pep|rfc|jep|kep|sip|nep)\b", rest):
            break
        area = rest
    return area


def area_from_api(api: str | None, text: str) -> str | None:
    """``asyncio.TaskGroup`` → asyncio; the first dotted name of a marker's signature when the crawl gave no API."""
    name = api
    if not name:
        m = re.match(r"^\W{0,3}(?:(?:class|def|function|method|attribute|property|exception|module|data|"
                     r"static|abstract|async|coroutine|decorator|interface|enum|record|type|macro|var|const)\s+)*"
                     r"([A-Za-z_][\w]*(?:[.:/][A-Za-z_][\w]*)+)", text or "")
        name = m.group(1) if m else None
    if not name:
        return None
    parts = [p for p in re.split(r"[.:/#]", name.strip()) if p]
    # the namespace: the lower-case module path before the first class and the object itself, at most three parts
    module: list[str] = []
    for p in parts[:-1]:
        if p[:1].isupper() or len(module) == 3:
            break
        module.append(p)
    head = ".".join(module) or parts[0]
    return head if 1 < len(head) <= MAX_AREA_CHARS and not head[:1].isdigit() else None


def area_from_url(url: str) -> str | None:
    """The page's place in the site: its file name's first word (``library/asyncio-task.html`` → asyncio)."""
    segs = [s for s in unquote(urlsplit(url).path).split("/") if s]
    for seg in reversed(segs):
        stem = re.sub(r"\.(?:html?|md|mdx|rst|txt|php|aspx?)$", "", seg, flags=re.I)
        first = re.split(r"[-_.]", stem)[0]
        if first and first.lower() not in _URL_STEM_SKIP and not first[:1].isdigit() and len(first) > 1:
            return first
    return None


def is_internal(area: str | None, section: str) -> bool:
    return section == "internal" or bool(area and _INTERNAL_AREA.search(area))


# -- "use X instead of Y" ------------------------------------------------------------------------------------------

_CODE = r"`{1,2}([^`\n]{1,80})`{1,2}"
# a name as code: backticked, or dotted / called / snake_case / CamelCase (a plain word is not a name)
_NAME = (r"(?:`{1,2}([^`\n]{1,80})`{1,2}|([A-Za-z_]\w*(?:\.\w+)+(?:\(\))?|[A-Za-z_]\w*\(\)|[a-z][a-z0-9]*_[a-z0-9_]+(?:\(\))?|"
         r"[A-Z][a-z0-9]+[A-Z]\w*)(?!\w|\.\w))")
_V = lambda *ws: "(?:" + "|".join(f"[{w[0].upper()}{w[0]}]{w[1:]}" for w in ws) + ")"  # noqa: E731  (verbs, either case)
_INSTEAD = (
    # "Use X instead of Y", "use X instead" (Y: the entry's subject)
    re.compile(rf"\b{_V('use', 'prefer', 'call', 'switch to', 'migrate to')}\s+{_NAME}\s+instead(?:\s+of\s+{_NAME})?"),
    # "Y is deprecated in favo(u)r of X", "Y has been replaced by X", "Y: superseded by X"
    re.compile(rf"{_NAME}(?:\s+(?:helper|function|method|class|module|option|attribute|parameter|argument|setting|API))?"
               rf"\s+(?:is|are|was|were|has\s+been|have\s+been)\s+(?:now\s+)?(?:deprecated|removed)?\s*"
               rf"(?:,\s*)?(?:in\s+favou?r\s+of|replaced\s+(?:by|with)|superseded\s+by)\s+{_NAME}"),
    # "X (method|function …) (that|which) supersedes Y"
    re.compile(rf"{_NAME}\s+(?:(?:method|function|class|module|option|attribute|parameter|API)\s+)?(?:that\s+|which\s+)?"
               rf"(?:supersedes|replaces)\s+{_NAME}"),
)


def use_instead(text: str, api: str | None = None) -> tuple[str | None, str | None]:
    """(what to use now, what it replaces) when the entry states it; (None, None) otherwise."""
    text = text or ""
    m = search(_INSTEAD[0], text)  # each pattern requires a word ("instead", "replaced"…): most entries are not searched
    if m:
        use = m.group(1) or m.group(2)
        old = m.group(3) or m.group(4) or api
        if use and old and use != old:
            return use.strip(), old.strip()
    m = search(_INSTEAD[1], text)
    if m:
        old, use = m.group(1) or m.group(2), m.group(3) or m.group(4)
        if use and old and use != old:
            return use.strip(), old.strip()
    m = search(_INSTEAD[2], text)
    if m:
        use, old = m.group(1) or m.group(2), m.group(3) or m.group(4)
        if use and old and use != old:
            return use.strip(), old.strip()
    return None, None
