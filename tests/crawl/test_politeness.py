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
