"""URL identity (synth.evidence.urls): one canonical form and one page key for the crawl, the corpus and lint."""

from __future__ import annotations

import pytest

from synth.evidence.urls import canonical_url, url_key

# The form a URL is requested and recorded under, and the key of the page it names.
CASES = [
    # url, canonical_url, url_key
    ("https://Docs.Example.org/guide/index.html?b=1&a=2", "https://docs.example.org/guide/index.html?a=2&b=1",
     "https://docs.example.org/guide?a=2&b=1"),
    ("https://docs.example.org/guide/?a=2&b=1#top", "https://docs.example.org/guide/?a=2&b=1", "https://docs.example.org/guide?a=2&b=1"),
    ("https://docs.example.org/guide?a=2&b=1", "https://docs.example.org/guide?a=2&b=1", "https://docs.example.org/guide?a=2&b=1"),
    ("https://docs.example.org/guide/index.htm", "https://docs.example.org/guide/index.htm", "https://docs.example.org/guide"),
    ("https://docs.example.org:443/", "https://docs.example.org/", "https://docs.example.org/"),
    ("http://docs.example.org:80", "http://docs.example.org/", "http://docs.example.org/"),
    ("https://docs.example.org/index.html", "https://docs.example.org/index.html", "https://docs.example.org/"),
    ("https://docs.example.org/a?utm_source=x&id=3&fbclid=1", "https://docs.example.org/a?id=3", "https://docs.example.org/a?id=3"),
    ("http://docs.example.test:8123/p/", "http://docs.example.test:8123/p/", "http://docs.example.test:8123/p"),
    ("https://docs.example.org/a%7Eb/ c", "https://docs.example.org/a~b/%20c", "https://docs.example.org/a~b/%20c"),
    ("https://docs.example.org/myindex.html", "https://docs.example.org/myindex.html", "https://docs.example.org/myindex.html"),
    ("https://[2001:DB8::1]:8443/x", "https://[2001:db8::1]:8443/x", "https://[2001:db8::1]:8443/x"),
]


@pytest.mark.parametrize("url, canon, key", CASES)
def test_canonical_url_and_key(url: str, canon: str, key: str) -> None:
    assert canonical_url(url) == canon
    assert url_key(url) == key
    assert url_key(canon) == key  # the key of the recorded form is the same page


@pytest.mark.parametrize(
    "a, b",
    [
        ("https://docs.example.org/guide/", "https://docs.example.org/guide/index.html"),
        ("https://docs.example.org/guide", "https://docs.example.org/guide/"),
        ("https://docs.example.org/a?b=1&a=2", "https://docs.example.org/a?a=2&b=1"),
    ],
)
def test_same_page(a: str, b: str) -> None:
    assert url_key(a) == url_key(b)


@pytest.mark.parametrize(
    "a, b",
    [
        ("http://docs.example.org/a", "https://docs.example.org/a"),  # the scheme is part of the page's identity
        ("https://docs.example.org/A", "https://docs.example.org/a"),  # paths are case-sensitive
        ("https://docs.example.org/a?q=1", "https://docs.example.org/a?q=2"),
        ("https://docs.example.org:8443/a", "https://docs.example.org/a"),
    ],
)
def test_different_pages(a: str, b: str) -> None:
    assert url_key(a) != url_key(b)


def test_malformed_port_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        url_key("https://docs.example.org:99999/")


# --------------------------------------------------------------------------- the host of a URL, in one place

HOSTS = [
    # url, host_of, site_host
    ("https://Docs.Example.ORG/guide/", "docs.example.org", "docs.example.org"),
    ("https://user:pw@Docs.Example.org:8443/x", "docs.example.org", "docs.example.org"),
    ("https://www.docs.example.org./x", "www.docs.example.org", "docs.example.org"),
    ("http://[::1]:8080/p", "::1", "::1"),
    ("http://127.0.0.1:8765/v1", "127.0.0.1", "127.0.0.1"),
    ("//docs.example.org/x", "docs.example.org", "docs.example.org"),
    ("not a url", "", ""),
    ("http://[::1/", "", ""),  # malformed: no host, no exception
]


@pytest.mark.parametrize("url, host, site", HOSTS)
def test_host_of_and_site_host(url, host, site):
    from synth.evidence.urls import host_of, normalize_host, site_host

    assert host_of(url) == host
    assert site_host(url) == site == normalize_host(host)


@pytest.mark.parametrize("host, site", [("Docs.Example.org:8443", "docs.example.org"), ("www.example.org.", "example.org"),
                                        ("[::1]:8080", "::1"), ("::1", "::1"), ("", "")])
def test_normalize_host(host, site):
    from synth.evidence.urls import normalize_host

    assert normalize_host(host) == site


def test_items_with_and_without_a_host_field_count_as_one_site(tmp_path):
    """The crawl writes ``host`` (host_of); a feed from elsewhere may leave it out and synthesis derives it from
    the URL. Both must name the same site: on a bracketed IPv6 host with a port they did not, so a
    build-dated site with half its pages lacking ``host`` was not recognised."""
    from datetime import date

    from synth.pipeline.bundle import Subject, rank_sources
    from tests.pipeline.corpus import make_item, write_jsonl

    items = []
    for i in range(12):
        item = make_item(f"http://[::1]:8080/p{i}.html", published="2026-06-01", excerpts=[f"Page {i} of the alpha docs."])
        item["host"] = "::1" if i % 2 else ""
        items.append(item)
    feed = write_jsonl(tmp_path / "run.jsonl", items)
    ranked = rank_sources([str(feed)], cutoff_start=date(2026, 1, 1), today=date(2026, 11, 29), subject=Subject("alpha"))
    assert list(ranked.delta.build_dated_hosts) == ["::1"]
