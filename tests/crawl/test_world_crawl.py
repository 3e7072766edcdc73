"""Real `scrapy crawl learn` runs against the loopback world (see tests/mockserver/web.py).

Assertions are about what the crawl did: the requests each server saw, the
items written to run.jsonl, crawl.json, and the closing summary.
"""

from __future__ import annotations

import json

import pytest

from synth.evidence.consensus import item_snippets
from synth.evidence.item import SourceItem
from synth.evidence.shingles import line_tokens, snippet_tokens
from synth.llm.planner import deterministic_queries
from tests.crawl.conftest import read_jsonl, scrapy_crawl
from tests.mockserver import MockServer, brave_rejecting, brave_routes, llm_routes, site_routes

KEY = "test-key-SECRET-4711"
QUERIES = ["alpha release notes 2026", "alpha api changes"]
TEST_SETTINGS = {
    "SKILL3_TODAY": "2026-11-29",
    "AUTOTHROTTLE_ENABLED": "0",
    "DOWNLOAD_DELAY": "0",
    "DOWNLOAD_MAXSIZE": "300000",
    "DOWNLOAD_WARNSIZE": "0",
    "DOWNLOAD_TIMEOUT": "10",
    "RETRY_TIMES": "2",
    "SKILL3_RESOLVE": {"*.test": "127.0.0.1", "stale.medium.com": "127.0.0.1", "github.com": "127.0.0.1"},
    "LOG_LEVEL": "INFO",
}


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    sites = MockServer(name="sites", routes=site_routes).start()
    p = sites.port

    def results(q: str) -> list[dict]:
        docs = f"http://docs.example.test:{p}"
        if q == QUERIES[0]:
            return [
                {"url": f"{docs}/guide.html?utm_source=brave#intro", "title": "Guide", "description": "d", "page_age": "2026-03-01"},
                {"url": f"http://stale.medium.com:{p}/old-post", "title": "Old", "description": "d"},
                {"url": f"http://stale.medium.com:{p}/older-post", "title": "Older", "description": "d"},
                {"url": f"http://news.example.test:{p}/future.html", "title": "Future", "description": "d"},
                {"url": f"{docs}/textdate.html", "title": "Text", "description": "d"},
            ]
        return [
            {"url": f"{docs}/guide.html", "title": "Guide again", "description": "d"},
            {"url": f"http://github.com:{p}/acme/alpha/releases", "title": "Releases", "description": "d"},
            {"url": f"http://news.example.test:{p}/mirror.html", "title": "Mirror", "description": "d"},
            {"url": f"{docs}/flaky429.html", "title": "429", "description": "d"},
            {"url": f"{docs}/flaky500.html", "title": "500", "description": "d"},
            {"url": f"{docs}/big.html", "title": "Big", "description": "d"},
            {"url": f"{docs}/private/secret.html", "title": "Secret", "description": "d"},
        ]

    brave = MockServer(name="brave", routes=brave_routes(results)).start()
    llm = MockServer(name="llm", routes=llm_routes("Sure! Here are the queries:\n```json\n" + json.dumps(QUERIES) + "\n```")).start()
    out = tmp_path_factory.mktemp("world") / "out"
    proc = scrapy_crawl(
        "topic=Alpha toolkit",
        "cutoff_time=2026-01",
        "authoritative=docs.example.test",
        f"start_urls=http://docs.example.test:{p}/",
        f"output_dir={out}",
        f"brave_key={KEY}",
        f"llm_endpoint=http://127.0.0.1:{llm.port}/v1",
        "llm_model=stub",
        "synth=0",
        settings={**TEST_SETTINGS, "SKILL3_ALLOW_PRIVATE_NETWORKS": "1"},
        env={"BRAVE_SEARCH_URL": f"http://127.0.0.1:{brave.port}/res/v1/web/search"},
    )
    items = read_jsonl(out / "run.jsonl") if (out / "run.jsonl").exists() else []
    crawl = json.loads((out / "crawl.json").read_text()) if (out / "crawl.json").exists() else {}
    yield {"sites": sites, "brave": brave, "llm": llm, "proc": proc, "items": {i["url"]: i for i in items},
           "lines": items, "crawl": crawl, "out": out, "port": p}
    for s in (sites, brave, llm):
        s.stop()


