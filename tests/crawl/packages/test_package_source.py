"""The package itself as a source: real crawls reading release archives from a loopback registry (tests/crawl/packages/fake_packages.py).

No search provider and no documentation site answering: the skill comes from the archives alone — the versions
with their registry dates, the changelog's entries by kind, the API delta by module — and no code of the package
is ever imported. Hostile archives are refused with one warning and the run goes on.
"""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest

from tests.crawl.conftest import read_jsonl, scrapy_crawl
from tests.crawl.packages.fake_packages import DATES, DOCS_RST, PackageRegistry
from tests.mockserver import MockServer, page


def closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def settings(port: int, **extra) -> dict:
    return {"SKILL3_TODAY": "2026-11-29", "LOG_LEVEL": "INFO", "DOWNLOAD_TIMEOUT": "10", "RETRY_TIMES": "0",
            "SKILL3_ALLOW_PRIVATE_NETWORKS": "1", "SKILL3_REGISTRIES": "pypi,npm",
            "SKILL3_PYPI_URL": f"http://127.0.0.1:{port}/pypi", "SKILL3_NPM_URL": f"http://127.0.0.1:{port}/npm", **extra}


def run(tmp_path: Path, registry: PackageRegistry, *args: str, env: dict | None = None, **extra) -> dict:
    srv = MockServer(name="packages", routes=registry).start()
    out = tmp_path / "out"
    try:
        proc = scrapy_crawl("topic=widgetlib", "package=pypi:widgetlib", "cutoff_time=2026-01", f"output_dir={out}",
                            "llm_provider=extractive", "fail_on_findings=0", "max_pages=40", *args,
                            settings=settings(srv.port, **extra), env={"SEARXNG_URL": "", **(env or {})}, timeout=150)
        seen = list(srv.seen) if hasattr(srv, "seen") else []
    finally:
        srv.stop()
    items = read_jsonl(out / "run.jsonl") if (out / "run.jsonl").exists() else []
    crawl = json.loads((out / "crawl.json").read_text()) if (out / "crawl.json").exists() else {}
    skills = list(out.glob("*/SKILL.md"))
    return {"proc": proc, "items": items, "crawl": crawl, "out": out, "seen": seen,
            "skill": skills[0].read_text() if skills else "", "refs": {p.name: p.read_text() for p in out.glob("*/references/*.md")}}


@pytest.fixture(scope="module")
def widget_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("widgets")
    trap = tmp / "trap"
    registry = PackageRegistry(str(trap), docs=f"http://docs.widgetlib.test:{closed_port()}/docs/")  # the docs site is down
    result = run(tmp, registry)
    result["trap"] = trap
    return result


def test_the_skill_comes_from_the_archives_alone(widget_run):
    proc = widget_run["proc"]
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "Traceback" not in proc.stderr
    assert widget_run["skill"], "no SKILL.md"
    source = widget_run["crawl"]["package_source"]
    assert source["baseline"] == "1.0.0" and source["releases_after"] == ["2.0.0", "2.1.0"]
    assert {a["version"]: (a["kind"], a["read"]) for a in source["archives"]} == {
        "1.0.0": ("sdist", True), "2.0.0": ("wheel", True), "2.1.0": ("sdist", True)}
    paths = {f["path"] for f in source["files"]}
    assert {"CHANGELOG.md", "README.md", "docs/index.md", "docs/usage.rst"} <= paths, paths
    assert not any(p.startswith(("tests/", "setup.py", "src/")) for p in paths)


def test_no_code_of_the_package_is_imported(widget_run):
    assert not widget_run["trap"].exists(), "the package's code ran"
    assert widget_run["crawl"]["package_source"]["api"]["status"] == "done"


