"""The chat-model seam and the provider factory."""

from __future__ import annotations

import os
from typing import Callable, Protocol, TypedDict

DEFAULT_ENDPOINT = "http://localhost:11434/v1"
DEFAULT_OPENAI_MODEL = "qwen2.5-coder"
DEFAULT_ANTHROPIC_MODEL = "claude-opus-4-8"
PROVIDERS = ("openai", "anthropic", "extractive")


class Message(TypedDict):
    role: str  # "system" | "user" | "assistant"
    content: str


class LLMError(RuntimeError):
    """A model call failed; the message is one line naming the problem and the fix."""


class ChatModel(Protocol):
    provider: str
    model: str

    def complete(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 1024,
        temperature: float | None = None,
        on_text: Callable[[str], None] | None = None,
    ) -> str:
        """Return the assistant's reply. ``on_text`` receives streamed chunks when given."""
        ...


def make_chat_model(
    provider: str = "openai",
    endpoint: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    timeout: float = 600.0,
) -> ChatModel | None:
    """Build the provider's model; ``extractive`` returns None (no model is called).

    Keys come from flags or the environment only (``LLM_API_KEY``, ``ANTHROPIC_API_KEY``)
    and are never logged. A hosted provider without a key fails here, before any call.
    """
    if provider == "extractive":
        return None
    if provider == "openai":
        from synth.llm.openai_compat import OpenAICompatModel

        return OpenAICompatModel(
            endpoint=endpoint or DEFAULT_ENDPOINT,
            model=model or DEFAULT_OPENAI_MODEL,
            api_key=api_key or os.environ.get("LLM_API_KEY"),
            timeout=timeout,
        )
    if provider == "anthropic":
        from synth.llm.anthropic_model import AnthropicModel

        key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise LLMError("llm_provider anthropic needs a key: set ANTHROPIC_API_KEY (or pass --llm-api-key)")
        return AnthropicModel(endpoint=endpoint, model=model or DEFAULT_ANTHROPIC_MODEL, api_key=key, timeout=timeout)
    raise LLMError(f"unknown llm_provider {provider!r}: use one of {', '.join(PROVIDERS)}")
