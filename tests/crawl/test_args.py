"""The learn spider's arguments: one typed model, one-line errors naming the argument."""

from pathlib import Path

import pytest

from skill3crawl.args import ArgsError, parse_args
from synth.skill.names import topic_slug

GOOD_CORPUS = "=== SOURCE ===\nurl: https://a.example/x\n\nbody text\n"


@pytest.mark.parametrize(
    "raw, names",
    [
        ({}, "topic"),
        ({"topic": "  "}, "topic"),
        ({"topic": "mcp", "target_model": "gpt-99"}, "cutoff_time"),
        ({"topic": "mcp", "cutoff_time": "2026-13"}, "cutoff_time"),
        ({"topic": "mcp", "cutoff_time": "January"}, "cutoff_time"),
        ({"topic": "mcp", "cutoff_time": "0000-01"}, "cutoff_time 0000-01 is before 1990"),
        ({"topic": "mcp", "cutoff_time": "1989-12"}, "cutoff_time 1989-12 is before 1990"),
        ({"topic": "mcp", "cutoff_time": "2999-01"}, "cutoff_time 2999-01 is after this month"),
        ({"topic": "mcp", "max_pages": "lots"}, "max_pages"),
        ({"topic": "mcp", "max_pages": "0"}, "max_pages"),
        ({"topic": "mcp", "max_pages": "-3"}, "max_pages"),
        ({"topic": "mcp", "strict_cutoff": "maybe"}, "strict_cutoff"),
        ({"topic": "mcp", "synth": "2"}, "synth"),
        ({"topic": "mcp", "llm_provider": "ollama"}, "llm_provider"),
        ({"topic": "mcp", "llm_endpoint": "localhost:11434"}, "llm_endpoint"),
        ({"topic": "mcp", "start_urls": "docs.example.org/x"}, "start_urls"),
        ({"topic": "mcp", "authoritative": "not a host"}, "authoritative"),
        ({"topic": "mcp", "role": "boss"}, "role"),
        ({"topic": "mcp", "input_file": "/nonexistent/corpus.txt"}, "input_file"),
        ({"topic": "mcp", "max_page": "3"}, "max_page"),
        ({"topic": "mcp", "context_tokens": "lots"}, "context_tokens"),
        ({"topic": "mcp", "context_tokens": "100"}, "context_tokens"),  # below MIN_CONTEXT_TOKENS
        ({"topic": "mcp", "since_version": "latest"}, "bad argument since_version: 'latest' is not a version"),
        ({"topic": "mcp", "scope": "x"}, "unknown argument 'scope': did you mean cutoff_time or since_version?"),
    ],
)
def test_bad_argument_is_one_line_naming_it(raw, names):
    with pytest.raises(ArgsError) as exc:
        parse_args(raw)
    msg = str(exc.value)
    assert "\n" not in msg
    assert names in msg


def test_defaults_and_derived_values(monkeypatch):
    monkeypatch.delenv("BRAVE_SEARCH_API_KEY", raising=False)
    a = parse_args({"topic": "Model Context Protocol"})
    assert a.output_dir == str(Path("output") / "model-context-protocol")
    assert a.feed_path == Path("output/model-context-protocol/run.jsonl")
    assert (a.max_pages, a.synth, a.llm_provider, a.role, a.verify, a.strict_cutoff) == (200, True, "auto", "main", False, False)
    assert a.cutoff.month == "2026-01"  # the table's default model
    assert a.brave_token() is None


def test_values_are_typed():
    a = parse_args(
        {
            "topic": "mcp",
            "target_model": "claude-sonnet-4-6",
            "strict_cutoff": "1",
            "authoritative": "https://Docs.Example.org/, spec.example.io",
            "start_urls": "https://docs.example.org/a,https://docs.example.org/b",
            "max_pages": "25",
            "synth": "0",
            "role": "worker",
            "llm_provider": "extractive",
        }
    )
    assert a.cutoff.month == "2025-08"
    assert a.strict_cutoff is True and a.synth is False
    assert a.authoritative == ["docs.example.org", "spec.example.io"]
    assert a.start_urls == ["https://docs.example.org/a", "https://docs.example.org/b"]
    assert a.max_pages == 25
    assert a.role == "worker"


def test_cutoff_time_wins_over_model():
    assert parse_args({"topic": "x", "target_model": "unknown-model", "cutoff_time": "2025-11"}).cutoff.month == "2025-11"


