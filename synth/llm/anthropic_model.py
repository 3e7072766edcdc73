"""Anthropic's native Messages API through the anthropic SDK."""

from __future__ import annotations

from typing import Callable

import anthropic

from synth.llm.base import LLMError, Message

# Models that reject sampling parameters (temperature etc.): never send them.
_NO_SAMPLING_PREFIXES = ("claude-opus-4-8",)


class AnthropicModel:
    provider = "anthropic"

    def __init__(self, endpoint: str | None, model: str, api_key: str, timeout: float = 600.0):
        self.endpoint = endpoint
        self.model = model
        self._client = anthropic.Anthropic(api_key=api_key, base_url=endpoint or None, timeout=timeout, max_retries=2)

    def complete(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 1024,
        temperature: float | None = None,
        on_text: Callable[[str], None] | None = None,
    ) -> str:
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        chat = [m for m in messages if m["role"] != "system"]
        kwargs: dict = {"model": self.model, "messages": chat, "max_tokens": max_tokens}
        if system:
            kwargs["system"] = system
        if temperature is not None and not self.model.startswith(_NO_SAMPLING_PREFIXES):
            kwargs["temperature"] = temperature
        try:
            if on_text is None:
                resp = self._client.messages.create(**kwargs)
                return "".join(b.text for b in resp.content if getattr(b, "type", "") == "text")
            parts: list[str] = []
            with self._client.messages.stream(**kwargs) as stream:
                for text in stream.text_stream:
                    parts.append(text)
                    on_text(text)
            return "".join(parts)
        except anthropic.APIConnectionError as exc:
            raise LLMError("Anthropic API unreachable: check the network or --llm-endpoint") from exc
        except anthropic.NotFoundError as exc:
            raise LLMError(f"model {self.model!r} not found: pass --llm-model with an available model") from exc
        except anthropic.AuthenticationError as exc:
            raise LLMError("Anthropic rejected the key: check ANTHROPIC_API_KEY") from exc
        except anthropic.APIStatusError as exc:
            raise LLMError(f"Anthropic API answered HTTP {exc.status_code}") from exc
