"""The source item: the one record type that flows from the crawl to synthesis.

One JSON line per page in ``run.jsonl``. Fields are written in
declaration order (itemadapter supports dataclasses).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from functools import lru_cache
from typing import Annotated, Any, Optional

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError
from typing_extensions import NotRequired, TypedDict

from synth.evidence.limits import (  # noqa: F401 - the item's caps, importable from here as before
    MAX_CHANGE_API_CHARS,
    MAX_CHANGE_CODE,
    MAX_CHANGE_CODE_CHARS,
    MAX_CHANGE_PATH,
    MAX_CHANGE_PATH_CHARS,
    MAX_LIST_ENTRIES,
    MAX_SHORT_CHARS,
    MAX_TEXT_CHARS,
    MAX_TOKENS_CHARS,
    MAX_URL_CHARS,
)

_FIELD_NAMES: dict[type, frozenset[str]] = {}  # from_dict runs once per line of a run: compute the names once


@dataclass
class SourceItem:
    url: str
    final_url: str = ""
    host: str = ""
    title: str = ""
    topic: str = ""
    cutoff: str = ""  # YYYY-MM
    fetched_at: str = ""  # ISO 8601 UTC
    published: str | None = None  # YYYY-MM-DD
    modified: str | None = None  # YYYY-MM-DD
    date_source: str | None = None  # which signal gave `published`
    discovery: str = ""  # brave / llms.txt / sitemap / link / corpus / start
    query: str | None = None  # the search query that found the page
    authority: float = 0.5
    authority_reason: str = ""
    post_cutoff: bool = False
    recency_weight: float = 0.3
    combined_score: float = 0.0
    excerpts: list[str] = field(default_factory=list)
    code_blocks: list[dict[str, str]] = field(default_factory=list)  # {"text", "language"}
    consensus_count: int = 1
    agreeing_urls: list[str] = field(default_factory=list)
    snippet_fingerprints: list[str] = field(default_factory=list)
    content_hash: str = ""
    redactions: int = 0
    # The delta (written by extraction): version markers and change-page sections, one entry per annotated block:
    # {"kind": added|changed|deprecated|removed|release, "version", "removed_in", "date", "text", "anchor", "heading",
    #  "path": [enclosing heading texts, outermost first, <= MAX_CHANGE_PATH of <= MAX_CHANGE_PATH_CHARS],
    #  "api": the API name a marker annotates (a definition's id/signature, a History table's API) or null,
    #  "code": [<= MAX_CHANGE_CODE {"text", "language"} code examples of the entry, text byte-exact <= MAX_CHANGE_CODE_CHARS]}
    changes: list[dict[str, Any]] = field(default_factory=list)
    page_kind: str = ""  # "change" (what's new, release notes, changelog, migration guide) | "doc" | ""
    page_version: str | None = None  # the version a change page is about
    build_date: str | None = None  # the host is build-dated: most of its pages share this date
    # the tokens of the page's snippets for synthesis's consensus vote (synth.evidence.shingles.snippet_tokens); the
    # last field, so that the vote finds them at the end of the line without parsing it
    snippet_tokens: str = ""

    @classmethod
    def field_names(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SourceItem":
        """Build from a JSON object, every field checked (:func:`check_fields`); unknown keys are
        ignored, ``url`` is required. Raises ``ValueError`` naming the first bad field."""
        if not isinstance(data, dict):
            raise ValueError("item is not a JSON object")
        return cls(**check_fields(data))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# field → kind: "str" (null becomes ""), "str?" (null kept), "url" (required), "url?" (null becomes ""),
# "number", "int", "bool", "texts"/"urls" (lists of strings), "blocks" (list of {"text", "language"} strings)
_KINDS = {
    "url": "url", "final_url": "url?", "host": "str", "title": "str", "topic": "str", "cutoff": "str",
    "fetched_at": "str", "published": "str?", "modified": "str?", "date_source": "str?", "discovery": "str",
    "query": "str?", "authority": "number", "authority_reason": "str", "post_cutoff": "bool",
    "recency_weight": "number", "combined_score": "number", "excerpts": "texts", "code_blocks": "blocks",
    "consensus_count": "int", "agreeing_urls": "urls", "snippet_fingerprints": "texts", "content_hash": "str",
    "redactions": "int", "changes": "changes", "page_kind": "str", "page_version": "str?", "build_date": "str?",
    "snippet_tokens": "tokens",
}
# a version-marker / change-page entry: key → (kind, required)
_CHANGE_KEYS = {"kind": ("str", True), "version": ("str", True), "removed_in": ("str?", False), "date": ("str?", False),
                "text": ("str", True), "anchor": ("str?", False), "heading": ("str", False), "path": ("path", False),
                "api": ("api", False), "code": ("code", False)}


def _type_name(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__)


def _check(name: str, kind: str, value: Any) -> Any:
    """``value`` of the field ``name`` checked as ``kind`` (capped); ValueError with one line otherwise."""
    if kind in ("texts", "urls", "changes", "blocks"):
        return _check_list(name, kind, value)
    if kind == "tokens":  # only ever a shortcut of the vote: a bad value is no tokens, not a bad line
        return value if isinstance(value, str) and len(value) <= MAX_TOKENS_CHARS else ""
    return _check_scalar(name, kind, value)


def _check_scalar(name: str, kind: str, value: Any) -> Any:
    if kind in ("path", "api", "code"):
        return _check_change_extra(name, kind, value)
    if kind in ("str", "str?", "url?") and value is None:
        return None if kind == "str?" else ""
    if kind in ("str", "str?", "url", "url?"):
        if not isinstance(value, str):
            raise ValueError(f"'{name}' is {_type_name(value)}, not a string")
        cap = MAX_URL_CHARS if kind.startswith("url") else MAX_SHORT_CHARS
        if len(value) > cap:
            raise ValueError(f"'{name}' is longer than {cap} characters")
        return value
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not _finite(value):
            raise ValueError(f"'{name}' is {_type_name(value)}, not a finite number")
        return float(value)
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"'{name}' is {_type_name(value) if not isinstance(value, int) or isinstance(value, bool) else value}, not a whole number ≥ 0")
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"'{name}' is {_type_name(value)}, not true/false")
        return value
    raise ValueError(f"unknown field kind {kind!r} of '{name}'")


def _check_list(name: str, kind: str, value: Any) -> list:
    if not isinstance(value, list):
        raise ValueError(f"'{name}' is {_type_name(value)}, not a list")
    value = value[:MAX_LIST_ENTRIES]
    if kind in ("texts", "urls"):
        if not all(isinstance(v, str) for v in value):
            raise ValueError(f"'{name}' is not a list of strings")
        cap = MAX_URL_CHARS if kind == "urls" else MAX_TEXT_CHARS
        return [v[:cap] for v in value]
    if kind == "changes":
        out = []
        for entry in value:
            if not isinstance(entry, dict) or any(entry.get(k) is None for k, (_, req) in _CHANGE_KEYS.items() if req):
                raise ValueError(f"'{name}' is not a list of change objects ({', '.join(_CHANGE_KEYS)})")
            checked = {k: _check(f"{name}[].{k}", kk, entry.get(k)) for k, (kk, _) in _CHANGE_KEYS.items()}
            checked["text"] = checked["text"][:MAX_TEXT_CHARS]
            out.append(checked)
        return out
    blocks = []
    for block in value:  # "blocks"
        if not isinstance(block, dict) or not isinstance(block.get("text", ""), str) or not isinstance(block.get("language") or "", str):
            raise ValueError(f"'{name}' is not a list of {{\"text\": string, \"language\": string}} objects")
        blocks.append({"text": block.get("text", "")[:MAX_TEXT_CHARS], "language": (block.get("language") or "")[:100]})
    return blocks


def _check_change_extra(name: str, kind: str, value: Any) -> Any:
    """A change entry's ``path`` (list of strings, the innermost kept), ``api`` (string or null) and ``code``
    (``{"text", "language"}`` blocks), each cut to its cap; null or missing is empty."""
    if kind == "api":
        if value is None:
            return None
        if not isinstance(value, str):
            raise ValueError(f"'{name}' is {_type_name(value)}, not a string")
        return value[:MAX_CHANGE_API_CHARS]
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"'{name}' is {_type_name(value)}, not a list")
    if kind == "path":
        if not all(isinstance(v, str) for v in value):
            raise ValueError(f"'{name}' is not a list of strings")
        return [v[:MAX_CHANGE_PATH_CHARS] for v in value[-MAX_CHANGE_PATH:]]
    blocks = []
    for block in value[:MAX_CHANGE_CODE]:
        if not isinstance(block, dict) or not isinstance(block.get("text", ""), str) or not isinstance(block.get("language") or "", str):
            raise ValueError(f"'{name}' is not a list of {{\"text\": string, \"language\": string}} objects")
        blocks.append({"text": block.get("text", "")[:MAX_CHANGE_CODE_CHARS], "language": (block.get("language") or "")[:100]})
    return blocks


def _finite(value: int | float) -> bool:
    """``math.isfinite`` that says False for an integer too large for a float (JSON allows any length)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def check_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The known fields of a JSON item, each of the right type and within the caps (lists and long
    texts cut to them); raises ``ValueError`` naming the first bad field. Unknown keys are dropped."""
    if not isinstance(data.get("url"), str) or not data.get("url"):
        raise ValueError("item has no 'url'")
    out = {}
    for name, value in data.items():
        kind = _KINDS.get(name)
        if kind is None:
            continue
        # fast paths for values already of the exact type and within the caps (what a crawl writes); anything
        # else goes through _check, which converts, cuts or names the problem
        t = type(value)
        if t is str and kind in _STR_CAPS:
            out[name] = value if len(value) <= _STR_CAPS[kind] else _check(name, kind, value)
        elif value is None and kind in _NONE_AS:
            out[name] = _NONE_AS[kind]
        elif t is list and kind in _LIST_CAPS and len(value) <= MAX_LIST_ENTRIES:
            cap = _LIST_CAPS[kind]
            out[name] = list(value) if all(type(v) is str and len(v) <= cap for v in value) else _check(name, kind, value)
        elif t is float and kind == "number" and math.isfinite(value):
            out[name] = value
        elif t is bool and kind == "bool":
            out[name] = value
        else:
            out[name] = _check(name, kind, value)
    return out


_STR_CAPS = {"str": MAX_SHORT_CHARS, "str?": MAX_SHORT_CHARS, "url": MAX_URL_CHARS, "url?": MAX_URL_CHARS}
_NONE_AS = {"str": "", "str?": None, "url?": ""}
_LIST_CAPS = {"texts": MAX_TEXT_CHARS, "urls": MAX_URL_CHARS}


# --------------------------------------------------------------------------- one-call parse and check (pydantic)
#
# The same checks as ``check_fields``, declared as a pydantic schema so that a raw run.jsonl line is parsed and
# checked in one call, in Rust. It accepts only what needs no conversion (values of the exact type, within the
# caps): every line it accepts gives exactly what ``check_fields`` gives; a line it rejects goes through
# ``check_fields``, which cuts over-long lists and texts, reads null/false code languages as "", or words the
# one-line reason for the skip.

_Short = Annotated[str, Field(max_length=MAX_SHORT_CHARS)]
_Url = Annotated[str, Field(max_length=MAX_URL_CHARS)]
_Text = Annotated[str, Field(max_length=MAX_TEXT_CHARS)]
_Number = Annotated[float, Field(allow_inf_nan=False)]
_Count = Annotated[int, Field(ge=0)]
_STRICT = ConfigDict(strict=True, extra="ignore")


class _BlockJSON(TypedDict):
    __pydantic_config__ = _STRICT  # type: ignore[misc]
    text: NotRequired[Annotated[_Text, Field(default="")]]
    language: NotRequired[Annotated[Optional[Annotated[str, Field(max_length=100)]], Field(default="")]]


class _CodeJSON(TypedDict):
    __pydantic_config__ = _STRICT  # type: ignore[misc]
    text: NotRequired[Annotated[Annotated[str, Field(max_length=MAX_CHANGE_CODE_CHARS)], Field(default="")]]
    language: NotRequired[Annotated[Optional[Annotated[str, Field(max_length=100)]], Field(default="")]]


class _ChangeJSON(TypedDict):
    __pydantic_config__ = _STRICT  # type: ignore[misc]
    kind: _Short
    version: _Short
    removed_in: NotRequired[Annotated[Optional[_Short], Field(default=None)]]
    date: NotRequired[Annotated[Optional[_Short], Field(default=None)]]
    text: _Short
    anchor: NotRequired[Annotated[Optional[_Short], Field(default=None)]]
    heading: NotRequired[Annotated[Optional[_Short], Field(default="")]]
    path: NotRequired[Annotated[Optional[Annotated[list[Annotated[str, Field(max_length=MAX_CHANGE_PATH_CHARS)]],
                                                   Field(max_length=MAX_CHANGE_PATH)]], Field(default=None)]]
    api: NotRequired[Annotated[Optional[Annotated[str, Field(max_length=MAX_CHANGE_API_CHARS)]], Field(default=None)]]
    code: NotRequired[Annotated[Optional[Annotated[list[_CodeJSON], Field(max_length=MAX_CHANGE_CODE)]], Field(default=None)]]


class _ItemJSON(TypedDict):
    __pydantic_config__ = _STRICT  # type: ignore[misc]
    url: Annotated[str, Field(min_length=1, max_length=MAX_URL_CHARS)]
    final_url: NotRequired[Optional[_Url]]
    host: NotRequired[Optional[_Short]]
    title: NotRequired[Optional[_Short]]
    topic: NotRequired[Optional[_Short]]
    cutoff: NotRequired[Optional[_Short]]
    fetched_at: NotRequired[Optional[_Short]]
    published: NotRequired[Optional[_Short]]
    modified: NotRequired[Optional[_Short]]
    date_source: NotRequired[Optional[_Short]]
    discovery: NotRequired[Optional[_Short]]
    query: NotRequired[Optional[_Short]]
    authority: NotRequired[_Number]
    authority_reason: NotRequired[Optional[_Short]]
    post_cutoff: NotRequired[bool]
    recency_weight: NotRequired[_Number]
    combined_score: NotRequired[_Number]
    excerpts: NotRequired[Annotated[list[_Text], Field(max_length=MAX_LIST_ENTRIES)]]
    code_blocks: NotRequired[Annotated[list[_BlockJSON], Field(max_length=MAX_LIST_ENTRIES)]]
    consensus_count: NotRequired[_Count]
    agreeing_urls: NotRequired[Annotated[list[_Url], Field(max_length=MAX_LIST_ENTRIES)]]
    snippet_fingerprints: NotRequired[Annotated[list[_Text], Field(max_length=MAX_LIST_ENTRIES)]]
    content_hash: NotRequired[Optional[_Short]]
    redactions: NotRequired[_Count]
    changes: NotRequired[Annotated[list[_ChangeJSON], Field(max_length=MAX_LIST_ENTRIES)]]
    page_kind: NotRequired[Optional[_Short]]
    page_version: NotRequired[Optional[_Short]]
    build_date: NotRequired[Optional[_Short]]
    snippet_tokens: NotRequired[Annotated[str, Field(max_length=MAX_TOKENS_CHARS)]]


@lru_cache(maxsize=1)
def _item_json() -> TypeAdapter:
    """The line validator, built when a run is first read (~3.5 MB a process that only writes items, the crawl's)."""
    return TypeAdapter(_ItemJSON)


_NULL_AS_EMPTY = tuple(name for name, kind in _KINDS.items() if kind in ("str", "url?"))


def fields_from_json(raw: bytes | str) -> dict[str, Any] | None:
    """The checked fields of one raw JSON line (as :func:`check_fields` gives them), or ``None`` when the line
    needs more than a check — not JSON, not UTF-8, a field of the wrong type, a list or text over its cap: read
    such a line with ``json.loads`` + :func:`check_fields`, which cut, convert or name the problem."""
    try:
        data: dict[str, Any] = _item_json().validate_json(raw)
    except ValidationError:
        return None
    for name in _NULL_AS_EMPTY:
        if name in data and data[name] is None:
            data[name] = ""
    for block in data.get("code_blocks", ()):
        if block["language"] is None:
            block["language"] = ""
    for change in data.get("changes", ()):
        if change["heading"] is None:
            change["heading"] = ""
        if change["path"] is None:
            change["path"] = []
        if change["code"] is None:
            change["code"] = []
        for block in change["code"]:
            if block["language"] is None:
                block["language"] = ""
    return data
