"""Bounds on a model call: its time, all retries included, and the size of its reply.

The SDKs retry connection errors, timeouts, 429 and 5xx on their own, each attempt with the
client's timeout: a server that never answers held a run for ``timeout × (1 + retries)``. Here one
:class:`CallBudget` per model gives each call (:meth:`CallBudget.start`) a deadline; the HTTP
client both SDKs send through (:func:`bounded_http_client`) gives every attempt only the time
left before it (connect at most :data:`CONNECT_TIMEOUT`), refuses a new attempt once it is past,
and stops reading a body at the deadline or past ``max_bytes``. The text of a reply is capped too
(:meth:`CallBudget.check_text`): a server that ignores ``max_tokens`` cannot hand synthesis a 10 MB
draft. A run's calls share one total budget.
"""

from __future__ import annotations

import os
import time
from typing import Any, Iterator

import httpx2

from synth.core import default_settings
from synth.core.errors import LLMTimeout, ReplyTooLarge  # noqa: F401 - defined with every error (synth.core.errors)

DEFAULT_TIMEOUT = default_settings.SKILL3_LLM_TIMEOUT  # seconds one model call may take, retries included (--llm-timeout, SKILL3_LLM_TIMEOUT)
DEFAULT_TOTAL_TIMEOUT = default_settings.SKILL3_LLM_TOTAL_TIMEOUT  # seconds all model calls of one run may take together (SKILL3_LLM_TOTAL_TIMEOUT)
MAX_TIMEOUT = 86_400.0
CONNECT_TIMEOUT = 10.0
# A reply may be at most this many characters per token asked for (a token is ~4 characters), and at
# least MIN_REPLY_CHARS; on the wire (SSE framing is ~10-50x the text) WIRE_BYTES_PER_CHAR times that.
CHARS_PER_TOKEN_CAP = 16
MIN_REPLY_CHARS = 65_536
WIRE_BYTES_PER_CHAR = 64


def timeout_value(value: Any, name: str = "--llm-timeout") -> float:
    """A timeout in seconds from an option, a setting or the environment: ``ValueError`` (one line) when it is
    not a number of seconds between 1 and a day."""
    try:
        seconds = float(str(value).strip())
    except ValueError:
        raise ValueError(f"{name} must be a number of seconds, got {value!r}") from None
    if not 1 <= seconds <= MAX_TIMEOUT:  # also rejects nan and inf
        raise ValueError(f"{name} must be between 1 and {int(MAX_TIMEOUT)} seconds, got {value!r}")
    return seconds


def configured_timeout(value: Any = None) -> float:
    """``value`` (the option) when given, else ``SKILL3_LLM_TIMEOUT``, else :data:`DEFAULT_TIMEOUT`."""
    if value is None or str(value).strip() == "":
        env = os.environ.get("SKILL3_LLM_TIMEOUT", "").strip()
        return timeout_value(env, "SKILL3_LLM_TIMEOUT") if env else DEFAULT_TIMEOUT
    return timeout_value(value)


def configured_total_timeout() -> float:
    env = os.environ.get("SKILL3_LLM_TOTAL_TIMEOUT", "").strip()
    return timeout_value(env, "SKILL3_LLM_TOTAL_TIMEOUT") if env else DEFAULT_TOTAL_TIMEOUT


def max_reply_chars(max_tokens: int) -> int:
    return max(MIN_REPLY_CHARS, CHARS_PER_TOKEN_CAP * max(1, int(max_tokens)))


