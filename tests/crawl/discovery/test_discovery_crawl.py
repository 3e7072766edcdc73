"""Zero-configuration discovery, as real crawls against loopback doubles (tests/crawl/discovery/fake_registries.py).

No search key and no hosts: the topic is looked up on (fake) PyPI / npm / crates.io, the chosen
package's repository releases (Atom) and changelog are fetched from (fake) GitHub, and its
documentation site is crawled in docs mode — every one of them a Scrapy request through the
network guard, robots.txt, the retry and Retry-After middlewares. SearXNG as a second search engine.
"""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

import pytest

from synth.evidence.item import SourceItem
from synth.llm.planner import deterministic_queries
from tests.crawl.conftest import REPO, read_jsonl, scrapy_crawl
from tests.crawl.discovery.fake_registries import FASTAPI_RELEASES, loopback_world, registry_world, searxng_routes
from tests.harness import skill3
from tests.mockserver import MockServer, site_routes

BRAVE_KEY = "brave-SECRET-key-0815"


def own_frames(stderr: str) -> list[str]:
    """Traceback frames in skill3's own code (Scrapy logs a refused robots.txt with its own traceback)."""
    return [line for line in stderr.splitlines() if line.strip().startswith("File ") and str(REPO) in line]


def closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there: a registry that is down
    return port


def settings(port: int, **extra) -> dict:
    return {
        "SKILL3_TODAY": "2026-11-29", "AUTOTHROTTLE_ENABLED": "0", "DOWNLOAD_DELAY": "0", "DOWNLOAD_TIMEOUT": "10",
        "RETRY_TIMES": "2", "LOG_LEVEL": "INFO", "SKILL3_ALLOW_PRIVATE_NETWORKS": "1", "SKILL3_REGISTRIES": "pypi,npm,crates",
        "SKILL3_RESOLVE": {"*.test": "127.0.0.1", "github.com": "127.0.0.1", "raw.githubusercontent.com": "127.0.0.1"},
        "SKILL3_PYPI_URL": f"http://pypi.test:{port}/pypi", "SKILL3_NPM_URL": f"http://registry.npm.test:{port}",
        "SKILL3_CRATES_URL": f"http://crates.test:{port}/api/v1/crates",
        "SKILL3_GITHUB_URL": f"http://github.com:{port}", "SKILL3_GITHUB_RAW_URL": f"http://raw.githubusercontent.com:{port}",
        **extra,
    }


@pytest.fixture(scope="module")
def fastapi_run(tmp_path_factory):
    """`learn fastapi` with nothing configured; PyPI rate-limits once, npm keeps rate-limiting, crates.io is down."""
    srv = MockServer(name="registries", routes=registry_world()).start()
    out = tmp_path_factory.mktemp("fastapi") / "out"
    proc = scrapy_crawl(
        "topic=fastapi", "cutoff_time=2026-01", f"output_dir={out}", "llm_provider=extractive", "fail_on_findings=0", "max_pages=30",
        settings=settings(srv.port, SKILL3_CRATES_URL=f"http://127.0.0.1:{closed_port()}/api/v1/crates"),
        env={"SEARXNG_URL": ""}, timeout=120,
    )
    items = read_jsonl(out / "run.jsonl") if (out / "run.jsonl").exists() else []
    crawl = json.loads((out / "crawl.json").read_text()) if (out / "crawl.json").exists() else {}
    yield {"srv": srv, "proc": proc, "out": out, "items": items, "crawl": crawl, "port": srv.port}
    srv.stop()


def test_fastapi_without_configuration_finds_its_official_sources(fastapi_run):
    proc, crawl = fastapi_run["proc"], fastapi_run["crawl"]
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert not own_frames(proc.stderr), proc.stderr[-4000:]
    assert crawl["package"]["chosen"] == "pypi:fastapi"
    assert "topic 'fastapi' is the package pypi:fastapi" in proc.stderr  # the log says which was chosen
    official = {o["source"]: o["reason"] for o in crawl["official_sources"]}
    assert official["docs.fastapi.test"] == "pypi:fastapi Documentation"
    assert official["github.com/tiangolo/fastapi"].startswith("pypi:fastapi ")
    assert "no search provider" in proc.stderr  # says what it could not do
    assert crawl["planner"]["reason"] == "no search provider"


