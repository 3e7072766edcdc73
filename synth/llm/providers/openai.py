"""Provider ``openai``: any OpenAI-compatible endpoint (Ollama, llama.cpp, vLLM, gateways), through
:class:`synth.llm.openai_compat.OpenAICompatModel`; its endpoint is probed with ``GET /models`` (also how ``auto``
decides, :func:`synth.llm.registry.choose`)."""

from __future__ import annotations

import ipaddress
import os
from urllib.parse import urlsplit

from synth.evidence.urls import host_of
from synth.llm.bounds import CallBudget
from synth.llm.model import ChatModel, MissingKeyError
from synth.llm.provider import Capabilities, LLMProvider

DEFAULT_ENDPOINT = "http://localhost:11434/v1"
DEFAULT_OPENAI_MODEL = "qwen2.5-coder"

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


def probe_openai_endpoint(endpoint: str, timeout: float = 3.0) -> str | None:
    """None when an OpenAI-compatible server answers ``GET /models`` with a 2xx JSON model list
    (``{"data": [...]}``); else a one-line reason. A 403 from a proxy, a login page or any other
    answer is not a model server."""
    return probe(endpoint, timeout)[0]


def served_models(endpoint: str, timeout: float = 3.0) -> list[str]:
    """Model ids an OpenAI-compatible server lists at ``GET /models`` ([] when it does not answer)."""
    return probe(endpoint, timeout)[1]


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


def probe(endpoint: str, timeout: float) -> tuple[str | None, list[str]]:
    """(None, the served model ids) when the endpoint answers ``GET /models`` with a model list, else (the reason, [])."""
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


class OpenAIProvider(LLMProvider):
    name = "openai"
    order = 10
    capabilities = Capabilities(calls_model=True, condenses=True)

    def check(self, endpoint: str | None, api_key: str | None) -> None:
        if endpoint and is_hosted_openai_endpoint(endpoint) and not (api_key or os.environ.get("LLM_API_KEY")):
            raise MissingKeyError(f"the hosted endpoint {urlsplit(endpoint).hostname} needs a key: set LLM_API_KEY")

    def build(self, endpoint: str | None, model: str | None, api_key: str | None, max_retries: int,
              budget: CallBudget) -> ChatModel:
        from synth.llm.openai_compat import OpenAICompatModel

        return OpenAICompatModel(endpoint=endpoint or DEFAULT_ENDPOINT, model=model or DEFAULT_OPENAI_MODEL,
                                 api_key=api_key or os.environ.get("LLM_API_KEY"), max_retries=max_retries, budget=budget)

    def problem(self, endpoint: str | None, api_key: str | None, timeout: float) -> str | None:
        reason = probe_openai_endpoint(endpoint or DEFAULT_ENDPOINT, timeout)
        if reason is None:
            return None
        return (f"llm_provider openai: {reason}; start the model server, pass the right --llm-endpoint, "
                "or --llm-provider auto / extractive")


PROVIDER = OpenAIProvider()
