"""A provider's capabilities (each registered provider's, synth.llm.registry.REGISTRY) are the one answer to "does it call a model?", "can
it condense?" and "what budget floor?": every place that decides one of them asks the capability, never the name.
Each test runs every provider through every place that decides, so two places that disagree fail here."""

from __future__ import annotations

import socket
from datetime import date

import pytest

from skill3crawl.args import parse_args
from synth.llm.model import LLMError, UnknownProviderError
from synth.llm.planner import plan
from synth.llm.registry import (
    PROVIDERS,
    REGISTRY,
    capabilities,
    make_chat_model,
    make_model,
    model_problem,
)
from synth.pipeline.synthesizer import ExtractiveSynthesizer, ModelSynthesizer, synthesizer_for


def _dead_endpoint() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"  # closed once the socket is: connection refused


CAPABILITIES = {name: p.capabilities for name, p in REGISTRY.items()}


def test_every_provider_declares_its_capabilities() -> None:
    assert PROVIDERS == ("auto", "openai", "anthropic", "extractive")  # auto, then the table in its order
    assert set(CAPABILITIES) == set(PROVIDERS) - {"auto"}
    assert [p for p, c in CAPABILITIES.items() if not c.calls_model] == ["extractive"]
    assert all(c.condenses <= c.calls_model for c in CAPABILITIES.values())  # condensing is a model's calls
    with pytest.raises(LLMError, match="must be resolved"):
        capabilities("auto")
    with pytest.raises(UnknownProviderError, match="unknown llm_provider 'gpt'"):
        capabilities("gpt")


@pytest.mark.parametrize("provider", sorted(CAPABILITIES))
def test_calling_a_model_is_decided_by_the_capability(provider, tmp_path, monkeypatch) -> None:
    """Building a model, checking its endpoint before a crawl (the registry and the spider's check), planning the
    crawl's queries and choosing the synthesizer agree with ``calls_model`` — against an endpoint that is down."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    calls = capabilities(provider).calls_model
    dead = _dead_endpoint()
    model = make_chat_model(provider, dead, timeout=2, max_retries=0)
    assert (model is not None) == calls
    assert (model_problem(provider, dead, timeout=2) is not None) == calls  # a dead model matters to a model's user only
    args = parse_args({"topic": "mcp", "llm_provider": provider, "llm_endpoint": dead, "output_dir": str(tmp_path)})
    assert (args.model_problem() is not None) == calls
    planned = plan(model, "mcp", "2026-01", date(2026, 11, 1))
    assert planned.status == ("fallback" if calls else "skipped")  # a model was asked (and did not answer), or none
    synthesizer = synthesizer_for(provider, lambda: make_model(provider, dead, timeout=2, max_retries=0))
    assert type(synthesizer) is (ModelSynthesizer if calls else ExtractiveSynthesizer)
    assert synthesizer.capabilities is capabilities(provider)
    if not calls:
        with pytest.raises(LLMError, match="calls no model"):
            make_model(provider, dead)
