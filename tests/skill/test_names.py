"""The topic as a title (``display_topic``): capitals the topic spells are kept; a lowercase word is put in capitals
only when it cannot be a word (no vowel, y counted as one), so short words are not mangled."""

from __future__ import annotations

import pytest

from synth.skill.names import display_topic


@pytest.mark.parametrize(
    "topic, title",
    [
        ("mcp", "MCP"),  # no vowel: an acronym
        ("grpc", "GRPC"),
        ("llm", "LLM"),
        ("k8s", "K8S"),
        ("http2", "HTTP2"),
        ("glib", "Glib"),  # a word of four letters or fewer is a word, not an acronym
        ("node", "Node"),
        ("vue", "Vue"),
        ("deno", "Deno"),
        ("json", "Json"),  # a vowel: spell it JSON to have it in capitals
        ("why", "Why"),  # y is a vowel here
        ("tidewire", "Tidewire"),
        ("mcp server", "MCP server"),  # word by word
        ("css-grid", "CSS-grid"),
        ("café mcp", "Café MCP"),
        ("łódź", "Łódź"),
        ("JSON", "JSON"),  # capitals the topic spells: kept as written
        ("FastAPI", "FastAPI"),
        ("mcp Server", "mcp Server"),
        ("  model   context ", "Model context"),
        ("", "Skill"),
        ("x", "X"),
    ],
)
def test_display_topic(topic: str, title: str) -> None:
    assert display_topic(topic) == title
