"""Anthropic's native Messages API through the anthropic SDK."""

from __future__ import annotations

from typing import Any, Callable

import anthropic
import httpx2

from synth.llm.bounds import DEFAULT_TIMEOUT, CallBudget, LLMTimeout, bounded_http_client
from synth.llm.model import MAX_RETRIES, ContextLengthError, LLMError, Message, is_context_length_message, one_line

# Models that reject sampling parameters (temperature, top_p, top_k): never send them.
# (Opus 4.8 answers HTTP 400 to them.)
NO_SAMPLING_PREFIXES = ("claude-opus-4-8",)


def _error_text(exc: anthropic.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        err = body.get("error", body)
        return str(err.get("message") if isinstance(err, dict) else err)
    return str(body or exc.message)


class AnthropicModel:
    provider = "anthropic"

    def __init__(self, endpoint: str | None, model: str, api_key: str, timeout: float = DEFAULT_TIMEOUT,
                 max_retries: int = MAX_RETRIES, budget: CallBudget | None = None) -> None:
        self.endpoint = endpoint
        self.model = model
        self.max_retries = max_retries
        self.last_usage: dict | None = None
        self.budget = budget or CallBudget(timeout)
        self._client = anthropic.Anthropic(
            api_key=api_key, base_url=endpoint or None, timeout=self.budget.timeout, max_retries=max_retries,
            http_client=bounded_http_client(anthropic.DefaultHttpxClient, self.budget, self.budget.timeout),
        )

    def request_kwargs(self, messages: list[Message], max_tokens: int, temperature: float | None) -> dict:
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        chat = [{"role": m["role"], "content": m["content"]} for m in messages if m["role"] != "system"]
        kwargs: dict = {"model": self.model, "messages": chat, "max_tokens": max_tokens}
        if system:
            kwargs["system"] = system
        if temperature is not None and not self.model.startswith(NO_SAMPLING_PREFIXES):
            # anthropic SDK 2.x has no sampling arguments; models that still accept them get them in the body
            kwargs["extra_body"] = {"temperature": temperature}
        return kwargs

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
        kwargs = self.request_kwargs(messages, max_tokens, temperature)
        self.last_usage = None
        where = self.endpoint or "Anthropic API"
        try:
            return self._answer(kwargs) if on_text is None else self._stream(kwargs, on_text)
        except LLMError:
            raise
        except (httpx2.TimeoutException, anthropic.APITimeoutError) as exc:  # the budget ran out (also inside a stream)
            raise LLMTimeout(self.budget.timed_out_message(where)) from exc
        except anthropic.APIError as exc:
            raise self._error(exc, where) from exc

    def _answer(self, kwargs: dict) -> str:
        resp = self._client.messages.create(**kwargs)
        self._usage(resp)
        return self.budget.check_text("".join(b.text for b in resp.content if getattr(b, "type", "") == "text"))

    def _stream(self, kwargs: dict, on_text: Callable[[str], None]) -> str:
        parts: list[str] = []
        size = 0
        with self._client.messages.stream(**kwargs) as stream:
            for text in stream.text_stream:
                parts.append(text)
                size += len(text)
                if size > self.budget.max_chars:
                    self.budget.check_text("".join(parts))
                on_text(text)
            self._usage(stream.get_final_message())
        return "".join(parts)

    def _error(self, exc: anthropic.APIError, where: str) -> LLMError:
        """The SDK's error as one line naming the problem and the fix."""
        if isinstance(exc, anthropic.APIConnectionError):
            if isinstance(exc.__cause__, LLMError):  # ReplyTooLarge, retried by the SDK
                return exc.__cause__
            if self.budget.expired:
                return LLMTimeout(self.budget.timed_out_message(where))
            return LLMError(f"Anthropic API unreachable after {self.max_retries} retries: check the network or --llm-endpoint")
        if isinstance(exc, anthropic.NotFoundError):
            return LLMError(f"model {self.model!r} not found (HTTP 404): pass --llm-model with an available model")
        if isinstance(exc, anthropic.AuthenticationError):
            return LLMError("Anthropic rejected the key (HTTP 401): check ANTHROPIC_API_KEY")
        if isinstance(exc, anthropic.RateLimitError):
            return LLMError(f"Anthropic API rate-limited the call (HTTP 429) after {self.max_retries} retries")
        if isinstance(exc, anthropic.APIStatusError):
            text = _error_text(exc)
            if exc.status_code in (400, 413) and is_context_length_message(text):
                return ContextLengthError(f"prompt exceeds the model's context window: {one_line(text, 120)}")
            return LLMError(f"Anthropic API answered HTTP {exc.status_code}: {one_line(text, 120)}")
        return LLMError(f"Anthropic API failed: {one_line(str(exc), 120)}")

    def _usage(self, resp: Any) -> None:
        u = getattr(resp, "usage", None)
        if u is not None:
            self.last_usage = {"prompt_tokens": u.input_tokens, "completion_tokens": u.output_tokens}
