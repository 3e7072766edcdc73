"""The facts file and the tolerant run.json reader."""

from __future__ import annotations

import json

import pytest

from synth.evidence.urls import url_key
from synth.lint import Facts, LintError, load_facts, run_source_urls


@pytest.mark.parametrize(
    "run, urls",
    [
        ({"sources": [{"url": "https://a/x"}, {"url": "https://b/", "final_url": "https://b/final"}]},
         ["https://a/x", "https://b/", "https://b/final"]),
        ({"used_sources": ["https://a/x"]}, ["https://a/x"]),
        ({"sources": ["https://s/"], "used_sources": [{"url": "https://u/"}]}, ["https://s/", "https://u/"]),
        (["https://plain/"], ["https://plain/"]),
        ({"sources": [{"title": "no url"}]}, []),
    ],
)
def test_run_source_urls(run, urls):
    assert run_source_urls(run) == urls


@pytest.mark.parametrize("run", [{"skill": "x"}, "text", {"sources": [3]}, {"sources": "https://a/"}])
def test_run_source_urls_rejects(run):
    with pytest.raises(LintError):
        run_source_urls(run)


@pytest.mark.parametrize(
    "a, b",
    [
        ("https://Demo.Example/a/", "https://demo.example/a"),
        ("https://demo.example:443/a#frag", "https://demo.example/a"),
        ("http://demo.example:80/a?q=1", "http://demo.example/a?q=1"),
    ],
)
def test_url_key(a: str, b: str) -> None:
    assert url_key(a) == url_key(b)


def test_url_key_keeps_differences() -> None:
    assert url_key("https://a.example/x?q=1") != url_key("https://a.example/x?q=2")
    assert url_key("https://a.example:8443/x") != url_key("https://a.example/x")


def test_load_facts_full(tmp_path):
    (tmp_path / "skills").mkdir()
    (tmp_path / "run.json").write_text(json.dumps({"sources": [{"url": "https://r/"}]}))
    (tmp_path / "facts.json").write_text(json.dumps({
        "_comment": "ignored",
        "run": "run.json",
        "used_sources": ["https://extra/"],
        "stale": [{"pattern": r"old\(", "what": "old()", "instead": "new()"}],
        "tools": ["Read"],
        "mcp": {"github": ["create_issue"]},
        "catalogue": "skills",
        "budget": {"lines": 10},
    }))
    f = load_facts(tmp_path / "facts.json")
    assert f.used_sources == {"https://r/", "https://extra/"}
    assert [s.what for s in f.stale] == ["old()"]
    assert f.tools == {"Read"} and f.mcp == {"github": {"create_issue"}}
    assert f.catalogue == tmp_path / "skills"
    assert (f.max_lines, f.max_tokens) == (10, 5000)


def test_inline_run_object():
    f = Facts.from_dict({"run": {"used_sources": ["https://u/"]}})
    assert f.used_sources == {"https://u/"} and f.stale is None


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "not valid JSON"),
        ("[]", "must be a JSON object"),
        ('{"tool": ["Read"]}', "unknown facts key(s): tool"),
        ('{"stale": [{"pattern": "("}]}', "not a valid regex"),
        ('{"stale": [{"what": "x"}]}', "non-empty 'pattern'"),
        ('{"tools": "Read"}', "must be a list"),
        ('{"mcp": ["github"]}', "server name -> list"),
        ('{"catalogue": "nowhere"}', "not a folder"),
        ('{"run": "missing-run.json"}', "run file not found"),
        ('{"budget": {"lines": 0}}', "positive integer"),
    ],
)
def test_load_facts_errors_are_one_line(tmp_path, content, message):
    path = tmp_path / "facts.json"
    path.write_text(content)
    with pytest.raises(LintError) as exc:
        load_facts(path)
    assert message in str(exc.value)
    assert "\n" not in str(exc.value)


def test_missing_facts_file(tmp_path):
    with pytest.raises(LintError, match="facts file not found"):
        load_facts(tmp_path / "nope.json")


def test_for_run_builds_draft_facts():
    f = Facts.for_run({"sources": [{"url": "https://a/"}]}, stale=[{"pattern": "x", "what": "x", "instead": "y"}])
    assert f.used_sources == {"https://a/"} and f.stale[0].instead == "y" and f.tools is None
    with pytest.raises(LintError, match="valid regex"):
        Facts.for_run([], stale=[{"pattern": "("}])
