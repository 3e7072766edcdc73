"""`skill3 synth` on a build-dated docs site: the delta comes from version markers and the What's New page."""

import json
import re

import pytest
from typer.testing import CliRunner

from skill3.cli.app import app
from tests.mockserver import StubLLM
from tests.pipeline.delta_corpus import HIGHLIGHTS, HOST, NEW_FEATURES, write_site

BOILER = ("about.html", "copyright.html", "bugs.html", "genindex.html", "search.html", "glossary.html")
FEATURES = [n for n, _ in HIGHLIGHTS] + [n for n, _ in NEW_FEATURES]


def synth(feed, *args):
    r = CliRunner().invoke(app, ["synth", str(feed), *map(str, args), "--quiet"])
    return r.exit_code, r.stdout, r.stderr


def _feature_named(text: str, name: str) -> bool:
    first = dict(HIGHLIGHTS + NEW_FEATURES)[name]
    return first.split(":")[-1].strip()[:40] in text


@pytest.mark.parametrize("declared", [True, False], ids=["declared-build-date", "detected-build-date"])
def test_new_version_features_lead_and_cite_the_change_page(tmp_path, declared):
    feed = write_site(tmp_path, cutoff="2022-01", declare_build_date=declared)
    code, _out, err = synth(feed, "--llm-provider", "extractive", "--cutoff-time", "2022-01")
    assert code == 0, err
    text = (tmp_path / "quill" / "SKILL.md").read_text()
    man = json.loads((tmp_path / "run.json").read_text())
    named = [n for n in FEATURES if _feature_named(text, n)]
    assert len(named) == len(FEATURES), set(FEATURES) - set(named)
    whatsnew = f"http://{HOST}/whatsnew/2.0.html"
    assert man["used_sources"][0] == whatsnew
    n = man["used_sources"].index(whatsnew) + 1
    assert re.search(rf"\*\*New in 2\.0\*\*: .*QEP 654.* \[{n}\]", text)
    assert "**Added in 2.0**: Added the TaskCrew class" in text
    # the Sources list shows the versions a source documents, never the site's build date as a publication date
    assert f"{whatsnew} (changes in 2.0)" in text and "(2026-10-07)" not in text
    # the label names the module its heading names (the quote says "the oldnet module")
    assert re.search(r"Deprecated in 2\.0, removal scheduled for 2\.2\*\* \(`quill\.oldnet`\): .*use quill\.net instead", text)
    # older versions are not news: the 1.4 marker and the 1.9 release notes are never presented
    assert "legacy spawn helper" not in text and "pattern matching" not in text
    assert not [u for u in man["used_sources"] if u.rsplit("/", 1)[-1] in BOILER]
    assert [r["url"].rsplit("/", 1)[-1] for r in man["sources"][-len(BOILER):]] and all(
        r["rank"] > 12 for r in man["sources"] if r["url"].rsplit("/", 1)[-1] in BOILER)
    # the timeline and the boundary are recorded, with the build-dated host
    delta = man["delta"]
    assert [(r["version"], r["date"]) for r in delta["timeline"]] == [("1.9", "2021-10-04"), ("2.0.0", "2022-10-24")]
    assert delta["boundary"]["last_pre_cutoff"]["version"] == "1.9" and delta["boundary"]["first_post_cutoff"]["version"] == "2.0.0"
    assert delta["build_dated_hosts"][HOST]["date"] == "2026-10-07"
    assert ("declared" if declared else "detected") in delta["build_dated_hosts"][HOST]["how"]
    row = next(r for r in man["sources"] if r["url"] == whatsnew)
    assert row["post_cutoff_changes"] == 11 and any("highlights" in r for r in row["reasons"])
    # a versioned entry outranks the blog post about it
    blog = next(r for r in man["sources"] if "medium.com" in r["url"])
    tasks = next(r for r in man["sources"] if r["url"].endswith("tasks.html"))
    assert tasks["rank"] < blog["rank"]


def test_a_later_cutoff_presents_nothing_as_new(tmp_path):
    feed = write_site(tmp_path, cutoff="2023-01")
    code, _out, err = synth(feed, "--llm-provider", "extractive", "--cutoff-time", "2023-01")
    assert code == 0, err
    text = (tmp_path / "quill" / "SKILL.md").read_text()
    for name in FEATURES:
        assert not _feature_named(text, name), name
    assert "TaskCrew" not in text and "New in 2.0" not in text and "Added in 2.0" not in text
    # 2.1 is documented (a marker) but nothing dates it: said so, labelled undated, the fix named — never "nothing new"
    assert "nothing new" not in text and "could not be dated" in text and "--since-version" in text
    assert "**2.1 (undated)**, added (`quill.shapes`):" in text  # the module its heading names
    man = json.loads((tmp_path / "run.json").read_text())
    assert man["delta"]["boundary"]["last_pre_cutoff"]["version"] == "2.0.0" and man["delta"]["boundary"]["first_post_cutoff"] is None
    assert next(r for r in man["delta"]["version_line"] if r["version"] == "2.1")["release"] is True  # why it is a release
    assert not [u for u in man["used_sources"][:6] if u.rsplit("/", 1)[-1] in BOILER]


