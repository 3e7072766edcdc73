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
from synth.delta.cleaning import WS, clean_heading
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
                              r"major (?:features|changes|new features)|headline|important (?:notes|changes)|"
                              r"notable (?:changes|features))\b", re.I)),
    ("security", re.compile(r"\bsecurity\b|\bcve\b|\bvulnerabilit", re.I)),
    ("fixes", re.compile(r"\bbug\s*-?\s*fix|\bfixes\b|\bfixed\b|\bbugs\b|\bregressions?\b", re.I)),
    ("docs", re.compile(r"\bdoc(?:s|umentation)\b", re.I)),
    ("internal", re.compile(r"\binternal\b|\bcontributors?\b|\backnowledg\w*|\bcredits\b|\btrivial\b|\binfrastructure\b|\bbuild\b|"
                            r"\bpackaging\b|\btests?\b|\btesting\b|\bci\b|\bc[ -]api\b|\bbytecode\b|\bimplementation\b|"
                            r"\bdevelopment\b|\bdependenc|\bvendored\b", re.I)),
    ("removals", re.compile(r"\bremov(?:ed|al|als|ing)\b", re.I)),
    ("deprecations", re.compile(r"\bdeprecat", re.I)),
    # "Migrating from 1.x", "Migration guide" — not "Migrations", the name of a component
    ("breaking", re.compile(r"\bbreaking\b|\bincompatib|\bbackwards?[- ]incompat|\bporting\b|\bupgrad(?:e|ing)\b|"
                            r"\bmigrating\b|\bmigration\b(?!s)", re.I)),
    ("behaviour", re.compile(r"\bbehaviou?r\b|\bchanged\b|\bchanges\b|\bimproved\b|\bimprovements?\b|"
                             r"\boptimi[sz]ations?\b|\bperformance\b|\bfaster\b|\bupdated?\b", re.I)),
    ("features", re.compile(r"\bnew\b|\bnews\b|\bfeatures?\b|\badded\b|\badditions?\b|\benhancements?\b|\bintroduc", re.I)),
)
ENTRY_KIND = {"features": "added", "breaking": "breaking", "deprecations": "deprecated", "removals": "removed",
               "fixes": "fixed", "security": "fixed", "behaviour": "changed"}
KIND_OF_MARKER = {"added": "features", "changed": "behaviour", "deprecated": "deprecations", "removed": "removals"}

# An entry's own first word, on change pages that list entries without subsections ("Fixed a crash …").
LEAD_VERB = (
    ("breaking", re.compile(r"^\W*(?:\*\*)?(?:breaking(?: change)?|backwards?[- ]incompatible|incompatible)\b", re.I)),
    ("deprecations", re.compile(r"^\W*(?:deprecate[ds]?|deprecation)\b", re.I)),
    ("removals", re.compile(r"^\W*(?:removed?|drop(?:ped)?)\b", re.I)),
    ("fixes", re.compile(r"^\W*(?:fix(?:ed|es)?|bug ?fix|correct(?:ed)?|resolved?)\b", re.I)),
    ("features", re.compile(r"^\W*(?:add(?:ed|s)?|new|introduc(?:e|ed|es)|support(?:s|ed)? for|now supports?)\b", re.I)),
)

# What an entry's own words say happened, when they say it plainly: "X has been removed", "Removed X", "X is now
# deprecated", "Changed X". A label is true to its statement: a removal stated under a highlights heading is no "New in".
_BEEN = r"\b(?:is|are|was|were|has\s+been|have\s+been)\s+(?:now\s+)?(?:entirely\s+|completely\s+|fully\s+|formally\s+|officially\s+)?"
_STATED_ANYWHERE = (
    ("removed", re.compile(rf"^\W*(?:removed?|dropped)\b|{_BEEN}(?:removed|dropped)\b", re.I)),
    ("deprecated", re.compile(rf"^\W*deprecated?\b|{_BEEN}deprecated\b", re.I)),
)
_STATED_LEAD = (
    ("changed", re.compile(r"^\W*changed?\b", re.I)),
    ("added", re.compile(r"^\W*(?:added|introduced?|new)\b", re.I)),
)


def stated_kind(text: str, kind: str) -> str:
    """The kind an entry's own words state, over the kind its heading gives: a removal or deprecation said plainly
    ("Py_UNICODE encoder APIs have been removed") is one under any heading that names no such kind (highlights,
    features, behaviour) unless the entry opens with "Added"/"Changed"; an entry that opens with "Changed"/"Added"
    under a removals heading ("Changed/removed opcodes") is that. Deprecations, breaking changes and fixes keep their
    section's kind."""
    t = text or ""
    if kind in ("deprecated", "breaking", "fixed"):
        return kind
    lead = next((k for k, rx in _STATED_LEAD if rx.match(t)), None)
    if kind == "removed":
        return lead or kind
    if lead is not None:
        return kind
    return next((k for k, rx in _STATED_ANYWHERE if rx.search(t)), kind)


