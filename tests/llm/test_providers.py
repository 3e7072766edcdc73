"""Providers register as objects in one table: a module of synth.llm.providers that defines PROVIDER is a provider
(one file), listed in its order; the registry asks the object, never the name."""

from __future__ import annotations

import sys

import pytest

import synth.llm.providers as providers_pkg
from synth.llm.provider import Capabilities, LLMProvider
from synth.llm.providers import load
from synth.llm.registry import REGISTRY

ECHO = '''
from synth.llm.provider import Capabilities, LLMProvider


class EchoProvider(LLMProvider):
    name = "echo"
    order = 50
    capabilities = Capabilities(calls_model=False, condenses=False, min_budget=123)


PROVIDER = EchoProvider()
NOT_A_PROVIDER = object()
'''


@pytest.fixture
def extra_provider_dir(tmp_path, monkeypatch):
    (tmp_path / "echo.py").write_text(ECHO, encoding="utf-8")
    (tmp_path / "helpers.py").write_text("X = 1\n", encoding="utf-8")  # a module without PROVIDER: not a provider
    monkeypatch.setattr(providers_pkg, "__path__", [*providers_pkg.__path__, str(tmp_path)])
    yield tmp_path
    for name in ("synth.llm.providers.echo", "synth.llm.providers.helpers"):
        sys.modules.pop(name, None)


def test_a_new_provider_is_one_file(extra_provider_dir) -> None:
    found = load()
    assert [p.name for p in found] == ["openai", "anthropic", "echo", "extractive"]  # by order
    echo = next(p for p in found if p.name == "echo")
    assert isinstance(echo, LLMProvider) and echo.capabilities == Capabilities(False, False, 123)


def test_the_table_holds_every_module_of_the_package() -> None:
    assert [p.name for p in load()] == list(REGISTRY) == ["openai", "anthropic", "extractive"]
    assert all(REGISTRY[name].name == name for name in REGISTRY)


@pytest.mark.parametrize("name, key, endpoint, problem", [
    ("anthropic", None, None, "llm_provider anthropic needs a key: set ANTHROPIC_API_KEY"),
    ("openai", None, "https://api.openai.com/v1", "the hosted endpoint api.openai.com needs a key: set LLM_API_KEY"),
    ("openai", None, "http://127.0.0.1:9/v1", None),  # a local server needs no key
    ("openai", "sk-test", "https://api.openai.com/v1", None),
    ("extractive", None, None, None),
])
def test_each_provider_checks_its_own_key(monkeypatch, name, key, endpoint, problem) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("LLM_API_KEY", raising=False)
    if problem is None:
        REGISTRY[name].check(endpoint, key)
    else:
        with pytest.raises(Exception, match=problem):
            REGISTRY[name].check(endpoint, key)
