"""Provider ``anthropic``: the native Messages API, through :class:`synth.llm.anthropic_model.AnthropicModel`
(``ANTHROPIC_API_KEY``)."""

from __future__ import annotations

import os

from synth.llm.bounds import CallBudget
from synth.llm.model import ChatModel, MissingKeyError
from synth.llm.provider import Capabilities, LLMProvider

DEFAULT_ANTHROPIC_MODEL = "claude-opus-4-8"


class AnthropicProvider(LLMProvider):
    name = "anthropic"
    order = 20
    capabilities = Capabilities(calls_model=True, condenses=True)

    def check(self, endpoint: str | None, api_key: str | None) -> None:
        if not (api_key or os.environ.get("ANTHROPIC_API_KEY")):
            raise MissingKeyError("llm_provider anthropic needs a key: set ANTHROPIC_API_KEY")

    def build(self, endpoint: str | None, model: str | None, api_key: str | None, max_retries: int,
              budget: CallBudget) -> ChatModel:
        from synth.llm.anthropic_model import AnthropicModel

        key = api_key or os.environ.get("ANTHROPIC_API_KEY") or ""
        return AnthropicModel(endpoint=endpoint, model=model or DEFAULT_ANTHROPIC_MODEL, api_key=key,
                              max_retries=max_retries, budget=budget)

    def problem(self, endpoint: str | None, api_key: str | None, timeout: float) -> str | None:
        """``GET /v1/models`` must be reachable and must not reject the key (401/403)."""
        import httpx2

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


PROVIDER = AnthropicProvider()