# "will be removed in 4.0", "scheduled for removal in 4.0", "pending removal in 4.0", "to be removed in 4.0"
SCHEDULE = re.compile(r"(?i)\b(?:will|would|shall|is\s+(?:going|scheduled|planned|slated)\s+to|to)\s+be\s+removed\s+"
                       r"(?:in|by|from)\s+(?:version\s+|[A-Za-z][\w+#-]{0,30}\s+(?=v?\d))?(v?\d+(?:\.\d+)*)|"
                       r"\b(?:scheduled|planned|pending)\s+(?:for\s+)?removal\s+(?:in|by)\s+"
                       r"(?:version\s+|[A-Za-z][\w+#-]{0,30}\s+(?=v?\d))?(v?\d+(?:\.\d+)*)")


# "PyPy3.7 7.3 (`pypy3`)", "CPython 3.10 (currently in RC2)", "Limit pymongo version: <3.12.1": an item of a list
# of supported versions or dependency pins — a requirement, not a change that leads
_REQUIREMENT = re.compile(r"(?i)^\W*(?:(?:bump|limit|pin|require|update|upgrade)\w*\s+(?:the\s+)?(?:min(?:imum)?\s+|max(?:imum)?\s+)?)?"
                          r"[a-z][\w.+-]*(?:\s+[a-z][\w.+-]*){0,2}\s*(?:version\s*)?(?:to\s+|:\s*)?[<>=~^!]*\s*v?\d+(?:\.\d+)+"
                          r"[\w.+-]*\s*(?:\([^()]{0,40}\))?\W*$")


def is_requirement(text: str) -> bool:
    """A bare requirement line: a product and a version, a dependency pin ("Bump min kombu version to 5.2.1")."""
    return len(text or "") <= 90 and bool(_REQUIREMENT.match(text or ""))


_MINOR = re.compile(r"(?i)\bminor\b|\bother\b|\bmiscellaneous\b")
_OWN_NEWS = re.compile(r"(?i)\bwhat[’']?s\s+new\b|\bnew\s+features\b|\bmajor\b|\bhighlights?\b")


def section_of(headings: list[str] | tuple[str, ...], version: str | None) -> str:
    """The section kind of the innermost heading (below the version's own heading) that names one, else ``other``;
    a feature under the release's own "What's new in Acme 3.2" section (below "Acme 3.2 release notes") is one of the
    release's highlights."""
    below = _below_version(headings, version)
    kind = next((k for h in reversed(below) for k, rx in _SECTION_RES
                 if rx.search(h) and not (k == "internal" and _titled_feature(h))), "other")
    if kind in ("features", "behaviour", "other") and version and any(
            _OWN_NEWS.search(h) and names_version(h, version) for h in below) and not any(_MINOR.search(h) for h in below):
        return "highlights"
    return kind


_VERSION_TOKEN = re.compile(r"(?<![\w.])v?(\d+(?:\.\d+)*)(?![\w]|\.\d)")


_WEAK_INTERNAL = re.compile(r"(?i)\b(?:implementation|development)\b")


def _titled_feature(heading: str) -> bool:
    """A feature's title that calls it an implementation ("DataFrame interchange protocol implementation"): the words
    name internals only in a heading they open ("Implementation details", "Development")."""
    internal = dict(_SECTION_RES)["internal"]
    return (not internal.search(_WEAK_INTERNAL.sub(" ", heading))
            and not re.match(r"(?i)\W*(?:implementation|development)\b", heading))


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


def feature_title(headings: list[str] | tuple[str, ...], version: str | None) -> str | None:
    """The title of the feature a change-page entry's section is about: the innermost heading below the version's own
    when it names more than a kind or a container ("Enhancements", "Other deprecations", "Library" name none) and is
    not under a minor section ("Minor features"): "Enhancements → Styler", "Deprecations → Label-based integer
    slicing on a Series". None otherwise."""
    below = [_OUTLINE_NUMBER.sub("", h).strip() for h in _below_version(headings, version)]
    if len(below) < 2 or any(_MINOR.search(h) for h in below):
        return None
    parent, title = below[-2], below[-1]
    # the title sits under a heading that names its kind ("Enhancements", "Deprecations"), not under the generic
    # "Changes" over every component of a release ("Changes → Server", "→ Indexes": components, not features)
    if _GENERIC_PARENT.fullmatch(parent) or not any(rx.search(parent) for k, rx in _SECTION_RES if k in _TITLED_KINDS):
        return None
    rest = WS.sub(" ", _KIND_WORDS.sub(" ", title)).strip(" :-–—,.()[]/&+|")
    if not rest or _CONTAINER.match(rest) or len(title) > MAX_TITLE_CHARS:
        return None
    return title


