"""Query planning: the model expands a topic into up to six post-cutoff facet queries.

The reply is parsed robustly (JSON array, a JSON object holding one, fenced
blocks, numbered or bulleted lines, one per line). When the model is
unreachable, disabled (``extractive``) or answers nothing usable, the plan is
:func:`deterministic_queries` — the topic and the facets where changes are published (release notes, changelog,
migration guide, what's new, deprecations, and the known versions' release notes) — and a warning says why when a
model was meant to answer.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from synth.llm.model import ChatModel, LLMError, Message
from synth.skill.markdown import code_block_texts, fence_marker, heading_title

logger = logging.getLogger(__name__)

MAX_QUERY_CHARS = 120
_BULLET = re.compile(r"^\s*(?:[-*•+]|\d{1,2}[.)\]:]|\(\d{1,2}\)|q\d{1,2}[.):])\s*", re.I)
_CHATTER = re.compile(
    r"^(here (are|is)|sure|certainly|okay|ok[,!.]|these queries|i hope|note:|queries:|search queries|the following|let me)",
    re.I,
)

SYSTEM = (
    "You plan web searches. Reply with a JSON array of short search queries and nothing else. "
    "Each query is a few keywords, no quotes, no operators."
)


def _clean(q: Any) -> str:
    s = str(q).strip().strip(",").strip()
    s = _BULLET.sub("", s, count=1).strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "\"'`":
        s = s[1:-1].strip()
    s = re.sub(r"\*\*|__", "", s)
    return re.sub(r"\s+", " ", s)


def _from_json(text: str) -> list[str] | None:
    start = text.find("[")
    candidates = [text.strip()]
    if start >= 0:
        candidates.append(text[start : text.rfind("]") + 1])
    for cand in candidates:
        try:
            data = json.loads(cand)
        except (json.JSONDecodeError, ValueError):
            continue
        if isinstance(data, dict):
            data = next((v for v in data.values() if isinstance(v, list)), None)
        if isinstance(data, list):
            return [_clean(x if not isinstance(x, dict) else x.get("query", "")) for x in data if isinstance(x, (str, dict))]
    return None


def parse_queries(text: str | None, max_queries: int = 6) -> list[str]:
    """Queries from a model reply, de-duplicated case-insensitively, at most ``max_queries``; [] when garbled."""
    if not text or not text.strip():
        return []
    body = text.strip()
    fences = code_block_texts(body)
    if fences:
        body = "\n".join(fences)
    queries = _from_json(body)
    if queries is None:
        queries = []
        for line in body.splitlines():
            line = line.strip()
            if not line or fence_marker(line) or heading_title(line) is not None or line in ("[", "]"):
                continue
            if _CHATTER.match(line) or line.endswith(":"):
                continue
            queries.append(_clean(line))
    out: list[str] = []
    seen: set[str] = set()
    for q in queries:
        if not q or len(q) > MAX_QUERY_CHARS or not re.search(r"\w", q):
            continue
        key = q.lower()
        if key not in seen:
            seen.add(key)
            out.append(q)
        if len(out) >= max_queries:
            break
    return out


def planning_messages(topic: str, cutoff_month: str, today: date, max_queries: int) -> list[Message]:
    user = (
        f"Topic: {topic}\n"
        f"A reader's knowledge ends in {cutoff_month}; today is {today.isoformat()}.\n"
        f"Write up to {max_queries} distinct web search queries that find what changed about this topic "
        f"after {cutoff_month}: new releases and versions, changed or deprecated APIs, new features, "
        "migration guides, official announcements. Reply with a JSON array of strings only."
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


@dataclass(frozen=True)
class Plan:
    queries: list[str]
    status: str  # "planned" | "fallback" (the model did not answer usably) | "skipped" (no model): both deterministic
    warning: str | None = None


# Where a project publishes what changed: each facet is searched as "<topic> <facet>" when no planner model answers.
FACETS = ("release notes", "changelog", "migration guide", "what's new", "deprecations")
MAX_VERSION_QUERIES = 2  # the newest known versions' release notes join the plan


def deterministic_queries(topic: str, versions: tuple[str, ...] | list[str] = (), max_queries: int = 8) -> list[str]:
    """The plan without a model (pure): the topic, the release notes of its newest known ``versions`` (newest first,
    at most :data:`MAX_VERSION_QUERIES`), then one query per :data:`FACETS` entry; at most ``max_queries``."""
    topic = " ".join(str(topic).split())[:MAX_QUERY_CHARS - 20]
    queries = [topic, *(f"{topic} {v} release notes" for v in list(versions)[:MAX_VERSION_QUERIES]),
               *(f"{topic} {facet}" for facet in FACETS)]
    return list(dict.fromkeys(queries))[:max_queries]


def plan(model: ChatModel | None, topic: str, cutoff_month: str, today: date, max_queries: int = 6,
         versions: tuple[str, ...] | list[str] = ()) -> Plan:
    """Like :func:`plan_queries`, also saying how the plan came about. Without a model, or when it does not answer
    usably, the plan is :func:`deterministic_queries` (``versions``: the topic's newest known versions)."""
    fixed = deterministic_queries(topic, versions)
    if model is None:
        return Plan(fixed, "skipped", None)
    try:
        reply = model.complete(planning_messages(topic, cutoff_month, today, max_queries), max_tokens=400)
    except LLMError as exc:
        warning = f"query planning failed ({exc}); searching with the fixed plan (release notes, changelog, migration guide …)"
        logger.warning(warning)
        return Plan(fixed, "fallback", warning)
    queries = parse_queries(reply, max_queries)
    if not queries:
        warning = "query planning returned no usable queries; searching with the fixed plan (release notes, changelog …)"
        logger.warning(warning)
        return Plan(fixed, "fallback", warning)
    return Plan(queries, "planned", None)


def plan_queries(model: ChatModel | None, topic: str, cutoff_month: str, today: date, max_queries: int = 6) -> list[str]:
    """Up to ``max_queries`` post-cutoff facet queries for ``topic``; :func:`deterministic_queries` on any failure."""
    return plan(model, topic, cutoff_month, today, max_queries).queries
