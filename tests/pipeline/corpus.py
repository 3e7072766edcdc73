"""Test helpers: source items as the crawl writes them, built from tables or an === SOURCE === corpus.

This is *not* the crawl's corpus reader (skill3crawl owns that); it only turns the
example corpus into run.jsonl items so synthesis can be tested without Scrapy.
"""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

from synth.evidence.cutoff import resolve_cutoff
from synth.evidence.item import SourceItem
from synth.evidence.scoring import authority, combined_score, freshness

TODAY = date(2026, 11, 29)
CUTOFF = "2026-01"
FENCE = re.compile(r"^```(\w*)\n(.*?)\n```$", re.S | re.M)


def make_item(url: str, *, published: str | None = "2026-06-01", excerpts=(), code=(), title="", authoritative=(),
              topic="mcp", cutoff=CUTOFF, today=TODAY) -> dict:
    host = re.match(r"https?://([^/]+)", url).group(1)
    auth, reason = authority(host, authoritative)
    pub = date.fromisoformat(published) if published else None
    f = freshness(pub, resolve_cutoff(None, cutoff).start, today)
    item = SourceItem(
        url=url, final_url=url, host=host, title=title or url.rsplit("/", 1)[-1], topic=topic, cutoff=cutoff,
        fetched_at="2026-11-29T12:00:00Z", published=published, date_source="corpus" if published else None,
        discovery="corpus", authority=auth, authority_reason=reason, post_cutoff=f.post_cutoff,
        recency_weight=f.recency_weight, combined_score=combined_score(auth, f.recency_weight),
        excerpts=list(excerpts), code_blocks=[{"text": c, "language": lang} for lang, c in code],
    )
    return item.to_dict()


def parse_sources(path: Path, **kw) -> list[dict]:
    items = []
    for block in path.read_text(encoding="utf-8").split("=== SOURCE ===")[1:]:
        head, _, body = block.strip("\n").partition("\n\n")
        meta = dict(line.split(": ", 1) for line in head.splitlines() if ": " in line)
        code = [(m.group(1), m.group(2)) for m in FENCE.finditer(body)]
        prose = FENCE.sub("", body)
        excerpts = [p.strip() for p in prose.split("\n\n") if p.strip()]
        items.append(make_item(meta["url"], published=meta.get("date"), title=meta.get("title", ""), excerpts=excerpts, code=code, **kw))
    return items


def write_jsonl(path: Path, items: list[dict], extra_lines: list[str] = ()) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for it in items:
            fh.write(json.dumps(it) + "\n")
        for line in extra_lines:
            fh.write(line + "\n")
    return path


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mcp.sources"
