"""The network guard: never fetch loopback, private, link-local or metadata addresses.

Two layers:

* :class:`NetworkGuardMiddleware` (downloader middleware, before robots.txt) rejects
  IP-literal targets in blocked ranges — in every spelling ``getaddrinfo``
  accepts (``127.1``, ``2130706433``, ``0x7f.0.0.1``, ``[::ffff:127.0.0.1]``) —
  and well-known internal names. This layer also holds behind an HTTP proxy,
  where target names are never resolved locally.
* :class:`GuardedResolver` (``TWISTED_DNS_RESOLVER``) checks the addresses a
  name resolves to at the moment the crawler connects, and hands on only
  public ones; a name with none left fails like an unresolvable name (a failed
  download, not a crash).

``SKILL3_ALLOW_PRIVATE_NETWORKS`` (setting or environment variable) turns both
off. Configured endpoints — the search API (``BRAVE_SEARCH_URL``, ``SEARXNG_URL``), the package registries
(``SKILL3_PYPI_URL`` … or the user's pip/npm configuration, else the public ones, and their archive hosts), the proxies
in ``http_proxy``/``https_proxy``, ``SKILL3_TRUSTED_ENDPOINTS`` — are trusted
configuration, not crawl input: only skill3's own API calls to them pass (requests
marked ``meta["skill3_api"]``: the searches, the registry look-ups). Any other
request to a trusted endpoint's host and port — a search result, a link, a redirect
target, its robots.txt — is refused, so search results cannot make skill3 read the
search server (or any trusted endpoint) and copy it into a skill. ``SKILL3_RESOLVE`` (``{"name" or
"*.suffix": "ip"}``) pins names to addresses, like curl's ``--resolve``; pinned
answers are still checked.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import os
import socket
from typing import Any, Iterable
from urllib.parse import urlsplit
from urllib.request import getproxies

from scrapy.exceptions import IgnoreRequest
from scrapy.utils.datatypes import LocalCache
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.address import IPv4Address, IPv6Address
from twisted.internet.interfaces import IHostnameResolver, IHostResolution, IResolutionReceiver
from zope.interface import implementer, provider

from skill3crawl.discovery.search import brave_endpoint, searxng_url
from skill3crawl.packages.userconfig import registry_endpoints
from synth.core import default_settings

logger = logging.getLogger(__name__)

_TRUE = {"1", "true", "yes", "on"}
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "169.254.170.2", "100.100.100.200", "192.0.0.192", "fd00:ec2::254")
)
BLOCKED_NAMES = ("localhost", "metadata.google.internal", "metadata", "instance-data", "instance-data.ec2.internal")
BLOCKED_SUFFIXES = (".localhost", ".internal", ".local")
_NETWORKS = {
    "shared": ipaddress.ip_network("100.64.0.0/10"),  # carrier-grade NAT, also Alibaba metadata
    "nat64": ipaddress.ip_network("64:ff9b::/96"),
}

# Request meta key marking one of skill3's own API calls to a configured endpoint (search, registries).
API_META = "skill3_api"

# Names the resolver refused (read by the spider to count blocked requests).
refused_names: set[str] = set()


def allow_private(settings: Any = None) -> bool:
    if os.environ.get("SKILL3_ALLOW_PRIVATE_NETWORKS", "").strip().lower() in _TRUE:
        return True
    return bool(settings is not None and settings.getbool("SKILL3_ALLOW_PRIVATE_NETWORKS"))


def blocked_reason(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why an address may not be crawled (``loopback``, ``private``, ``metadata`` …), or None when public."""
    if isinstance(ip, ipaddress.IPv6Address):
        mapped = ip.ipv4_mapped or ip.sixtofour
        if mapped is not None:
            return blocked_reason(mapped)
        if ip in _NETWORKS["nat64"]:
            return blocked_reason(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    if ip in METADATA_ADDRESSES:
        return "metadata"
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_multicast:
        return "multicast"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _NETWORKS["shared"]:
        return "shared"
    if ip.is_private:
        return "private"
    if ip.is_reserved:
        return "reserved"
    return None


def ip_literal(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address a host string denotes literally, in any form ``getaddrinfo`` accepts; None for names."""
    h = (host or "").strip().strip("[]").rstrip(".")
    if not h:
        return None
    try:
        return ipaddress.ip_address(h.split("%", 1)[0])
    except ValueError:
        pass
    if all(c in "0123456789abcdefxABCDEFX." for c in h) and any(c.isdigit() for c in h):
        try:  # 127.1, 2130706433, 0x7f000001, 0177.0.0.1 — inet_aton's legacy forms
            return ipaddress.IPv4Address(socket.inet_aton(h))
        except OSError:
            return None
    return None


def host_verdict(host: str) -> str | None:
    """Why a URL host may not be requested, judged without DNS; None when it may be (resolution is checked later)."""
    ip = ip_literal(host)
    if ip is not None:
        return blocked_reason(ip)
    h = (host or "").lower().rstrip(".")
    if h in BLOCKED_NAMES or h.endswith(BLOCKED_SUFFIXES):
        return "internal name"
    return None


def _endpoint(url: str) -> tuple[str, int] | None:
    try:
        p = urlsplit(url if "//" in url else f"//{url}")
        if not p.hostname:
            return None
        return p.hostname.lower(), p.port or (443 if p.scheme == "https" else 80)
    except ValueError:
        return None


def trusted_endpoints(settings: Any = None, proxies: bool = True) -> set[tuple[str, int]]:
    """(host, port) of configured services: the search API, SKILL3_TRUSTED_ENDPOINTS and (for the
    resolver, which also resolves the proxy the crawler connects to) the proxies. A crawled URL
    that names a proxy's address is crawl input like any other, so the middleware leaves proxies out."""
    urls = [brave_endpoint(settings)]
    searx = searxng_url(settings)
    if searx:  # a self-hosted SearXNG is configured by the user, often on loopback or a private network
        urls.append(str(searx))
    urls += registry_endpoints(settings)  # the package registries skill3 asks (default or configured: a mirror may be private)
    if proxies:
        urls += [v for k, v in getproxies().items() if k in ("http", "https") and v]
    if settings is not None:
        value = settings.get("SKILL3_TRUSTED_ENDPOINTS") or list(default_settings.SKILL3_TRUSTED_ENDPOINTS)
        if isinstance(value, str):  # -s SKILL3_TRUSTED_ENDPOINTS='["http://a:1"]' or 'http://a:1,http://b:2'
            value = json.loads(value) if value.strip().startswith("[") else value.split(",")
        urls += [str(v).strip() for v in value if str(v).strip()]
    return {e for e in (_endpoint(u) for u in urls) if e}


class NetworkGuardMiddleware:
    """Downloader middleware: IgnoreRequest for blocked literal targets (counted ``skill3/netguard/blocked``)."""

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler
        self.allow = allow_private(crawler.settings)
        self.trusted = trusted_endpoints(crawler.settings, proxies=False)
        self.configured = trusted_endpoints(crawler.settings)  # the proxies too: never a page to crawl

    @classmethod
    def from_crawler(cls, crawler: Any) -> "NetworkGuardMiddleware":
        return cls(crawler)

    def process_request(self, request: Any) -> None:
        p = urlparse_cached(request)
        if p.scheme not in ("http", "https"):  # file://, ftp://, s3://, data: are never crawl targets
            self._block(request, f"{p.scheme or 'no'} scheme")
        if self.allow:
            return None
        host = (p.hostname or "").lower()
        port = p.port or (443 if p.scheme == "https" else 80)
        if (host, port) in self.configured or (host, port) == self._model_endpoint():
            if request.meta.get(API_META) and (host, port) in self.trusted:
                return None  # one of skill3's own API calls
            self._block(request, "trusted endpoint (only its API calls are exempt)")
        reason = host_verdict(host)
        if reason:
            self._block(request, f"{reason} address")
        return None

    def _model_endpoint(self) -> tuple[str, int] | None:
        """The run's LLM endpoint (the spider's ``llm_endpoint``): the model is called outside Scrapy, so no
        Scrapy request to it is one of skill3's API calls — a page found there is refused like the others."""
        if not hasattr(self, "_model"):
            args = getattr(getattr(self.crawler, "spider", None), "args", None)
            endpoint = getattr(args, "llm_endpoint", None)
            if args is None:
                return None  # the spider is not there yet: ask again next time
            self._model = _endpoint(endpoint) if endpoint else None
        return self._model

    def _block(self, request: Any, why: str) -> None:
        self.crawler.stats.inc_value("skill3/netguard/blocked")
        self.crawler.stats.inc_value(f"skill3/netguard/blocked/{why}")
        logger.warning("network guard: not fetching %s (%s)", request.url[:200], why)
        raise IgnoreRequest(f"network guard: {why}")


class NetworkGuardRefusalMiddleware:
    """Downloader middleware (closest to the downloader): a name the resolver refused is a blocked
    request (IgnoreRequest, counted), not a DNS error to retry and log with a traceback."""

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Any) -> "NetworkGuardRefusalMiddleware":
        return cls(crawler)

    def process_exception(self, request: Any, exception: Exception) -> None:
        from scrapy.exceptions import CannotResolveHostError
        from twisted.internet.error import DNSLookupError

        if isinstance(exception, (CannotResolveHostError, DNSLookupError)):
            host = (urlparse_cached(request).hostname or "").lower()
            if host in refused_names:
                self.crawler.stats.inc_value("skill3/netguard/blocked")
                self.crawler.stats.inc_value("skill3/netguard/blocked/resolved-private")
                raise IgnoreRequest(f"network guard: {host} resolves only to blocked addresses")
        return None


@provider(IResolutionReceiver)
class _FilteringReceiver:
    def __init__(self, receiver: Any, host: str, check: bool = True, cache: Any = None) -> None:
        self.receiver = receiver
        self.host = host
        self.check = check
        self.cache = cache
        self.kept: list[Any] = []
        self.refused: list[str] = []

    def resolutionBegan(self, resolution: Any) -> None:
        self.receiver.resolutionBegan(resolution)

    def addressResolved(self, address: Any) -> None:
        reason = blocked_reason(ipaddress.ip_address(address.host.split("%", 1)[0])) if self.check else None
        if reason:
            self.refused.append(f"{address.host} ({reason})")
        else:
            self.kept.append(address)

    def resolutionComplete(self) -> None:
        for a in self.kept:
            self.receiver.addressResolved(a)
        if self.kept and self.cache is not None and self.check:
            self.cache[self.host.lower()] = [a.host for a in self.kept]
        if self.refused and not self.kept:
            refused_names.add(self.host.lower())
            logger.warning("network guard: %s resolves only to blocked addresses: %s", self.host, ", ".join(self.refused[:4]))
        self.receiver.resolutionComplete()


@implementer(IHostResolution)
class _Resolution:
    def __init__(self, name: str) -> None:
        self.name = name

    def cancel(self) -> None:  # pragma: no cover - nothing to cancel
        pass


def _pinned(pins: dict[str, str], host: str) -> str | None:
    host = host.lower().rstrip(".")
    if host in pins:
        return pins[host]
    for pattern, ip in pins.items():
        if pattern.startswith("*.") and (host.endswith(pattern[1:]) or host == pattern[2:]):
            return ip
    return None


@implementer(IHostnameResolver)
class GuardedResolver:
    """Twisted name resolver that hands on only crawlable addresses (see module doc)."""

    def __init__(self, reactor: Any, allow: bool, trusted: Iterable[tuple[str, int]], pins: dict[str, str], cache_size: int = 0) -> None:
        self.reactor = reactor
        self.original = reactor.nameResolver
        self.allow = allow
        self.trusted = set(trusted)
        self.pins = {k.lower(): v for k, v in pins.items()}
        # Checked (public) answers only, like Scrapy's DNSCACHE_* for its own resolvers.
        self.cache: LocalCache | None = LocalCache(cache_size) if cache_size else None

    @classmethod
    def from_crawler(cls, crawler: Any, reactor: Any) -> "GuardedResolver":
        s = crawler.settings
        size = s.getint("DNSCACHE_SIZE") if s.getbool("DNSCACHE_ENABLED") else 0
        return cls(reactor, allow_private(s), trusted_endpoints(s), s.getdict("SKILL3_RESOLVE", dict(default_settings.SKILL3_RESOLVE)), size)

    def install_on_reactor(self) -> None:
        self.reactor.installNameResolver(self)

    def resolveHostName(self, receiver: Any, hostName: str, portNumber: int = 0, addressTypes: Any = None, transportSemantics: str = "TCP") -> Any:
        check = not self.allow and (hostName.lower(), portNumber) not in self.trusted
        target = _FilteringReceiver(receiver, hostName, check, self.cache)
        known = _pinned(self.pins, hostName)
        answers = [known] if known is not None else (self.cache.get(hostName.lower()) if self.cache is not None and check else None)
        if answers:
            resolution = _Resolution(hostName)
            target.resolutionBegan(resolution)
            for answer in answers:
                ip = ipaddress.ip_address(answer)
                cls = IPv4Address if ip.version == 4 else IPv6Address
                target.addressResolved(cls("TCP", str(ip), portNumber))
            target.resolutionComplete()
            return resolution
        return self.original.resolveHostName(target, hostName, portNumber, addressTypes, transportSemantics)