def test_dry_run_shows_timeline_boundary_and_reasons(tmp_path):
    feed = write_site(tmp_path)
    code, out, err = synth(feed, "--dry-run", "--llm-provider", "extractive", "--cutoff-time", "2022-01")
    assert code == 0, err
    assert "Version timeline" in out and "2022-10-24" in out
    assert "version boundary: last pre-cutoff 1.9 (2021-10-04), first post-cutoff 2.0.0 (2022-10-24)" in out
    assert f"build-dated host {HOST}" in out
    assert "post-cutoff change" in out and "boilerplate page" in out
    # the topic's version line: per version, a release of the topic (and on what evidence) or not
    assert "The topic's version line" in out and "heads a section of a change page" in out


def test_model_prompt_puts_post_cutoff_snippets_first(tmp_path, monkeypatch):
    monkeypatch.delenv("LLM_API_KEY", raising=False)
    feed = write_site(tmp_path)
    reply = ("---\nname: quill\ndescription: Quill 2.0 changes after the 2022-01 cutoff, for code using Quill.\n---\n# Quill\n\n"
             "## Overview / When to use\nQuill 2.0 added TaskCrew, a context manager that runs a group of tasks together [1].\n\n"
             "## Instructions\n- Use TaskCrew to await several tasks as one group, and quill.timeout to cancel slow work [1].\n")
    with StubLLM(reply) as stub:
        code, _out, err = synth(feed, "--llm-provider", "openai", "--llm-endpoint", stub.url, "--llm-model", "stub-model",
                                "--cutoff-time", "2022-01")
        assert code == 0, err
        req = stub.chat_requests()[0]
    user = req["body"]["messages"][1]["content"]
    system = req["body"]["messages"][0]["content"]
    assert "released" in system and "Older versions are not new" in system
    post = [m.start() for m in re.finditer(r"\[2\.[01], released (?:after )?2022-10-24\]", user)]
    assert len(post) >= 11
    # pre-cutoff-version snippets (the 1.4 marker, the 1.9 release notes) and undated pages come after every post-cutoff one
    assert "pattern matching" in user and "helper number 0" in user
    for old in ("legacy spawn helper", "pattern matching", "helper number 0"):
        assert user.find(old) == -1 or user.find(old) > max(post), old
    assert user.index("QEP 654") < user.index("pattern matching")
    # the build date is not shown as a publication date
    assert "published: 2026-10-07" not in user and "site build date 2026-10-07" in user


def test_a_never_released_version_is_unverified_not_news(tmp_path):
    """Markers for versions newer than every version the timeline and the site know (2.0.0; What's New in 2.0) name no
    release: they are not presented as released after the cutoff."""
    feed = write_site(tmp_path, cutoff="2022-01")
    items = [json.loads(line) for line in feed.read_text().splitlines()]
    text99 = "The warp drive module bends quill programs through time. New in version 99.0."
    items[4]["excerpts"].append(text99)
    items[4]["changes"].append({"kind": "added", "version": "99.0", "removed_in": None, "date": None, "text": text99,
                                "anchor": None, "heading": "quill.warp"})
    feed.write_text("".join(json.dumps(it) + "\n" for it in items))
    code, _out, err = synth(feed, "--llm-provider", "extractive", "--cutoff-time", "2022-01")
    assert code == 0, err
    text = (tmp_path / "quill" / "SKILL.md").read_text()
    assert "warp drive" not in text and "99.0" not in text and "Shape arithmetic" not in text and "2.1" not in text
    assert "TaskCrew" in text  # the real 2.0 delta is still there
    man = json.loads((tmp_path / "run.json").read_text())
    shapes = next(r for r in man["sources"] if r["url"].endswith("shapes.html"))
    assert shapes.get("post_cutoff_changes", 0) == 0


def test_a_never_released_version_on_a_site_without_change_pages_is_unverified(tmp_path):
    """The registry's timeline knows 3.0 (released after the cutoff); a reference page marks one function "New in version
    3.0" and another "New in version 99.0", and no change page documents any release: 99.0 names no release."""
    from tests.pipeline.corpus import make_item, write_jsonl

    page = make_item("https://docs.gadget.example/api.html", published="2026-05-02", title="gadget API", topic="gadget",
                     authoritative=("docs.gadget.example",), excerpts=["# gadget API"])
    page.update(page_kind="doc", changes=[
        {"kind": "added", "version": "3.0", "removed_in": None, "date": None, "anchor": "#gadget.stream", "heading": "stream",
         "text": "gadget.stream() reads a response as it arrives instead of waiting for all of it. New in version 3.0."},
        {"kind": "added", "version": "99.0", "removed_in": None, "date": None, "anchor": "#gadget.warp", "heading": "warp",
         "text": "gadget.warp() sends every request back in time before it was made. New in version 99.0."}])
    feed = write_jsonl(tmp_path / "run.jsonl", [page])
    (tmp_path / "crawl.json").write_text(json.dumps({"topic": "gadget", "args": {"topic": "gadget", "cutoff_time": "2026-01"},
                                                     "timeline": [{"version": "3.0", "date": "2026-03-01", "source": "pypi"}]}))
    code, _out, err = synth(feed, "--llm-provider", "extractive", "--cutoff-time", "2026-01")
    assert code == 0, err
    text = (tmp_path / "gadget" / "SKILL.md").read_text()
    assert "reads a response as it arrives" in text and "back in time" not in text and "99.0" not in text
    man = json.loads((tmp_path / "run.json").read_text())
    row = next(r for r in man["sources"] if r["url"].endswith("api.html"))
    assert row["post_cutoff_changes"] == 1
