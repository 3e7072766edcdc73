"""The run asks its synthesizer's capabilities (synth.pipeline.synthesizer, synth.llm.registry.CAPABILITIES): the
budget and the condensing of the run and of its dry run, --verify, the "cited no source" warning and the re-prompt
of a draft the post-processor cannot fix. Each test runs a provider that calls a model (a loopback
OpenAI-compatible server) and the extractive one through the same decision."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from rich.console import Console

from synth.core.errors import SynthFailure
from synth.llm.registry import capabilities, make_model
from synth.pipeline.budget import bundle_budget
from synth.pipeline.bundle import Bundle
from synth.pipeline.draft import Draft
from synth.pipeline.inputs import resolve_inputs
from synth.pipeline.options import SynthOptions
from synth.pipeline.review import _postprocess_or_repair
from synth.pipeline.run import run_synth
from synth.pipeline.runlog import RunState
from synth.pipeline.synthesizer import synthesizer_for
from synth.skill.postprocess import SkillContext
from tests.llm.test_openai_e2e import SKILL, skill_reply
from tests.mockserver import StubLLM
from tests.pipeline.corpus import EXAMPLE, make_item, parse_sources, write_jsonl

PROVIDERS = ["openai", "extractive"]


def _run(tmp_path, stub: StubLLM, provider: str, **options) -> tuple:
    feed = tmp_path / "run.jsonl"
    err = Console(file=open(tmp_path / "err.txt", "w"), width=400)
    common = dict(paths=(str(feed),), cutoff_time="2026-01", progress=False, llm_provider=provider, llm_endpoint=stub.url,
                  llm_model="stub-model", topic="mcp", **options)
    dry = run_synth(SynthOptions(**common, dry_run=True), console=err)
    run = run_synth(SynthOptions(**common), console=err)
    err.file.close()
    assert dry.exit_code == run.exit_code == 0, (dry.error, run.error)
    return dry, run, json.loads((tmp_path / "run.json").read_text()), (tmp_path / "err.txt").read_text()


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("fits", [True, False], ids=["fits", "too-big"])
def test_the_dry_run_and_the_run_take_budget_and_condensing_from_the_capabilities(tmp_path, provider, fits) -> None:
    """The budget floor (the extractive synthesizer's EXTRACTIVE_BUDGET) and whether the evidence is condensed are
    the provider's capabilities, the same for the dry run (which builds no model) and the run."""
    caps = capabilities(provider)
    if fits:
        write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE))
    else:  # ~22,000 tokens: more than a 2048-token window and than the extractive floor hold
        write_jsonl(tmp_path / "run.jsonl", [make_item(f"https://s{i}.example/p", excerpts=[
            f"The transport of server {i} now accepts the option opt_{i}_{j}, which replaces the older flag number {j}."
            for j in range(150)]) for i in range(5)])
    with StubLLM(skill_reply) as stub:
        dry, _run_result, man, _err = _run(tmp_path, stub, provider, **({} if fits else {"context_tokens": 2048}))
        calls = [r["body"]["messages"][0]["content"] for r in stub.chat_requests()]
    budget = man["bundle"]["budget_tokens"]
    assert dry.dry_run.budget == budget >= caps.min_budget
    assert dry.dry_run.selection.mode == man["bundle"]["mode"]
    assert (man["bundle"]["mode"] == "map-reduce") == (caps.condenses and not fits)
    assert sum("condense one web page" in c for c in calls) == (5 if caps.condenses and not fits else 0)
    assert bool(calls) == caps.calls_model
    if not caps.calls_model:  # no context window to fit: the floor, not the (small) window, decides
        assert budget == caps.min_budget


@pytest.mark.parametrize("provider", PROVIDERS)
def test_verify_and_the_uncited_warning_ask_whether_a_model_is_called(tmp_path, provider) -> None:
    calls_model = capabilities(provider).calls_model
    write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE))
    uncited = SKILL.replace(" [2]", "").replace(" [3]", "")
    with StubLLM(skill_reply) as stub:
        stub.script = [uncited]  # the draft cites nothing (a model's draft; the extractive one always cites)
        _dry, _run_result, man, err = _run(tmp_path, stub, provider, verify=True)
        phases = [c["phase"] for c in man["prompts"]["calls"]]
    assert man["verify"]["status"] == ("done" if calls_model else "skipped")
    assert ("verify" in phases) == calls_model and bool(phases) == calls_model
    if not calls_model:
        assert man["verify"]["reason"] == f"provider {provider} has no model to verify with"
        assert f"--verify skipped: the {provider} provider has no model" in err
    assert any("the model cited no source" in w for w in man["warnings"]) == calls_model


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_draft_the_post_processor_cannot_fix_is_re_prompted_only_by_a_model(tmp_path, provider) -> None:
    calls_model = capabilities(provider).calls_model
    sources = [{"n": 1, "url": "https://modelcontextprotocol.io/", "title": "MCP"}]
    ctx = SkillContext(topic="mcp", target_model="claude-sonnet-4-6", cutoff="2025-08", learned_date="2026-11-01",
                       sources=sources)
    draft = Draft("Sorry, I cannot do that.", [{"role": "user", "content": "write the skill"}], None,  # type: ignore[arg-type]
                  Bundle("mcp", "claude-sonnet-4-6", "2025-08", sources), ctx)
    state = RunState(Console(file=open(tmp_path / "err.txt", "w"), width=400), progress=False)
    with StubLLM(SKILL) as stub:
        synthesizer = synthesizer_for(provider, lambda: make_model(provider, stub.url, "stub-model", max_retries=0))
        if calls_model:
            skill = _postprocess_or_repair(draft, synthesizer, 8192, state)
            assert skill.name == "mcp"
        else:
            with pytest.raises(SynthFailure, match=f"the {provider} draft could not be made valid") as failed:
                _postprocess_or_repair(draft, synthesizer, 8192, state)
            assert failed.value.code == 1
        assert len(stub.chat_requests()) == int(calls_model)
    assert [c["phase"] for c in state.log.calls] == (["repair"] if calls_model else [])
    state.err.file.close()


def test_bundle_budget_is_at_least_the_providers_floor(tmp_path) -> None:
    write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE))
    inputs = resolve_inputs(SynthOptions(paths=(str(tmp_path / "run.jsonl"),), cutoff_time="2026-01", context_tokens=2048),
                            datetime.now(timezone.utc))
    model, extractive = (bundle_budget(inputs, "mcp", 3, capabilities(p)) for p in ("openai", "extractive"))
    assert model < 2048 and extractive == capabilities("extractive").min_budget
