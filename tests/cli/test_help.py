"""Help texts take their defaults from the code, and the providers are written once (one ``Literal``)."""

from __future__ import annotations

import dataclasses

import pytest
from typer.testing import CliRunner

from skill3.cli.main import app
from skill3crawl.args import DEFAULT_DEPTH_LIMIT, MAX_PAGES_LIMIT, LearnArgs, arg_default
from synth.llm.registry import DEFAULT_ENDPOINT, PROVIDERS, REGISTRY
from synth.pipeline.options import DEFAULT_CONTEXT_TOKENS, SynthOptions


def help_text(*command: str) -> str:
    result = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "400", "TERMINAL_WIDTH": "400"})
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_the_providers_are_the_one_table(tmp_path) -> None:
    assert PROVIDERS == ("auto", *REGISTRY) == ("auto", "openai", "anthropic", "extractive")
    for name in PROVIDERS:  # the spider arguments take every name of the table, and no other
        assert LearnArgs(topic="t", llm_provider=name, output_dir=str(tmp_path)).llm_provider == name
    with pytest.raises(ValueError, match="must be one of 'auto', 'openai', 'anthropic' or 'extractive', got 'ollama'"):
        LearnArgs(topic="t", llm_provider="ollama", output_dir=str(tmp_path))
    assert {f.name: f.default for f in dataclasses.fields(SynthOptions)}["llm_provider"] == arg_default("llm_provider")


@pytest.mark.parametrize("command", [("learn",), ("synth",)])
def test_shared_options_show_the_codes_defaults(command: tuple[str, ...]) -> None:
    text = help_text(*command)
    assert f"(default {DEFAULT_CONTEXT_TOKENS})" in text
    assert f"(default {DEFAULT_ENDPOINT})" in text
    assert all(p in text for p in PROVIDERS)


def test_learn_help_shows_the_spider_arguments_defaults() -> None:
    text = help_text("learn")
    assert f"(default {DEFAULT_DEPTH_LIMIT})" in text
    assert f"1–{MAX_PAGES_LIMIT} (default {arg_default('max_pages')})" in text
    assert f"(default {arg_default('locales')})" in text


def test_arg_default_reads_the_model() -> None:
    assert arg_default("max_pages") == LearnArgs.model_fields["max_pages"].default
    assert arg_default("authoritative") == []  # a default factory