def u(world, host: str, path: str) -> str:
    return f"http://{host}:{world['port']}{path}"


def test_crawl_succeeds_and_writes_items_in_field_order(world):
    proc = world["proc"]
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "Traceback" not in proc.stderr
    assert world["lines"] and all(list(i) == SourceItem.field_names() for i in world["lines"])
    # the snippet tokens, last, as synthesis's vote finds them without parsing the line
    raw = (world["out"] / "run.jsonl").read_bytes().splitlines(keepends=True)
    assert [line_tokens(r) is not None for r in raw] == [True] * len(world["lines"])
    assert all(i["snippet_tokens"] == snippet_tokens(item_snippets(i["excerpts"], i["code_blocks"])) for i in world["lines"])


def test_planner_asked_the_llm_and_queries_reach_brave(world):
    probe, call = world["llm"].seen  # llm_provider auto (the default): GET /models, then one chat call
    assert probe.path == "/v1/models"
    assert call.path == "/v1/chat/completions"
    assert "Alpha toolkit" in call.body.decode() and "2026-01" in call.body.decode()
    searches = world["brave"].seen
    assert sorted(s.query["q"][0] for s in searches) == sorted(QUERIES)
    for s in searches:
        assert s.query["freshness"] == ["2026-01-01to2026-11-29"] and s.query["count"] == ["20"]
        assert s.headers["X-Subscription-Token"] == KEY
    assert searches[1].t - searches[0].t >= 0.9  # the search API slot: at most one request per second
    assert world["crawl"]["queries"] == QUERIES
    assert world["crawl"]["planner"]["status"] == "planned"


def test_key_is_never_logged_or_written(world):
    assert KEY not in world["proc"].stderr + world["proc"].stdout
    for f in world["out"].rglob("*"):
        if f.is_file():
            assert KEY not in f.read_text(errors="replace"), f
    assert world["crawl"]["args"]["brave_key_set"] is True and "brave_key" not in world["crawl"]["args"]


def test_search_results_are_deduplicated_and_carry_their_query(world):
    docs_guide = [s for s in world["sites"].seen if s.host == "docs.example.test" and s.path == "/guide.html"]
    assert len(docs_guide) == 1  # found twice (tracking params, fragment), fetched once
    guide = world["items"][u(world, "docs.example.test", "/guide.html")]
    assert (guide["discovery"], guide["query"]) == ("brave", QUERIES[0])
    releases = world["items"][u(world, "github.com", "/acme/alpha/releases")]
    assert releases["query"] == QUERIES[1] and releases["authority"] == 0.7
    assert releases["published"] == "2026-10-01"


def test_direct_fallback_uses_llms_txt_sitemap_and_links(world):
    docs = world["sites"].paths("docs.example.test")
    for path in ("/robots.txt", "/llms.txt", "/sitemap.xml", "/", "/guide.md", "/api.html", "/lastmod-only.html", "/linked.html"):
        assert path in docs, path
    assert "/foreign.html" not in world["sites"].paths()  # a sitemap lists only its own host
    items = world["items"]
    assert items[u(world, "docs.example.test", "/guide.md")]["discovery"] == "llms.txt"
    assert items[u(world, "docs.example.test", "/lastmod-only.html")]["discovery"] == "sitemap"
    assert items[u(world, "docs.example.test", "/linked.html")]["discovery"] == "link"
    assert items[u(world, "docs.example.test", "/")]["discovery"] == "start"
    assert world["crawl"]["discovery"] == ["brave", "direct"]


@pytest.mark.parametrize(
    "path, published, source",
    [
        ("/guide.html", "2026-03-01", "json-ld"),
        ("/api.html", "2026-02-11", "opengraph"),
        ("/meta.html", "2026-05-06", "meta"),
        ("/linked.html", "2026-06-07", "time"),
        ("/textdate.html", "2026-07-08", "htmldate"),
        ("/lastmod-only.html", "2026-04-15", "sitemap-lastmod"),
        ("/guide.md", "2026-08-19", "http-last-modified"),
    ],
)
def test_each_date_signal(world, path, published, source):
    item = world["items"][u(world, "docs.example.test", path)]
    assert (item["published"], item["date_source"]) == (published, source)
    assert item["authority"] == 1.0 and item["post_cutoff"] is True


