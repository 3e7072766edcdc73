"""One chat-model interface used by planning, synthesis, verification and revision.

Providers: ``openai`` (any OpenAI-compatible endpoint: Ollama, llama.cpp, vLLM,
gateways), ``anthropic`` (native Messages API), ``extractive`` (no model) and
``auto`` (openai when the endpoint answers, else extractive with a warning).
"""

from synth.llm.model import ChatModel, ContextLengthError, LLMError, Message, MissingKeyError
from synth.llm.registry import DEFAULT_ENDPOINT, PROVIDERS, Choice, check_provider, choose, make_chat_model, resolve_auto

__all__ = [
    "ChatModel", "ContextLengthError", "LLMError", "Message", "MissingKeyError", "make_chat_model",
    "check_provider", "choose", "Choice", "resolve_auto", "DEFAULT_ENDPOINT", "PROVIDERS",
]
