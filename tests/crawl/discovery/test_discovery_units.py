"""Pure discovery logic: registry documents, the package choice, official sources, the timeline,
search providers, and the target-model table (aliases, `skill3 models`)."""

from __future__ import annotations

import json
from datetime import date

import pytest
from typer.testing import CliRunner

from skill3crawl.discovery import registries as reg
from skill3crawl.discovery.search import BraveProvider, SearXNGProvider, configured_provider, searxng_time_range
from synth.evidence.cutoff import CutoffError, model_rows, resolve_cutoff, resolve_model
from synth.evidence.scoring import authority
from tests.crawl.discovery.fake_registries import atom_feed, npm_document, pypi_document


@pytest.mark.parametrize("spec, expected", [
    ("pypi:fastapi", ("pypi", "fastapi")), ("npm:@scope/pkg", ("npm", "@scope/pkg")), ("cargo:serde", ("crates", "serde")),
    (" PyPI:Django ", ("pypi", "Django")),
])
def test_parse_spec(spec, expected):
    assert reg.parse_spec(spec) == expected


@pytest.mark.parametrize("spec", ["fastapi", "maven:x", "pypi:", "npm:a b", "pypi:../etc"])
def test_parse_spec_rejects(spec):
    with pytest.raises(reg.SpecError, match="pypi:NAME"):
        reg.parse_spec(spec)


@pytest.mark.parametrize("label, role", [
    ("Documentation", "Documentation"), ("docs", "Documentation"), ("Online Docs", "Documentation"), ("API reference", "Documentation"),
    ("Source Code", "Source"), ("source", "Source"), ("Repository", "Source"), ("GitHub", "Source"),
    ("Changelog", "Changelog"), ("Change Log", "Changelog"), ("Release Notes", "Changelog"), ("releasenotes", "Changelog"),
    ("What's New", "Changelog"), ("Homepage", "Homepage"), ("Home-page", "Homepage"),
    ("Bug Tracker", None), ("Issues", None), ("Funding", None), ("Download", None), ("Twitter", None),
])
def test_project_url_labels(label, role):
    assert reg._role(label) == role


@pytest.mark.parametrize("url, repo", [
    ("https://github.com/tiangolo/fastapi", ("tiangolo", "fastapi")),
    ("git+https://github.com/acme/w.git", ("acme", "w")),
    ("git@github.com:acme/w.git", ("acme", "w")),
    ("github:acme/w", ("acme", "w")),
    ("https://www.github.com/acme/w/tree/main/docs", ("acme", "w")),
    ("https://gitlab.com/acme/w", None),
    ("https://github.com/acme", None),
    ("not a url", None),
])
def test_github_repo(url, repo):
    assert reg.github_repo(url) == repo


def test_parse_pypi_document_shape():
    doc = pypi_document("fastapi", "https://fastapi.tiangolo.com/", "https://fastapi.tiangolo.com/release-notes/",
                        "https://github.com/tiangolo/fastapi", {"0.1.0": "2019-01-01", "0.2.0": "2026-02-03"})
    doc["releases"]["0.1.0"][0]["yanked"] = True  # yanked files do not date a release
    pkg = reg.parse_pypi(json.dumps(doc), "https://pypi.org/pypi/fastapi/json")
    assert pkg.label == "pypi:fastapi"
    assert pkg.links == {"Homepage": "https://github.com/tiangolo/fastapi", "Documentation": "https://fastapi.tiangolo.com/",
                         "Source": "https://github.com/tiangolo/fastapi", "Changelog": "https://fastapi.tiangolo.com/release-notes/"}
    assert [(r.version, r.date, r.source) for r in pkg.releases] == [("0.2.0", "2026-02-03", "pypi")]
    assert pkg.repository == ("tiangolo", "fastapi")
    assert reg.docs_entry(pkg) == "https://fastapi.tiangolo.com/"


