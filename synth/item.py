"""The source item: the one record type that flows from the crawl to synthesis.

One JSON line per page in ``run.jsonl`` (DESIGN §4). Fields are written in
declaration order (itemadapter supports dataclasses).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any


@dataclass
class CodeBlock:
    text: str
    language: str = ""


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
    # version markers and change-page sections: {kind, version, removed_in, date, text, anchor, heading}
    changes: list[dict[str, Any]] = field(default_factory=list)
    page_kind: str = ""  # "change" (What's New, release notes, changelog, migration guide) / "doc" / "" unknown
    page_version: str | None = None  # the one version a change page is about
    build_date: str | None = None  # YYYY-MM-DD: the host stamps (most of) its pages with this one build date

    @classmethod
    def field_names(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SourceItem":
        """Build from a JSON object; unknown keys are ignored, ``url`` is required."""
        if not isinstance(data, dict):
            raise ValueError("item is not a JSON object")
        url = data.get("url")
        if not isinstance(url, str) or not url:
            raise ValueError("item has no 'url'")
        known = set(cls.field_names())
        return cls(**{k: v for k, v in data.items() if k in known})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
