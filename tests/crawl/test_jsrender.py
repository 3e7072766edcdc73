"""JS-rendered pages: shell detection (table), the middleware's routing, and a real Chromium render."""

import os

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse, TextResponse
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from skill3crawl.jsrender import JsRenderAddon, JsRenderMiddleware, looks_like_app_shell
from tests.mockserver import MockServer, html

LONG = "<p>" + "Real documentation text that a reader can use without any JavaScript at all. " * 8 + "</p>"

SHELLS = {
    "react-cra": "<html><head><title>App</title></head><body><noscript>You need to enable JavaScript to run this app.</noscript><div id='root'></div><script src='/static/js/main.js'></script></body></html>",
    "next": "<html><body><div id='__next'></div><script id='__NEXT_DATA__' type='application/json'>{\"props\":{}}</script><script src='/_next/main.js'></script></body></html>",
    "vue-inline": "<html><body><div id='app'>Loading…</div><script>window.start()</script></body></html>",
    "angular": "<html><body><app-root></app-root><script src='main.js'></script></body></html>",
    "unnamed-mount": "<html><body><div></div><script src='bundle.js'></script></body></html>",
    "uppercase-id": "<html><body><div id='Root'></div><script src='/a.js'></script></body></html>",
    "next-big-inline-state": "<html><body><div id='__next'></div><script id='__NEXT_DATA__' type='application/json'>"
    + '{"props": "' + "state data " * 5000 + "\"}</script><script src='/_next/main.js'></script></body></html>",
}
NOT_SHELLS = {
    "static-no-scripts": "<html><body><div id='root'></div></body></html>",
    "ssr-next": f"<html><body><div id='__next'><main><h1>Guide</h1>{LONG}</main></div><script src='/_next/main.js'></script></body></html>",
    "sphinx": f"<html><body><div class='body' role='main'><h1>API</h1>{LONG}</div><script src='_static/doctools.js'></script></body></html>",
    "short-page-no-mount": "<html><body><h1>Moved</h1><p>See the new page.</p><script src='/analytics.js'></script></body></html>",
    "empty": "",
    "not-html": "\x00\x01binary",
    "only-json-script-empty": "<html><body><div id='root'></div><script type='application/json'></script></body></html>",
}


@pytest.mark.parametrize("name", sorted(SHELLS))
def test_shells_detected(name):
    assert looks_like_app_shell(SHELLS[name]) is True


@pytest.mark.parametrize("name", sorted(NOT_SHELLS))
def test_non_shells_not_detected(name):
    assert looks_like_app_shell(NOT_SHELLS[name]) is False


def test_bytes_input():
    assert looks_like_app_shell(SHELLS["react-cra"].encode()) is True


def _mw(mode: str):
    crawler = get_crawler(settings_dict={"SKILL3_JS": mode})
    crawler.stats.open_spider()
    return crawler, JsRenderMiddleware.from_crawler(crawler)


def _resp(url, body, **meta):
    req = Request(url, meta=meta)
    return req, HtmlResponse(url, body=body.encode(), encoding="utf-8", request=req)


def test_auto_rerenders_shell_once_and_passes_static_pages():
    crawler, mw = _mw("auto")
    req, resp = _resp("http://d.test/app/", SHELLS["react-cra"])
    again = mw.process_response(req, resp)
    assert isinstance(again, Request) and again.meta["playwright"] is True and again.dont_filter
    rendered = HtmlResponse(again.url, body=b"<html><body><div id='root'><p>hi</p></div></body></html>", request=again)
    assert mw.process_response(again, rendered) is rendered
    req2, resp2 = _resp("http://d.test/guide.html", NOT_SHELLS["sphinx"])
    assert mw.process_response(req2, resp2) is resp2
    assert mw.process_request(Request("http://d.test/x.html")) is None
    stats = crawler.stats.get_stats()
    assert stats["skill3/js/rendered"] == 1 and stats["skill3/js/static"] == 1 and stats["skill3/js/shell_detected"] == 1


def test_auxiliary_files_never_rendered():
    crawler, mw = _mw("always")
    req = Request("http://d.test/sitemap.xml", meta={"skill3_kind": "sitemap"})
    mw.process_request(req)
    assert "playwright" not in req.meta
    llms = Request("http://d.test/llms.txt")
    mw.process_request(llms)
    assert "playwright" not in llms.meta
    resp = TextResponse("http://d.test/llms.txt", body=b"# x", request=llms)
    assert mw.process_response(llms, resp) is resp