def test_docs_releases_and_changelog_are_items_scored_authoritative(fastapi_run):
    p = fastapi_run["port"]
    by_url = {i["url"]: i for i in fastapi_run["items"]}
    docs = [i for i in fastapi_run["items"] if i["host"] == "docs.fastapi.test"]
    assert {i["url"] for i in docs} >= {f"http://docs.fastapi.test:{p}/", f"http://docs.fastapi.test:{p}/tutorial/",
                                         f"http://docs.fastapi.test:{p}/release-notes/"}
    for i in docs:
        assert i["authority"] == 1.0 and "pypi:fastapi Documentation" in i["authority_reason"], i["url"]
        assert i["discovery"] in ("start", "sitemap", "link", "llms.txt")
    new = by_url[f"http://github.com:{p}/tiangolo/fastapi/releases/tag/0.120.0"]
    assert (new["discovery"], new["published"], new["authority"]) == ("repository", "2026-10-01", 1.0)
    assert "pypi:fastapi" in new["authority_reason"]
    assert f"http://github.com:{p}/tiangolo/fastapi/releases/tag/0.110.0" not in by_url  # released before the cutoff
    news = by_url[f"http://github.com:{p}/tiangolo/fastapi/blob/HEAD/NEWS.md"]  # CHANGELOG.md is missing: NEWS.md next
    assert news["authority"] == 1.0 and news["final_url"].endswith("/tiangolo/fastapi/HEAD/NEWS.md")
    assert all(list(i) == SourceItem.field_names() for i in fastapi_run["items"])


def test_timeline_has_registry_and_repository_release_dates(fastapi_run):
    timeline = fastapi_run["crawl"]["timeline"]
    assert all(set(e) - {"where"} == {"version", "date", "source", "url"} for e in timeline)  # a page date also says where it was read
    pypi = {e["version"]: e["date"] for e in timeline if e["source"] == "pypi"}
    assert pypi == FASTAPI_RELEASES  # the file-less release has no date and is left out
    gh = {e["version"]: e["date"] for e in timeline if e["source"] == "github-releases"}
    assert gh == {"0.120.0": "2026-10-01", "0.118.0": "2026-03-15", "0.110.0": "2025-06-01"}
    assert [e["date"] for e in timeline] == sorted(e["date"] for e in timeline)


def test_registry_requests_are_polite_and_failures_do_not_fail_the_run(fastapi_run):
    srv = fastapi_run["srv"]
    pypi = [s for s in srv.seen if s.host == "pypi.test"]
    assert [s.path for s in pypi].count("/pypi/fastapi/json") == 2  # 429 + Retry-After, then served
    assert "/robots.txt" in [s.path for s in pypi]  # robots.txt is asked before the registry
    waits = [s.t for s in pypi if s.path == "/pypi/fastapi/json"]
    assert waits[1] - waits[0] >= 0.9  # Retry-After: 1 honoured
    assert all("skill3" in s.headers.get("User-Agent", "") for s in srv.seen)
    npm = [s.path for s in srv.seen if s.host == "registry.npm.test" and s.path == "/fastapi"]
    assert len(npm) == 3  # always 429: the retries give up, the run goes on
    assert "registry npm did not answer" in fastapi_run["proc"].stderr
    assert "registry crates did not answer" in fastapi_run["proc"].stderr  # down (connection refused)
    assert "/robots.txt" in [s.path for s in srv.seen if s.host == "github.com"]


def test_the_skill_cites_the_official_sources(fastapi_run):
    skills = list(fastapi_run["out"].glob("*/SKILL.md"))
    assert len(skills) == 1, fastapi_run["proc"].stderr[-3000:]
    text = skills[0].read_text()
    sources = text[text.index("## Sources"):]
    assert "docs.fastapi.test" in sources and f"github.com:{fastapi_run['port']}/tiangolo/fastapi" in sources


