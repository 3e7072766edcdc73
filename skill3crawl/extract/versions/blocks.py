"""The block a marker annotates: its text, anchor, API name and code element (a definition, a list item or
paragraph, the paragraph a bare marker follows, the section it opens, the API block a labelled field sits in)."""

from __future__ import annotations

import re
from typing import Any, NamedTuple
from urllib.parse import unquote

from skill3crawl.extract.releases import heading_text, label_marker
from skill3crawl.extract.versions.bounds import MAX_API_CHARS
from skill3crawl.extract.versions.phrases import MARKER_RE, SELF_SUBJECT, SPHINX_KIND
from skill3crawl.extract.versions.tree import (
    HEADINGS,
    anchor_up,
    block_of,
    blocks_text,
    cap,
    classes,
    clean,
    definition_of,
    dt_of,
    heading_anchor,
    heading_before,
    is_title,
    md,
    own_wrapper,
    plain_text,
    tag_of,
)

_MD_HEADING = re.compile(r"(?m)(?:^|(?<=\s))#{1,6} ")


class Block(NamedTuple):
    """What a change entry stands for: the text of the block a marker annotates, its anchor, the API it names and the
    element whose code blocks are the entry's."""

    text: str
    anchor: str | None
    api: str | None
    code_el: Any


def _intro(dd: Any, skip: Any) -> str:
    """The first paragraph of a definition's own text (not a nested definition or version note)."""
    if dd.text and dd.text.strip():
        return clean(dd.text)
    for child in dd:
        tag = tag_of(child)
        if tag == "dl" or child is skip:
            break
        if tag == "p":
            text = md(child)
            if text and not MARKER_RE.match(text):
                return text
    return ""


def _next_block_text(el: Any, enough: int = 120) -> str:
    """The text of the blocks after ``el`` up to the next heading: the first one, more while it is short."""
    nxt, size = el.getnext(), 0
    parts: list[str] = []
    while nxt is not None and size < enough and len(parts) < 3:
        if tag_of(nxt) in HEADINGS:
            break
        if tag_of(nxt) and not any(k in classes(nxt) for k in SPHINX_KIND):
            text = _MD_HEADING.sub("", md(nxt))
            if text and parts and (MARKER_RE.search(text) or label_marker(text)):
                break  # the next block is another marker's
            if text:
                parts.append(text)
                size += len(text)
        nxt = nxt.getnext()
    return " ".join(parts)


def _prev_block(el: Any) -> tuple[Any, str, bool]:
    """(the block ``el`` follows, its text, whether ``el`` directly follows a heading)."""
    prev = el.getprevious()
    while prev is not None:
        tag = tag_of(prev)
        if tag in HEADINGS:
            return None, "", True
        if tag and not any(k in classes(prev) for k in SPHINX_KIND) and tag not in ("span", "a", "script", "style"):
            text = md(prev)
            if text:
                return prev, text, False
        prev = prev.getprevious()
    return None, "", False


MAX_DEFINITION_BLOCKS = 8  # blocks a note may follow its definition by (its description, its examples)


def _self_link(el: Any) -> tuple[str, str] | None:
    """(anchor, name) of the definition ``el`` holds: an anchor (``<a name>`` or ``<a id>``) and a link to it, the
    defined name being the link's text or else the anchor's own ("<a name='def.x'></a><a href='#def.x'>char-step</a>",
    "<a id='v:foo' class='def'>foo</a> … <a href='#v:foo'>#</a>"), as reference generators mark what a box defines;
    None when it holds none."""
    anchors = {key: a for a in el.iter("a") if (key := a.get("name") or a.get("id"))}
    if not anchors:
        return None
    for a in el.iter("a"):
        href = a.get("href") or ""
        target = anchors.get(unquote(href[1:])) if href.startswith("#") else None
        if target is None:
            continue
        for candidate in (a, target):
            name = clean(plain_text(candidate))
            if name and len(name) <= MAX_API_CHARS and any(c.isalnum() for c in name):
                return unquote(href[1:]), name
    return None


