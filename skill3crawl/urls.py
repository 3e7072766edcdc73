"""URL canonicalisation: one canonical form per page, so discovery de-duplicates."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from w3lib.url import canonicalize_url

# Query parameters that track the visitor, never select content.
TRACKING_PARAMS = frozenset(
    {
        "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "mc_cid", "mc_eid", "yclid",
        "_ga", "_gl", "igshid", "ref_src", "ref_url", "spm", "si", "trk", "trkinfo",
    }
)
TRACKING_PREFIXES = ("utm_", "pk_", "mtm_", "hsa_", "oly_")


def _is_tracking(name: str) -> bool:
    n = name.lower()
    return n in TRACKING_PARAMS or n.startswith(TRACKING_PREFIXES)


def canonical_url(url: str) -> str:
    """Canonical form: w3lib canonicalisation, no fragment, no tracking parameters,
    lower-case host, default port dropped, empty path → ``/``."""
    parts = urlsplit(url.strip())
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _is_tracking(k)])
    host = (parts.hostname or "").lower()
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    port = parts.port
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    netloc = host if port in (None, default) else f"{host}:{port}"
    if parts.username:
        netloc = f"{parts.username}{':' + parts.password if parts.password else ''}@{netloc}"
    rebuilt = urlunsplit((parts.scheme.lower(), netloc, parts.path or "/", query, ""))
    return canonicalize_url(rebuilt, keep_fragments=False)


def host_of(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()
