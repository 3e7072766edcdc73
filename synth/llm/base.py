"""Compatibility re-export: the seam lives in ``synth.llm.model``, the factory in ``synth.llm.registry``."""

from synth.llm.model import (  # noqa: F401
    MAX_RETRIES,
    ChatModel,
    ContextLengthError,
    LLMError,
    Message,
    MissingKeyError,
    is_context_length_message,
    one_line,
)
from synth.llm.registry import (  # noqa: F401
    DEFAULT_ANTHROPIC_MODEL,
    DEFAULT_ENDPOINT,
    DEFAULT_OPENAI_MODEL,
    HOSTED_OPENAI_HOSTS,
    PROVIDERS,
    Choice,
    check_provider,
    choose,
    is_hosted_openai_endpoint,
    is_local_endpoint,
    make_chat_model,
    pick_model,
    probe_openai_endpoint,
    resolve_auto,
    served_models,
)
