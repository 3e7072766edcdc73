"""The block a marker annotates: its text, anchor, API name and code element (a definition, a list item or
paragraph, the paragraph a bare marker follows, the section it opens, the API block a labelled field sits in)."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from skill3crawl.extract.releases import heading_text, label_marker
from skill3crawl.extract.versions.bounds import MAX_API_CHARS
from skill3crawl.extract.versions.phrases import _MARKER_RE, _SPHINX_KIND
from skill3crawl.extract.versions.tree import (
    _HEADINGS,
    _anchor_up,
    _block_of,
    _blocks_text,
    _cap,
    _classes,
    _clean,
    _definition_of,
    _dt_of,
    _heading_anchor,
    _heading_before,
    _is_title,
    _md,
    _own_wrapper,
    _plain,
    _tag,
)

_MD_HEADING = re.compile(r"(?m)(?:^|(?<=\s))#{1,6} ")


class _Block(NamedTuple):
    """What a change entry stands for: the text of the block a marker annotates, its anchor, the API it names and the
    element whose code blocks are the entry's."""

    text: str
    anchor: str | None
    api: str | None
    code_el: Any


def _intro(dd: Any, skip: Any) -> str:
    """The first paragraph of a definition's own text (not a nested definition or version note)."""
    if dd.text and dd.text.strip():
        return _clean(dd.text)
    for child in dd:
        tag = _tag(child)
        if tag == "dl" or child is skip:
            break
        if tag == "p":
            text = _md(child)
            if text and not _MARKER_RE.match(text):
                return text
    return ""


def _next_block_text(el: Any, enough: int = 120) -> str:
    """The text of the blocks after ``el`` up to the next heading: the first one, more while it is short."""
    nxt, size = el.getnext(), 0
    parts: list[str] = []
    while nxt is not None and size < enough and len(parts) < 3:
        if _tag(nxt) in _HEADINGS:
            break
        if _tag(nxt) and not any(k in _classes(nxt) for k in _SPHINX_KIND):
            text = _MD_HEADING.sub("", _md(nxt))
            if text and parts and (_MARKER_RE.search(text) or label_marker(text)):
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
        tag = _tag(prev)
        if tag in _HEADINGS:
            return None, "", True
        if tag and not any(k in _classes(prev) for k in _SPHINX_KIND) and tag not in ("span", "a", "script", "style"):
            text = _md(prev)
            if text:
                return prev, text, False
        prev = prev.getprevious()
    return None, "", False


def _is_subsection(el: Any) -> bool:
    """A wrapper that opens with a heading of its own (a "Parameters" or "Returns" part of an API's section)."""
    return _tag(el) in ("div", "section") and any(_tag(c) in _HEADINGS for c in el[:3])


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


def api_name(text: str | None, *, signature: bool = False) -> str | None:
    """The API name a signature, heading or id gives: ``class asyncio.TaskGroup`` → ``asyncio.TaskGroup``,
    ``isSealed()`` → ``isSealed``, "Class HexFormat" → ``HexFormat``. From a heading or an id (not a
    ``signature``) only a name that looks like code: called, qualified, or after a kind word."""
    text = _clean(text or "").lstrip("`*_ ")
    if not text:
        return None
    m = _API_NAME.match(text)
    if not m:
        return None
    name = m.group("name").rstrip("-:")
    if not name or len(name) > MAX_API_CHARS:
        return None
    if signature or m.group("call") or m.group("kinds") or _QUALIFIED.search(name):
        return name
    return None


def _dt_api(dt: Any) -> str | None:
    if dt is None:
        return None
    by_id = api_name(dt.get("id"))
    sig = api_name(_plain(dt), signature=True)
    if by_id and (not sig or len(by_id) >= len(sig)):
        return by_id
    return sig or by_id


def _heading_api(h: Any, text: str | None = None) -> str | None:
    if h is None:
        return None
    text = heading_text(h) if text is None else text
    if next(h.iter("code", "tt", "kbd"), None) is not None:
        return api_name(text, signature=True)
    return api_name(text) or api_name(h.get("id"))