def test_always_marks_every_page():
    crawler, mw = _mw("always")
    req = Request("http://d.test/guide.html")
    mw.process_request(req)
    assert req.meta["playwright"] is True


def test_never_disables_middleware_and_handler():
    from scrapy.exceptions import NotConfigured

    with pytest.raises(NotConfigured):
        _mw("never")
    s = Settings({"SKILL3_JS": "never"})
    JsRenderAddon().update_settings(s)
    assert "http" not in s.getdict("DOWNLOAD_HANDLERS")


def test_bad_mode_is_one_line_error():
    with pytest.raises(ValueError, match="SKILL3_JS must be one of auto, always, never"):
        JsRenderAddon().update_settings(Settings({"SKILL3_JS": "sometimes"}))


def test_addon_installs_playwright_with_system_chromium(tmp_path):
    fake = tmp_path / "chromium"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    s = Settings({"SKILL3_JS": "auto", "SKILL3_CHROMIUM": str(fake)})
    JsRenderAddon().update_settings(s)
    assert s.getdict("DOWNLOAD_HANDLERS")["https"] == "skill3crawl.jsrender.PlainOrBrowserHandler"
    launch = s.getdict("PLAYWRIGHT_LAUNCH_OPTIONS")
    assert launch["executable_path"] == str(fake) and "--no-sandbox" in launch["args"] and "--disable-quic" in launch["args"]
    assert s.get("PLAYWRIGHT_BROWSER_TYPE") == "chromium"


def test_auto_without_chromium_turns_itself_off(tmp_path):
    s = Settings({"SKILL3_JS": "auto", "SKILL3_CHROMIUM": str(tmp_path / "missing")})
    JsRenderAddon().update_settings(s)
    assert s.get("SKILL3_JS") == "never" and "http" not in s.getdict("DOWNLOAD_HANDLERS")
    with pytest.raises(ValueError, match="needs Chromium"):
        JsRenderAddon().update_settings(Settings({"SKILL3_JS": "always", "SKILL3_CHROMIUM": str(tmp_path / "missing")}))


CHROMIUM = os.environ.get("SKILL3_CHROMIUM", "/usr/bin/chromium")
APP_JS = b"""
document.getElementById('root').innerHTML =
  '<h1>Rendered guide</h1><p>The marker ZEBRA-7F3A only exists after JavaScript ran in a real browser engine.</p>' +
  '<p>Second paragraph with enough words to count as content for the extractor of documentation pages.</p>' +
  '<p>Third paragraph: the rendered guide explains how the client application loads its data and draws the page.</p>';
"""


@pytest.mark.chromium
@pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)")
def test_js_only_page_yields_rendered_text(run_crawl):
    static_body = f"<div role='main'><h1>Static</h1>{LONG}<a href='/app/'>app</a></div>"
    routes = {
        "/robots.txt": (200, "text/plain", b"User-agent: *\nAllow: /\n"),
        "/static.html": (200, "text/html; charset=utf-8", html("Static", static_body)),
        "/app/": (200, "text/html; charset=utf-8", SHELLS["react-cra"].replace("/static/js/main.js", "/app/app.js").encode()),
        "/app/app.js": (200, "application/javascript", APP_JS),
    }
    with MockServer(routes) as site:
        res = run_crawl({"start_urls": f"{site.url}/static.html"}, {"SKILL3_JS": "auto", "SKILL3_CHROMIUM": CHROMIUM})
    assert res.returncode == 0, res.log[-3000:]
    items = {i["url"]: i for i in res.items()}
    app = items[f"{site.url}/app/"]
    assert any("ZEBRA-7F3A" in e for e in app["excerpts"]), app["excerpts"]
    assert not any("ZEBRA-7F3A" in e for e in items[f"{site.url}/static.html"]["excerpts"])
    # only the shell went through the browser: its script was fetched once, by Chromium
    assert site.hits["/app/app.js"] == 1
    assert site.hits["/app/"] == 2  # plain download, then the browser
    assert site.hits["/static.html"] == 1
    assert res.stats["skill3/js/rendered"] == 1
    assert res.stats["skill3/js/static"] == 1
    assert "first page that needs a browser: starting Playwright" in res.log  # started lazily, by the shell
    assert res.log.count("scrapy-playwright==") == 1  # its handler built once, by the shell's request


