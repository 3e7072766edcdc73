"""`skill3 learn`'s options are the spider arguments (skill3crawl.args.LearnArgs): one definition each, the same
name as ``-a``, the same value whichever way it is given, the help text and default of the model."""

from __future__ import annotations

import pytest
import typer.main

from skill3.cli.main import app
from skill3crawl.args import DERIVED, LearnArgs, arg_default, learn_options, learn_spider_args, parse_args
from synth.pipeline.options import option_help

ROOT_CORPUS = str(__import__("pathlib").Path(__file__).resolve().parents[2] / "examples" / "mcp.sources")
OWN = {"topic", "export", "export_to", "setting"}  # the command's argument and the options that are not the crawl's


def learn_command():
    group = typer.main.get_command(app)
    return group.commands["learn"]  # type: ignore[attr-defined]


def cli_params(*argv: str) -> dict:
    """What `skill3 learn ARGV` parses into (click's parse, nothing run)."""
    return learn_command().make_context("learn", list(argv)).params


def test_every_described_spider_argument_is_a_learn_option_of_the_same_name() -> None:
    options = {p.name: p for p in learn_command().params}
    described = {name for name, f in LearnArgs.model_fields.items() if f.description}
    assert set(options) - OWN == described == {o.name for o in learn_options()}
    # the rest: what learn sets itself (synth=0), the distributed runner's, and what the model derives
    assert set(LearnArgs.model_fields) - described == {"topic", "synth", "role", "worker_id", *DERIVED} - {"cutoff", "scope"}
    for name in described:
        assert options[name].opts == ["--" + name.replace("_", "-")]
    assert options["fail_on_findings"].secondary_opts == ["--no-fail-on-findings"]


@pytest.mark.parametrize(
    "argv, spider_arg, raw",
    [
        (["--target-model", "claude-sonnet-4-6"], "target_model", "claude-sonnet-4-6"),
        (["--cutoff-time", "2025-09"], "cutoff_time", "2025-09"),
        (["--strict-cutoff"], "strict_cutoff", "1"),
        (["--since-version", "2.1"], "since_version", "2.1"),
        (["--authoritative", "a.org,b.org"], "authoritative", "a.org,b.org"),
        (["--start-urls", "https://a.org/x,https://b.org/"], "start_urls", "https://a.org/x,https://b.org/"),
        (["--input-file", ROOT_CORPUS], "input_file", ROOT_CORPUS),
        (["--max-pages", "40"], "max_pages", "40"),
        (["--output-dir", "o/x"], "output_dir", "o/x"),
        (["--llm-provider", "extractive"], "llm_provider", "extractive"),
        (["--llm-endpoint", "http://h:1/v1"], "llm_endpoint", "http://h:1/v1"),
        (["--llm-model", "m"], "llm_model", "m"),
        (["--llm-timeout", "90"], "llm_timeout", "90"),
        (["--verify"], "verify", "1"),
        (["--no-fail-on-findings"], "fail_on_findings", "0"),
        (["--fresh"], "fresh", "1"),
        (["--context-tokens", "4096"], "context_tokens", "4096"),
        (["--brave-key", "k"], "brave_key", "k"),
        (["--package", "pypi:mcp"], "package", "pypi:mcp"),
        (["--depth-limit", "3"], "depth_limit", "3"),
        (["--sitemap-filter", "docs/,/api/"], "sitemap_filter", "docs/,/api/"),
        (["--locales", "keep"], "locales", "keep"),
    ],
)
def test_each_learn_option_is_the_same_value_as_its_spider_argument(argv, spider_arg, raw) -> None:
    """`skill3 learn --x-y V` checks to the same arguments as `scrapy crawl learn -a x_y=V` (context_tokens included)."""
    params = cli_params("mcp", *argv)
    kwargs = learn_spider_args(params.pop("topic"), {k: v for k, v in params.items() if k not in OWN})
    via_cli = parse_args(kwargs).model_dump(exclude={"corpus"})  # the corpus read: an object per parse
    via_a = parse_args({"topic": "mcp", "synth": "0", spider_arg: raw}).model_dump(exclude={"corpus"})
    assert via_cli == via_a
    assert via_a[spider_arg] != parse_args({"topic": "mcp", "synth": "0"}).model_dump()[spider_arg]  # the option took effect


def test_left_out_options_pass_nothing_but_the_flags() -> None:
    params = cli_params("mcp")
    kwargs = learn_spider_args(params.pop("topic"), {k: v for k, v in params.items() if k not in OWN})
    assert kwargs == {"topic": "mcp", "synth": "0", "strict_cutoff": "0", "verify": "0", "fail_on_findings": "1", "fresh": "0",
                      "packages": "1"}
    args = parse_args(kwargs)
    assert (args.max_pages, args.depth_limit, args.locales, args.llm_provider) == tuple(
        arg_default(n) for n in ("max_pages", "depth_limit", "locales", "llm_provider"))


def test_learn_and_synth_show_one_help_text_for_a_synthesis_option() -> None:
    helps = {p.name: p.help for p in learn_command().params}
    synth = {p.name: p.help for p in typer.main.get_command(app).commands["synth"].params}  # type: ignore[attr-defined]
    for name in ("target_model", "cutoff_time", "strict_cutoff", "since_version", "llm_provider", "llm_endpoint", "llm_model",
                 "verify", "context_tokens", "llm_timeout", "fail_on_findings", "fresh"):
        assert helps[name] == synth[name] == option_help(name)