def test_archive_pages_are_official_and_dated_by_the_registry(widget_run):
    pages = [i for i in widget_run["items"] if i["discovery"] == "package"]
    assert pages
    for item in pages:
        assert item["authority"] == 1.0 and "pypi:widgetlib release archive" in item["authority_reason"], item["url"]
        assert item["date_source"] == "registry"
    # the changelog of the newest archive, one page per release series after the baseline, dated by its release
    changelogs = {i["url"].rsplit("?release=", 1)[-1]: i for i in pages if "widgetlib-2.1.0.tar.gz/CHANGELOG.md" in i["url"]}
    assert set(changelogs) == {"2.0.0", "2.1.0"}, [i["url"] for i in pages]
    for version, item in changelogs.items():
        assert item["published"] == DATES[version]
        assert {c["version"] for c in item["changes"]} == {version}  # the baseline's section (1.0.0) is not read


def test_changelog_entries_by_kind(widget_run):
    changes = [c for i in widget_run["items"] if "/CHANGELOG.md" in i["url"] for c in i["changes"]]
    kinds = {(c["version"], c["kind"]) for c in changes}
    texts = " ".join(c["text"] for c in changes)
    assert "new_feature()" in texts and "old_helper()" in texts and "extra()" in texts
    assert {c["version"] for c in changes} == {"2.0.0", "2.1.0"}, kinds
    rst = next(i for i in widget_run["items"] if i["url"].endswith("/docs/usage.rst"))
    assert any(c["kind"] == "added" and c["version"] == "2.0" for c in rst["changes"]), rst["changes"]  # versionadded


@pytest.mark.parametrize("kind, api, version, says", [
    ("added", "widgetlib.new_feature", "2.0.0", "Frobnicate the widgets of a registry in parallel."),
    ("added", "widgetlib.extra", "2.1.0", "extra(widget, **metadata)"),
    ("removed", "widgetlib.old_helper", "2.0.0", "old_helper()"),
    ("changed", "widgetlib.make", "2.0.0", "parameters added: `strict`"),
    ("changed", "widgetlib.Widget.render", "2.0.0", "parameters added: `height`"),
])
def test_api_entries(widget_run, kind, api, version, says):
    api_items = [i for i in widget_run["items"] if "/api/" in i["url"]]
    entries = [c for i in api_items for c in i["changes"]]
    (entry,) = [c for c in entries if c["api"] == api]
    assert (entry["kind"], entry["version"]) == (kind, version)
    assert says in entry["text"] and "from the package's public API" in entry["text"]
    assert entry["path"][-1] == "widgetlib" and entry["date"] == DATES[version]


def test_the_skill_leads_with_the_new_series(widget_run):
    """Series 2 opened by 2.0.0: its changelog section (backwards-incompatible changes, additions) leads, then the
    API delta's entries of 2.0.0; 2.1.0 after them."""
    skill = widget_run["skill"]
    assert "2.1.0" in skill and "2.0.0" in skill
    assert "released 2026-09-15" in skill or "2026-09-15" in skill
    body = skill + "\n".join(widget_run["refs"].values())
    assert "new_feature" in body and "old_helper" in body
    lead = [line for line in skill.split("## Instructions", 1)[1].split("\n## ", 1)[0].splitlines() if line.startswith("- **")]
    first = [i for i, line in enumerate(lead) if re.search(r" in 2\.0(?:\.0)?\*\*", line)]
    api = [i for i in first if "from the package's public API" in lead[i]]
    notes = [i for i in first if i not in api]
    text = "\n".join(lead)
    assert first == list(range(len(first))) and len(first) >= 5, text  # series 2's opener (2.0.0, shown as 2.0) first
    assert any("immutable once built" in lead[i] and "Breaking" in lead[i] for i in notes[:2]), text
    assert api and notes and max(notes) < min(api), text  # the release's own notes before its API markers


def test_no_packages_turns_it_off(tmp_path):
    registry = PackageRegistry(str(tmp_path / "trap"), docs=f"http://docs.widgetlib.test:{closed_port()}/docs/")
    r = run(tmp_path, registry, "packages=0")
    assert r["crawl"].get("package_source") is None
    assert not [i for i in r["items"] if i["discovery"] == "package"]


