"""SynthOptions (one default per option, shared by the CLI, the crawl trigger and the spider arguments) and
SynthResult (the outcome the caller prints)."""

import dataclasses
import inspect
import json
import socket
from pathlib import Path

import pytest
from rich.console import Console

from synth.evidence.cutoff import Cutoff
from synth.pipeline.options import SynthOptions, SynthResult
from tests.pipeline.corpus import EXAMPLE, parse_sources, write_jsonl


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_every_entry_point_defaults_to_the_auto_provider():
    from skill3.cli.learn import learn_cmd
    from skill3.cli.synth import synth_cmd
    from skill3crawl.args import LearnArgs, learn_spider_args, parse_args

    defaults = {
        "SynthOptions": SynthOptions(paths=("x",)).llm_provider,
        "skill3 synth": inspect.signature(synth_cmd).parameters["llm_provider"].default.default,
        "skill3 learn": parse_args(learn_spider_args("t", {"llm_provider": inspect.signature(learn_cmd).parameters["llm_provider"].default.default})).llm_provider,
        "scrapy crawl learn -a": LearnArgs.model_fields["llm_provider"].default,
    }
    assert set(defaults.values()) == {"auto"}, defaults


def test_run_synth_without_a_provider_probes_and_falls_back_to_extractive(tmp_path):
    """The default provider is "auto": with no model server answering, the run falls back, never fails."""
    from synth.pipeline.run import run_synth

    feed = write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE))
    err = Console(file=open(tmp_path / "err.txt", "w"), width=300)
    result = run_synth(SynthOptions(paths=(str(feed),), cutoff_time="2026-01", progress=False,
                                    llm_endpoint=f"http://127.0.0.1:{_closed_port()}/v1"), console=err)
    err.file.close()
    assert result.exit_code == 0, result.error
    man = json.loads((tmp_path / "run.json").read_text())
    assert man["model"]["requested"] == "auto" and man["model"]["used"] == "extractive"
    assert any(w.startswith("no LLM answers") for w in result.warnings)
    assert "skill3 synth: WARNING: no LLM answers" in (tmp_path / "err.txt").read_text()


# (case, options given, field → expected value)
OPTION_CASES = [
    ("defaults", {}, {"llm_provider": "auto", "fail_on_findings": True, "progress": True, "dry_run": False,
                      "verify": False, "strict_cutoff": False, "context_tokens": None, "today": None}),
    ("list of paths", {"paths": ["a.jsonl", Path("b.jsonl")]}, {"paths": ("a.jsonl", "b.jsonl")}),
    ("one path bare", {"paths": Path("run.jsonl")}, {"paths": ("run.jsonl",)}),
    ("output folder as a Path", {"output_dir": Path("out")}, {"output_dir": "out"}),
]


@pytest.mark.parametrize("given, expected", [c[1:] for c in OPTION_CASES], ids=[c[0] for c in OPTION_CASES])
def test_synth_options(given, expected):
    options = SynthOptions(**{"paths": ("run.jsonl",), **given})
    assert {k: getattr(options, k) for k in expected} == expected


def test_synth_options_are_frozen_and_reject_unknown_names():
    options = SynthOptions(paths=("run.jsonl",))
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.llm_provider = "openai"  # type: ignore[misc]
    with pytest.raises(TypeError):
        SynthOptions(paths=("run.jsonl",), cutoff="2026-01")  # type: ignore[call-arg]
    assert dataclasses.replace(options, verify=True).verify is True


def test_the_spider_arguments_give_the_trigger_its_options(tmp_path):
    from skill3crawl.args import parse_args

    args = parse_args({"topic": "Streaming", "output_dir": str(tmp_path), "cutoff_time": "2026-01", "verify": "1",
                       "llm_provider": "extractive", "fail_on_findings": "0"})
    assert args.synth_options(today="2026-11-29") == SynthOptions(
        paths=(str(tmp_path / "run.jsonl"),), output_dir=str(tmp_path), topic="Streaming", llm_provider="extractive",
        verify=True, fail_on_findings=False, today="2026-11-29", scope=args.scope)
    assert args.scope.cutoff == Cutoff("2026-01", "cutoff_time")  # resolved once, by the crawl


OUT = Path("out")
# (case, result, (stream, line) pairs printed)
OUTCOME_CASES = [
    ("failure", SynthResult(exit_code=2, error="no topic in the items or crawl.json: pass --topic"),
     [("err", "skill3 synth: error: no topic in the items or crawl.json: pass --topic")]),
    ("written", SynthResult(exit_code=0, skill_dir=OUT / "mcp", manifest=OUT / "run.json", preview=OUT / "index.html",
                            sources=4, provider="extractive"),
     [("out", f"skill3: wrote {OUT / 'mcp' / 'SKILL.md'} (4 sources, provider extractive); "
              f"manifest {OUT / 'run.json'}, preview {OUT / 'index.html'}")]),
    ("findings, gate on", SynthResult(exit_code=3, skill_dir=OUT / "mcp", manifest=OUT / "run.json",
                                      preview=OUT / "index.html", sources=1, provider="openai", blocking_findings=2,
                                      finding_rules=("SS-1", "SS-2")),
     [("out", f"skill3: wrote {OUT / 'mcp' / 'SKILL.md'} (1 sources, provider openai); "
              f"manifest {OUT / 'run.json'}, preview {OUT / 'index.html'}"),
      ("err", "skill3 synth: 2 HIGH/CRITICAL finding(s) remain (SS-1, SS-2; see run.json vet): exit 3")]),
    ("findings, gate off", SynthResult(exit_code=0, blocking_findings=1, finding_rules=("SS-1",), fail_on_findings=False),
     [("err", "skill3 synth: 1 HIGH/CRITICAL finding(s) remain (SS-1; see run.json vet): "
              "gate disabled (--no-fail-on-findings)")]),
    ("crawl trigger stand-in", SynthResult(exit_code=3), []),
]


@pytest.mark.parametrize("result, lines", [c[1:] for c in OUTCOME_CASES], ids=[c[0] for c in OUTCOME_CASES])
def test_synth_result_outcome(result, lines, tmp_path):
    assert result.outcome_lines() == lines
    out, err = (Console(file=open(tmp_path / n, "w"), width=400) for n in ("out", "err"))
    result.print_outcome(out, err)
    out.file.close(), err.file.close()
    for stream in ("out", "err"):
        assert (tmp_path / stream).read_text().splitlines() == [line for s, line in lines if s == stream]


def test_synth_result_is_frozen_with_read_only_timings():
    result = SynthResult(exit_code=0, timings={"write": 0.1}, warnings=["w"])
    assert result.ok and result.warnings == ("w",)
    with pytest.raises(TypeError):
        result.timings["write"] = 2.0  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.exit_code = 1  # type: ignore[misc]
