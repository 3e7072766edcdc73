"""One chat-model interface used by planning, synthesis, verification and revision.

Providers: ``openai`` (any OpenAI-compatible endpoint: Ollama, llama.cpp, vLLM,
gateways), ``anthropic`` (native Messages API), ``extractive`` (no model) and
``auto`` (openai when the endpoint answers, else extractive with a warning).
"""

from synth.llm.base import (
    DEFAULT_ENDPOINT,
    PROVIDERS,
    ChatModel,
    ContextLengthError,
    LLMError,
    Message,
    MissingKeyError,
    check_provider,
    make_chat_model,
    resolve_auto,
)

__all__ = [
    "ChatModel", "ContextLengthError", "LLMError", "Message", "MissingKeyError", "make_chat_model",
    "check_provider", "resolve_auto", "DEFAULT_ENDPOINT", "PROVIDERS",
]