def test_parse_npm_and_crates_documents():
    npm = reg.parse_npm(json.dumps(npm_document("w", "https://w.dev/docs/", "https://github.com/acme/w", {"1.0.0": "2026-01-02"})), "u")
    assert npm.links["Documentation"] == "https://w.dev/docs/" and npm.repository == ("acme", "w")
    assert [(r.version, r.date) for r in npm.releases] == [("1.0.0", "2026-01-02")]  # created/modified are not versions
    crates = {"crate": {"name": "serde", "homepage": "https://serde.rs", "documentation": "https://docs.rs/serde",
                        "repository": "https://github.com/serde-rs/serde", "downloads": 10},
              "versions": [{"num": "1.0.200", "created_at": "2026-04-01T00:00:00.000000+00:00", "yanked": False},
                           {"num": "1.0.199", "created_at": "2026-03-01T00:00:00+00:00", "yanked": True}]}
    pkg = reg.parse_crates(json.dumps(crates), "u")
    assert reg.docs_entry(pkg) == "https://serde.rs"  # docs.rs hosts every crate: not this one's home
    assert [(r.version, r.date) for r in pkg.releases] == [("1.0.200", "2026-04-01")] and pkg.downloads == 10


@pytest.mark.parametrize("body", [b"", b"<html>", b"[]", b'{"info": null}', json.dumps({"error": "Not found"}).encode()])
def test_unreadable_registry_answers_are_none(body):
    assert reg.parse_pypi(body, "u") is None and reg.parse_npm(body, "u") is None and reg.parse_crates(body, "u") is None


def _pkg(eco, name, docs=True, releases=0, downloads=None):
    return reg.Package(eco, name, "u", {"Documentation": "https://d.example/"} if docs else {},
                       [reg.Release(str(i), "2026-01-01", eco, "u") for i in range(releases)], downloads)


@pytest.mark.parametrize("topic, found, pinned, chosen", [
    ("fastapi", [_pkg("pypi", "fastapi")], None, "pypi:fastapi"),
    ("FastAPI", [_pkg("npm", "fastapi", docs=False, releases=1), _pkg("pypi", "fastapi", releases=50)], None, "pypi:fastapi"),
    ("left-pad", [_pkg("npm", "left-pad", releases=9), _pkg("pypi", "left_pad", releases=2)], None, "npm:left-pad"),
    ("tokio", [_pkg("crates", "tokio", releases=3, downloads=10**8), _pkg("pypi", "tokio", releases=3)], None, "crates:tokio"),
    ("widgets", [_pkg("npm", "alpha-widgets")], None, None),  # no exact name: not guessed
    ("x", [_pkg("pypi", "x"), _pkg("npm", "x")], ("npm", "x"), "npm:x"),
    ("x", [_pkg("pypi", "x")], ("npm", "x"), None),
    ("x", [], None, None),
])
def test_choose(topic, found, pinned, chosen):
    pkg, why = reg.choose(topic, found, pinned)
    assert (pkg.label if pkg else None) == chosen and why


def test_official_sources_name_hosts_and_the_repository_path():
    pkg = reg.Package("pypi", "fastapi", "u", {"Documentation": "https://fastapi.tiangolo.com/", "Homepage": "https://github.com/tiangolo/fastapi",
                                                "Changelog": "https://fastapi.tiangolo.com/release-notes/"})
    got = {s.prefix: s.reason for s in reg.official_sources(pkg)}
    assert got == {"fastapi.tiangolo.com": "pypi:fastapi Documentation", "github.com/tiangolo/fastapi": "pypi:fastapi Homepage",
                   "raw.githubusercontent.com/tiangolo/fastapi": "pypi:fastapi Source"}