def test_content_fields(world):
    api = world["items"][u(world, "docs.example.test", "/api.html")]
    assert api["title"] == "API reference"
    assert api["excerpts"][0] == "# API reference"
    assert api["code_blocks"] == [{"text": "from alpha import Client\n\nc = Client(  )\n", "language": "python"}]
    md = world["items"][u(world, "docs.example.test", "/guide.md")]
    assert md["code_blocks"] == [{"text": "alpha  serve --port 8080\n", "language": "bash"}]
    guide = world["items"][u(world, "docs.example.test", "/guide.html")]
    assert guide["modified"] == "2026-03-10"
    assert guide["combined_score"] == round(guide["authority"] * guide["recency_weight"], 4)
    assert guide["consensus_count"] >= 1 and guide["snippet_fingerprints"] and len(guide["content_hash"]) == 32


def test_stale_blog_is_low_authority_and_its_crawl_delay_is_honoured(world):
    old = world["items"][u(world, "stale.medium.com", "/old-post")]
    assert (old["authority"], old["post_cutoff"], old["recency_weight"], old["combined_score"]) == (0.2, False, 0.5, 0.1)
    hits = [s.t for s in world["sites"].seen if s.host == "stale.medium.com"]
    assert len(hits) == 3  # robots.txt + two posts
    # Crawl-delay: 1 set as the slot's delay without jitter (the middleware says so), and seen at the server: the
    # arrival gaps also carry each request's own connect/send latency (tens of ms, more on a loaded machine), so
    # they are checked clear of "no delay" (~0 s) rather than to the millisecond.
    assert "robots.txt of stale.medium.com asks for Crawl-delay 1.0s: honoured" in world["proc"].stderr
    assert min(b - a for a, b in zip(hits, hits[1:])) >= 0.8


def test_duplicate_page_keeps_higher_authority_url(world):
    items = world["items"]
    assert u(world, "news.example.test", "/mirror.html") not in items
    guide = items[u(world, "docs.example.test", "/guide.html")]
    assert guide["agreeing_urls"] == [u(world, "news.example.test", "/mirror.html")]
    assert len({i["content_hash"] for i in world["lines"]}) == len(world["lines"])


def test_future_dated_robots_denied_oversized_and_empty_pages_are_dropped(world):
    items, seen = world["items"], world["sites"].paths()
    assert u(world, "news.example.test", "/future.html") not in items and "/future.html" in seen
    assert not any(p.startswith("/private/") for p in seen)  # robots.txt Disallow
    assert u(world, "docs.example.test", "/big.html") not in items
    assert u(world, "docs.example.test", "/empty.html") not in items and "/empty.html" in seen
    summary = world["crawl"]["summary"]
    assert summary["dropped"] == {"duplicate": 1, "future_dated": 1, "no_content": 1, "oversized": 1}
    assert summary["robots_denied"] == 1  # listed by search, sitemap and a link: one request, denied
    assert summary["items_written"] == len(world["lines"])
    assert summary["pages_fetched"] == len(world["lines"]) + 3  # + future, mirror, empty (big never completes)
    # each dropped page listed by URL and reason (the preview lists them)
    listed = {(d["url"], d["reason"]) for d in world["crawl"]["dropped_items"]}
    assert {(u(world, "docs.example.test", "/private/secret.html"), "robots"),
            (u(world, "news.example.test", "/future.html"), "future_dated"),
            (u(world, "docs.example.test", "/big.html"), "oversized"),
            (u(world, "docs.example.test", "/empty.html"), "no_content")} <= listed, listed


def test_429_and_500_are_retried(world):
    seen = world["sites"].seen
    r429 = [s.t for s in seen if s.path == "/flaky429.html"]
    assert len(r429) == 2 and r429[1] - r429[0] >= 0.95  # waited Retry-After: 1
    assert len([s for s in seen if s.path == "/flaky500.html"]) == 2
    assert world["items"][u(world, "docs.example.test", "/flaky429.html")]["published"] == "2026-09-01"
    assert world["items"][u(world, "docs.example.test", "/flaky500.html")]["published"] == "2026-09-02"


