"""synth.evidence.conflicts: advice about an API read from sentences, opposite advice settled by authority then date."""

import pytest

from synth.evidence.conflicts import DISCOURAGES, RECOMMENDS, SourceText, advice, api_key, resolve, stale_constructs


@pytest.mark.parametrize("sentence, expected", [
    ("Use `MCPServer` instead of `FastMCP`.", {"MCPServer": RECOMMENDS, "FastMCP": DISCOURAGES}),
    ("FastMCP is deprecated; use MCPServer.", {"FastMCP": DISCOURAGES, "MCPServer": RECOMMENDS}),
    ("The `FastMCP` class is the recommended way to build servers.", {"FastMCP": RECOMMENDS}),
    ("Do not use `mcp.server.fastmcp.FastMCP()`.", {"FastMCP": DISCOURAGES}),
    ("Avoid calling `read_resource()` in loops.", {"read_resource": DISCOURAGES}),
    ("The old `session.send_ping` was replaced by `session.ping`.", {"send_ping": DISCOURAGES, "ping": RECOMMENDS}),
    ("HTTPClient is no longer supported.", {"HTTPClient": DISCOURAGES}),
    ("Create servers with `FastMCP(\"name\")`, the easiest way.", {}),  # a mention, no advice
    ("The HTTP+SSE transport is removed in this revision.", {}),  # no API named
    ("The Python SDK is the recommended way.", {}),  # "The", "Python" are no identifiers
])
def test_advice(sentence, expected):
    assert advice(sentence) == expected


@pytest.mark.parametrize("raw, key", [("`mcp.server.fastmcp.FastMCP()`", "FastMCP"), ("FastMCP(\"x\")", "FastMCP"), ("`tasks/get`", "tasks/get")])
def test_api_key(raw, key):
    assert api_key(raw) == key


def _src(url, authority, post, published, *excerpts, code=()):
    return SourceText(url, authority, post, published, list(excerpts), list(code))


OFFICIAL_NEW = ("https://docs.example.org/2.0", 1.0, True, "2026-06-30", "`FastMCP` is deprecated; use `MCPServer` instead.")
BLOG_OLD = ("https://someone.medium.com/p", 0.2, False, "2025-03-01", "The `FastMCP` class is the recommended way. Other words here.")


@pytest.mark.parametrize("a, b, loser, kept", [
    (OFFICIAL_NEW, BLOG_OLD, 1, "Other words here."),  # authority and date agree
    (("https://docs.example.org/1.9", 1.0, False, "2025-01-10", "Use `FastMCP` for every server."),
     ("https://someone.medium.com/q", 0.2, True, "2026-07-01", "`FastMCP` is deprecated. Use other tools."), 1, "Use other tools."),
    # authority first: a fresh blog never overrides an official page
    (("https://docs.example.org/1.9", 1.0, False, "2025-01-10", "Use `FastMCP` for every server."),
     ("https://docs.example.org/2.0", 1.0, True, "2026-06-30", "`FastMCP` is deprecated."), 0, ""),  # same authority: the fresh one
])
def test_the_higher_standing_wins(a, b, loser, kept):
    sources = [_src(*a), _src(*b)]
    res = resolve(sources)
    assert len(res.dropped) == 1 and res.dropped[0]["loser"] == sources[loser].url
    assert sources[loser].excerpts == ([kept] if kept else [])
    assert sources[1 - loser].excerpts == [(a, b)[1 - loser][4]]  # the winner is untouched


def test_equal_standing_is_left_alone_and_recorded():
    sources = [_src("https://a.example/x", 0.5, True, "2026-05-01", "Use `FastMCP` now."),
               _src("https://b.example/y", 0.5, True, "2026-05-01", "`FastMCP` is deprecated.")]
    res = resolve(sources)
    assert res.dropped == [] and res.unresolved == [{"api": "FastMCP", "sources": ["https://a.example/x", "https://b.example/y"]}]