@pytest.mark.parametrize("host, url, weight, reason_part", [
    ("fastapi.tiangolo.com", "https://fastapi.tiangolo.com/tutorial/", 1.0, "pypi:fastapi Documentation"),
    ("github.com", "https://github.com/tiangolo/fastapi/releases/tag/0.1", 1.0, "pypi:fastapi Homepage"),
    ("github.com", "https://github.com/tiangolo/fastapi", 1.0, "pypi:fastapi Homepage"),
    ("github.com", "https://github.com/tiangolo/fastapi-users/issues", 0.7, "github.com"),  # a neighbour is not the project
    ("github.com", "https://github.com/other/repo", 0.7, "github.com"),
    ("medium.com", "https://medium.com/x", 0.2, "medium.com"),
])
def test_official_sources_in_authority(host, url, weight, reason_part):
    official = {"fastapi.tiangolo.com": "pypi:fastapi Documentation", "github.com/tiangolo/fastapi": "pypi:fastapi Homepage"}
    w, why = authority(host, (), url=url, official=official)
    assert w == weight and reason_part in why


def test_releases_atom_feed_and_untrusted_xml():
    feed = atom_feed("acme", "w", [("v2.0.0", "2026-05-01", "<p>Big & new</p>"), ("release-1.9", "2026-01-01", "<p>old</p>")])
    entries = reg.parse_releases_atom(feed.encode())
    assert [(e["tag"], e["version"], e["date"]) for e in entries] == [("v2.0.0", "2.0.0", "2026-05-01"), ("release-1.9", "1.9", "2026-01-01")]
    assert entries[0]["html"] == "<p>Big & new</p>" and entries[0]["url"] == "https://github.com/acme/w/releases/tag/v2.0.0"
    bomb = b'<?xml version="1.0"?><!DOCTYPE f [<!ENTITY x SYSTEM "file:///etc/passwd">]><feed xmlns="http://www.w3.org/2005/Atom"><entry><title>&x;</title></entry></feed>'
    assert reg.parse_releases_atom(bomb) == [] and reg.parse_releases_atom(b"not xml") == []


def test_merge_timeline_keeps_one_entry_per_version_and_source():
    site = [{"version": "3.11", "date": "2022-10-24", "source": "site", "url": "https://docs/whatsnew"}]
    ours = [{"version": "3.11", "date": "2022-10-24", "source": "pypi", "url": "p"}, {"version": "3.10", "date": "2021-10-04", "source": "pypi", "url": "p"}]
    merged = reg.merge_timeline(site, ours + ours[:1])
    assert [(e["version"], e["source"]) for e in merged] == [("3.10", "pypi"), ("3.11", "pypi"), ("3.11", "site")]


@pytest.mark.parametrize("start, today, window", [
    (date(2026, 11, 29), date(2026, 11, 29), "day"), (date(2026, 11, 23), date(2026, 11, 29), "week"),
    (date(2026, 11, 1), date(2026, 11, 29), "month"), (date(2026, 1, 1), date(2026, 11, 29), "year"),
    (date(2024, 1, 1), date(2026, 11, 29), None),
])
def test_searxng_time_range(start, today, window):
    assert searxng_time_range(start, today) == window


def test_provider_choice_and_item_shape():
    assert configured_provider(None, None, env={}) is None
    assert isinstance(configured_provider(None, "k", env={}), BraveProvider)
    searx = configured_provider(None, "k", env={"SEARXNG_URL": "http://127.0.0.1:8888/"})
    assert isinstance(searx, SearXNGProvider) and not searx.sends_key  # chosen when configured; never carries Brave's key
    assert searx.request_url("a b", date(2026, 1, 1), date(2026, 11, 29)) == "http://127.0.0.1:8888/search?q=a+b&format=json&time_range=year"
    body = json.dumps({"results": [{"url": "https://a.example/x", "title": "A", "content": "c", "publishedDate": "2026-02-01T00:00:00"},
                                   {"url": "https://b.example/y", "title": "B", "content": "c", "publishedDate": "2025-02-01"},
                                   {"url": "javascript:alert(1)", "title": "C"}, {"title": "no url"}]})
    got = searx.parse(body, date(2026, 1, 1))
    brave = BraveProvider("u").parse(json.dumps({"web": {"results": [{"url": "https://a.example/x", "title": "A", "description": "c", "page_age": "2026-02-01T00:00:00"}]}}))
    assert got == brave  # the same item shape from either engine
    with pytest.raises(ValueError, match="format=json"):
        searx.parse(b"<html>")
    secret = configured_provider(None, None, env={"SEARXNG_URL": "https://me:pa55word@searx.example:8443/"})
    assert secret.request_url("q", date(2026, 1, 1), date(2026, 11, 29)).startswith("https://searx.example:8443/search?")