def test_npm_package_pinned_with_package_argument(tmp_path):
    srv = MockServer(name="registries", routes=registry_world()).start()
    try:
        out = tmp_path / "out"
        proc = scrapy_crawl("topic=Alpha Widgets", "package=npm:alpha-widgets", "cutoff_time=2026-01", f"output_dir={out}",
                            "synth=0", "max_pages=20", settings=settings(srv.port), env={"SEARXNG_URL": ""})
        assert proc.returncode == 0, proc.stderr[-4000:]
        crawl = json.loads((out / "crawl.json").read_text())
        assert crawl["package"]["chosen"] == "npm:alpha-widgets" and "pinned" in crawl["package"]["reason"]
        assert crawl["args"]["package"] == "npm:alpha-widgets"
        assert not [s for s in srv.seen if s.host in ("pypi.test", "crates.test")]  # pinned: only npm is asked
        items = {i["url"]: i for i in read_jsonl(out / "run.jsonl")}
        p = srv.port
        docs = items[f"http://widgets.test:{p}/docs/tutorial/"]
        assert docs["authority"] == 1.0 and "npm:alpha-widgets Documentation" in docs["authority_reason"]
        assert items[f"http://github.com:{p}/acme/alpha-widgets/releases/tag/v3.1.0"]["published"] == "2026-08-01"
        assert items[f"http://github.com:{p}/acme/alpha-widgets/blob/HEAD/CHANGELOG.md"]["authority"] == 1.0
        npm = {e["version"]: e["date"] for e in crawl["timeline"] if e["source"] == "npm"}
        assert npm == {"2.9.0": "2025-10-01", "3.0.0": "2026-02-10", "3.1.0": "2026-08-01"}
        assert {e["version"] for e in crawl["timeline"] if e["source"] == "github-releases"} == {"3.1.0", "3.0.0"}
    finally:
        srv.stop()


def test_skill3_learn_fastapi_with_nothing_configured(tmp_path):
    """The command itself: `skill3 learn fastapi` — registries → repository releases → docs site → a skill citing them."""
    srv = MockServer(name="loopback", routes=loopback_world()).start()
    try:
        base = f"http://127.0.0.1:{srv.port}"
        env = {"SKILL3_PYPI_URL": base + "/pypi", "SKILL3_NPM_URL": base + "/npm", "SKILL3_CRATES_URL": base + "/crates",
               "SKILL3_GITHUB_URL": base + "/gh", "SKILL3_GITHUB_RAW_URL": base + "/raw", "SKILL3_ALLOW_PRIVATE_NETWORKS": "1"}
        out = tmp_path / "out"
        proc = _learn_cli("fastapi", out, env, "--no-fail-on-findings", "--max-pages", "15")
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "no search provider" in proc.stderr and not own_frames(proc.stderr)
        assert "skill3: 'fastapi' is the package pypi:fastapi" in proc.stderr  # says which package it chose
        (skill,) = out.glob("*/SKILL.md")
        sources = skill.read_text().split("## Sources", 1)[1]
        assert f"{base}/" in sources and f"{base}/gh/tiangolo/fastapi/" in sources, sources
        crawl = json.loads((out / "crawl.json").read_text())
        assert crawl["package"]["chosen"] == "pypi:fastapi"
        assert {o["source"] for o in crawl["official_sources"]} >= {"127.0.0.1", "127.0.0.1/gh/tiangolo/fastapi"}
        items = read_jsonl(out / "run.jsonl")
        assert all(i["authority"] == 1.0 and "pypi:fastapi" in i["authority_reason"] for i in items) and len(items) >= 4
    finally:
        srv.stop()


def _learn_cli(topic: str, out: Path, env: dict, *extra: str) -> subprocess.CompletedProcess:
    return skill3("learn", topic, "--cutoff-time", "2026-01", "--llm-provider", "extractive", "--output-dir", str(out), *extra,
                  env=env, timeout=180)


@pytest.mark.parametrize("private_allowed", [True, False])
def test_unknown_name_ends_with_one_line_nothing_found(tmp_path, private_allowed):
    """`skill3 learn` of a name no registry knows: one line, exit 1. Without SKILL3_ALLOW_PRIVATE_NETWORKS too: the
    registries the run is configured with are trusted endpoints for skill3's own calls, wherever they are (a company
    mirror lives on a private network; docs/packages.md), so the (loopback) registries are asked all the same."""
    srv = MockServer(name="registries", routes=registry_world()).start()
    try:
        base = f"http://127.0.0.1:{srv.port}"
        env = {"SKILL3_PYPI_URL": base + "/pypi", "SKILL3_NPM_URL": base, "SKILL3_CRATES_URL": base + "/api/v1/crates"}
        if private_allowed:
            env["SKILL3_ALLOW_PRIVATE_NETWORKS"] = "1"
        proc = _learn_cli("nosuchpackage-xyz", tmp_path / "out", env)
        assert proc.returncode == 1, proc.stderr
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        assert "nothing found for 'nosuchpackage-xyz'" in lines[-1] and "Traceback" not in proc.stderr, proc.stderr
        asked = [s.path for s in srv.seen if s.path != "/robots.txt"]
        assert len(lines) == 1 and "no package of that name on pypi, npm, crates" in lines[0], proc.stderr
        assert sorted(asked) == ["/api/v1/crates/nosuchpackage-xyz", "/nosuchpackage-xyz", "/pypi/nosuchpackage-xyz/json"]
    finally:
        srv.stop()


