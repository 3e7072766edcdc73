"""Choosing and building a chat model: check a provider, resolve ``auto`` once, make the model.

``auto`` means: ``openai`` when the endpoint answers ``GET /models`` with a 2xx
JSON model list, else ``extractive`` (no model). ``choose`` makes that decision
with a single probe and also picks the model to ask for.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal, get_args
from urllib.parse import urlsplit

from synth.evidence.urls import host_of
from synth.llm.bounds import DEFAULT_TIMEOUT, CallBudget
from synth.llm.model import MAX_RETRIES, ChatModel, LLMError, MissingKeyError, UnknownProviderError

DEFAULT_ENDPOINT = "http://localhost:11434/v1"
DEFAULT_OPENAI_MODEL = "qwen2.5-coder"
DEFAULT_ANTHROPIC_MODEL = "claude-opus-4-8"
# The providers, written once: the spider arguments, SynthOptions and the CLI take them from here.
Provider = Literal["auto", "openai", "anthropic", "extractive"]
PROVIDERS: tuple[str, ...] = get_args(Provider)

# Without a model there is no context window to fit: the extractive synthesizer chooses its quotes (its own output
# stays within the skill's body budget) from a bundle of at least this many tokens.
EXTRACTIVE_BUDGET = 16_000


@dataclass(frozen=True)
class Capabilities:
    """What a provider does, declared once per provider (:data:`CAPABILITIES`): synthesis, the query planner and
    the argument checks ask these, never the provider's name or whether a model was built.

    ``calls_model``: a language model answers — a model is built (:func:`make_chat_model`), it plans the crawl's
    queries, it drafts the skill from the prompt, it can be asked again (a draft the post-processor cannot fix,
    lint errors, vet findings, ``--verify``) and a draft of it that cites nothing is warned about; without one the
    skill is compiled from quotes, each cited (``synth.pipeline.extractive``). ``condenses``: it can condense each
    source into a note when the evidence does not fit its budget (map-reduce). ``min_budget``: the evidence budget
    is at least this many tokens (it has no context window to fit); 0: the model's window decides."""

    calls_model: bool
    condenses: bool
    min_budget: int = 0


_MODEL = Capabilities(calls_model=True, condenses=True)
# Every provider but "auto" (which is resolved to one of these before a run uses it).
CAPABILITIES: Mapping[str, Capabilities] = MappingProxyType({
    "openai": _MODEL,
    "anthropic": _MODEL,
    "extractive": Capabilities(calls_model=False, condenses=False, min_budget=EXTRACTIVE_BUDGET),
})


def capabilities(provider: str) -> Capabilities:
    """The capabilities of ``provider`` (``auto`` must be resolved first: :func:`choose`)."""
    try:
        return CAPABILITIES[provider]
    except KeyError:
        if provider in PROVIDERS:
            raise LLMError(f"llm_provider {provider!r} must be resolved before its capabilities are known") from None
        raise UnknownProviderError(f"unknown llm_provider {provider!r}: use one of {', '.join(PROVIDERS)}") from None


# OpenAI-compatible services that are hosted (need LLM_API_KEY). Any other endpoint may be a
# local or private server that needs no key; a gateway that needs one rejects the call (HTTP 401).
HOSTED_OPENAI_HOSTS = (
    "api.openai.com", "openrouter.ai", "api.together.xyz", "api.groq.com", "api.mistral.ai",
    "api.deepseek.com", "api.fireworks.ai", "generativelanguage.googleapis.com", "api.anthropic.com",
    "inference.ai.azure.com", "api.perplexity.ai", "api.x.ai",
)


def is_hosted_openai_endpoint(endpoint: str) -> bool:
    host = host_of(endpoint)
    return any(host == h or host.endswith("." + h) for h in HOSTED_OPENAI_HOSTS)


def is_local_endpoint(endpoint: str) -> bool:
    host = host_of(endpoint)
    if host in ("localhost",) or host.endswith(".localhost"):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_loopback or ip.is_private or ip.is_link_local


def check_provider(provider: str, endpoint: str | None = None, api_key: str | None = None) -> None:
    """Fail fast (before any crawl or call) on an unknown provider or a hosted one without a key."""
    if provider not in PROVIDERS:
        raise UnknownProviderError(f"unknown llm_provider {provider!r}: use one of {', '.join(PROVIDERS)}")
    if provider == "anthropic" and not (api_key or os.environ.get("ANTHROPIC_API_KEY")):
        raise MissingKeyError("llm_provider anthropic needs a key: set ANTHROPIC_API_KEY")
    if provider == "openai" and endpoint and is_hosted_openai_endpoint(endpoint) and not (api_key or os.environ.get("LLM_API_KEY")):
        host = urlsplit(endpoint).hostname
        raise MissingKeyError(f"the hosted endpoint {host} needs a key: set LLM_API_KEY")


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
    caps = CAPABILITIES.get(provider)  # None: "auto" or an unknown name, which make_model refuses
    if caps is not None and not caps.calls_model:
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
    if provider == "openai":
        from synth.llm.openai_compat import OpenAICompatModel

        return OpenAICompatModel(
            endpoint=endpoint or DEFAULT_ENDPOINT,
            model=model or DEFAULT_OPENAI_MODEL,
            api_key=api_key or os.environ.get("LLM_API_KEY"),
            max_retries=max_retries,
            budget=budget,
        )
    if provider == "anthropic":
        from synth.llm.anthropic_model import AnthropicModel

        key = api_key or os.environ.get("ANTHROPIC_API_KEY") or ""
        return AnthropicModel(
            endpoint=endpoint, model=model or DEFAULT_ANTHROPIC_MODEL, api_key=key, max_retries=max_retries, budget=budget
        )
    if provider in CAPABILITIES:
        raise LLMError(f"llm_provider {provider!r} calls no model")
    raise LLMError(f"llm_provider {provider!r} must be resolved before building a model")