MAX_DEFINITION_LEVELS = 2  # containers a note may sit in below its definition's level (a doc block after its signature)


def _definition_before(unit: Any) -> Block | None:
    """A note (a bare marker) that follows a definition in flat markup — the definition's box, its description, its
    examples, then "Added in version 8.6.0.1 …" — annotates that definition: its box and what follows it. The note may
    sit in a container after the box ("<p class=src>foo :: Int</p><div class=doc>…<p>Since: 4.15</p></div>")."""
    parts: list[str] = []
    cur, prev = unit, unit.getprevious()
    seen = levels = 0
    while seen < MAX_DEFINITION_BLOCKS:
        if prev is None:
            parent = cur.getparent()
            if levels >= MAX_DEFINITION_LEVELS or parent is None or tag_of(parent) in ("body", "main", "article", "section"):
                return None
            levels += 1
            cur, prev = parent, parent.getprevious()
            continue
        tag = tag_of(prev)
        if tag in HEADINGS:
            return None
        text = md(prev) if tag else ""
        if text:
            if MARKER_RE.search(text):
                return None  # another marker's block: the definition is not this note's
            seen += 1
            found = _self_link(prev)
            if found is not None:
                body = cap(" ".join(reversed(parts)), 500)
                box = cap(clean(plain_text(prev)), 300)  # a signature box (often a table) as the words it shows
                return Block(" — ".join(p for p in (box, body) if p), "#" + found[0], found[1], prev)
            parts.append(text)
        prev = prev.getprevious()
    return None


def _annotates_member(unit: Any, h: Any) -> bool:
    """A bare marker ``unit`` under ``h``, a heading that names an API (a member's signature), that annotates the whole
    member: its sentence's subject is the member itself ("This function was introduced in Qt 5.15."), or it is the
    section's last block (nothing but comments and empty elements follow it before the next heading or the end of its
    container)."""
    api = heading_api(h) if h is not None else None
    if api is None or not (_QUALIFIED.search(api) or "(" in heading_text(h)):
        return False  # a section's title ("Description [src]"), not a member's name
    if SELF_SUBJECT.match(MARKER_RE.sub("", plain_text(unit)).strip(" .:;,-–—()[]")):
        return True
    for sib in unit.itersiblings():
        tag = tag_of(sib)
        if tag in HEADINGS:
            return True
        if tag and (md(sib) or tag in ("pre", "table", "ul", "ol", "dl")):
            return False
    return True


def _is_subsection(el: Any) -> bool:
    """A wrapper that opens with a heading of its own (a "Parameters" or "Returns" part of an API's section)."""
    return tag_of(el) in ("div", "section") and any(tag_of(c) in HEADINGS for c in el[:3])


_KIND_WORDS = (r"(?:(?:abstract|async|static|final|public|protected|private|sealed|non-sealed|default|native|synchronized|"
               r"pub(?:\([\w:]+\))?|extern|unsafe|inline|virtual|override|open|internal|suspend|operator|mut|"
               r"const|readonly|export|declare|class|interface|enum|record|annotation|module|package|namespace|struct|"
               r"union|trait|impl|type|typedef|function|func|fn|def|method|property|attribute|field|constructor|exception|"
               r"macro|variable|var|let|object|coroutine|awaitable|decorator|data|opcode|command|directive|option|envvar|"
               r"event|hook|signal|filter|role|element|component|resource|endpoint)\s+)")
