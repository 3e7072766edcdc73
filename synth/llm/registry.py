"""Choosing and building a chat model: the one table of providers (:data:`REGISTRY`, every module of
:mod:`synth.llm.providers`), check a provider, resolve ``auto`` once, make the model.

``auto`` means: ``openai`` when the endpoint answers ``GET /models`` with a 2xx
JSON model list, else ``extractive`` (no model). ``choose`` makes that decision
with a single probe and also picks the model to ask for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from synth.llm.bounds import DEFAULT_TIMEOUT, CallBudget
from synth.llm.model import MAX_RETRIES, ChatModel, LLMError, UnknownProviderError
from synth.llm.provider import Capabilities, LLMProvider
from synth.llm.providers import load
from synth.llm.providers.anthropic import DEFAULT_ANTHROPIC_MODEL
from synth.llm.providers.extractive import EXTRACTIVE_BUDGET
from synth.llm.providers.openai import (
    DEFAULT_ENDPOINT,
    DEFAULT_OPENAI_MODEL,
    HOSTED_OPENAI_HOSTS,
    is_hosted_openai_endpoint,
    is_local_endpoint,
    pick_model,
    probe,
    probe_openai_endpoint,
    served_models,
)

__all__ = [  # the providers' own names, importable from here as before
    "Capabilities", "LLMProvider", "DEFAULT_ANTHROPIC_MODEL", "EXTRACTIVE_BUDGET", "DEFAULT_ENDPOINT", "DEFAULT_OPENAI_MODEL",
    "HOSTED_OPENAI_HOSTS", "is_hosted_openai_endpoint", "is_local_endpoint", "pick_model", "probe_openai_endpoint",
    "served_models", "REGISTRY", "PROVIDERS", "provider", "capabilities", "check_provider", "make_chat_model",
    "make_model", "model_problem", "resolve_auto", "Choice", "fallback_warning", "choose",
]

# The one table of providers (synth.llm.providers: one module each), by name, in their order.
REGISTRY: Mapping[str, LLMProvider] = MappingProxyType({p.name: p for p in load()})
# Every name ``llm_provider`` takes: "auto" (resolved to one of the table's by :func:`choose`), then the table's.
# The spider arguments, SynthOptions, the CLI and the MCP server take them from here.
PROVIDERS: tuple[str, ...] = ("auto", *REGISTRY)


def _unknown(name: str) -> UnknownProviderError:
    return UnknownProviderError(f"unknown llm_provider {name!r}: use one of {', '.join(PROVIDERS)}")


def provider(name: str) -> LLMProvider:
    """The registered provider ``name`` (``auto`` must be resolved first: :func:`choose`)."""
    try:
        return REGISTRY[name]
    except KeyError:
        if name in PROVIDERS:
            raise LLMError(f"llm_provider {name!r} must be resolved before its capabilities are known") from None
        raise _unknown(name) from None


def capabilities(name: str) -> Capabilities:
    """The capabilities of the provider ``name`` (``auto`` must be resolved first: :func:`choose`)."""
    return provider(name).capabilities


def check_provider(name: str, endpoint: str | None = None, api_key: str | None = None) -> None:
    """Fail fast (before any crawl or call) on an unknown provider or a hosted one without a key."""
    if name not in PROVIDERS:
        raise _unknown(name)
    if name in REGISTRY:
        REGISTRY[name].check(endpoint, api_key)


def make_chat_model(
    provider: str = "openai",
    endpoint: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_retries: int = MAX_RETRIES,
    budget: CallBudget | None = None,
) -> ChatModel | None:
    """The provider's model (:func:`make_model`), or None when it calls none (``extractive``: its capabilities say so).

    A hosted provider without a key, an unknown one or ``auto`` (resolve it first: :func:`choose`) fails here."""
    known = REGISTRY.get(provider)  # None: "auto" or an unknown name, which make_model refuses
    if known is not None and not known.capabilities.calls_model:
        return None
    return make_model(provider, endpoint, model, api_key, timeout, max_retries, budget)


def make_model(
    provider: str,
    endpoint: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_retries: int = MAX_RETRIES,
    budget: CallBudget | None = None,
) -> ChatModel:
    """Build the model of a provider that calls one.

    Keys come from flags or the environment only (``LLM_API_KEY``, ``ANTHROPIC_API_KEY``)
    and are never logged. A hosted provider without a key fails here, before any call.
    ``timeout``: seconds one call may take, retries included; ``budget`` (a :class:`~synth.llm.bounds.CallBudget`)
    instead, to share a run's total budget.
    """
    budget = budget or CallBudget(timeout)
    check_provider(provider, endpoint, api_key)
    if provider not in REGISTRY:
        raise LLMError(f"llm_provider {provider!r} must be resolved before building a model")
    return REGISTRY[provider].build(endpoint, model, api_key, max_retries, budget)


PROBE_TIMEOUT = 5.0  # seconds: one probe of an endpoint


def model_problem(provider: str, endpoint: str | None = None, api_key: str | None = None,
                  timeout: float = PROBE_TIMEOUT) -> str | None:
    """For a provider chosen explicitly: ``None`` when its endpoint answers, else one line naming the problem
    and the fix — checked before anything is crawled or read, so a dead model is not found after the crawl.

    ``openai``: ``GET /models`` must give a 2xx JSON model list (as for ``auto``). ``anthropic``: ``GET
    /v1/models`` must be reachable and must not reject the key (401/403). ``auto`` and ``extractive`` need
    no check (``auto`` falls back to extractive by itself; ``extractive`` calls no model)."""
    known = REGISTRY.get(provider)
    return known.problem(endpoint, api_key, timeout) if known is not None else None


def resolve_auto(endpoint: str | None) -> tuple[str, str | None]:
    """``auto``: openai when the endpoint answers, else extractive; returns (provider, reason-for-fallback)."""
    ep = endpoint or DEFAULT_ENDPOINT
    reason = probe_openai_endpoint(ep)
    return ("openai", None) if reason is None else ("extractive", reason)


@dataclass(frozen=True)
class Choice:
    """The provider and model a run uses; ``reason`` says why ``auto`` fell back to extractive (else None)."""

    provider: str
    model: str | None
    reason: str | None = None


def fallback_warning(reason: str, *, planning: bool = False, synthesis: bool = True) -> str:
    """The one warning for ``auto`` falling back: what no longer uses a model (the query planner, synthesis)."""
    what = []
    if planning:
        what.append("planning falls back to the fixed query plan (release notes, changelog, migration guide …)")
    if synthesis:
        what.append(("synthesis" if planning else "falling back") + " to the extractive synthesizer (quotes only, no model)")
    return f"no LLM answers ({reason}): " + " and ".join(what or ["no model is used"])


def choose(provider: str, endpoint: str | None = None, model: str | None = None) -> Choice:
    """Resolve ``auto`` with one probe of the endpoint; other providers pass through unchanged.

    ``auto`` becomes ``openai`` when the endpoint answers with a model list (the
    model is the requested one, else the default when served, else the first
    served), otherwise ``extractive`` with the probe's reason. Call it once per run and hand the
    choice on (``SynthOptions.auto_choice``): ``skill3 learn`` and the crawl's planner do.
    """
    if provider != "auto":
        return Choice(provider, model)
    reason, served = probe(endpoint or DEFAULT_ENDPOINT, 3.0)
    if reason is not None:
        return Choice("extractive", model, reason)
    return Choice("openai", pick_model(model, served))