def test_code_using_a_deprecated_api_loses_with_its_page_but_code_alone_starts_nothing():
    official, blog = _src(*OFFICIAL_NEW), _src(*BLOG_OLD, code=["server = FastMCP('x')", "print('unrelated')"])
    resolve([official, blog])
    assert blog.code == ["print('unrelated')"]
    quiet = [_src("https://a.example/x", 1.0, True, "2026-05-01", "Servers are stateless.", code=["FastMCP('x')"]),
             _src("https://b.example/y", 0.2, False, "2025-01-01", "Nothing about it.", code=["MCPServer('x')"])]
    assert resolve(quiet).dropped == []


def test_stale_constructs_come_from_fresh_sources_only():
    fresh = {"url": "u", "authority": 1.0, "post_cutoff": True, "published": "2026-06-30", "excerpts": [OFFICIAL_NEW[4]]}
    assert stale_constructs([fresh]) == [{"pattern": r"(?<![\w.])FastMCP(?![\w])", "what": "`FastMCP`", "instead": "`MCPServer`"}]
    old = {**fresh, "post_cutoff": False, "published": "2025-01-01"}
    assert stale_constructs([old]) is None  # no fresh source: D1 has nothing to check
    blog = {**fresh, "authority": 0.2}
    assert stale_constructs([blog]) == []  # a low-authority page never makes a construct stale


# -- what a fresh source says is no longer true ----------------------------------------------------------------------

FRESH = {"url": "http://docs.test/changelog.html", "post_cutoff": True, "authority": 1.0, "excerpts": [
    "`Client.read()` now returns the whole body as `bytes`; it no longer returns a list of chunks.",
    "The `retry` option does not accept negative numbers anymore."]}


@pytest.mark.parametrize("line, stale", [
    ("`Client.read()` returns the response body as a list of chunks.", True),
    ("In our tests client.read() returns it as a list of chunks.", True),  # the API as an identifier
    ("It returns the body as a list of chunks that you join.", True),  # no API named: three words of the phrase
    ("`Client.read()` no longer returns a list of chunks.", False),  # the change itself
    ("Before 3.0, `Client.read()` returned a list of chunks.", False),  # said to be past
    ("`Client.write()` takes a list of chunks.", False),  # another statement
    ("The `retry` option accepts negative numbers to retry forever.", True),
    ("The `retry` option accepts a number of attempts.", False),
])
def test_a_statement_a_fresh_source_says_no_longer_holds(line, stale):
    from synth.evidence.conflicts import superseded_claims

    claims = superseded_claims([FRESH])
    assert any(c.contradicted_by(line) for c in claims) is stale


def test_an_old_or_low_authority_source_supersedes_nothing():
    from synth.evidence.conflicts import superseded_claims

    assert superseded_claims([{**FRESH, "post_cutoff": False}]) == []
    assert superseded_claims([{**FRESH, "authority": 0.3}]) == []


@pytest.mark.parametrize("sources, account", [
    ([{"post_cutoff": True}, {"post_cutoff": True, "published": "2026-03-01"}], "sources published after the 2026-01 cutoff of m"),
    ([{"post_cutoff": True}, {"delta_only": True}, {"post_cutoff": True, "build_date": "2026-10-01"}],
     "sources published after the 2026-01 cutoff of m or documenting versions released after it"),
    ([{"post_cutoff": True}, {"published": "2025-03-01"}],
     "2 source(s): 1 published or documenting versions after the 2026-01 cutoff of m, 1 published before it (used for structure only)"),
    ([{"published": "2025-03-01"}, {"build_date": "2026-10-01", "published": "2026-10-01"}],
     "2 source(s): 1 published before the 2026-01 cutoff of m (used for structure only), 1 undated"),
])
def test_the_footer_says_what_the_sources_were(sources, account):
    from synth.skill.stale import source_account

    assert source_account(sources, "2026-01", "m") == account