MAX_TITLE_CHARS = 120
_TITLED_KINDS = frozenset({"highlights", "features", "breaking", "deprecations", "removals", "behaviour"})
_OUTLINE_NUMBER = re.compile(r"^\s*(?:[A-Z]\.)?\d+(?:\.\d+)*\.?\s+")  # "E.21.3.1. Server", "2.1 Styler"
_GENERIC_PARENT = re.compile(r"(?i)(?:other\s+|all\s+|detailed\s+)?(?:changes?|changed|updates?|improvements?|"
                             r"misc(?:ellaneous)?|notes?|list\s+of\s+changes)")

# -- areas ------------------------------------------------------------------------------------------------------

_CONTAINER = re.compile(r"^(?:(?:standard\s+)?(?:library|libraries|modules?|packages?|components?|apis?|"
                        r"extensions?|plugins?|features?|changes?|misc(?:ellaneous)?|general|others?|notes?|"
                        r"details|summary|highlights|items|updates?|bugs?|fixes|list|malfunctions?|problems?|known\s+issues|issues|"
                        r"defects?|corrections?)\s*)*$", re.I)
_KIND_WORDS = re.compile(
    r"(?i)\b(?:what[’']s|other|new|notable|improved|improvements?|updated?|updates|changes?|changed|additions?|added|summary|"
    r"highlights?|overview|porting|upgrading|upgrade|migrating|migration|guide|notes|release|"
    r"deprecat\w*|removals?|removed|pending|breaking|incompatib\w*|backwards?|bug\s*fix(?:es)?|fixes|fixed|"
    r"features?|related\s+to|enhancements?|behaviou?r|important|in|to|the|and|of|for|from|with|since|release|version|"
    r"v?\d+(?:\.(?:\d+|x))*)\b")
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
        rest = WS.sub(" ", _KIND_WORDS.sub(" ", h))
        rest = " ".join(w for w in rest.split() if w.lower().strip(":-–—,.()[]") not in product).strip(" :-–—,.()[]/&+|")
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
    if head.lower() in _KIND_OF_API:  # "Class: Blob" names a class, not an area called "Class"
        return None
    return head if 1 < len(head) <= MAX_AREA_CHARS and not head[:1].isdigit() else None


_KIND_OF_API = frozenset({"class", "interface", "function", "method", "static", "event", "property", "attribute", "module",
                          "enum", "record", "type", "struct", "trait", "macro", "constant", "variable", "exception",
                          "constructor", "field", "package", "namespace", "object", "option", "command", "hook"})


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
    # "use X rather than Y", "prefer X over Y", "use X in place of Y"
    re.compile(rf"\b{_V('use', 'prefer', 'call')}\s+{_NAME}\s+(?:rather\s+than|over|in\s+place\s+of)\s+{_NAME}"),
    # "Y was renamed to X", "Y has been renamed X"
    re.compile(rf"{_NAME}\s+(?:is|was|were|has\s+been|have\s+been)\s+renamed\s+(?:to\s+)?{_NAME}"),
)


def use_instead(text: str, api: str | None = None, *, subject: bool = True) -> tuple[str | None, str | None]:
    """(what to use now, what it replaces) when the entry states it; (None, None) otherwise. ``subject``: a bare
    "use X instead" may take the name the sentence spoke of before it as the replaced one (deprecations and
    removals; in other changes that name is rarely what X replaces)."""
    text = text or ""
    m = search(_INSTEAD[0], text)  # each pattern requires a word ("instead", "replaced"…): most entries are not searched
    if m:
        use = m.group(1) or m.group(2)
        # "use X instead" names no Y: the entry's subject, its API or the name the sentence spoke of before "use"
        old = m.group(3) or m.group(4) or api or (_subject_before(text[:m.start()], use) if subject else None)
        if use and old and use != old:
            return use.strip(), old.strip()
    for pattern, use_first in ((_INSTEAD[1], False), (_INSTEAD[2], True), (_INSTEAD[3], True), (_INSTEAD[4], False)):
        m = search(pattern, text)
        if m:
            first, second = m.group(1) or m.group(2), m.group(3) or m.group(4)
            use, old = (first, second) if use_first else (second, first)
            if use and old and use != old:
                return use.strip(), old.strip()
    return None, None


_NAME_RX = re.compile(_NAME)
_SUBJECT_WINDOW = 240  # how far before "use X instead" the replaced name is looked for


def _subject_before(before: str, use: str | None) -> str | None:
    """The name (as code) the text spoke of before "use X instead" — "`foo()` is deprecated; use `bar()` instead"
    replaces ``foo()`` — other than ``use``: the first one stated (a backticked name before a bare one), link targets
    (``](…/api/pandas.DataFrame.html)``) left out."""
    text = re.sub(r"\]\([^)\s]*\)", "]", before[-_SUBJECT_WINDOW:])
    found = [(m.group(1), m.group(2)) for m in _NAME_RX.finditer(text)]
    for quoted in (True, False):
        names = [q if quoted else b for q, b in found if (q if quoted else b) and (q if quoted else b) != use]
        if names:
            return names[0]
    return None