"""`skill3 synth`'s options are SynthOptions' fields (synth.pipeline.options.synth_options): one option per field a
user can reach, its help text and default the field's; the options `skill3 learn` shares are those fields too."""

from __future__ import annotations

import collections
import dataclasses
import typing
from operator import attrgetter

import pytest
import typer.main

from skill3.cli.main import app
from skill3.cli.params import METAVARS
from skill3.cli.synth import options_of
from skill3crawl.args import LearnArgs, parse_args
from synth.llm.bounds import DEFAULT_TIMEOUT, DEFAULT_TOTAL_TIMEOUT
from synth.llm.registry import DEFAULT_ENDPOINT
from synth.pipeline.options import DEFAULT_CONTEXT_TOKENS, SynthOptions, synth_options
from tests.cli.test_help import help_text

# What the caller sets, never the command line: the day of a crawl (skill3 learn, the crawl's trigger), "auto"
# resolved by the caller, and a model the caller checked.
NOT_OPTIONS = {"today", "auto_choice", "model_checked", "scope"}


def synth_command():
    return typer.main.get_command(app).commands["synth"]  # type: ignore[attr-defined]


def test_every_reachable_synth_options_field_is_one_parameter_of_skill3_synth() -> None:
    params = synth_command().params
    by_name = {o.name: o for o in synth_options()}
    fields_set = ["paths" if p.name == "run_jsonl" else by_name[p.name].field for p in params if p.name != "help"]
    assert [f for f, n in collections.Counter(fields_set).items() if n > 1] == []  # each field once
    assert set(fields_set) == {f.name for f in dataclasses.fields(SynthOptions)} - NOT_OPTIONS
    flags = {p.name: p.opts + p.secondary_opts for p in params}
    assert flags["cutoff_time"] == ["--cutoff-time"] and flags["quiet"] == ["--quiet"]
    assert flags["fail_on_findings"] == ["--fail-on-findings", "--no-fail-on-findings"]
    assert all(flags[o.name] == o.flag.split("/") for o in synth_options())


def test_synth_help_lists_each_option_with_its_default_from_the_code() -> None:
    text = help_text("synth")
    for option in synth_options():  # its row: the flag(s), the value's kind, the help text (defaults included)
        metavar = "" if option.kind is bool else f" {option.metavar or METAVARS[option.name]}"  # a flag shows none
        row = f"{' '.join(option.flag.split('/'))}{metavar} {' '.join(option.help.split())}"
        if option.kind is not bool and option.default is not None:
            row += f" [default: {option.default}]"  # typer's, from the field's default
        assert row in text, option.name
    assert "--fail-on-findings --no-fail-on-findings exit 3 when high-severity findings remain [default: fail-on-findings]" in text
    # the defaults the help texts name come from the code
    for default in (f"(default {DEFAULT_CONTEXT_TOKENS})", f"(default {DEFAULT_ENDPOINT})",
                    f"else {DEFAULT_TIMEOUT:g};", f"else {DEFAULT_TOTAL_TIMEOUT:g})"):
        assert default in text
    provider = {f.name: f.default for f in dataclasses.fields(SynthOptions)}["llm_provider"]
    assert f"--llm-provider {METAVARS['llm_provider']} {provider} (the default: openai" in text


# (argv, the SynthOptions field it sets, the value): one row per option (a test below checks the table is complete)
OPTION_CASES = [
    (["--output-dir", "o"], "output_dir", "o"),
    (["--topic", "mcp"], "topic", "mcp"),
    (["--target-model", "claude-sonnet-4-6"], "target_model", "claude-sonnet-4-6"),
    (["--cutoff-time", "2025-09"], "cutoff_time", "2025-09"),
    (["--llm-provider", "extractive"], "llm_provider", "extractive"),
    (["--llm-endpoint", "http://h:1/v1"], "llm_endpoint", "http://h:1/v1"),
    (["--llm-model", "m"], "llm_model", "m"),
    (["--verify"], "verify", True),
    (["--strict-cutoff"], "strict_cutoff", True),
    (["--since-version", "2.1"], "since_version", "2.1"),
    (["--context-tokens", "4096"], "context_tokens", 4096),
    (["--llm-timeout", "90"], "llm_timeout", 90.0),
    (["--dry-run"], "dry_run", True),
    (["--no-fail-on-findings"], "fail_on_findings", False),
    (["--fresh"], "fresh", True),
    (["--quiet"], "progress", False),
]