_API_NAME = re.compile(
    rf"(?i)^(?P<kinds>{_KIND_WORDS}*)(?-i:(?P<name>(?:-{{1,2}}[A-Za-z]|[A-Za-z_$@])[\w$@-]*(?:(?:\.|::|:|#|->)[A-Za-z_$][\w$-]*)*))(?P<call>\s*[(<\[])?"
)
_QUALIFIED = re.compile(r"\.|::|:|#|->|_|[a-z][A-Z]")
# A C-family declaration that opens with its return type ("bool QFile::moveToTrash()", "[static] QStringList
# QProcess::splitCommand(QStringView command)", "const char *g_get_name (void)"): the scoped name before the "(".
_DECLARED = re.compile(
    r"^(?:\[[\w\s]{1,30}\]\s*)*(?:template\s*<[^()]{0,80}?>\s*)?"
    r"(?:(?:const|unsigned|signed|static|virtual|inline|constexpr|explicit|volatile|struct|enum|class|typename)\s+)*"
    r"[A-Za-z_][\w:]*(?:<[^()]{0,80}?>)?(?:\s+const)?\s*[*&]*\s+[*&]*"
    r"(?P<name>[A-Za-z_~][\w~]*(?:::(?:operator\s*(?:\(\)|\[\]|[^\w\s(]{1,3})|[A-Za-z_~][\w~]*))+)\s*\("
)


def api_name(text: str | None, *, signature: bool = False) -> str | None:
    """The API name a signature, heading or id gives: ``class asyncio.TaskGroup`` → ``asyncio.TaskGroup``,
    ``isSealed()`` → ``isSealed``, "Class HexFormat" → ``HexFormat``. From a heading or an id (not a
    ``signature``) only a name that looks like code: called, qualified, or after a kind word."""
    text = clean(text or "").lstrip("`*_ ")
    if not text:
        return None
    declared = _DECLARED.match(text)
    if declared and len(declared.group("name")) <= MAX_API_CHARS:
        return declared.group("name")
    m = _API_NAME.match(text)
    if not m:
        return None
    name = m.group("name").rstrip("-:")
    if not name or len(name) > MAX_API_CHARS:
        return None
    if signature or m.group("call") or m.group("kinds") or _QUALIFIED.search(name):
        return name
    return None


def dt_api(dt: Any) -> str | None:
    if dt is None:
        return None
    by_id = api_name(dt.get("id"))
    sig = api_name(plain_text(dt), signature=True)
    if by_id and (not sig or len(by_id) >= len(sig)):
        return by_id
    return sig or by_id


def heading_api(h: Any, text: str | None = None) -> str | None:
    if h is None:
        return None
    text = heading_text(h) if text is None else text
    if next(h.iter("code", "tt", "kbd"), None) is not None:
        return api_name(text, signature=True)
    return api_name(text) or api_name(h.get("id"))


def _own_block(block: Any, tag: str, marker_text: str, fallback: str | None) -> Block:
    """The block a marker with words of its own sits in (a list item, a cell, a term, a paragraph)."""
    text = md(block) if tag not in ("section", "article", "main") else marker_text
    api = None
    if tag == "dt":
        api = dt_api(block)
        parent_dd = block.getnext()
        if parent_dd is not None and tag_of(parent_dd) == "dd":
            text = " — ".join(p for p in (text, _intro(parent_dd, None)) if p)
    if marker_text and marker_text not in text:
        text = f"{text} {marker_text}".strip()
    anchor = (block.get("id") and "#" + block.get("id")) or fallback  # else the heading's anchor
    if api is None and tag in ("p", "div") and MARKER_RE.match(text):
        # a history note ("Changed in version 8.6.0.9: Added the exact-scopes? argument.") after a definition:
        # the change is the note's own text, about what the definition defines
        defined = _definition_before(block)
        if defined is not None:
            api, anchor = defined.api, defined.anchor
    return Block(text, anchor, api, block)


