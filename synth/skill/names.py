"""Names a skill carries: its spec-valid ``name``, the slug of a topic, and the topic as a title.

Pure functions; the limits come from ``synth.skill.spec``.
"""

from __future__ import annotations

import re
import unicodedata

from synth.skill.spec import MAX_NAME, NAME_RE, RESERVED_WORDS

__all__ = ["slugify", "topic_slug", "fallback_name", "sanitize_name", "display_topic", "is_valid_name"]


def is_valid_name(name: object) -> bool:
    """The one check a skill's name passes before it becomes a folder, a file name, a URI or a marker: the spec's
    ``name`` (lowercase ASCII letters and digits, single hyphens between, at most ``MAX_NAME`` characters)."""
    return isinstance(name, str) and 0 < len(name) <= MAX_NAME and NAME_RE.match(name) is not None


def slugify(text: str) -> str:
    """Lowercase ASCII words joined by single hyphens: 'Café MCP!' → 'cafe-mcp' ('' when nothing is left)."""
    text = unicodedata.normalize("NFKD", text or "").encode("ascii", "ignore").decode("ascii").lower()
    return re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9]+", "-", text)).strip("-")


def topic_slug(topic: str) -> str:
    """The topic as a folder name (``output/<slug>``, the crawl's and the CLI's default): letters and digits of
    any script kept (NFKC, lower case: 'Café' → 'café', '日本語' stays), runs of anything else one ``-``."""
    slug = re.sub(r"[\W_]+", "-", unicodedata.normalize("NFKC", topic).lower()).strip("-")
    return re.sub(r"-{2,}", "-", slug)[:64].strip("-")


def _strip_reserved(slug: str) -> str:
    """The slug with the spec's reserved words cut out."""
    for word in RESERVED_WORDS:
        slug = slug.replace(word, "-")
    return re.sub(r"-{2,}", "-", slug).strip("-")


def _cap(slug: str, limit: int = MAX_NAME) -> str:
    """The slug cut to ``limit`` characters at a hyphen when it has one."""
    if len(slug) <= limit:
        return slug
    cut = slug[:limit]
    return (cut.rsplit("-", 1)[0] if "-" in cut else cut).strip("-")


def fallback_name(topic: str) -> str:
    """``<topic>-skill`` as a spec-valid name, ``learned-skill`` when the topic leaves nothing."""
    base = _cap(_strip_reserved(slugify(topic)), MAX_NAME - len("-skill"))
    return f"{base}-skill" if base else "learned-skill"


def sanitize_name(raw: str | None, topic: str) -> str:
    """A spec-valid skill name from the model's (or the topic's) name; ``<topic>-skill`` fallback."""
    for candidate in (raw, topic):
        if not isinstance(candidate, str):
            continue
        slug = _cap(_strip_reserved(slugify(candidate)))
        if slug and NAME_RE.match(slug) and slug not in ("skill", "skills"):
            return slug
    return fallback_name(topic)


_WORD = re.compile(r"(?<![^\W_])[^\W_]+(?![^\W_])")  # a run of letters and digits
_ACRONYM = re.compile(r"(?=[a-z0-9]{2,6}\Z)(?=(?:[0-9]*[a-z]){2})[b-df-hj-np-tv-xz0-9]+\Z")  # 2–6 ASCII, 2+ letters, no vowel (y is one)


def display_topic(topic: str) -> str:
    """The topic as a title: a topic with capitals is kept as written; else each word that cannot be a word (no
    vowel, y included: 'mcp', 'grpc', 'k8s') is an acronym in capitals and the first letter is capitalised
    ('glib' → 'Glib', 'node' → 'Node', 'mcp server' → 'MCP server', 'css-grid' → 'CSS-grid')."""
    t = " ".join((topic or "").split()) or "Skill"
    if t != t.lower():
        return t
    t = _WORD.sub(lambda m: m.group().upper() if _ACRONYM.match(m.group()) else m.group(), t)
    return t[:1].upper() + t[1:]