def test_addon_defers_the_browser_to_the_first_page_that_needs_it(tmp_path):
    fake = tmp_path / "chromium"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    s = Settings({"SKILL3_JS": "auto", "SKILL3_CHROMIUM": str(fake)})
    JsRenderAddon().update_settings(s)
    assert s.get("PLAYWRIGHT_BROWSER_PROVIDER") == "skill3crawl.jsrender.LazyBrowserProvider"
    own = Settings({"SKILL3_JS": "auto", "SKILL3_CHROMIUM": str(fake), "PLAYWRIGHT_BROWSER_PROVIDER": "my.Provider"})
    JsRenderAddon().update_settings(own)
    assert own.get("PLAYWRIGHT_BROWSER_PROVIDER") == "my.Provider"  # a user's provider is kept


BROWSER_PROCESSES = ("node", "chrom", "headless_shell")  # Playwright's node driver, Chromium and its helpers


@pytest.mark.chromium
@pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)")
def test_static_site_never_starts_the_browser(tmp_path):
    """SKILL3_JS=auto with Chromium present: no Playwright driver and no Chromium below the crawler, ever."""
    import subprocess

    from tests.crawl.docs_mode import ROOT, crawl_cmd, crawl_env
    from tests.proctree import TreeSampler

    pages = {f"/p{i}.html": (200, "text/html; charset=utf-8", html(f"Page {i}", f"<div role='main'><h1>Page {i}</h1>{LONG}"
             + "".join(f"<a href='/p{j}.html'>p{j}</a>" for j in range(6)) + "</div>")) for i in range(6)}
    pages["/robots.txt"] = (200, "text/plain", b"User-agent: *\nAllow: /\n")
    with MockServer(pages, delay=0.3) as site:  # slow pages: the crawl lasts seconds, the sampler sees its whole life
        cmd = crawl_cmd({"start_urls": f"{site.url}/p0.html", "output_dir": str(tmp_path / "out")},
                        {"SKILL3_JS": "auto", "SKILL3_CHROMIUM": CHROMIUM, "CONCURRENT_REQUESTS_PER_DOMAIN": "1",
                         "SKILL3_EXTRACT_WORKERS": "1", "HTTPCACHE_ENABLED": "0"})
        proc = subprocess.Popen(cmd, cwd=ROOT, env=crawl_env(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        with TreeSampler(proc.pid, interval=0.05) as tree:
            _, log = proc.communicate(timeout=120)
    assert proc.returncode == 0, log[-3000:]
    assert len([line for line in (tmp_path / "out" / "run.jsonl").read_text().splitlines() if line.strip()]) == 6
    assert tree.peak_processes >= 2  # the sampler does see children: the extraction worker
    assert not [n for n in tree.names if n.startswith(BROWSER_PROCESSES)], tree.names
    assert "Starting Playwright" not in log and "starting Playwright" not in log
    assert "scrapy-playwright==" not in log  # scrapy-playwright's handler never built (PlainOrBrowserHandler)


def test_the_browser_gets_the_crawls_proxy(tmp_path, monkeypatch):
    fake = tmp_path / "chromium"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("http_proxy", "http://deploy:s%40fe@10.0.0.5:3128")
    monkeypatch.setenv("no_proxy", "localhost,.corp.example")
    s = Settings({"SKILL3_JS": "auto", "SKILL3_CHROMIUM": str(fake)})
    JsRenderAddon().update_settings(s)
    assert s.getdict("PLAYWRIGHT_LAUNCH_OPTIONS")["proxy"] == {
        "server": "http://10.0.0.5:3128", "username": "deploy", "password": "s@fe", "bypass": "localhost,.corp.example"}
    own = Settings({"SKILL3_JS": "auto", "SKILL3_CHROMIUM": str(fake), "PLAYWRIGHT_LAUNCH_OPTIONS": {"proxy": {"server": "http://x:1"}}})
    JsRenderAddon().update_settings(own)
    assert own.getdict("PLAYWRIGHT_LAUNCH_OPTIONS")["proxy"] == {"server": "http://x:1"}  # the user's own wins
    monkeypatch.delenv("http_proxy")
    bare = Settings({"SKILL3_JS": "auto", "SKILL3_CHROMIUM": str(fake)})
    JsRenderAddon().update_settings(bare)
    assert "proxy" not in bare.getdict("PLAYWRIGHT_LAUNCH_OPTIONS")


def _proxied_site() -> dict:
    static_body = f"<div role='main'><h1>Static</h1>{LONG}<a href='/app/'>app</a></div>"
    return {
        "/robots.txt": (200, "text/plain", b"User-agent: *\nAllow: /\n"),
        "/static.html": (200, "text/html; charset=utf-8", html("Static", static_body)),
        "/app/": (200, "text/html; charset=utf-8", SHELLS["react-cra"].replace("/static/js/main.js", "/app/app.js").encode()),
        "/app/app.js": (200, "application/javascript", APP_JS),
    }


PROXY_USER, PROXY_PASSWORD = "crawler", "pr0xy-" + "pass"


class AuthProxy:
    """The site behind a forward proxy that wants Basic credentials (answers 407 without them), as corporate ones do."""

    def __init__(self) -> None:
        import base64

        self.site = _proxied_site()
        self.token = "Basic " + base64.b64encode(f"{PROXY_USER}:{PROXY_PASSWORD}".encode()).decode()
        self.refused = 0

    def __call__(self, srv, host, path, query, body):
        if srv.request.headers.get("Proxy-Authorization") != self.token:
            self.refused += 1
            return 407, {"Proxy-Authenticate": 'Basic realm="proxy"', "Content-Type": "text/plain"}, b"proxy auth required"
        status, ctype, payload = self.site.get(path, (404, "text/plain", b"not found"))
        return status, {"Content-Type": ctype}, payload


def _crawl_behind_proxy(tmp_path, proxy_port: int, settings: dict, credentials: str = ""):
    from tests import harness
    from tests.crawl.docs_mode import FAST, ROOT, CrawlResult, _spider_args

    # docs.example.test resolves nowhere: only the proxy (the site server itself, serving absolute-URI requests) reaches it
    args = {"start_urls": f"http://docs.example.test:{proxy_port}/static.html", "output_dir": str(tmp_path / "out")}
    env = harness.crawl_env({"SKILL3_TEST_STATS_FILE": str(tmp_path / "stats.json"),
                             "http_proxy": f"http://{credentials}127.0.0.1:{proxy_port}", "no_proxy": ""})
    proc = harness.forkserver.run(harness.scrapy_argv("docs", _spider_args(args), {**FAST, "SKILL3_JS": "auto",
                                  "SKILL3_CHROMIUM": CHROMIUM, "HTTPCACHE_ENABLED": "0", **settings}),
                                  env=env, cwd=ROOT, timeout=120, strict=True)
    return CrawlResult(proc, tmp_path / "stats.json", tmp_path / "out")


@pytest.mark.chromium
@pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)")
def test_js_rendering_behind_an_http_proxy(tmp_path):
    with MockServer(_proxied_site()) as proxy:
        res = _crawl_behind_proxy(tmp_path, proxy.port, {})
        seen = [(s.host, s.path) for s in proxy.seen]
    assert res.returncode == 0, res.log[-3000:]
    app = {i["url"]: i for i in res.items()}[f"http://docs.example.test:{proxy.port}/app/"]
    assert any("ZEBRA-7F3A" in e for e in app["excerpts"]), app["excerpts"]
    assert ("docs.example.test", "/app/app.js") in seen  # Chromium fetched the script through the proxy
    assert res.stats["skill3/js/rendered"] == 1 and "Traceback" not in res.log


@pytest.mark.chromium
@pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)")
def test_js_rendering_behind_a_proxy_that_wants_credentials(tmp_path):
    """Chromium takes no credentials from http_proxy (only Scrapy's own requests carried them): it is given the
    proxy with its user name and password."""
    routes = AuthProxy()
    with MockServer(routes) as proxy:
        res = _crawl_behind_proxy(tmp_path, proxy.port, {}, credentials=f"{PROXY_USER}:{PROXY_PASSWORD}@")
    assert res.returncode == 0, res.log[-3000:]
    app = {i["url"]: i for i in res.items()}.get(f"http://docs.example.test:{proxy.port}/app/")
    assert app is not None and any("ZEBRA-7F3A" in e for e in app["excerpts"]), res.log[-3000:]
    assert res.stats["skill3/js/rendered"] == 1
    assert PROXY_PASSWORD not in res.log


@pytest.mark.chromium
@pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)")
def test_a_page_that_cannot_render_is_a_dropped_page(tmp_path):
    """Chromium cannot reach the page (its proxy is down): the page is dropped and counted, the crawl goes on."""
    with MockServer(_proxied_site()) as proxy:
        res = _crawl_behind_proxy(tmp_path, proxy.port, {"PLAYWRIGHT_LAUNCH_OPTIONS": {"proxy": {"server": "http://127.0.0.1:9"}}})
    assert res.returncode == 0, res.log[-3000:]
    assert [i["url"] for i in res.items()] == [f"http://docs.example.test:{proxy.port}/static.html"]
    assert res.stats["skill3/dropped/not_rendered"] == 1
    assert "could not render" in res.log and "Traceback" not in res.log
