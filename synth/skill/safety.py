"""What a SKILL.md must not carry from its sources: links with script-running schemes and raw HTML.

Agents load the skill as markdown, and viewers render it: a ``[x](javascript:…)`` link, a
``<script>`` block or an ``onerror=`` attribute copied from a scraped page is live there, though the
preview (``index.html``) escapes it. :func:`neutralize` (a post-processor step) keeps every fenced code
block and inline code span byte for byte and, everywhere else:

- a link or image whose target has a dangerous scheme (``javascript:``, ``vbscript:``, ``data:``,
  ``file:``, also spelled with entities, case, whitespace or control characters) keeps its text only;
  a reference definition or an autolink with one is dropped;
- ``<script>``, ``<style>``, ``<iframe>``, ``<object>``, ``<embed>``, ``<template>``, ``<noscript>``,
  ``<textarea>``, ``<svg>``, ``<math>`` elements go with their content, HTML comments go, and every other
  tag of an HTML element (``<div onclick=…>``, ``<img src=x onerror=…>``, ``<a href=…>``) is removed with
  its attributes, its text kept. Text that only looks like a tag (``List<String>``, ``<T>``, an autolink
  ``<https://…>``) is not HTML and stays.
"""

from __future__ import annotations

import html
import re

from synth.skill.markdown import fence_state

DANGEROUS_SCHEMES = ("javascript", "vbscript", "data", "file")

# Elements whose content is code or markup, never prose: removed with it.
_RAW_ELEMENTS = ("script", "style", "iframe", "object", "embed", "template", "noscript", "textarea", "svg", "math",
                 "frameset", "applet")
# The HTML elements (WHATWG) — a tag of one of these outside code is markup, not text.
_HTML_ELEMENTS = frozenset("""
a abbr address area article aside audio b base bdi bdo blockquote body br button canvas caption cite code col colgroup
data datalist dd del details dfn dialog div dl dt em fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 head
header hgroup hr html i img input ins kbd label legend li link main map mark menu meta meter nav ol optgroup option
output p param picture pre progress q rp rt ruby s samp search section select slot small source span strong sub
summary sup table tbody td tfoot th thead time title tr track u ul var video wbr frame font center marquee blink
base basefont isindex keygen portal
""".split()) | frozenset(_RAW_ELEMENTS)

_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_RAW = re.compile(r"<(?P<tag>" + "|".join(_RAW_ELEMENTS) + r")\b[^>]*>.*?(?:</(?P=tag)\s*>|\Z)", re.S | re.I)
_RAW_LONE = re.compile(r"</?(?:" + "|".join(_RAW_ELEMENTS) + r")\b[^>]*>", re.I)
# (a "<" escaped by a backslash is text: markdown shows "\<video>" as "<video>", which a quote of "the <video> tag" is)
_TAG = re.compile(r"(?<!(?<!\\)\\)</?(?P<name>[A-Za-z][A-Za-z0-9-]*)(?=[\s/>])(?:[^<>\"']|\"[^\"]*\"|'[^']*')*>")
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1)(?!\n[ \t]*\n).)+?\1", re.S)  # a span never crosses a blank line
_CONTROL = re.compile(r"[\x00-\x20\x7f-\x9f]+")


def dangerous_target(target: str) -> bool:
    """Whether a link target runs something when followed (after entity decoding; case, whitespace and control
    characters ignored, as browsers do)."""
    text = _CONTROL.sub("", html.unescape(target.strip().strip("<>")).replace("\\", "")).lower()
    scheme = text.split(":", 1)[0] if ":" in text else ""
    return scheme in DANGEROUS_SCHEMES


def _close_paren(text: str, start: int) -> int | None:
    """Index just past the ``)`` that closes the ``(`` at ``start`` (nested parentheses balanced)."""
    depth = 0
    i = start
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        elif ch == "\n" and text[i - 1:i] == "\n":
            return None
        i += 1
    return None