def synth_options_of(*argv: str) -> SynthOptions:
    """What `skill3 synth ARGV` would run with (click's parse, nothing run)."""
    params = synth_command().make_context("synth", list(argv)).params
    return options_of(params.pop("run_jsonl"), params)


def test_the_option_table_covers_every_option() -> None:
    assert sorted(field for _argv, field, _value in OPTION_CASES) == sorted(o.field for o in synth_options())


@pytest.mark.parametrize("argv, field, value", OPTION_CASES, ids=[c[1] for c in OPTION_CASES])
def test_each_synth_option_sets_its_field_and_nothing_else(argv, field, value) -> None:
    default = SynthOptions(paths=("run.jsonl",))
    assert synth_options_of("run.jsonl") == default  # left out: the field's default
    got = synth_options_of("run.jsonl", *argv)
    assert getattr(got, field) == value != getattr(default, field)
    assert dataclasses.replace(got, **{field: getattr(default, field)}) == default


def test_the_options_learn_shares_are_the_synthesis_fields() -> None:
    """Each shared option is a spider argument with the field's default, help and type; no other argument repeats one."""
    shared = [o for o in synth_options() if o.learn]
    assert {o.name for o in shared} == {"target_model", "cutoff_time", "strict_cutoff", "since_version", "llm_provider",
                                        "llm_endpoint", "llm_model", "verify", "context_tokens", "llm_timeout",
                                        "fail_on_findings", "fresh"}
    hints = typing.get_type_hints(SynthOptions)
    for option in shared:
        arg = LearnArgs.model_fields[option.name]
        assert (arg.default, arg.description, arg.annotation) == (option.default, option.help, hints[option.field])
    helps = [f.description for f in LearnArgs.model_fields.values()]
    assert {o.name: helps.count(o.help) for o in synth_options()} == {o.name: int(o.learn) for o in synth_options()}


# (spider argument, raw -a value, the SynthOptions field, the value synthesis gets): the cutoff, target model and
# since-version as the crawl resolved them (``scope``)
SHARED_CASES = [
    ("target_model", "claude-sonnet-4-6", "scope.target_model", "claude-sonnet-4-6"),
    ("cutoff_time", "2025-09", "scope.cutoff.month", "2025-09"),
    ("strict_cutoff", "1", "strict_cutoff", True),
    ("since_version", " 2.1 ", "scope.since_version", "2.1"),
    ("llm_provider", "extractive", "llm_provider", "extractive"),
    ("llm_endpoint", "http://h:1/v1", "llm_endpoint", "http://h:1/v1"),
    ("llm_model", "m", "llm_model", "m"),
    ("verify", "1", "verify", True),
    ("context_tokens", "4096", "context_tokens", 4096),
    ("llm_timeout", "90", "llm_timeout", 90.0),
    ("fail_on_findings", "0", "fail_on_findings", False),
    ("fresh", "1", "fresh", True),
]


def test_the_shared_table_covers_every_shared_option() -> None:
    assert sorted(c[0] for c in SHARED_CASES) == sorted(o.name for o in synth_options() if o.learn)


@pytest.mark.parametrize("arg, raw, field, value", SHARED_CASES, ids=[c[0] for c in SHARED_CASES])
def test_a_shared_spider_argument_reaches_synthesis(tmp_path, arg, raw, field, value) -> None:
    base = {"topic": "mcp", "output_dir": str(tmp_path)}
    default = parse_args(base).synth_options()
    got = parse_args({**base, arg: raw}).synth_options()
    assert attrgetter(field)(got) == value != attrgetter(field)(default)
    top = field.split(".")[0]
    assert dataclasses.replace(got, **{top: getattr(default, top)}) == default
