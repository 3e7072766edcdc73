"""URL identity (synth.urls): one canonical form and one page key for the crawl, the corpus and lint."""

from __future__ import annotations

import pytest

from synth.urls import canonical_url, url_key

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