PROBE_TIMEOUT = 5.0  # seconds: one probe of an endpoint


def probe_openai_endpoint(endpoint: str, timeout: float = 3.0) -> str | None:
    """None when an OpenAI-compatible server answers ``GET /models`` with a 2xx JSON model list
    (``{"data": [...]}``); else a one-line reason. A 403 from a proxy, a login page or any other
    answer is not a model server."""
    return _probe(endpoint, timeout)[0]


def served_models(endpoint: str, timeout: float = 3.0) -> list[str]:
    """Model ids an OpenAI-compatible server lists at ``GET /models`` ([] when it does not answer)."""
    return _probe(endpoint, timeout)[1]


def pick_model(requested: str | None, served: list[str]) -> str | None:
    """The model to ask for: the requested one; else the default when served (Ollama adds ':tag'); else the first served."""
    if requested:
        return requested
    if not served:
        return None
    for m in served:
        if m == DEFAULT_OPENAI_MODEL or m.split(":", 1)[0] == DEFAULT_OPENAI_MODEL:
            return m
    return served[0]


def _probe(endpoint: str, timeout: float) -> tuple[str | None, list[str]]:
    import httpx2

    url = endpoint.rstrip("/") + "/models"
    key = os.environ.get("LLM_API_KEY")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        r = httpx2.get(url, timeout=timeout, headers=headers)
    except Exception as exc:  # any transport failure means "does not answer"
        return f"{endpoint} does not answer ({type(exc).__name__})", []
    if not 200 <= r.status_code < 300:
        return f"{endpoint} answered HTTP {r.status_code} at /models (not an OpenAI-compatible model list)", []
    try:
        data = r.json()
    except ValueError:
        data = None
    listed = data.get("data") if isinstance(data, dict) else None
    if not isinstance(listed, list):
        return f"{endpoint} answered /models without a JSON model list (not an OpenAI-compatible server)", []
    return None, [str(m["id"]) for m in listed if isinstance(m, dict) and m.get("id")]


def model_problem(provider: str, endpoint: str | None = None, api_key: str | None = None,
                  timeout: float = PROBE_TIMEOUT) -> str | None:
    """For a provider chosen explicitly: ``None`` when its endpoint answers, else one line naming the problem
    and the fix — checked before anything is crawled or read, so a dead model is not found after the crawl.

    ``openai``: ``GET /models`` must give a 2xx JSON model list (as for ``auto``). ``anthropic``: ``GET
    /v1/models`` must be reachable and must not reject the key (401/403). ``auto`` and ``extractive`` need
    no check (``auto`` falls back to extractive by itself; ``extractive`` calls no model)."""
    caps = CAPABILITIES.get(provider)
    if caps is None or not caps.calls_model:
        return None
    import httpx2

    if provider == "openai":
        ep = endpoint or DEFAULT_ENDPOINT
        reason = probe_openai_endpoint(ep, timeout)
        if reason is None:
            return None
        return (f"llm_provider openai: {reason}; start the model server, pass the right --llm-endpoint, "
                "or --llm-provider auto / extractive")
    if provider != "anthropic":  # pragma: no cover  (a provider calling a model without a probe of its own)
        return None
    base = (endpoint or "https://api.anthropic.com").rstrip("/")
    key = api_key or os.environ.get("ANTHROPIC_API_KEY") or ""
    try:
        r = httpx2.get(base + "/v1/models", timeout=timeout,
                       headers={"x-api-key": key, "anthropic-version": "2023-06-01"})
    except Exception as exc:  # any transport failure means "does not answer"
        return (f"llm_provider anthropic: {base} does not answer ({type(exc).__name__}); check the network or "
                "--llm-endpoint, or use --llm-provider auto / extractive")
    if r.status_code in (401, 403):
        return f"llm_provider anthropic: {base} rejected the key (HTTP {r.status_code}): check ANTHROPIC_API_KEY"
    return None


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
    reason, served = _probe(endpoint or DEFAULT_ENDPOINT, 3.0)
    if reason is not None:
        return Choice("extractive", model, reason)
    return Choice("openai", pick_model(model, served))
