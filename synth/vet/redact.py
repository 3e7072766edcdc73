r"""Secret redaction, in memory, before any model sees a source.

detect-secrets' own plugins find the secrets (its named-token detectors and
its keyword detector, with its templating/indirect-reference filters); a few
patterns it lacks or matches too narrowly are added here (unquoted AWS secret
keys, GitHub tokens of any length, fine-grained ``github_pat_`` tokens, modern
OpenAI/Anthropic keys, Stripe keys of any length, AWS secret keys named in
prose, HTTP ``Authorization`` headers, credentials in any ``scheme://user:pw@``
URL, whole private-key blocks, ``api_key = ...`` style assignments). Its
high-entropy and public-IP plugins are off: on prose they flag ordinary words,
hashes and addresses.

Text that went through markdown rendering carries backslash escapes
(``ghp\_…``, ``AWS\_SECRET\_ACCESS\_KEY=…``): every line is also scanned with
those escapes removed, and what is found there is redacted in the escaped text.

Each secret is replaced by ``[REDACTED:<kind>]``; inside a URL by ``REDACTED``
(the whole ``user:password`` part when the secret is in it), so a redacted
URL is still a URL. Only counts leave this module, never the secret.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable, Mapping, Pattern, Sequence

from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
from detect_secrets.filters import heuristic
from detect_secrets.plugins import keyword
from detect_secrets.plugins.base import BasePlugin, RegexBasedDetector

from synth.core.literals import Runs, folded_text, lowercase_gate, may_match
from synth.vet.prefixes import PREFIXED as _PREFIXED
from synth.vet.values import GENERIC, MARK, is_placeholder, valid

if TYPE_CHECKING:
    from synth.evidence.item import SourceItem

_SKIPPED_PLUGINS = frozenset({"Base64HighEntropyString", "HexHighEntropyString", "IPPublicDetector"})

# Patterns detect-secrets lacks or matches too narrowly. (kind, regex, group)
_EXTRA: tuple[tuple[str, Pattern[str], int], ...] = (
    ("aws-secret-key", re.compile(r"(?i)aws_?secret_?(?:access_?)?key\s*[=:]\s*[\"']?([A-Za-z0-9/+=]{30,})"), 1),
    ("github-token", re.compile(r"\b(gh[pousr]_[A-Za-z0-9_]{20,255})\b"), 1),
    ("github-token", re.compile(r"\b(github_pat_[A-Za-z0-9_]{22,255})\b"), 1),
    # an AWS-style secret key named in prose ("with secret …", "AWS secret: …", after its key id): 40
    # characters of base64 (30-64 accepted), upper and lower case and digits, near the words
    (
        "aws-secret-key",
        re.compile(r"(?i)(?:\baws|secret|\b(?:AKIA|ASIA)[0-9A-Z]{16})[^\n]{0,60}?(?<![A-Za-z0-9/+=])([A-Za-z0-9/+]{30,64})(?![A-Za-z0-9/+=])"),
        1,
    ),
    ("stripe-key", re.compile(r"\b((?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,255})\b"), 1),
    ("slack-token", re.compile(r"\b(xox[abposr]-[A-Za-z0-9-]{10,})"), 1),
    (
        "authorization-header",
        re.compile(r"(?i)\b(?:proxy-)?authorization\b[\"']?\s*[:=]\s*[\"']?(basic|bearer|token|digest)\s+([A-Za-z0-9+/=._~-]{8,})"),
        2,
    ),
    # credentials in any scheme's URL, the user name may be empty (redis://:pw@host)
    ("url-credentials", re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://[^\s/?#@:\[\]]*:([^\s/?#@\[\]]{3,})@(?=[\w\[])"), 1),
    ("openai-key", re.compile(r"\b(sk-(?:proj-|svcacct-|ant-[a-z0-9]+-)?[A-Za-z0-9_-]{32,})"), 1),
    ("google-api-key", re.compile(r"\b(AIza[0-9A-Za-z_-]{35})"), 1),
    # prefixed tokens detect-secrets does not know: Hugging Face, npm, DigitalOcean, Shopify, Twilio (any case)
    ("huggingface-token", re.compile(r"\b(hf_[A-Za-z0-9]{30,})\b"), 1),
    ("npm-token", re.compile(r"\b(npm_[A-Za-z0-9]{36})\b"), 1),
    ("digitalocean-token", re.compile(r"\b(do[por]_v1_[a-f0-9]{64})\b"), 1),
    ("shopify-token", re.compile(r"\b(shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})\b"), 1),
    ("twilio-key", re.compile(r"\b(SK[0-9a-fA-F]{32})\b"), 1),
    ("json-web-token", re.compile(r"\b(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)"), 1),
    (
        "secret-assignment",
        re.compile(
            r"(?i)\b(?:api[_-]?key|apikey|secret[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret"
            r"|private[_-]?token|password|passwd)\b[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9_\-./+=]{16,})"
        ),
        1,
    ),
)
_EXTRA = _EXTRA + tuple(
    (kind, re.compile(rf"(?<![A-Za-z0-9_])({body})(?![A-Za-z0-9_])"), 1) for kind, body in _PREFIXED
) + (("generic-secret", GENERIC, 2),)
_PRIVATE_KEY_BLOCK = re.compile(
    r"-----BEGIN[ A-Z0-9_-]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[ A-Z0-9_-]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    re.DOTALL,
)
# markdown's backslash escapes: a backslash before ASCII punctuation
_MD_ESCAPABLE = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
# a URL in text (ends at white space, quotes, angle brackets and markdown's closing parenthesis)
_URL = re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://[^\s<>\"'`()]+")
URL_MARK = MARK
_GENERIC_KINDS = frozenset({"generic-secret", "secret-assignment", "secret-keyword", "authorization-header", "url-credentials", "basic-auth-credentials"})

# language of a fenced block → a file name detect-secrets' keyword detector understands
_LANG_FILENAME = {
    "python": "x.py", "py": "x.py", "yaml": "x.yaml", "yml": "x.yaml", "go": "x.go", "java": "x.java",
    "javascript": "x.js", "js": "x.js", "ts": "x.js", "typescript": "x.js", "php": "x.php", "swift": "x.swift",
    "terraform": "x.tf", "hcl": "x.tf", "csharp": "x.cs", "cs": "x.cs", "c": "x.c", "cpp": "x.cpp",
    "ini": "x.ini", "toml": "x.toml", "properties": "x.properties", "conf": "x.conf", "cfg": "x.cfg",
}


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    kind: str


def _slug(secret_type: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", secret_type.lower()).strip("-")


# what can match in a line: regex detectors as (kind, patterns); skill3's extra patterns as (kind, pattern, the group
# that is the secret); the other plugins as (kind, plugin, gate)
_Detectors = Sequence[tuple[str, Sequence[Pattern[str]]]]
_Extras = Sequence[tuple[str, Pattern[str], int]]
_Plugins = Sequence[tuple[str, BasePlugin, Pattern[str] | None]]


@lru_cache(maxsize=1)
def _plugins() -> tuple[BasePlugin, ...]:
    classes: Mapping[str, type[BasePlugin]] = get_mapping_from_secret_type_to_class()
    return tuple(cls() for cls in classes.values() if cls.__name__ not in _SKIPPED_PLUGINS)


def _scoped(p: Pattern[str]) -> str:
    """A pattern with its own flags, to be one alternative of a combined pattern."""
    flags = "".join(f for f, bit in (("i", re.IGNORECASE), ("m", re.MULTILINE), ("s", re.DOTALL), ("x", re.VERBOSE)) if p.flags & bit)
    body = re.sub(r"^\(\?[aiLmsux]+\)", "", p.pattern)  # leading global flags: already in p.flags
    return f"(?{flags}:{body})" if flags else f"(?:{body})"


@lru_cache(maxsize=1)
def _detectors() -> tuple[list[tuple[str, list[Pattern[str]]]], list[tuple[str, BasePlugin, Pattern[str] | None]], Pattern[str]]:
    """The detectors, prepared once: regex detectors as (kind, patterns); other plugins as (kind, plugin,
    gate); and one pattern that matches a line wherever any regex detector's or extra pattern matches it
    (a line it does not match needs none of them). A gate is a pattern every match of that plugin
    contains (the keyword detector's keywords), or None."""
    regex: list[tuple[str, list[Pattern[str]]]] = []
    other: list[tuple[str, BasePlugin, Pattern[str] | None]] = []
    for plugin in _plugins():
        kind = _slug(plugin.secret_type)
        if isinstance(plugin, RegexBasedDetector):
            regex.append((kind, list(plugin.denylist)))
        else:
            gate = re.compile("|".join(keyword.DENYLIST), re.IGNORECASE) if isinstance(plugin, keyword.KeywordDetector) else None
            other.append((kind, plugin, gate))
    patterns = [p for _, ps in regex for p in ps] + [p for _, p, _ in _EXTRA]
    return regex, other, re.compile("|".join(_scoped(p) for p in patterns))


def _value_span(match: re.Match[str]) -> tuple[int, int]:
    """The secret inside a detector match: its last group when that is a real
    value (≥ 8 chars), else the whole match (e.g. GitHub's ``(ghp)_...``)."""
    for index in range(match.re.groups, 0, -1):
        if match.group(index) and len(match.group(index)) >= 8:
            return match.span(index)
    return match.span(0)


def _unescaped(line: str) -> tuple[str, list[int]] | None:
    """``line`` with markdown's backslash escapes removed, and each character's index in ``line``;
    None when there is none."""
    if "\\" not in line:
        return None
    chars: list[str] = []
    index: list[int] = []
    i = 0
    while i < len(line):
        if line[i] == "\\" and i + 1 < len(line) and line[i + 1] in _MD_ESCAPABLE:
            i += 1
        chars.append(line[i])
        index.append(i)
        i += 1
    return ("".join(chars), index) if len(chars) < len(line) else None


_MD_ESCAPE = re.compile("\\\\([" + re.escape("".join(sorted(_MD_ESCAPABLE))) + "])")


def _unescaped_text(text: str) -> str | None:
    """``_unescaped(text)[0]`` in one pattern pass (no index)."""
    if "\\" not in text:
        return None
    out, n = _MD_ESCAPE.subn(r"\1", text)
    return out if n else None


def _line_spans(line: str, filename: str, scope: _Scope | None = None) -> list[_Span]:
    """Secrets in one line; a line with markdown escapes is read with them removed (a secret has no
    backslash before punctuation of its own) and what is found is mapped back onto the escaped text."""
    view = _unescaped(line)
    if view is None:
        return _raw_line_spans(line, filename, scope)
    spans: list[_Span] = []
    text, index = view
    for span in _raw_line_spans(text, filename, scope):
        start = index[span.start]
        if start > 0 and line[start - 1] == "\\" and (span.start == 0 or index[span.start - 1] != start - 1):
            start -= 1  # the escape before the secret's first character goes with it
        spans.append(_Span(start, index[span.end - 1] + 1, span.kind))
    return spans


def _raw_line_spans(line: str, filename: str, scope: "_Scope | None" = None) -> list[_Span]:
    """Secrets in one line. ``scope``: the plugins and patterns that can match in the text the line is
    from (:func:`_text_scope`); default all, gated line by line."""
    regex_detectors, other_plugins, any_pattern = _detectors()
    spans = _plugin_spans(line, filename, other_plugins if scope is None else scope.plugins)
    detectors: _Detectors
    extra: _Extras
    if scope is None:
        if not any_pattern.search(line):
            return spans
        detectors, extra = regex_detectors, _EXTRA
    else:
        detectors, extra = scope.detectors, scope.extra
    return spans + _pattern_spans(line, detectors, extra)


def _plugin_spans(line: str, filename: str, plugins: _Plugins) -> list[_Span]:
    """What detect-secrets' non-regex plugins find in one line (each gated by its keywords)."""
    spans: list[_Span] = []
    for kind, plugin, gate in plugins:
        if gate is not None and not gate.search(line):
            continue  # none of this plugin's keywords: it cannot match
        found = plugin.analyze_line(filename=filename, line=line, line_number=0)  # no context: its default
        if not found or heuristic.is_indirect_reference(line):  # the costly filter only when needed
            continue
        for secret in found:
            value = secret.secret_value or ""
            if len(value) < 6 or is_placeholder(value):
                continue
            for m in re.finditer(re.escape(value), line):
                spans.append(_Span(m.start(), m.end(), kind))
    return spans


def _pattern_spans(line: str, detectors: _Detectors, extra: _Extras) -> list[_Span]:
    """What the regex detectors and skill3's extra patterns find in one line."""
    spans: list[_Span] = []
    for kind, patterns in detectors:
        for regex in patterns:
            for m in regex.finditer(line):
                start, end = _value_span(m)
                if MARK not in line[start:end]:
                    spans.append(_Span(start, end, kind))
    for kind, regex, group in extra:
        for m in regex.finditer(line):
            value = m.group(group)
            if MARK not in value and valid(kind, m, value):
                spans.append(_Span(m.start(group), m.end(group), kind))
    return spans


@dataclass(frozen=True)
class _Scope:
    """What can match somewhere in a text: its lines need nothing else."""

    plugins: tuple[tuple[str, BasePlugin, Pattern[str] | None], ...]
    detectors: tuple[tuple[str, tuple[Pattern[str], ...]], ...]
    extra: tuple[tuple[str, Pattern[str], int], ...]


@lru_cache(maxsize=1)
def _multiline() -> tuple[tuple, tuple]:
    """Each regex detector's and extra pattern's multi-line twin, to test a whole text at once: a pattern that
    matches a line of a text matches the text (``^``/``$`` at every line, ``(?<=\\W)`` after a newline)."""
    regex_detectors = _detectors()[0]
    ml = lambda rx: re.compile(rx.pattern, rx.flags | re.MULTILINE)  # noqa: E731
    detectors = tuple((kind, tuple((rx, ml(rx)) for rx in patterns)) for kind, patterns in regex_detectors)
    extra = tuple((entry, ml(entry[1])) for entry in _EXTRA)
    return detectors, extra


def _text_scope(text: str, within: _Scope | None = None) -> _Scope:
    """The plugins and patterns that can match in ``text`` (its lines are read as they are and with markdown
    escapes removed, so both forms are tested); testing each pattern once over the text is much cheaper than
    one combined pattern on every line, and most texts need none. ``within``: the scope of a text this one is a
    part of (:func:`redact_fields`): only its plugins and patterns can match here.

    Before a pattern is searched, two tests that cannot reject a text it matches: a literal it requires
    (:func:`~synth.core.literals.may_match`) and a long run of one character class it requires
    (:class:`~synth.core.literals.Runs`: one pass finds the text's long runs; a token pattern without a literal of its
    own, such as ``\\b(gh[pousr]_[A-Za-z0-9_]{20,255})``, is searched only when twenty such characters in a row occur)."""
    view = _unescaped_text(text)  # line by line the same: an escape never spans a newline
    forms = (text,) if view is None else (text, view)
    detectors_ml, extra_ml = _multiline()
    if within is not None:
        allowed = {id(rx) for _kind, rxs in within.detectors for rx in rxs}
        detectors_ml = tuple((kind, tuple(p for p in pairs if id(p[0]) in allowed)) for kind, pairs in detectors_ml)
        extra_ml = tuple(p for p in extra_ml if p[0] in within.extra)
    lows = [folded_text(f) for f in forms]
    runs: list[Runs | None] = [None] * len(forms)  # each form's long runs, found when a pattern first asks

    def in_runs(m: Pattern[str], i: int) -> bool:
        if runs[i] is None:
            runs[i] = Runs(forms[i])
        return runs[i].may_match(m)  # type: ignore[union-attr]

    def found(m: Pattern[str]) -> bool:
        return any(may_match(m, f, low) and in_runs(m, i) and m.search(f) for i, (f, low) in enumerate(zip(forms, lows)))

    detectors = tuple((kind, tuple(rx for rx, m in pairs if found(m))) for kind, pairs in detectors_ml)
    return _Scope(
        plugins=_text_plugins(text.replace("\\", ""), within.plugins if within is not None else None),
        detectors=tuple((kind, rxs) for kind, rxs in detectors if rxs),
        extra=tuple(entry for entry, m in extra_ml if found(m)),
    )


def _text_plugins(text: str, within: _Plugins | None = None) -> tuple[tuple[str, BasePlugin, Pattern[str] | None], ...]:
    """The non-regex plugins that can match somewhere in ``text`` (a gated plugin whose keywords are absent
    from the whole text cannot match any of its lines). A case-insensitive gate written in lower case is searched,
    without ignoring case, in the text as such a pattern sees it (:func:`~synth.core.literals.folded_text`): the
    same answer, an order of magnitude faster than Python's engine ignoring case over a page."""
    entries = _detectors()[1] if within is None else within
    folded: str | None = None
    kept = []
    for entry in entries:
        gate = entry[2]
        if gate is not None:
            lower = lowercase_gate(gate)
            if lower is not None:
                folded = folded_text(text) if folded is None else folded
                if not lower.search(folded):
                    continue
            elif not gate.search(text):
                continue
        kept.append(entry)
    return tuple(kept)


def _empty(scope: _Scope) -> bool:
    return not (scope.plugins or scope.detectors or scope.extra)


def shared_scope(texts: Iterable[str]) -> _Scope | None:
    """What can match somewhere in ``texts``, tested once over them joined by newlines, for
    :func:`redact_text`'s ``within``: a pattern that matches in one of them matches in the joined text (none is
    anchored to a text's start or end, and a newline is a line end to them). None when a private key block is
    in them: it is replaced before a text is scoped, so each text is scoped alone."""
    joined = "\n".join(texts)
    return None if _PRIVATE_KEY_BLOCK.search(joined) else _text_scope(joined)


def _in_urls(text: str, spans: Iterable[_Span]) -> tuple[list[_Span], set[int]]:
    """Spans inside a URL: one in the ``user:password@`` part grows to all of it. Returns the spans and
    the starts of those that are in a URL (they get the URL-safe mark)."""
    urls = [m.span() for m in _URL.finditer(text)] if "://" in text else []
    if not urls:
        return list(spans), set()
    out, in_url = [], set()
    for span in spans:
        for u_start, u_end in urls:
            if u_start <= span.start < u_end:
                auth_start = text.index("://", u_start) + 3
                auth_end = next((i for i in range(auth_start, u_end) if text[i] in "/?#"), u_end)
                at = text.rfind("@", auth_start, auth_end)
                if auth_start <= span.start < at:
                    span = _Span(auth_start, max(at, span.end), span.kind)
                elif span.start < auth_end:  # a detector matched the whole URL: keep its scheme and host
                    path = auth_end + (auth_end < u_end and text[auth_end] == "/")
                    span = _Span(path if span.end > path else max(span.start, auth_start), span.end, span.kind)
                span = _Span(span.start, min(span.end, u_end), span.kind)
                in_url.add(span.start)
                break
        out.append(span)
    return out, in_url


def _apply(text: str, spans: Iterable[_Span]) -> tuple[str, int]:
    spans, in_url = _in_urls(text, spans)
    # of spans starting together, the longest; of equal ones, a named kind before a generic one
    ordered = sorted(spans, key=lambda s: (s.start, -s.end, s.kind in _GENERIC_KINDS))
    merged: list[_Span] = []
    for span in ordered:
        if merged and span.start < merged[-1].end:
            last = merged[-1]
            merged[-1] = _Span(last.start, max(last.end, span.end), last.kind)
        else:
            merged.append(span)
    for span in reversed(merged):
        mark = URL_MARK if span.start in in_url else f"[{MARK}:{span.kind}]"
        text = text[: span.start] + mark + text[span.end :]
    return text, len(merged)


def redact_text(text: str, *, filename: str = "source.md", within: _Scope | None = None) -> tuple[str, int]:
    """Return ``(redacted_text, number_of_secrets_redacted)``.

    ``filename`` only tells detect-secrets' keyword detector which syntax to
    expect (``x.py``, ``x.yaml``...); nothing is read or written. ``within``: as for :func:`_text_scope`.
    """
    if not text:
        return text, 0
    count = 0
    blocks = [_Span(m.start(), m.end(), "private-key") for m in _PRIVATE_KEY_BLOCK.finditer(text)]
    if blocks:
        text, count = _apply(text, blocks)
    if within is not None and _empty(within):  # nothing can match in the text this one is a part of
        return text, count
    out: list[str] = []
    scope = _text_scope(text, within)
    if _empty(scope):
        return text, count
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        spans = _line_spans(body, filename, scope)
        if spans:
            body, n = _apply(body, spans)
            count += n
        out.append(body + line[len(line.rstrip("\r\n")) :])
    return "".join(out), count


def secret_spans(text: str, *, filename: str = "source.md") -> list[tuple[int, int, str]]:
    """(line, column, kind) of every secret in ``text`` (1-based line, 0-based
    column); the secret itself is not returned."""
    found = [(text.count("\n", 0, m.start()) + 1, m.start() - (text.rfind("\n", 0, m.start()) + 1), "private-key")
             for m in _PRIVATE_KEY_BLOCK.finditer(text)]
    text = _PRIVATE_KEY_BLOCK.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    scope = _text_scope(text)
    for number, line in enumerate(text.splitlines(), start=1):
        spans = sorted(_line_spans(line, filename, scope), key=lambda s: (s.start, -s.end))
        end = -1
        for span in spans:
            if span.start >= end:
                found.append((number, span.start, span.kind))
            end = max(end, span.end)
    return sorted(found)


def filename_for_language(language: str) -> str:
    return _LANG_FILENAME.get((language or "").strip().lower(), "source.md")


def redact_fields(title: str, excerpts: list[str], code_blocks: list[dict]) -> tuple[str, list[str], list[dict], int]:
    """Redacted copies of a source's title, excerpts and code blocks, and the number of secrets
    (plain data in and out, so it can run in a worker process).

    The patterns are first tested once over all the texts joined by newlines: a pattern that matches in one of
    them matches in the joined text (none is anchored to a text's start or end, and a newline is a line end to
    them), so a text is tested only with those that matched there, and a page where none did is returned as is
    (with a private key block in it, each text is scoped alone, as the block is replaced before)."""
    page = shared_scope([title, *excerpts, *(b.get("text", "") for b in code_blocks)])
    if page is not None and _empty(page):
        return title, list(excerpts), [dict(b) for b in code_blocks], 0
    title, total = redact_text(title, within=page)
    out_excerpts = []
    for excerpt in excerpts:
        excerpt, n = redact_text(excerpt, within=page)
        total += n
        out_excerpts.append(excerpt)
    blocks = []
    for block in code_blocks:
        block = dict(block)
        block["text"], n = redact_text(block.get("text", ""), filename=filename_for_language(block.get("language", "")), within=page)
        total += n
        blocks.append(block)
    return title, out_excerpts, blocks, total


def redact_urls(*urls: str) -> tuple[list[str], int]:
    """URLs with credentials in them (``?api_key=…``, ``https://user:pass@…``, a token in the path)
    redacted like any text: the source is still cited, the secret is not."""
    out, total = [], 0
    for url in urls:
        url, n = redact_text(url) if url else (url, 0)
        out.append(url)
        total += n
    return out, total


def redact_item(item: SourceItem) -> int:
    """Redact a source in place (URLs, title, excerpts, code blocks, version-marked snippets); add the count
    to ``item.redactions`` and return it."""
    item.title, item.excerpts, item.code_blocks, total = redact_fields(item.title, item.excerpts, item.code_blocks)
    for change in item.changes or ():  # version-marked snippets are quoted text too
        if isinstance(change, dict) and isinstance(change.get("text"), str):
            change["text"], k = redact_text(change["text"])
            total += k
    (item.url, item.final_url), n = redact_urls(item.url, item.final_url)
    item.redactions += total + n
    return total + n
