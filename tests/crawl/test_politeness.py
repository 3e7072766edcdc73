"""Network guard classification and Retry-After parsing (pure parts of the safety middlewares)."""

import ipaddress
from datetime import datetime, timezone

import pytest
from scrapy.settings import Settings

from skill3crawl.middlewares import parse_retry_after
from skill3crawl.netguard import allow_private, blocked_reason, host_verdict, ip_literal, trusted_endpoints


@pytest.mark.parametrize(
    "addr, reason",
    [
        ("127.0.0.1", "loopback"),
        ("127.255.0.9", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("fd12::1", "private"),
        ("169.254.169.254", "metadata"),
        ("fd00:ec2::254", "metadata"),
        ("100.100.100.200", "metadata"),
        ("169.254.1.1", "link-local"),
        ("fe80::1", "link-local"),
        ("100.64.0.1", "shared"),
        ("0.0.0.0", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:10.0.0.1", "private"),
        ("64:ff9b::a9fe:a9fe", "metadata"),
        ("2002:7f00:1::", "loopback"),
        ("8.8.8.8", None),
        ("93.184.216.34", None),
        ("2606:4700::1111", None),
    ],
)
def test_blocked_reason(addr, reason):
    assert blocked_reason(ipaddress.ip_address(addr)) == reason


@pytest.mark.parametrize(
    "host, verdict",
    [
        ("127.0.0.1", "loopback"),
        ("127.1", "loopback"),
        ("2130706433", "loopback"),
        ("0x7f000001", "loopback"),
        ("0177.0.0.1", "loopback"),
        ("[::1]", "loopback"),
        ("169.254.169.254", "metadata"),
        ("localhost", "internal name"),
        ("app.localhost", "internal name"),
        ("metadata.google.internal", "internal name"),
        ("docs.python.org", None),
        ("8.8.8.8", None),
        ("deadbeef.example", None),
    ],
)
def test_host_verdict_without_dns(host, verdict):
    assert host_verdict(host) == verdict


def test_ip_literal_only_for_literals():
    assert ip_literal("example.org") is None
    assert ip_literal("1.2.3.4") == ipaddress.ip_address("1.2.3.4")


def test_allow_private_from_setting_or_env(monkeypatch):
    monkeypatch.delenv("SKILL3_ALLOW_PRIVATE_NETWORKS", raising=False)
    assert not allow_private(Settings({"SKILL3_ALLOW_PRIVATE_NETWORKS": False}))
    assert allow_private(Settings({"SKILL3_ALLOW_PRIVATE_NETWORKS": "1"}))
    monkeypatch.setenv("SKILL3_ALLOW_PRIVATE_NETWORKS", "1")
    assert allow_private(Settings())


def test_trusted_endpoints_are_configuration(monkeypatch):
    monkeypatch.setenv("BRAVE_SEARCH_URL", "http://127.0.0.1:8800/res/v1/web/search")
    monkeypatch.setenv("http_proxy", "http://10.0.0.5:3128")
    trusted = trusted_endpoints(Settings({"SKILL3_TRUSTED_ENDPOINTS": ["https://llm.internal:8443/v1"]}))
    assert {("127.0.0.1", 8800), ("10.0.0.5", 3128), ("llm.internal", 8443)} <= trusted
    assert ("127.0.0.1", 80) not in trusted
    assert ("10.0.0.5", 3128) not in trusted_endpoints(Settings(), proxies=False)


NOW = datetime(2026, 11, 29, 12, 0, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    "value, seconds",
    [
        (b"1", 1.0),
        ("120", 120.0),
        (" 0 ", 0.0),
        ("Sun, 29 Nov 2026 12:00:30 GMT", 30.0),
        ("Sun, 29 Nov 2026 11:00:00 GMT", 0.0),
        ("soon", None),
        ("-5", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_retry_after(value, seconds):
    assert parse_retry_after(value, NOW) == seconds


@pytest.mark.parametrize(
    "url, allowed_private, blocked",
    [
        ("http://169.254.169.254/latest/meta-data/", False, True),
        ("http://127.1:8080/", False, True),
        ("http://localhost/", False, True),
        ("http://docs.example.org/", False, False),  # names: checked by the resolver at connect time
        ("file:///etc/passwd", False, True),
        ("ftp://example.org/x", False, True),
        ("file:///etc/passwd", True, True),  # other schemes stay refused even when private networks are allowed
        ("http://127.0.0.1:8080/", True, False),
        # the configured search API: its own calls pass; the same host and port as a page (a search result) does not
        ("https://api.search.brave.com/res/v1/web/search?q=x", False, "api"),
        ("https://api.search.brave.com/res/v1/web/search?q=x", False, True),
    ],
)
def test_guard_middleware(url, allowed_private, blocked, monkeypatch):
    from scrapy import Request
    from scrapy.exceptions import IgnoreRequest
    from scrapy.utils.test import get_crawler

    from skill3crawl.netguard import NetworkGuardMiddleware

    monkeypatch.delenv("SKILL3_ALLOW_PRIVATE_NETWORKS", raising=False)
    monkeypatch.delenv("BRAVE_SEARCH_URL", raising=False)
    crawler = get_crawler(settings_dict={"SKILL3_ALLOW_PRIVATE_NETWORKS": allowed_private})
    crawler.stats.open_spider()
    mw = NetworkGuardMiddleware.from_crawler(crawler)
    if blocked is True:
        with pytest.raises(IgnoreRequest):
            mw.process_request(Request(url))
        assert crawler.stats.get_value("skill3/netguard/blocked") == 1
    else:
        assert mw.process_request(Request(url, meta={"skill3_api": True} if blocked == "api" else {})) is None


@pytest.mark.parametrize("url, meta, blocked", [
    ("http://127.0.0.1:8888/search?q=x&format=json", {"skill3_api": True}, False),  # the SearXNG API call
    ("http://127.0.0.1:8888/search?q=x&format=json", {}, True),  # the same URL as a search result
    ("http://127.0.0.1:8888/preferences", {}, True),
    ("http://127.0.0.1:8888/robots.txt", {}, True),
    ("http://127.0.0.1:8889/", {"skill3_api": True}, True),  # another port of that host: an API mark exempts nothing
    ("http://10.0.0.5:3128/", {}, True),  # the proxy as a page
    ("http://10.0.0.5:3128/", {"skill3_api": True}, True),  # a proxy is never an API to call
    ("http://llm.corp.example:8443/v1/models", {}, True),  # a trusted endpoint (the model) as a page
])
def test_trusted_endpoints_are_exempt_for_their_api_calls_only(url, meta, blocked, monkeypatch):
    from scrapy import Request
    from scrapy.exceptions import IgnoreRequest
    from scrapy.utils.test import get_crawler

    from skill3crawl.netguard import NetworkGuardMiddleware

    monkeypatch.delenv("SKILL3_ALLOW_PRIVATE_NETWORKS", raising=False)
    monkeypatch.setenv("SEARXNG_URL", "http://127.0.0.1:8888")
    monkeypatch.setenv("http_proxy", "http://10.0.0.5:3128")
    crawler = get_crawler(settings_dict={"SKILL3_TRUSTED_ENDPOINTS": ["https://llm.corp.example:8443/v1"]})
    crawler.stats.open_spider()
    mw = NetworkGuardMiddleware.from_crawler(crawler)
    if blocked:
        with pytest.raises(IgnoreRequest, match="network guard"):
            mw.process_request(Request(url, meta=meta))
    else:
        assert mw.process_request(Request(url, meta=meta)) is None


class _Recorder:
    def __init__(self):
        self.addresses, self.done = [], False

    def resolutionBegan(self, resolution):
        pass

    def addressResolved(self, address):
        self.addresses.append(address.host)

    def resolutionComplete(self):
        self.done = True


class _FakeOriginal:
    """The reactor's own resolver, answering from a table."""

    def __init__(self, table):
        self.table, self.calls = table, []

    def resolveHostName(self, receiver, host, port=0, addressTypes=None, transportSemantics="TCP"):
        from twisted.internet.address import IPv4Address

        self.calls.append(host)
        receiver.resolutionBegan(None)
        for ip in self.table.get(host, []):
            receiver.addressResolved(IPv4Address("TCP", ip, port))
        receiver.resolutionComplete()


@pytest.mark.parametrize(
    "host, port, allow, expected",
    [
        ("public.example", 80, False, ["93.184.216.34"]),
        ("mixed.example", 80, False, ["93.184.216.34"]),  # the private answer is withheld
        ("internal.example", 80, False, []),  # only private answers: fails like an unknown name
        ("internal.example", 80, True, ["10.0.0.7"]),
        ("proxy.corp", 3128, False, ["10.0.0.9"]),  # a trusted endpoint (host, port)
        ("proxy.corp", 80, False, []),  # … only on its configured port
        ("pinned.test", 80, False, []),  # pins are checked too
        ("pinned.test", 80, True, ["127.0.0.1"]),
    ],
)
def test_guarded_resolver(host, port, allow, expected):
    from skill3crawl.netguard import GuardedResolver, refused_names

    class Reactor:
        nameResolver = _FakeOriginal({"public.example": ["93.184.216.34"], "mixed.example": ["10.0.0.1", "93.184.216.34"],
                                      "internal.example": ["10.0.0.7"], "proxy.corp": ["10.0.0.9"]})

    r = GuardedResolver(Reactor(), allow, {("proxy.corp", 3128)}, {"*.test": "127.0.0.1"}, cache_size=10)
    refused_names.discard(host)
    rec = _Recorder()
    r.resolveHostName(rec, host, port)
    assert rec.done and rec.addresses == expected
    assert (host in refused_names) == (not expected and not allow)


def test_guarded_resolver_caches_checked_answers():
    from skill3crawl.netguard import GuardedResolver

    class Reactor:
        nameResolver = _FakeOriginal({"public.example": ["93.184.216.34"]})

    r = GuardedResolver(Reactor(), False, set(), {}, cache_size=10)
    for port in (80, 443):
        rec = _Recorder()
        r.resolveHostName(rec, "public.example", port)
        assert rec.addresses == ["93.184.216.34"]
    assert Reactor.nameResolver.calls == ["public.example"]


def test_search_key_is_only_on_the_request_while_it_downloads(monkeypatch):
    """The key is never in a request that can be queued (JOBDIR on disk, Redis, a retry)."""
    from types import SimpleNamespace

    import scrapy

    from skill3crawl.args import parse_args
    from skill3crawl.middlewares import SearchKeyMiddleware

    monkeypatch.delenv("BRAVE_SEARCH_API_KEY", raising=False)
    args = parse_args({"topic": "t", "brave_key": "sk-search-123"})
    mw = SearchKeyMiddleware(SimpleNamespace(spider=SimpleNamespace(args=args)))
    search = scrapy.Request("https://api.search.example/s?q=t", meta={"skill3_search": True})
    page = scrapy.Request("https://docs.example.org/")
    mw.process_request(search)
    mw.process_request(page)
    assert search.headers[b"X-Subscription-Token"] == b"sk-search-123"  # on the wire
    assert b"X-Subscription-Token" not in page.headers  # never sent to a crawled site
    mw.process_response(search, None)
    assert "sk-search-123" not in repr(search.to_dict())  # what a retry would queue
    mw.process_request(search)
    mw.process_exception(search, TimeoutError())
    assert b"X-Subscription-Token" not in search.headers


def test_a_page_on_the_runs_model_endpoint_is_refused(monkeypatch):
    """The model is called outside Scrapy: a search result on its host and port is never fetched."""
    from types import SimpleNamespace

    from scrapy import Request
    from scrapy.exceptions import IgnoreRequest
    from scrapy.utils.test import get_crawler

    from skill3crawl.netguard import NetworkGuardMiddleware

    monkeypatch.delenv("SKILL3_ALLOW_PRIVATE_NETWORKS", raising=False)
    crawler = get_crawler()
    crawler.stats.open_spider()
    crawler.spider = SimpleNamespace(args=SimpleNamespace(llm_endpoint="https://llm.public.example/v1"))
    mw = NetworkGuardMiddleware.from_crawler(crawler)
    with pytest.raises(IgnoreRequest, match="trusted endpoint"):
        mw.process_request(Request("https://llm.public.example/v1/models", meta={"skill3_api": True}))
    assert mw.process_request(Request("https://llm.public.example:8443/docs")) is None  # another port: a public page