@pytest.mark.parametrize("name, entry", [
    ("gpt-4o", "gpt-4o"), ("gpt-4o-2024-08-06", "gpt-4o"), ("openai/gpt-4o", "gpt-4o"), ("chatgpt-4o-latest", "gpt-4o"),
    ("gpt-4o-mini-2024-07-18", "gpt-4o-mini"), ("GPT-4.1-2025-04-14", "gpt-4.1"),
    ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"), ("anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"),
    ("claude-sonnet-4-5@20250929", "claude-sonnet-4-5"), ("claude-haiku-4-5-latest", "claude-haiku-4-5"), ("claude-opus-4-0", "claude-opus-4"),
    ("models/gemini-2.5-pro", "gemini-2.5-pro"), ("gemini-2.0-flash-001", "gemini-2.0-flash"),
    ("meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b"), ("llama3.1:70b", "llama-3.1-70b"), ("grok-4-latest", "grok-4"),
    ("grok-2", "grok-2-1212"), ("gpt-4", None), ("claude-3-5-sonnet-20241022", None), ("mistral-large-latest", None), ("", None),
])
def test_model_aliases(name, entry):
    assert resolve_model(name) == entry


def test_unknown_model_still_names_cutoff_time():
    with pytest.raises(CutoffError, match="--cutoff-time"):
        resolve_cutoff("deepseek-chat", None)
    cut = resolve_cutoff("gpt-4o-2024-11-20", None)
    assert (cut.month, cut.model) == ("2023-10", "gpt-4o")
    assert cut.source == "target_model gpt-4o in the cutoff table (https://platform.openai.com/docs/models/gpt-4o)"


def test_model_table_is_sourced_and_dated():
    rows = model_rows()
    assert len(rows) >= 25
    assert {"OpenAI", "Anthropic", "Google", "Meta", "xAI"} <= {r["vendor"] for r in rows}
    for r in rows:
        assert r["source"].startswith("https://") and len(r["checked"]) == 10 and r["kind"] in ("knowledge", "training-data"), r
    aliases = [a.lower() for r in rows for a in r["aliases"]] + [r["model"] for r in rows]
    assert len(aliases) == len(set(aliases))  # an alias names one model


def test_skill3_models_command():
    from skill3.cli.app import app

    out = CliRunner().invoke(app, ["models", "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert len(data["models"]) >= 25 and data["default_model"] == "claude-opus-4-8"
    table = CliRunner().invoke(app, ["models", "--vendor", "google"])
    assert table.exit_code == 0 and "gemini-2.5-pro" in table.output and "gpt-4o" not in table.output


@pytest.mark.parametrize("topic, names", [
    ("fastapi", ["fastapi"]), ("FastAPI", ["fastapi"]), ("Alpha Widgets", ["alpha-widgets"]), ("python_dateutil", ["python_dateutil"]),
    ("C++ 20", ["c-20"]), ("@scope/pkg", ["scope-pkg"]),
])
def test_candidate_names(topic, names):
    assert reg.candidate_names(topic) == names


@pytest.mark.parametrize("eco, base, name, url", [
    ("pypi", "https://pypi.org/pypi/", "fastapi", "https://pypi.org/pypi/fastapi/json"),
    ("npm", "https://registry.npmjs.org", "@types/node", "https://registry.npmjs.org/@types%2Fnode"),
    ("crates", "https://crates.io/api/v1/crates", "serde", "https://crates.io/api/v1/crates/serde"),
])
def test_registry_url(eco, base, name, url):
    assert reg.registry_url(eco, base, name) == url
