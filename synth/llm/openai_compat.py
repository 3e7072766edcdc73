"""OpenAI-compatible chat completions through the openai SDK (Ollama, llama.cpp, vLLM, gateways)."""

from __future__ import annotations

from typing import Callable

import openai

from synth.llm.model import MAX_RETRIES, ContextLengthError, LLMError, Message, is_context_length_message, one_line


def _error_text(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            return str(err.get("message") or err.get("code") or err)
        return str(err)
    return str(body or exc.message)


class OpenAICompatModel:
    provider = "openai"

    def __init__(self, endpoint: str, model: str, api_key: str | None, timeout: float = 600.0, max_retries: int = MAX_RETRIES) -> None:
        self.endpoint = endpoint.rstrip("/")
        self.model = model
        self.max_retries = max_retries
        self.last_usage: dict | None = None
        # Local servers need no key; the SDK insists on a non-empty one. The SDK retries with
        # exponential backoff (and honours Retry-After) on connection errors, 408, 409, 429 and 5xx.
        self._client = openai.OpenAI(
            base_url=self.endpoint, api_key=api_key or "not-needed", timeout=timeout, max_retries=max_retries
        )

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
        self.last_usage = None
        try:
            return self._answer(kwargs) if on_text is None else self._stream(kwargs, on_text)
        except openai.APIError as exc:
            raise self._error(exc) from exc

    def _answer(self, kwargs: dict) -> str:
        resp = self._client.chat.completions.create(**kwargs)
        if resp.usage is not None:
            self.last_usage = {"prompt_tokens": resp.usage.prompt_tokens, "completion_tokens": resp.usage.completion_tokens}
        if not resp.choices:
            raise LLMError(f"LLM endpoint {self.endpoint} returned no choices")
        return resp.choices[0].message.content or ""

    def _stream(self, kwargs: dict, on_text: Callable[[str], None]) -> str:
        parts: list[str] = []
        for chunk in self._client.chat.completions.create(stream=True, **kwargs):
            if getattr(chunk, "usage", None) is not None:
                self.last_usage = {"prompt_tokens": chunk.usage.prompt_tokens, "completion_tokens": chunk.usage.completion_tokens}
            if chunk.choices and chunk.choices[0].delta and chunk.choices[0].delta.content:
                parts.append(chunk.choices[0].delta.content)
                on_text(parts[-1])
        return "".join(parts)

    def _error(self, exc: openai.APIError) -> LLMError:
        """The SDK's error as one line naming the problem and the fix."""
        if isinstance(exc, openai.APIConnectionError):
            return LLMError(
                f"LLM endpoint {self.endpoint} unreachable after {self.max_retries} retries: start the server or pass --llm-endpoint"
            )
        if isinstance(exc, openai.NotFoundError):
            return LLMError(f"model {self.model!r} not found at {self.endpoint} (HTTP 404): pass --llm-model with a served model")
        if isinstance(exc, openai.AuthenticationError):
            return LLMError(f"LLM endpoint {self.endpoint} rejected the key (HTTP 401): check LLM_API_KEY")
        if isinstance(exc, openai.RateLimitError):
            return LLMError(f"LLM endpoint {self.endpoint} rate-limited the call (HTTP 429) after {self.max_retries} retries")
        status = exc.status_code if isinstance(exc, openai.APIStatusError) else None
        text = _error_text(exc) if isinstance(exc, openai.APIStatusError) else str(exc.message)  # else: an error event in a stream
        if (status is None or status in (400, 413, 422)) and is_context_length_message(text):
            return ContextLengthError(f"prompt exceeds the model's context window: {one_line(text, 120)}")
        if status is not None:
            return LLMError(f"LLM endpoint {self.endpoint} answered HTTP {status}: {one_line(text, 120)}")
        return LLMError(f"LLM endpoint {self.endpoint} failed: {one_line(text, 120)}")