def test_brave_key_is_secret(monkeypatch):
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "env-key")
    a = parse_args({"topic": "mcp"})
    assert a.brave_token() == "env-key"
    b = parse_args({"topic": "mcp", "brave_key": "arg-key-123"})
    assert b.brave_token() == "arg-key-123"
    assert "arg-key-123" not in repr(b) and "arg-key-123" not in str(b.public_dict())
    assert b.public_dict()["brave_key_set"] is True


def test_input_file_is_parsed_up_front(tmp_path):
    good = tmp_path / "c.txt"
    good.write_text(GOOD_CORPUS)
    assert [s.url for s in parse_args({"topic": "t", "input_file": str(good)}).corpus] == ["https://a.example/x"]
    bad = tmp_path / "bad.txt"
    bad.write_text("=== SOURCE ===\ntitle: no url\n\nbody\n")
    with pytest.raises(ArgsError, match="block 1 has no 'url:'"):
        parse_args({"topic": "t", "input_file": str(bad)})
    with pytest.raises(ArgsError, match="is a folder without .html"):
        parse_args({"topic": "t", "input_file": str(tmp_path)})


@pytest.mark.parametrize("topic, slug", [("mcp", "mcp"), ("JDK 26!", "jdk-26"), ("a/b//c", "a-b-c"), ("ÅÄÖ x", "åäö-x"), ("日本語", "日本語"), ("Ｃａｆｅ\u0301 tips", "café-tips")])
def test_topic_slug(topic, slug):
    assert topic_slug(topic) == slug


def test_output_dir_must_not_be_a_file(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(ArgsError, match="output_dir"):
        parse_args({"topic": "t", "output_dir": str(f)})


def test_usage_problems_depend_on_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("BRAVE_SEARCH_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert parse_args({"topic": "t"}).usage_problem() is None  # the registries are asked at run time
    assert parse_args({"topic": "t", "authoritative": "docs.example.org"}).usage_problem() is None
    assert "ANTHROPIC_API_KEY" in parse_args({"topic": "t", "authoritative": "a.example.org", "llm_provider": "anthropic"}).usage_problem()
    no_model = {"topic": "t", "authoritative": "a.example.org", "llm_provider": "anthropic", "synth": "0"}
    assert parse_args(no_model).usage_problem() is None  # no search (no planning) and no synthesis
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "k")
    assert parse_args({"topic": "t"}).usage_problem() is None
    assert "ANTHROPIC_API_KEY" in parse_args(no_model).usage_problem()  # planning needs the model


def test_context_tokens_is_a_spider_argument_passed_to_synthesis():
    """Every `skill3 learn` option is an -a: --context-tokens too."""
    assert parse_args({"topic": "t"}).synth_options().context_tokens is None
    assert parse_args({"topic": "t", "context_tokens": "4096"}).synth_options().context_tokens == 4096


# provider, endpoint, keys set → the problem (None: usable); the same decision as synth.llm.registry.check_provider
KEY_CASES = [
    ("anthropic", None, {}, "llm_provider anthropic needs a key: set ANTHROPIC_API_KEY"),
    ("anthropic", None, {"ANTHROPIC_API_KEY": "k"}, None),
    ("openai", "https://api.openai.com/v1", {}, "the hosted endpoint api.openai.com needs a key: set LLM_API_KEY"),
    ("openai", "https://api.openai.com/v1", {"LLM_API_KEY": "k"}, None),
    ("openai", "http://127.0.0.1:8765/v1", {}, None),
    ("auto", None, {}, None),
    ("extractive", None, {}, None),
]


@pytest.mark.parametrize("provider, endpoint, keys, problem", KEY_CASES)
def test_the_spider_checks_keys_as_synthesis_does(monkeypatch, provider, endpoint, keys, problem):
    """`scrapy crawl learn` refuses a hosted model without its key before crawling, as `skill3 learn` and
    `skill3 synth` do (one check: check_provider), not after the crawl when synthesis starts."""
    from synth.llm.model import LLMError
    from synth.llm.registry import check_provider

    for name in ("ANTHROPIC_API_KEY", "LLM_API_KEY", "BRAVE_SEARCH_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in keys.items():
        monkeypatch.setenv(name, value)
    raw = {"topic": "t", "authoritative": "a.example.org", "llm_provider": provider}
    if endpoint:
        raw["llm_endpoint"] = endpoint
    assert parse_args(raw).usage_problem() == problem
    try:
        check_provider(provider, endpoint)
        expected = None
    except LLMError as exc:
        expected = str(exc)
    assert expected == problem


def test_runner_bookkeeping_arguments_are_ignored():
    assert parse_args({"topic": "t", "_job": "abc123"}).topic == "t"
