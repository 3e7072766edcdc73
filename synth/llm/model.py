"""The chat-model seam: messages, the ``ChatModel`` protocol every provider implements, and its errors.

Providers (``openai_compat``, ``anthropic_model``) import from here only; choosing
and building a provider is ``synth.llm.registry``.
"""

from __future__ import annotations

import re
from typing import Callable, Protocol, TypedDict

from synth.core.errors import ContextLengthError, ExitCode, LLMError, MissingKeyError, Skill3Error, UnknownProviderError  # noqa: F401 - defined with every error (synth.core.errors)

MAX_RETRIES = 3  # the SDKs back off exponentially (honouring Retry-After) on connection errors, 408/409/429 and 5xx


class Message(TypedDict):
    role: str  # "system" | "user" | "assistant"
    content: str


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


_CONTEXT_PATTERNS = re.compile(
    r"context[ _-]?length|context window|maximum context|too many tokens|prompt is too long|"
    r"exceed(?:s|ed)? (?:the )?(?:context|max(?:imum)? (?:number of )?tokens)|n_ctx|input is too long|"
    r"reduce the length",
    re.I,
)


def is_context_length_message(text: str) -> bool:
    return bool(_CONTEXT_PATTERNS.search(text or ""))


def one_line(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
