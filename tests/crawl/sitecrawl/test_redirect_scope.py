"""Round four, item 7: a redirect target is a link. A real docs crawl over two loopback hosts: an in-scope link
that redirects to another host is not followed and never kept as a source; a redirect within the site is."""

from __future__ import annotations

from tests.mockserver import MockServer, html

HTML = "text/html; charset=utf-8"
PROSE = "<p>This paragraph explains the configuration of the example service in enough words to be real content.</p>" * 3


def test_a_redirect_to_another_host_is_not_followed_or_kept(run_crawl):
    other = MockServer(routes={"/landing.html": (200, HTML, html("Elsewhere", f"<div role='main'><h1>Elsewhere</h1>{PROSE}</div>"))})
    with other:
        def site(srv, host, path, query, body):
            if path == "/docs/":
                links = "<a href='/docs/away.html'>away</a> <a href='/docs/moved.html'>moved</a>"
                return 200, {"Content-Type": HTML}, html("Home", f"<div role='main'><h1>Home</h1>{PROSE}{links}</div>")
            if path == "/docs/away.html":
                return 302, {"Location": f"{other.url}/landing.html"}, b""
            if path == "/docs/moved.html":
                return 301, {"Location": "/docs/new.html"}, b""
            if path == "/docs/new.html":
                return 200, {"Content-Type": HTML}, html("New", f"<div role='main'><h1>New</h1>{PROSE}</div>")
            return 404, {"Content-Type": "text/plain"}, "not found"

        with MockServer(routes=site) as docs:
            # two hosts: the same address, another port (a scope's host is host:port)
            res = run_crawl({"start_urls": f"{docs.url}/docs/", "max_pages": 10})
    assert res.returncode == 0, res.log[-3000:]
    urls = {i.get("final_url") or i["url"] for i in res.items()}
    assert not other.seen, "the off-site redirect target was fetched"
    assert not any("landing" in u for u in urls)
    assert any(u.endswith("/docs/new.html") for u in urls)  # a redirect within the site is followed
    assert res.stats.get("skill3/dropped/offsite_redirect") == 1