def test_searxng_gets_the_freshness_window_and_yields_brave_shaped_items(tmp_path):
    sites = MockServer(name="sites", routes=site_routes).start()
    p = sites.port

    def results(q):
        return [
            {"url": f"http://docs.example.test:{p}/guide.html", "title": "Guide", "content": "the guide",
             "engine": "duckduckgo", "engines": ["duckduckgo"], "publishedDate": "2026-03-01T00:00:00", "score": 2.0, "category": "general"},
            {"url": f"http://docs.example.test:{p}/meta.html", "title": "Meta", "content": "undated result",
             "engine": "bing", "engines": ["bing"], "publishedDate": None, "score": 1.0, "category": "general"},
            {"url": f"http://docs.example.test:{p}/textdate.html", "title": "Old", "content": "before the cutoff",
             "engine": "bing", "engines": ["bing"], "publishedDate": "2024-05-01T00:00:00", "score": 0.5, "category": "general"},
        ]

    searx = MockServer(name="searxng", routes=searxng_routes(results)).start()
    try:
        out = tmp_path / "out"
        proc = scrapy_crawl(
            "topic=alpha toolkit", "cutoff_time=2026-01", f"output_dir={out}", "synth=0", "llm_provider=extractive",
            settings={**settings(p), "SKILL3_REGISTRIES": ""},
            env={"SEARXNG_URL": f"http://127.0.0.1:{searx.port}", "BRAVE_SEARCH_API_KEY": BRAVE_KEY},
        )
        assert proc.returncode == 0, proc.stderr[-4000:]
        plan = deterministic_queries("alpha toolkit")  # no model: the fixed plan, each query once
        assert [c.query for c in searx.seen] == [{"q": [q], "format": ["json"], "time_range": ["year"]} for q in plan]
        call = searx.seen[0]
        assert "X-Subscription-Token" not in call.headers and BRAVE_KEY not in json.dumps(call.headers)  # Brave's key stays Brave's
        items = read_jsonl(out / "run.jsonl")
        assert {i["url"] for i in items} == {f"http://docs.example.test:{p}/guide.html", f"http://docs.example.test:{p}/meta.html"}
        # each result once, with the query that found it first
        assert all(list(i) == SourceItem.field_names() and i["discovery"] == "searxng" and i["query"] == "alpha toolkit" for i in items)
        assert "/textdate.html" not in sites.paths("docs.example.test")  # dated before the cutoff: never fetched
        crawl = json.loads((out / "crawl.json").read_text())
        assert "searxng" in crawl["discovery"] and crawl["queries"] == plan
    finally:
        searx.stop()
        sites.stop()


