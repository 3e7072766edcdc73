import json


def _anthropic_body(r1, r2):
    """vcrpy matcher: the request really is a native Messages API call without sampling parameters for Opus 4.8."""
    body = json.loads(r1.body or b"{}")
    assert body.get("model"), "no model"
    assert isinstance(body.get("system"), str) and "untrusted data" in body["system"], "system prompt not top-level"
    assert {m["role"] for m in body["messages"]} <= {"user", "assistant"}, "system role inside messages"
    assert isinstance(body.get("max_tokens"), int)
    if body["model"].startswith("claude-opus-4-8"):
        for key in ("temperature", "top_p", "top_k"):
            assert key not in body, f"{key} sent to a model that rejects it"


def pytest_recording_configure(config, vcr):
    vcr.register_matcher("anthropic_body", _anthropic_body)