def _annotated(marker_el: Any, marker_text: str, own_body: bool, stop: Any, heading: tuple[str, str | None, Any]
               ) -> _Block:
    """(text, anchor, api, code element) of the block a marker annotates (``heading``: the one it sits under)."""
    dd = _definition_of(marker_el, stop)
    if dd is not None:
        dt = _dt_of(dd)
        sig = _md(dt) if dt is not None else ""
        intro = _intro(dd, marker_el)
        if own_body:
            intro = _cap(intro, 400) if intro else ""
        text = " — ".join(p for p in (sig, " ".join(p for p in (intro, marker_text) if p)) if p)
        anchor = ("#" + dt.get("id")) if dt is not None and dt.get("id") else _anchor_up(dd, stop)
        return _Block(text, anchor or heading[1], _dt_api(dt), dd)
    block = _block_of(marker_el, stop)
    tag = _tag(block)
    if tag in _HEADINGS:
        htext = heading_text(block)
        text = " ".join(p for p in (htext, _next_block_text(block)) if p)
        return _Block(text, _heading_anchor(block) or heading[1], _heading_api(block, htext), block)
    if _is_title(block):
        container = block.getparent()
        container = container if container is not None else block
        return _Block(_md(container), _anchor_up(block, stop) or heading[1], None, container)
    if tag == "li" or tag in ("td", "th", "dt") or own_body:
        text = _md(block) if tag not in ("section", "article", "main") else marker_text
        api = None
        if tag == "dt":
            api = _dt_api(block)
            parent_dd = block.getnext()
            if parent_dd is not None and _tag(parent_dd) == "dd":
                text = " — ".join(p for p in (text, _intro(parent_dd, None)) if p)
        if marker_text and marker_text not in text:
            text = f"{text} {marker_text}".strip()
        return _Block(text, (block.get("id") and "#" + block.get("id")) or heading[1], api, block)
    # a bare marker: the paragraph it follows, or the section it opens
    unit = marker_el if _tag(marker_el) == "div" or block is stop or _tag(block) in ("section", "article", "main", "body") else block
    if unit is marker_el:
        unit = _own_wrapper(marker_el, stop)
    prev, prev_text, after_heading = _prev_block(unit)
    if prev is not None and not after_heading and _is_subsection(prev):
        # a marker closing an API section after its sub-sections ("Parameters", "Returns"): the section it closes
        return _api_block(marker_el, stop, ("", None))
    if prev_text and not after_heading:
        return _Block(f"{prev_text} {marker_text}", heading[1], None, prev)
    nxt = _next_block_text(unit)
    api = _heading_api(heading[2], heading[0]) if after_heading and heading[2] is not None else None
    return _Block(" ".join(p for p in (heading[0], marker_text, nxt) if p), heading[1], api, unit)


def _api_block(el: Any, stop: Any, page_heading: tuple[str, Any]) -> _Block:
    """(text, anchor, api, code element) of the API block a labelled field (``Since: 17``) sits in: the
    definition, the section or article with its own heading, the heading it follows, else the page's own API."""
    cur = el.getparent()
    near = _heading_before(el, stop)
    while cur is not None and cur is not stop:
        tag = _tag(cur)
        if near is not None and cur in near.iterancestors() and near is not next((c for c in cur[:4] if _tag(c) in _HEADINGS), None):
            break  # flat markup: a nearer heading inside this container (a member's title) is the block's heading
        if tag == "dd":
            dt = _dt_of(cur)
            if dt is not None:
                text = " — ".join(p for p in (_md(dt), _cap(_intro(cur, el), 400)) if p)
                return _Block(text, ("#" + dt.get("id")) if dt.get("id") else _anchor_up(cur, stop), _dt_api(dt), cur)
        if tag in ("section", "article", "div", "li", "details"):
            h = next((c for c in cur[:4] if _tag(c) in _HEADINGS), None)
            if h is not None:
                htext = heading_text(h)
                text = " — ".join(p for p in (htext, _blocks_text(cur, el)) if p)
                api = api_name(cur.get("id")) or _heading_api(h, htext)
                return _Block(text, ("#" + cur.get("id")) if cur.get("id") else _heading_anchor(h), api, cur)
        cur = cur.getparent()
    h = near
    if h is not None and h is not page_heading[1]:  # flat markup: the heading the field follows, and the blocks between
        htext = heading_text(h)
        chain = set(el.iterancestors())
        parts: list[str] = []
        for sib in h.itersiblings():
            if sib is el or _tag(sib) in _HEADINGS:
                break
            if sib in chain:
                parts.append(_blocks_text(sib, el, 300))
                break
            parts.append(_md(sib))
            if sum(len(p) for p in parts) >= 400:
                break
        text = " — ".join(p for p in (htext, _cap(" ".join(p for p in parts if p), 500)) if p)
        return _Block(text, _heading_anchor(h), _heading_api(h, htext), h)
    container = el.getparent()
    htext, h = page_heading
    body = _blocks_text(container, el) if container is not None else ""
    return _Block(" — ".join(p for p in (htext, body) if p), None, _heading_api(h, htext) if h is not None else None, container)
