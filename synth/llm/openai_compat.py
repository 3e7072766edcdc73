"""OpenAI-compatible chat completions through the openai SDK (Ollama, llama.cpp, vLLM, gateways)."""

from __future__ import annotations

from typing import Callable

import httpx2
import openai

from synth.llm.bounds import DEFAULT_TIMEOUT, CallBudget, LLMTimeout, bounded_http_client
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

    def __init__(self, endpoint: str, model: str, api_key: str | None, timeout: float = DEFAULT_TIMEOUT,
                 max_retries: int = MAX_RETRIES, budget: CallBudget | None = None) -> None:
        self.endpoint = endpoint.rstrip("/")
        self.model = model
        self.max_retries = max_retries
        self.last_usage: dict | None = None
        self.budget = budget or CallBudget(timeout)
        # Local servers need no key; the SDK insists on a non-empty one. The SDK retries with
        # exponential backoff (and honours Retry-After) on connection errors, 408, 409, 429 and 5xx;
        # every attempt gets only what is left of the call's budget (synth.llm.bounds).
        self._client = openai.OpenAI(
            base_url=self.endpoint, api_key=api_key or "not-needed", timeout=self.budget.timeout, max_retries=max_retries,
            http_client=bounded_http_client(openai.DefaultHttpxClient, self.budget, self.budget.timeout),
        )

    def complete(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 1024,
        temperature: float | None = None,
        on_text: Callable[[str], None] | None = None,
    ) -> str:
        self.budget.start(max_tokens)
        try:
            return self._complete(messages, max_tokens, temperature, on_text)
        finally:
            self.budget.finish()

    def _complete(self, messages: list[Message], max_tokens: int, temperature: float | None,
                  on_text: Callable[[str], None] | None) -> str:
        kwargs: dict = {"model": self.model, "messages": messages, "max_tokens": max_tokens}
        if temperature is not None:
            kwargs["temperature"] = temperature
        self.last_usage = None
        try:
            return self._answer(kwargs) if on_text is None else self._stream(kwargs, on_text)
        except LLMError:
            raise
        except (httpx2.TimeoutException, openai.APITimeoutError) as exc:  # the budget ran out (also inside a stream)
            raise LLMTimeout(self.budget.timed_out_message(self.endpoint)) from exc
        except openai.APIError as exc:
            raise self._error(exc) from exc

    def _answer(self, kwargs: dict) -> str:
        resp = self._client.chat.completions.create(**kwargs)
        if resp.usage is not None:
            self.last_usage = {"prompt_tokens": resp.usage.prompt_tokens, "completion_tokens": resp.usage.completion_tokens}
        if not resp.choices:
            raise LLMError(f"LLM endpoint {self.endpoint} returned no choices")
        return self.budget.check_text(resp.choices[0].message.content or "")

    def _stream(self, kwargs: dict, on_text: Callable[[str], None]) -> str:
        parts: list[str] = []
        size = 0
        for chunk in self._client.chat.completions.create(stream=True, **kwargs):
            if getattr(chunk, "usage", None) is not None:
                self.last_usage = {"prompt_tokens": chunk.usage.prompt_tokens, "completion_tokens": chunk.usage.completion_tokens}
            if chunk.choices and chunk.choices[0].delta and chunk.choices[0].delta.content:
                parts.append(chunk.choices[0].delta.content)
                size += len(parts[-1])
                if size > self.budget.max_chars:
                    self.budget.check_text("".join(parts))
                on_text(parts[-1])
        return "".join(parts)

    def _error(self, exc: openai.APIError) -> LLMError:
        """The SDK's error as one line naming the problem and the fix."""
        if isinstance(exc, openai.APIConnectionError):
            if isinstance(exc.__cause__, LLMError):  # ReplyTooLarge, retried by the SDK
                return exc.__cause__
            if self.budget.expired:
                return LLMTimeout(self.budget.timed_out_message(self.endpoint))
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
