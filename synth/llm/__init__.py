"""One chat-model interface used by planning, synthesis, verification and revision.

Providers: ``openai`` (any OpenAI-compatible endpoint: Ollama, llama.cpp, vLLM,
gateways), ``anthropic`` (native Messages API) and ``extractive`` (no model).
"""

from synth.llm.base import ChatModel, LLMError, Message, make_chat_model, DEFAULT_ENDPOINT

__all__ = ["ChatModel", "LLMError", "Message", "make_chat_model", "DEFAULT_ENDPOINT"]
