"""OpenAI-compatible chat completions through the openai SDK."""

from __future__ import annotations

from typing import Callable

import openai

from synth.llm.base import LLMError, Message


class OpenAICompatModel:
    provider = "openai"

    def __init__(self, endpoint: str, model: str, api_key: str | None, timeout: float = 600.0):
        self.endpoint = endpoint.rstrip("/")
        self.model = model
        # Local servers need no key; the SDK insists on a non-empty one.
        self._client = openai.OpenAI(base_url=self.endpoint, api_key=api_key or "not-needed", timeout=timeout, max_retries=2)

    def complete(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 1024,
        temperature: float | None = None,
        on_text: Callable[[str], None] | None = None,
    ) -> str:
        kwargs: dict = {"model": self.model, "messages": messages, "max_tokens": max_tokens}
        if temperature is not None:
            kwargs["temperature"] = temperature
        try:
            if on_text is None:
                resp = self._client.chat.completions.create(**kwargs)
                return resp.choices[0].message.content or ""
            parts: list[str] = []
            for chunk in self._client.chat.completions.create(stream=True, **kwargs):
                if chunk.choices and chunk.choices[0].delta and chunk.choices[0].delta.content:
                    parts.append(chunk.choices[0].delta.content)
                    on_text(parts[-1])
            return "".join(parts)
        except openai.APIConnectionError as exc:
            raise LLMError(f"LLM endpoint {self.endpoint} unreachable: start the server or pass --llm-endpoint") from exc
        except openai.NotFoundError as exc:
            raise LLMError(f"model {self.model!r} not found at {self.endpoint}: pass --llm-model with a served model") from exc
        except openai.APIStatusError as exc:
            raise LLMError(f"LLM endpoint {self.endpoint} answered HTTP {exc.status_code}") from exc