def annotated_block(marker_el: Any, marker_text: str, own_body: bool, stop: Any, heading: tuple[str, str | None, Any]
               ) -> Block:
    """(text, anchor, api, code element) of the block a marker annotates (``heading``: the one it sits under)."""
    dd = definition_of(marker_el, stop)
    if dd is not None:
        dt = dt_of(dd)
        sig = md(dt) if dt is not None else ""
        intro = _intro(dd, marker_el)
        if own_body:
            intro = cap(intro, 400) if intro else ""
        text = " — ".join(p for p in (sig, " ".join(p for p in (intro, marker_text) if p)) if p)
        anchor = ("#" + dt.get("id")) if dt is not None and dt.get("id") else anchor_up(dd, stop)
        return Block(text, anchor or heading[1], dt_api(dt), dd)
    block = block_of(marker_el, stop)
    tag = tag_of(block)
    if tag in HEADINGS:
        htext = heading_text(block)
        text = " ".join(p for p in (htext, _next_block_text(block)) if p)
        return Block(text, heading_anchor(block) or heading[1], heading_api(block, htext), block)
    if is_title(block):
        container = block.getparent()
        container = container if container is not None else block
        return Block(md(container), anchor_up(block, stop) or heading[1], None, container)
    if tag == "li" or tag in ("td", "th", "dt") or own_body:
        return _own_block(block, tag, marker_text, heading[1])
    # a bare marker: the paragraph it follows, or the section it opens
    unit = marker_el if tag_of(marker_el) == "div" or block is stop or tag_of(block) in ("section", "article", "main", "body") else block
    if unit is marker_el:
        unit = own_wrapper(marker_el, stop)
    prev, prev_text, after_heading = _prev_block(unit)
    if prev is not None and not after_heading and (_is_subsection(prev) or _annotates_member(unit, heading[2])):
        # a marker closing an API section after its sub-sections ("Parameters", "Returns") or as the section's last
        # block ("This function was introduced in Qt 5.15." after a member's description): the section it closes
        return api_block(marker_el, stop, ("", None))
    if prev_text and not after_heading:
        defined = _definition_before(unit)
        if defined is not None:
            return defined
        return Block(f"{prev_text} {marker_text}", heading[1], None, prev)
    nxt = _next_block_text(unit)
    api = heading_api(heading[2], heading[0]) if after_heading and heading[2] is not None else None
    return Block(" ".join(p for p in (heading[0], marker_text, nxt) if p), heading[1], api, unit)


def api_block(el: Any, stop: Any, page_heading: tuple[str, Any]) -> Block:
    """(text, anchor, api, code element) of the API block a labelled field (``Since: 17``) sits in: the
    definition, the section or article with its own heading, the heading it follows, else the page's own API."""
    cur = el.getparent()
    near = heading_before(el, stop)
    while cur is not None and cur is not stop:
        tag = tag_of(cur)
        if near is not None and cur in near.iterancestors() and near is not next((c for c in cur[:4] if tag_of(c) in HEADINGS), None):
            break  # flat markup: a nearer heading inside this container (a member's title) is the block's heading
        if tag == "dd":
            dt = dt_of(cur)
            if dt is not None:
                text = " — ".join(p for p in (md(dt), cap(_intro(cur, el), 400)) if p)
                return Block(text, ("#" + dt.get("id")) if dt.get("id") else anchor_up(cur, stop), dt_api(dt), cur)
        if tag in ("section", "article", "div", "li", "details"):
            h = next((c for c in cur[:4] if tag_of(c) in HEADINGS), None)
            if h is not None:
                htext = heading_text(h)
                text = " — ".join(p for p in (htext, blocks_text(cur, el, after=h)) if p)
                api = api_name(cur.get("id")) or heading_api(h, htext)
                return Block(text, ("#" + cur.get("id")) if cur.get("id") else heading_anchor(h), api, cur)
        cur = cur.getparent()
    h = near
    if h is not None and h is not page_heading[1]:  # flat markup: the heading the field follows, and the blocks between
        htext = heading_text(h)
        chain = set(el.iterancestors())
        parts: list[str] = []
        for sib in h.itersiblings():
            if sib is el or tag_of(sib) in HEADINGS:
                break
            if sib in chain:
                parts.append(blocks_text(sib, el, 300))
                break
            parts.append(md(sib))
            if sum(len(p) for p in parts) >= 400:
                break
        text = " — ".join(p for p in (htext, cap(" ".join(p for p in parts if p), 500)) if p)
        return Block(text, heading_anchor(h), heading_api(h, htext), h)
    container = el.getparent()
    htext, h = page_heading
    body = blocks_text(container, el) if container is not None else ""
    return Block(" — ".join(p for p in (htext, body) if p), None, heading_api(h, htext) if h is not None else None, container)
