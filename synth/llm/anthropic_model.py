"""Anthropic's native Messages API through the anthropic SDK."""

from __future__ import annotations

from typing import Any, Callable

import anthropic
import httpx2

from synth.llm.bounds import DEFAULT_TIMEOUT, CallBudget, LLMTimeout, bounded_http_client
from synth.llm.model import MAX_RETRIES, ContextLengthError, LLMError, Message, is_context_length_message, one_line

# Models that reject sampling parameters (temperature, top_p, top_k): never send them.
# (Opus 4.8 answers HTTP 400 to them; the seed's ARCHITECTURE notes the same.)
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
        budget = self.budget
        where = self.endpoint or "Anthropic API"
        try:
            if on_text is None:
                resp = self._client.messages.create(**kwargs)
                self._usage(resp)
                return budget.check_text("".join(b.text for b in resp.content if getattr(b, "type", "") == "text"))
            parts: list[str] = []
            size = 0
            with self._client.messages.stream(**kwargs) as stream:
                for text in stream.text_stream:
                    parts.append(text)
                    size += len(text)
                    if size > budget.max_chars:
                        budget.check_text("".join(parts))
                    on_text(text)
                self._usage(stream.get_final_message())
            return "".join(parts)
        except LLMError:
            raise
        except httpx2.TimeoutException as exc:  # the budget ran out while a stream was read
            raise LLMTimeout(budget.timed_out_message(where)) from exc
        except anthropic.APITimeoutError as exc:
            raise LLMTimeout(budget.timed_out_message(where)) from exc
        except anthropic.APIConnectionError as exc:
            if isinstance(exc.__cause__, LLMError):  # ReplyTooLarge, retried by the SDK
                raise exc.__cause__ from None
            if budget.expired:
                raise LLMTimeout(budget.timed_out_message(where)) from exc
            raise LLMError(f"Anthropic API unreachable after {self.max_retries} retries: check the network or --llm-endpoint") from exc
        except anthropic.NotFoundError as exc:
            raise LLMError(f"model {self.model!r} not found (HTTP 404): pass --llm-model with an available model") from exc
        except anthropic.AuthenticationError as exc:
            raise LLMError("Anthropic rejected the key (HTTP 401): check ANTHROPIC_API_KEY") from exc
        except anthropic.RateLimitError as exc:
            raise LLMError(f"Anthropic API rate-limited the call (HTTP 429) after {self.max_retries} retries") from exc
        except anthropic.APIStatusError as exc:
            text = _error_text(exc)
            if exc.status_code in (400, 413) and is_context_length_message(text):
                raise ContextLengthError(f"prompt exceeds the model's context window: {one_line(text, 120)}") from exc
            raise LLMError(f"Anthropic API answered HTTP {exc.status_code}: {one_line(text, 120)}") from exc

    def _usage(self, resp: Any) -> None:
        u = getattr(resp, "usage", None)
        if u is not None:
            self.last_usage = {"prompt_tokens": u.input_tokens, "completion_tokens": u.output_tokens}