@pytest.mark.parametrize("kind, says", [
    ("traversal", "path traversal"),
    ("symlink", "is a link outside the archive"),
    ("bomb", "decompression bomb"),
    ("members", "more than 20 members"),
])
def test_hostile_archives_are_refused_with_one_warning(tmp_path, kind, says):
    registry = PackageRegistry(str(tmp_path / "trap"), docs=f"http://docs.widgetlib.test:{closed_port()}/docs/", hostile_kind=kind)
    r = run(tmp_path, registry, SKILL3_PACKAGE_MAX_UNPACKED=str(1024 * 1024), SKILL3_PACKAGE_MAX_MEMBERS="20")
    proc = r["proc"]
    assert "Traceback" not in proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if "archive widgetlib-2.1.0.tar.gz refused" in line]
    assert len(warnings) == 1 and says in warnings[0], proc.stderr[-3000:]
    assert not (tmp_path / "escaped.txt").exists()
    source = r["crawl"]["package_source"]
    assert {a["version"]: a["read"] for a in source["archives"]}["2.1.0"] is False
    assert not any("passwd" in i["url"] or "zeros" in i["url"] for i in r["items"])


def test_npm_tarball(tmp_path):
    registry = PackageRegistry(str(tmp_path / "trap"))
    srv = MockServer(name="npm", routes=registry).start()
    out = tmp_path / "out"
    try:
        proc = scrapy_crawl("topic=gadgets", "package=npm:gadgets", "cutoff_time=2026-01", f"output_dir={out}", "synth=0",
                            "max_pages=20", settings=settings(srv.port), env={"SEARXNG_URL": ""}, timeout=120)
    finally:
        srv.stop()
    assert proc.returncode == 0, proc.stderr[-3000:]
    crawl = json.loads((out / "crawl.json").read_text())
    source = crawl["package_source"]
    assert [(a["version"], a["kind"], a["read"]) for a in source["archives"]] == [("1.0.0", "npm", True), ("2.1.0", "npm", True)]
    assert source["api"]["status"] == "done"  # the .d.ts declarations compared (tree-sitter, no Node.js)
    items = read_jsonl(out / "run.jsonl")
    changelog = next(i for i in items if i["url"].endswith("gadgets-2.1.0.tgz/CHANGELOG.md?release=2.1.0"))
    assert any(c["version"] == "2.1.0" and "gadget.spin()" in c["text"] for c in changelog["changes"])
    api = {c["api"]: c for i in items if "/api/" in i["url"] for c in i["changes"]}
    assert (api["gadgets.twirl"]["kind"], api["gadgets.spin"]["kind"]) == ("removed", "changed")
    assert "parameters added: `clockwise`" in api["gadgets.spin"]["text"] and api["gadgets.spin"]["version"] == "2.1.0"


def test_a_configured_private_registry_is_trusted_for_its_api_calls_only(tmp_path):
    """PIP_INDEX_URL names a registry on loopback: without SKILL3_ALLOW_PRIVATE_NETWORKS its JSON API and the archives it
    names are read, while the documentation link found in the package (on the same private address) is refused."""
    trap = tmp_path / "trap"
    registry = PackageRegistry(str(trap))
    srv = MockServer(name="private-registry", routes=registry).start()
    registry.docs = f"http://127.0.0.1:{srv.port}/docs/"
    out = tmp_path / "out"
    try:
        proc = scrapy_crawl("topic=widgetlib", "cutoff_time=2026-01", f"output_dir={out}", "synth=0", "max_pages=40",
                            settings={"SKILL3_TODAY": "2026-11-29", "LOG_LEVEL": "INFO", "SKILL3_REGISTRIES": "pypi",
                                      "RETRY_TIMES": "0"},
                            env={"PIP_INDEX_URL": f"http://127.0.0.1:{srv.port}/simple/", "SEARXNG_URL": "",
                                 "PIP_CONFIG_FILE": "/dev/null"}, timeout=120)
    finally:
        srv.stop()
    assert proc.returncode == 0, proc.stderr[-3000:]
    crawl = json.loads((out / "crawl.json").read_text())
    assert crawl["package"]["chosen"] == "pypi:widgetlib"
    assert all(a["read"] for a in crawl["package_source"]["archives"])
    assert "network guard: not fetching" in proc.stderr and "/docs/" in proc.stderr
    items = read_jsonl(out / "run.jsonl")
    assert items and all(i["discovery"] == "package" for i in items)
    assert not trap.exists()


