"""Query planning: robust parsing of model replies, fallback to the fixed plan (release notes, changelog …)."""

from datetime import date

import pytest

from synth.llm.model import LLMError
from synth.llm.planner import parse_queries, plan, plan_queries, planning_messages

TODAY = date(2026, 11, 29)


@pytest.mark.parametrize(
    "reply, queries",
    [
        ('["mcp 2026 release", "mcp oauth changes"]', ["mcp 2026 release", "mcp oauth changes"]),
        ('```json\n["a query", "b query"]\n```', ["a query", "b query"]),
        ('Sure! Here are the queries:\n```\n["x y", "z"]\n```\nHope it helps.', ["x y", "z"]),
        ('{"queries": ["q one", "q two"]}', ["q one", "q two"]),
        ('[{"query": "obj q"}, "plain q"]', ["obj q", "plain q"]),
        ("Here are some queries:\n1. mcp spec 2026\n2) mcp streamable http\n3: mcp registry", ["mcp spec 2026", "mcp streamable http", "mcp registry"]),
        ('- "mcp tools"\n* **mcp auth**\n• mcp sampling', ["mcp tools", "mcp auth", "mcp sampling"]),
        ("mcp one\nMCP ONE\nmcp two\n", ["mcp one", "mcp two"]),
        ('["a","b","c","d","e","f","g","h"]', ["a", "b", "c", "d", "e", "f"]),
        ('["", "  ", "ok"]', ["ok"]),
        ("", []),
        ("   \n  ", []),
        ("!!! ??? ...", []),
        ("x" * 300, []),
        (None, []),
    ],
)
def test_parse_queries(reply, queries):
    assert parse_queries(reply) == queries


class FakeModel:
    provider = "fake"
    model = "fake"

    def __init__(self, reply=None, error=None):
        self.reply, self.error, self.calls = reply, error, []

    def complete(self, messages, *, max_tokens=1024, temperature=None, on_text=None):
        self.calls.append(messages)
        if self.error:
            raise self.error
        return self.reply


def test_plan_uses_the_model_and_names_cutoff_and_today():
    m = FakeModel('["mcp 2026 changes"]')
    assert plan_queries(m, "mcp", "2026-01", TODAY) == ["mcp 2026 changes"]
    prompt = m.calls[0][-1]["content"]
    assert "2026-01" in prompt and "2026-11-29" in prompt and "mcp" in prompt


@pytest.mark.parametrize(
    "model, status",
    [
        (FakeModel(error=LLMError("LLM endpoint http://x unreachable")), "fallback"),
        (FakeModel("I cannot help with that!!!"), "planned"),
        (FakeModel("..."), "fallback"),
        (None, "skipped"),
    ],
)
def test_plan_falls_back_to_the_fixed_plan(model, status, caplog):
    p = plan(model, "mcp", "2026-01", TODAY)
    assert p.status == status
    if status != "planned":
        assert p.queries == ["mcp", "mcp release notes", "mcp changelog", "mcp migration guide", "mcp what's new",
                             "mcp deprecations"]
    if status == "fallback":
        assert "fixed plan" in caplog.text


@pytest.mark.parametrize("topic, versions, expected", [
    ("httpx", [], ["httpx", "httpx release notes", "httpx changelog", "httpx migration guide", "httpx what's new",
                   "httpx deprecations"]),
    ("  React   Native ", ["0.80", "0.79", "0.78"], ["React Native", "React Native 0.80 release notes",
                                                    "React Native 0.79 release notes", "React Native release notes",
                                                    "React Native changelog", "React Native migration guide",
                                                    "React Native what's new", "React Native deprecations"]),
])
def test_the_fixed_plan_names_where_changes_are_published(topic, versions, expected):
    from synth.llm.planner import deterministic_queries

    assert deterministic_queries(topic, versions) == expected
    assert plan(None, topic, "2026-01", TODAY, versions=versions).queries == expected


def test_planning_messages_ask_for_json():
    msgs = planning_messages("jdk26", "2025-08", TODAY, 6)
    assert msgs[0]["role"] == "system" and "JSON array" in msgs[0]["content"]