class CallBudget:
    """The time and size limits of one model's calls. Not thread-safe: one call at a time."""

    def __init__(self, timeout: float = DEFAULT_TIMEOUT, total: float | None = None, *, clock: Any = time.monotonic) -> None:
        self.timeout = float(timeout)
        self.total = None if total is None else float(total)
        self.clock = clock
        self.used = 0.0  # seconds spent in calls so far
        self.deadline: float | None = None
        self.started: float | None = None
        self.max_chars = MIN_REPLY_CHARS
        self.max_bytes = MIN_REPLY_CHARS * WIRE_BYTES_PER_CHAR
        self.overflow: str | None = None  # why the current call's reply was refused
        self.expired = False  # the current call hit its deadline

    def start(self, max_tokens: int) -> None:
        """A call begins: its deadline and its caps. Raises :class:`LLMTimeout` when the run's budget is spent."""
        left = self.timeout
        if self.total is not None:
            left = min(left, self.total - self.used)
            if left <= 0:
                raise LLMTimeout(f"the model calls of this run took their whole budget of {self.total:g} s "
                                 "(SKILL3_LLM_TOTAL_TIMEOUT); no further call was made")
        self.started = self.clock()
        self.deadline = self.started + left
        self.max_chars = max_reply_chars(max_tokens)
        self.max_bytes = self.max_chars * WIRE_BYTES_PER_CHAR
        self.overflow = None
        self.expired = False

    def finish(self) -> None:
        if self.started is not None:
            self.used += max(0.0, self.clock() - self.started)
        self.started = self.deadline = None

    def remaining(self) -> float:
        return float("inf") if self.deadline is None else self.deadline - self.clock()

    def timed_out_message(self, endpoint: str) -> str:
        spent = self.timeout if self.total is None else min(self.timeout, max(0.0, self.total - self.used))
        return (f"LLM endpoint {endpoint} did not answer within {spent:g} s, retries included "
                "(--llm-timeout, SKILL3_LLM_TIMEOUT)")

    def check_text(self, text: str) -> str:
        """``text`` when within the cap, else :class:`ReplyTooLarge`."""
        if len(text) > self.max_chars:
            raise ReplyTooLarge(self.too_large_message(f"more than {self.max_chars:,} characters"))
        return text

    def too_large_message(self, what: str) -> str:
        return (f"the model's reply was {what} (the cap for this call; it ignores max_tokens): refused, "
                "nothing of it is used")


class _CappedStream(httpx2.SyncByteStream):
    """A response body read until the call's deadline or ``max_bytes``, whichever comes first."""

    def __init__(self, inner: Any, budget: CallBudget) -> None:
        self.inner = inner
        self.budget = budget

    def __iter__(self) -> Iterator[bytes]:
        seen = 0
        for chunk in self.inner:
            seen += len(chunk)
            if seen > self.budget.max_bytes:
                self.budget.overflow = f"more than {self.budget.max_bytes:,} bytes"
                raise ReplyTooLarge(self.budget.too_large_message(self.budget.overflow))
            if self.budget.remaining() <= 0:
                self.budget.expired = True
                raise httpx2.ReadTimeout("the call's time budget ran out while the reply was read")
            yield chunk

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if close is not None:
            close()


def _bounded_send(budget: CallBudget, send: Any, request: httpx2.Request, **kwargs: Any) -> httpx2.Response:
    """One attempt: only the time left of its call (connect at most CONNECT_TIMEOUT), none after the
    deadline, the body capped."""
    if budget.overflow:  # the SDK retries what it could not read: never fetch an oversized reply twice
        raise ReplyTooLarge(budget.too_large_message(budget.overflow))
    left = budget.remaining()
    if left <= 0:
        budget.expired = True
        raise httpx2.ConnectTimeout("the call's time budget ran out before this attempt", request=request)
    given = dict(request.extensions.get("timeout") or {})
    bounded = {k: min(left, given[k]) if isinstance(given.get(k), (int, float)) else left
               for k in ("connect", "read", "write", "pool")}
    bounded["connect"] = min(bounded["connect"], CONNECT_TIMEOUT)
    request.extensions = {**request.extensions, "timeout": bounded}
    stream = kwargs.pop("stream", False)
    response = send(request, stream=True, **kwargs)
    response.stream = _CappedStream(response.stream, budget)
    if not stream:
        try:
            response.read()
        except BaseException:
            response.close()
            raise
    return response


def bounded_http_client(client_class: type, budget: CallBudget, timeout: float) -> Any:
    """An instance of the SDK's own default client class (its limits, redirects and proxies) whose every
    request goes through :func:`_bounded_send`."""

    class Bounded(client_class):
        def send(self, request: httpx2.Request, **kwargs: Any) -> httpx2.Response:
            return _bounded_send(budget, super().send, request, **kwargs)

        def __del__(self) -> None:  # as the SDKs' own wrapper does: no pooled socket outlives the model
            try:
                if not self.is_closed:
                    self.close()
            except Exception:
                pass

    return Bounded(timeout=timeout)
