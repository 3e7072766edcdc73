"""URL identity, in one place for the crawl and for synthesis.

* :func:`canonical_url` — the form a page is requested and recorded under: w3lib
  canonicalisation (sorted query, normalised percent-escapes), no fragment, no tracking
  parameters, lower-case scheme and host, default port dropped, empty path → ``/``.
* :func:`url_key` — whether two URLs name the same page: the canonical form with a
  trailing ``index.html``/``index.htm`` folded into its folder and a trailing slash
  dropped (the root keeps its ``/``). The crawl de-duplicates on it, lint compares the
  cited sources with the run's on it.
* :func:`host_of` — a URL's host (the item's ``host``); :func:`normalize_host` — a host as
  one site (no ``www.``, no port: authority, build-dated hosts and consensus count sites);
  :func:`site_host` — both. Nothing else takes a URL apart for its host.

So ``https://Docs.Example.org:443/guide/index.html?b=1&a=2#top`` is requested as
``https://docs.example.org/guide/index.html?a=2&b=1`` and is the same page as
``https://docs.example.org/guide/?a=2&b=1`` (key ``https://docs.example.org/guide?a=2&b=1``).
"""

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
INDEX_FILES = ("index.html", "index.htm")


def _is_tracking(name: str) -> bool:
    n = name.lower()
    return n in TRACKING_PARAMS or n.startswith(TRACKING_PREFIXES)


def canonical_url(url: str) -> str:
    """Canonical form: w3lib canonicalisation, no fragment, no tracking parameters,
    lower-case host, default port dropped, empty path → ``/``. ValueError for a malformed port."""
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


def url_key(url: str) -> str:
    """The identity of the page ``url`` names: :func:`canonical_url` with ``…/index.html`` folded to
    ``…/`` and the trailing slash dropped (not the root's). ValueError for a malformed port."""
    parts = urlsplit(canonical_url(url))
    path = parts.path
    for index in INDEX_FILES:
        if path.endswith("/" + index):
            path = path[: -len(index)]
            break
    path = path.rstrip("/") or "/"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def host_of(url: str) -> str:
    """The URL's host name: lower-case, no trailing dot, an IPv6 literal without its brackets ('' when it
    has none or the URL is malformed)."""
    try:
        host = urlsplit(url or "").hostname or ""
    except ValueError:  # "http://[::1/": scraped URLs are untrusted
        return ""
    return host.lower().rstrip(".")


def normalize_host(host: str) -> str:
    """A host as one site: lower-case, no trailing dot, no ``www.``, no port (``Docs.Example.org:8443``,
    ``www.docs.example.org.`` → ``docs.example.org``; ``[::1]:8080`` → ``::1``)."""
    host = (host or "").strip().lower()
    if host.startswith("["):  # a bracketed IPv6 literal, maybe with a port
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    host = host.rstrip(".")
    return host[4:] if host.startswith("www.") else host


def site_host(url: str) -> str:
    """The site a URL is on: :func:`normalize_host` of :func:`host_of`."""
    return normalize_host(host_of(url))