def test_with_a_search_key_search_adds_independent_hosts(tmp_path):
    """Registries and search together: the official sources stay authoritative, search adds other hosts."""
    from tests.mockserver import brave_routes

    reg_srv = MockServer(name="registries", routes=registry_world()).start()
    sites = MockServer(name="sites", routes=site_routes).start()
    blog = f"http://stale.medium.com:{sites.port}/old-post"
    brave = MockServer(name="brave", routes=brave_routes(lambda q: [{"url": blog, "title": "Old", "description": "d"}])).start()
    try:
        out = tmp_path / "out"
        proc = scrapy_crawl("topic=fastapi", "cutoff_time=2024-01", f"output_dir={out}", "synth=0", "llm_provider=extractive",
                            f"brave_key={BRAVE_KEY}", "max_pages=30", settings={**settings(reg_srv.port),
                                      "SKILL3_RESOLVE": {"*.test": "127.0.0.1", "github.com": "127.0.0.1",
                                                         "raw.githubusercontent.com": "127.0.0.1", "stale.medium.com": "127.0.0.1"}},
                            env={"SEARXNG_URL": "", "BRAVE_SEARCH_URL": f"http://127.0.0.1:{brave.port}/res/v1/web/search"})
        assert proc.returncode == 0, proc.stderr[-4000:]
        assert "no search provider" not in proc.stderr
        crawl = json.loads((out / "crawl.json").read_text())
        assert {"registries", "brave", "direct"} <= set(crawl["discovery"]) and crawl["package"]["chosen"] == "pypi:fastapi"
        items = {i["url"]: i for i in read_jsonl(out / "run.jsonl")}
        assert items[blog]["discovery"] == "brave" and items[blog]["authority"] == 0.2  # an independent (blog) host
        docs = [i for i in items.values() if i["host"] == "docs.fastapi.test"]
        assert docs and all(i["authority"] == 1.0 for i in docs)
        # no model: the fixed plan (with the newest versions' release notes when the registries answered first)
        assert [s.query["q"][0] for s in brave.seen] == crawl["queries"]
        assert crawl["queries"][0] == "fastapi" and crawl["queries"][-5:] == deterministic_queries("fastapi")[1:]
        assert len([s for s in reg_srv.seen if s.host == "docs.fastapi.test" and s.path == "/tutorial/"]) == 1  # crawled once
        assert BRAVE_KEY not in proc.stderr and BRAVE_KEY not in (out / "crawl.json").read_text()
    finally:
        for s in (reg_srv, sites, brave):
            s.stop()


def test_start_urls_given_the_registries_still_date_the_versions(tmp_path):
    """With the site named (start URLs), the registries are asked for release dates only: the timeline has them, the
    crawl stays on the named site (no repository, no registry-named docs host)."""
    srv = MockServer(name="registries", routes=registry_world()).start()
    try:
        out = tmp_path / "out"
        proc = scrapy_crawl(
            "topic=fastapi", "cutoff_time=2026-01", f"output_dir={out}", "synth=0", "max_pages=5",
            f"start_urls=http://docs.fastapi.test:{srv.port}/",
            settings=settings(srv.port, SKILL3_CRATES_URL=f"http://127.0.0.1:{closed_port()}/api/v1/crates"),
            env={"SEARXNG_URL": ""}, timeout=120,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        crawl = json.loads((out / "crawl.json").read_text())
        pypi = {(r["version"], r["date"]) for r in crawl["timeline"] if r["source"] == "pypi"}
        assert pypi and pypi <= {(r["version"], r["date"]) for r in crawl["timeline"]}
        assert crawl["package"]["chosen"] == "pypi:fastapi" and crawl["package"]["use"].startswith("release dates only")
        hosts = {i["host"] for i in read_jsonl(out / "run.jsonl")}
        assert hosts <= {f"docs.fastapi.test:{srv.port}", "docs.fastapi.test"}, hosts
        assert "github.com" not in json.dumps(crawl.get("official_sources"))
    finally:
        srv.stop()


def test_a_package_that_does_not_link_the_named_site_dates_nothing(tmp_path):
    """A package of the topic's name whose registry links name another site is another project: its dates stay out."""
    srv = MockServer(name="registries", routes=registry_world()).start()
    try:
        out = tmp_path / "out"
        proc = scrapy_crawl(
            "topic=fastapi", "cutoff_time=2026-01", f"output_dir={out}", "synth=0", "max_pages=3",
            f"start_urls=http://elsewhere.test:{srv.port}/",
            settings=settings(srv.port, SKILL3_CRATES_URL=f"http://127.0.0.1:{closed_port()}/api/v1/crates"),
            env={"SEARXNG_URL": ""}, timeout=120,
        )
        crawl = json.loads((out / "crawl.json").read_text())
        assert not [r for r in crawl.get("timeline") or [] if r["source"] == "pypi"], proc.stderr[-2000:]
        assert crawl["package"]["use"].startswith("not used")
        # the site is given: a registry that is down costs its release dates only, and warns about nothing
        assert "registry crates did not answer" in proc.stderr and "WARNING: skill3: registry" not in proc.stderr
    finally:
        srv.stop()
