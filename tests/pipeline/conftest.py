import json

import pytest


@pytest.fixture(autouse=True)
def _no_installed_scanner(tmp_path, monkeypatch):
    """Synthesis scans with SkillSpector when one is installed: keep these tests independent of the machine
    (no `skill3 setup` record, no SKILLSPECTOR_BIN). Tests that want a scanner put the fake one on PATH."""
    monkeypatch.setenv("SKILL3_HOME", str(tmp_path / "skill3-home"))
    monkeypatch.delenv("SKILLSPECTOR_BIN", raising=False)



def _anthropic_body(r1, r2):
    """vcrpy matcher: the request really is a native Messages API call without sampling parameters for Opus 4.8
    (a GET is the endpoint check, ``/v1/models``: no body)."""
    if r1.method == "GET":
        return
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