_LINK_START = re.compile(r"(?P<bang>!?)\[(?P<text>[^\[\]\n]*)\]\(")
_REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(?P<target><[^>]*>|\S+).*$", re.M)
_AUTOLINK = re.compile(r"<(?P<target>[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>")


def _prose_links(text: str, fixes: list[str]) -> str:
    out: list[str] = []
    pos = 0
    for m in _LINK_START.finditer(text):
        if m.start() < pos:
            continue
        end = _close_paren(text, m.end() - 1)
        if end is None:
            continue
        target = text[m.end():end - 1].strip()
        target = re.split(r"\s+(?=[\"'(])", target, maxsplit=1)[0]  # a title after the destination
        if not dangerous_target(target):
            continue
        out.append(text[pos:m.start()])
        out.append(m.group("text"))
        fixes.append(f"removed a {'n image' if m.group('bang') else ' link'} to a {target.split(':', 1)[0].strip('<').lower()}: URL")
        pos = end
    out.append(text[pos:])
    text = "".join(out)

    def ref(m: re.Match) -> str:
        if dangerous_target(m.group("target")):
            fixes.append("removed a link definition with a dangerous scheme")
            return ""
        return m.group(0)

    def auto(m: re.Match) -> str:
        if dangerous_target(m.group("target")):
            fixes.append("removed an autolink with a dangerous scheme")
            return m.group("target").split(":", 1)[0]
        return m.group(0)

    return _AUTOLINK.sub(auto, _REF_DEF.sub(ref, text))


def _prose_html(text: str, fixes: list[str]) -> str:
    before = text
    text = _COMMENT.sub("", text)
    text = _RAW.sub("", text)
    text = _RAW_LONE.sub("", text)

    def tag(m: re.Match) -> str:
        name = m.group("name").lower()
        if name in ("sup", "sub") and not m.group(0).startswith("</"):
            return " "  # a superscript reads as a word of its own: "award-winning<sup>1</sup>" → "award-winning 1"
        return "" if name in _HTML_ELEMENTS else m.group(0)

    text = _TAG.sub(tag, text)
    if text != before:
        fixes.append("removed raw HTML (tags, comments, script/style blocks) outside code")
    return text


def _outside_code(prose: str, fixes: list[str]) -> str:
    """Neutralize a run of non-fenced lines, leaving its inline code spans as they are."""
    parts: list[str] = []
    pos = 0
    spans = []
    for m in _INLINE_CODE.finditer(prose):
        spans.append((m.start(), m.end()))
    # Links and HTML may span inline code (``[`x`](javascript:…)``): work on the text with the code
    # spans replaced by placeholders, then put them back.
    codes: list[str] = []
    for start, end in spans:
        parts.append(prose[pos:start])
        parts.append(f"\x00{len(codes)}\x00")
        codes.append(prose[start:end])
        pos = end
    parts.append(prose[pos:])
    masked = "".join(parts)
    masked = _prose_html(_prose_links(masked, fixes), fixes)
    return re.sub(r"\x00(\d+)\x00", lambda m: codes[int(m.group(1))], masked)


def neutralize(body: str) -> tuple[str, list[str]]:
    """The body without dangerous links and raw HTML outside code (see the module docstring); returns
    (body, fixes). Fenced code blocks are kept byte for byte."""
    if "<" not in body and ":" not in body and "&" not in body:  # a scheme may be spelled with entities (&colon;)
        return body, []
    body = body.replace("\x00", "")
    lines = body.split("\n")
    fenced = fence_state(body)
    fixes: list[str] = []
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            out.append(_outside_code("\n".join(run), fixes))
            run.clear()

    for line, inside in zip(lines, fenced):
        if inside:
            flush()
            out.append(line)
        else:
            run.append(line)
    flush()
    new = "\n".join(out)
    if new == body:
        return body, []
    seen: list[str] = []
    for f in fixes:
        if f not in seen:
            seen.append(f)
    return new, seen