def test_archives_are_cached_like_pages(tmp_path):
    """A second run with the same HTTP cache reads the archives from it: the registry is not asked for them again."""
    registry = PackageRegistry(str(tmp_path / "trap"), docs=f"http://docs.widgetlib.test:{closed_port()}/docs/")
    srv = MockServer(name="cached", routes=registry).start()
    cache = tmp_path / "cache"
    try:
        for n in (1, 2):
            proc = scrapy_crawl("topic=widgetlib", "package=pypi:widgetlib", "cutoff_time=2026-01", f"output_dir={tmp_path / f'out{n}'}",
                                "synth=0", "max_pages=40", settings=settings(srv.port, HTTPCACHE_DIR=str(cache)),
                                env={"SEARXNG_URL": ""}, timeout=120)
            assert proc.returncode == 0, proc.stderr[-3000:]
            if n == 1:
                first = [s.path for s in srv.seen if s.path.startswith("/files/")]
        files = [s.path for s in srv.seen if s.path.startswith("/files/")]
    finally:
        srv.stop()
    assert len(first) == 3 and files == first
    crawl = json.loads((tmp_path / "out2" / "crawl.json").read_text())
    assert all(a["read"] for a in crawl["package_source"]["archives"])


def test_the_package_is_its_own_host_in_consensus_beside_its_docs_site(tmp_path):
    """The docs site the registry names answers (its own host): a paragraph it shares with the archive's docs page counts
    two independent hosts, on the crawl's items and in the skill's sources; the archive ranks beside the docs site."""
    shared = DOCS_RST.strip().splitlines()[-1].replace("``", "")  # a paragraph of the archive's docs/usage.rst
    docs_page = page("Widgetlib documentation", f"<p>{shared}</p>"
                     "<p>This site also has a tutorial, a reference of every widget option and a page of answers.</p>")
    docs = MockServer(name="docs", routes={"/robots.txt": (200, "text/plain", b"User-agent: *\nAllow: /\n"),
                                           "/docs/": (200, "text/html; charset=utf-8", docs_page.encode())}).start()
    try:
        registry = PackageRegistry(str(tmp_path / "trap"), docs=f"http://localhost:{docs.port}/docs/")
        r = run(tmp_path, registry)
        docs_seen = [s.path for s in docs.seen]
    finally:
        docs.stop()
    assert r["proc"].returncode == 0, r["proc"].stderr[-3000:]
    assert "/docs/" in docs_seen
    site = next((i for i in r["items"] if i["host"] == "localhost"), None)
    assert site is not None, ([i["url"] for i in r["items"]], r["proc"].stderr[-3000:])
    archive = next((i for i in r["items"] if i["url"].endswith("widgetlib-2.1.0.tar.gz/docs/usage.rst")), None)
    assert archive is not None, "\n".join(f"{i['url']} {i['excerpts']}"[:300] for i in r["items"])
    assert site["authority"] == archive["authority"] == 1.0
    assert archive["host"] != site["host"]
    assert max(site["consensus_count"], archive["consensus_count"]) == 2, json.dumps([site, archive])
    sources = {s["url"]: s for s in json.loads((r["out"] / "run.json").read_text())["sources"]}
    assert sources[site["url"]]["consensus_count"] == sources[archive["url"]]["consensus_count"] == 2, sources