def test_summary_line_matches_crawl_json(world):
    s = world["crawl"]["summary"]
    line = next(line for line in world["proc"].stderr.splitlines() if "skill3 crawl summary:" in line)
    assert f"pages fetched {s['pages_fetched']}" in line and f"items written {s['items_written']}" in line
    assert f"robots-denied {s['robots_denied']}" in line
    assert "'skill3/items_written': %d" % s["items_written"] in world["proc"].stderr  # the stats dump



def test_without_a_key_the_direct_crawl_runs_alone(tmp_path):
    sites = MockServer(name="sites", routes=site_routes).start()
    try:
        out = tmp_path / "out"
        proc = scrapy_crawl(
            "topic=alpha", "cutoff_time=2026-01", f"start_urls=http://docs.example.test:{sites.port}/", "llm_provider=openai",
            "llm_endpoint=http://127.0.0.1:9/v1", f"output_dir={out}", "synth=0", "max_pages=3",
            settings={**TEST_SETTINGS, "SKILL3_ALLOW_PRIVATE_NETWORKS": "1"},
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        items = read_jsonl(out / "run.jsonl")
        assert len(items) == 3  # max_pages: pages actually written
        assert {i["discovery"] for i in items} <= {"start", "llms.txt", "sitemap", "link"}
        crawl = json.loads((out / "crawl.json").read_text())
        assert crawl["queries"] == [] and crawl["planner"]["status"] == "skipped" and crawl["discovery"] == ["direct"]
        assert crawl["summary"]["items_written"] == 3
        assert "/llms.txt" in sites.paths() and "/sitemap.xml" in sites.paths()
    finally:
        sites.stop()


def test_network_guard_blocks_private_targets(tmp_path):
    """Without SKILL3_ALLOW_PRIVATE_NETWORKS nothing private is contacted; the configured search API still is."""
    sites = MockServer(name="sites", routes=site_routes).start()
    p = sites.port
    bait = [
        f"http://docs.example.test:{p}/guide.html",  # a name that resolves to loopback
        f"http://127.0.0.1:{p}/guide.html",
        f"http://localhost:{p}/guide.html",
        "http://169.254.169.254/latest/meta-data/",
        f"http://[::1]:{p}/x",
        f"http://2130706433:{p}/y",  # 127.0.0.1 as one number
        f"http://[::ffff:127.0.0.1]:{p}/z",
        "http://10.0.0.1/admin",
        # a trusted endpoint (SKILL3_TRUSTED_ENDPOINTS) is exempt for skill3's own API calls only: a search
        # result on it is a page like any other, refused before anything (robots.txt included) is sent
        f"http://redirector.test:{p}/go-ip",
        f"http://redirector.test:{p}/go-name",
    ]
    brave = MockServer(name="brave", routes=brave_routes(lambda q: [{"url": b, "title": "t", "description": "d"} for b in bait]))
    # the search API's own host and port, as search results: never fetched as pages
    bait += [f"http://127.0.0.1:{brave.port}/res/v1/web/search?q=other", f"http://127.0.0.1:{brave.port}/admin"]
    brave.start()
    try:
        out = tmp_path / "out"
        proc = scrapy_crawl(
            "topic=alpha", "cutoff_time=2026-01", f"output_dir={out}", f"brave_key={KEY}", "llm_provider=extractive", "synth=0",
            settings={**TEST_SETTINGS, "RETRY_TIMES": "0", "DOWNLOAD_TIMEOUT": "3",
                      "SKILL3_TRUSTED_ENDPOINTS": [f"http://redirector.test:{p}"]},
            env={"BRAVE_SEARCH_URL": f"http://127.0.0.1:{brave.port}/res/v1/web/search"},
        )
        # Not a single request reached a private target, not even robots.txt, nor a trusted endpoint as a page.
        assert sites.seen == []
        # the search API answered its own calls only; planner off → the fixed plan
        assert [(s.path, s.query.get("q")) for s in brave.seen] == [("/res/v1/web/search", [q]) for q in deterministic_queries("alpha")]
        assert proc.returncode == 1  # nothing usable was written
        assert "no usable sources" in proc.stderr
        crawl = json.loads((out / "crawl.json").read_text())
        # The 8 direct targets, docs.example.test's robots.txt, the 2 results on the trusted endpoint and the 2 on
        # the search API's own host and port.
        assert crawl["summary"]["network_guard_blocked"] == 13
        assert crawl["summary"]["items_written"] == 0 and read_jsonl(out / "run.jsonl") == []
        assert "Traceback" not in proc.stderr
    finally:
        sites.stop()
        brave.stop()


def test_network_guard_behind_a_proxy(tmp_path):
    """Behind http_proxy names are resolved by the proxy, not locally: IP-literal targets are still refused."""
    sites = MockServer(name="sites", routes=site_routes).start()  # doubles as the forward proxy (absolute-URI requests)
    p = sites.port
    bait = [f"http://127.0.0.1:{p}/guide.html", "http://169.254.169.254/latest/meta-data/", f"http://[::1]:{p}/x"]
    good = [f"http://docs.example.test:{p}/guide.html"]
    brave = MockServer(name="brave", routes=brave_routes(lambda q: [{"url": b, "title": "t", "description": "d"} for b in bait + good])).start()
    try:
        out = tmp_path / "out"
        proc = scrapy_crawl(
            "topic=alpha", "cutoff_time=2026-01", f"output_dir={out}", f"brave_key={KEY}", "llm_provider=extractive", "synth=0",
            settings={**TEST_SETTINGS, "SKILL3_RESOLVE": {}, "RETRY_TIMES": "0"},
            env={"BRAVE_SEARCH_URL": f"http://127.0.0.1:{brave.port}/res/v1/web/search", "http_proxy": f"http://127.0.0.1:{p}",
                 "no_proxy": "127.0.0.1"},
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert {s.host for s in sites.seen} == {"docs.example.test"}  # only the name went through the proxy
        assert sorted(s.path for s in sites.seen) == ["/guide.html", "/robots.txt"]
        assert [i["url"] for i in read_jsonl(out / "run.jsonl")] == good
        assert json.loads((out / "crawl.json").read_text())["summary"]["network_guard_blocked"] == len(bait)
    finally:
        sites.stop()
        brave.stop()


def test_http_cache_and_crawl_delay_under_autothrottle(tmp_path):
    """-s HTTPCACHE_ENABLED=1 in search mode: a re-run fetches the search results' pages again (neither the
    search nor its results are ever cached, the key is never stored); with AutoThrottle on and pushing for
    speed, robots.txt's Crawl-delay still holds."""
    sites = MockServer(name="sites", routes=site_routes).start()
    p = sites.port
    urls = [f"http://docs.example.test:{p}/guide.html", f"http://stale.medium.com:{p}/old-post", f"http://stale.medium.com:{p}/older-post"]
    brave = MockServer(name="brave", routes=brave_routes(lambda q: [{"url": x, "title": "t", "description": "d"} for x in urls])).start()
    cache = tmp_path / "cache"
    settings = {**TEST_SETTINGS, "SKILL3_ALLOW_PRIVATE_NETWORKS": "1", "HTTPCACHE_ENABLED": "1", "HTTPCACHE_DIR": str(cache),
                "AUTOTHROTTLE_ENABLED": "1", "AUTOTHROTTLE_START_DELAY": "0", "AUTOTHROTTLE_TARGET_CONCURRENCY": "16"}
    env = {"BRAVE_SEARCH_URL": f"http://127.0.0.1:{brave.port}/res/v1/web/search"}
    args = ("topic=alpha", "cutoff_time=2026-01", f"brave_key={KEY}", "llm_provider=extractive", "synth=0")
    try:
        first = scrapy_crawl(*args, f"output_dir={tmp_path / 'one'}", settings=settings, env=env)
        assert first.returncode == 0, first.stderr[-3000:]
        medium = [s.t for s in sites.seen if s.host == "stale.medium.com"]
        # AutoThrottle (start delay 0) never undercuts Crawl-delay: 1 (server-side gaps, see the stale-blog test)
        assert len(medium) == 3 and min(b - a for a, b in zip(medium, medium[1:])) >= 0.8
        second = scrapy_crawl(*args, f"output_dir={tmp_path / 'two'}", settings=settings, env=env)
        assert second.returncode == 0, second.stderr[-3000:]
        pages = sorted(s.path for s in sites.seen if s.path != "/robots.txt")
        assert pages == sorted(["/guide.html", "/old-post", "/older-post"] * 2)  # fresh both times, never from the cache
        assert len(brave.seen) == 2 * len(deterministic_queries("alpha"))  # the search (the fixed plan) ran both times
        # consensus_count is agreement *so far*: it depends on the order pages arrive in.
        volatile = ("fetched_at", "consensus_count")
        one = [{k: v for k, v in i.items() if k not in volatile} for i in read_jsonl(tmp_path / "one" / "run.jsonl")]
        two = [{k: v for k, v in i.items() if k not in volatile} for i in read_jsonl(tmp_path / "two" / "run.jsonl")]
        by_url = {i["url"]: i for i in two}
        assert len(one) == 3
        for i in one:
            assert i == by_url[i["url"]], i["url"]
        stored = [f for f in cache.rglob("*") if f.is_file()]
        assert not any(KEY.encode() in f.read_bytes() for f in stored)
        assert not any(b"/guide.html" in f.read_bytes() for f in stored if f.name == "meta")
    finally:
        sites.stop()
        brave.stop()


def test_rejected_search_key_falls_back_to_the_direct_crawl(tmp_path):
    sites = MockServer(name="sites", routes=site_routes).start()
    brave = MockServer(name="brave", routes=brave_rejecting).start()
    try:
        out = tmp_path / "out"
        proc = scrapy_crawl(
            "topic=alpha", "cutoff_time=2026-01", f"start_urls=http://docs.example.test:{sites.port}/api.html", f"output_dir={out}",
            f"brave_key={KEY}", "llm_endpoint=http://127.0.0.1:9/v1", "synth=0", "max_pages=1",  # nothing listens on port 9
            settings={**TEST_SETTINGS, "SKILL3_ALLOW_PRIVATE_NETWORKS": "1"},
            env={"BRAVE_SEARCH_URL": f"http://127.0.0.1:{brave.port}/res/v1/web/search"},
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "the search API rejected the key (HTTP 401)" in proc.stderr and KEY not in proc.stderr
        # the model was unreachable: the fixed plan, each query asked once (401 is not retried), the key's rejection said once
        assert [s.query["q"] for s in brave.seen] == [[q] for q in deterministic_queries("alpha")]
        assert proc.stderr.count("the search API rejected the key") == 1
        assert "no LLM answers" in proc.stderr and "planning falls back to the fixed query plan" in proc.stderr  # llm_provider auto
        crawl = json.loads((out / "crawl.json").read_text())
        assert crawl["planner"]["status"] == "fallback" and crawl["queries"] == deterministic_queries("alpha")
        assert crawl["discovery"] == ["brave", "direct"] and crawl["summary"]["items_written"] == 1
    finally:
        sites.stop()
        brave.stop()


def test_no_warnings_in_the_crawl_log(world):
    assert "Warning:" not in world["proc"].stderr and "py.warnings" not in world["proc"].stderr


# --------------------------------------------------------------------------- a run without a model searches as widely
FACET_WORDS = {"release notes": "release", "changelog": "changelog", "migration": "migration", "what's new": "whats-new",
               "deprecat": "deprecations"}


def spread_world_routes(srv, host: str, path: str, query: dict, body: bytes):
    """news.alpha.test: two dated post-cutoff pages per facet of where changes are published, and one for the topic."""
    from tests.mockserver.web import HTML, NOT_FOUND, page, prose

    if path == "/robots.txt":
        return 200, {"Content-Type": "text/plain"}, "User-agent: *\nAllow: /\n"
    if path.startswith("/posts/") and path.endswith(".html"):
        slug = path[len("/posts/"):-len(".html")]
        return 200, HTML, page(f"Alpha {slug}", prose(f"Alpha {slug}"), '<meta name="date" content="2026-06-01">')
    return NOT_FOUND


def test_without_a_model_the_fixed_plan_finds_what_a_planner_finds(tmp_path):
    """Search results spread over several queries (each facet of where changes are published has its own pages):
    a run without a model searches the fixed plan and fetches as many relevant pages as a run whose model planned
    the queries — not only the bare topic's one page."""
    sites = MockServer(name="sites", routes=spread_world_routes).start()
    base = f"http://news.alpha.test:{sites.port}/posts"

    def results(q: str) -> list[dict]:
        low = q.lower()
        slugs = [f"{slug}-{i}" for words, slug in FACET_WORDS.items() if words in low for i in (1, 2)] or ["overview"]
        return [{"url": f"{base}/{s}.html", "title": s, "description": "d"} for s in slugs]

    planned = ["alpha release notes 2026", "alpha changelog", "alpha migration guide", "alpha what's new", "alpha deprecations"]
    brave = MockServer(name="brave", routes=brave_routes(results)).start()
    llm = MockServer(name="llm", routes=llm_routes(json.dumps(planned))).start()
    env = {"BRAVE_SEARCH_URL": f"http://127.0.0.1:{brave.port}/res/v1/web/search"}
    settings = {**TEST_SETTINGS, "SKILL3_ALLOW_PRIVATE_NETWORKS": "1", "SKILL3_REGISTRIES": ""}
    fetched = {}
    try:
        for run, model in (("planner", ["llm_provider=openai", f"llm_endpoint=http://127.0.0.1:{llm.port}/v1", "llm_model=stub"]),
                           ("no-model", ["llm_provider=extractive"])):
            out = tmp_path / run
            proc = scrapy_crawl("topic=alpha", "cutoff_time=2026-01", f"output_dir={out}", f"brave_key={KEY}", "synth=0",
                                *model, settings=settings, env=env)
            assert proc.returncode == 0, proc.stderr[-3000:]
            fetched[run] = {i["url"] for i in read_jsonl(out / "run.jsonl") if "/posts/" in i["url"]}
            crawl = json.loads((out / "crawl.json").read_text())
            assert crawl["planner"]["status"] == ("planned" if run == "planner" else "skipped")
    finally:
        for s in (sites, brave, llm):
            s.stop()
    assert len(fetched["planner"]) == 10
    assert fetched["no-model"] >= fetched["planner"], sorted(fetched["planner"] - fetched["no-model"])


def test_the_authoritative_host_gets_its_sitemap_and_llms_txt_pass_however_much_search_finds(tmp_path):
    """Search finds plenty (10 pages): the named site is still crawled directly — robots.txt for its sitemaps, the
    sitemap, llms.txt — beside the search, within the page budget (before, only when search found fewer than 5)."""
    def routes(srv, host, path, query, body):
        return spread_world_routes(srv, host, path, query, body) if host == "news.alpha.test" else site_routes(srv, host, path, query, body)

    sites = MockServer(name="sites", routes=routes).start()
    base = f"http://news.alpha.test:{sites.port}/posts"
    brave = MockServer(name="brave", routes=brave_routes(
        lambda q: [{"url": f"{base}/{slug}-{i}.html", "title": slug, "description": "d"}
                   for slug in FACET_WORDS.values() for i in (1, 2)])).start()
    try:
        out = tmp_path / "out"
        proc = scrapy_crawl("topic=alpha", "cutoff_time=2026-01", "authoritative=docs.example.test",
                            f"start_urls=http://docs.example.test:{sites.port}/", f"output_dir={out}",
                            f"brave_key={KEY}", "synth=0", "llm_provider=extractive", "max_pages=30",
                            settings={**TEST_SETTINGS, "SKILL3_ALLOW_PRIVATE_NETWORKS": "1", "SKILL3_REGISTRIES": ""},
                            env={"BRAVE_SEARCH_URL": f"http://127.0.0.1:{brave.port}/res/v1/web/search"})
        assert proc.returncode == 0, proc.stderr[-3000:]
        docs = set(sites.paths("docs.example.test"))
        assert {"/robots.txt", "/sitemap.xml", "/llms.txt"} <= docs, proc.stderr[-5000:]
        items = read_jsonl(out / "run.jsonl")
        assert any(i["host"].startswith("docs.example.test") for i in items)
        assert len([i for i in items if "/posts/" in i["url"]]) == 10
        assert "direct" in json.loads((out / "crawl.json").read_text())["discovery"]
    finally:
        sites.stop()
        brave.stop()
