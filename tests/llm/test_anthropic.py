"""The Anthropic path, replayed from vcrpy cassettes (pytest-recording, record mode none).

The cassettes are hand-written — there is no network here — in the documented
Messages API response shape (plain JSON and the SSE event stream). A matcher
checks each request: native Messages API body, system prompt top-level, no
sampling parameters for claude-opus-4-8.
"""

import json

import pytest
from typer.testing import CliRunner

from skill3.cli.app import app
from synth.llm.anthropic_model import AnthropicModel
from tests.pipeline.corpus import EXAMPLE, parse_sources, write_jsonl


@pytest.fixture(scope="module")
def vcr_config():
    return {"match_on": ["method", "scheme", "host", "port", "path", "anthropic_body"], "filter_headers": ["x-api-key"]}


@pytest.fixture
def feed(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-SECRET")
    return write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE))


def synth(feed, *extra):
    r = CliRunner().invoke(app, ["synth", str(feed), "--llm-provider", "anthropic", *extra])
    return r.exit_code, r.stdout, r.stderr


@pytest.mark.vcr
def test_messages_api_non_streaming(feed, tmp_path):
    code, out, err = synth(feed, "--quiet")
    assert code == 0, err
    text = (tmp_path / "mcp" / "SKILL.md").read_text()
    assert "MCPServer" in text and "- [2]" in text and "- [3]" in text
    man = json.loads((tmp_path / "run.json").read_text())
    assert man["model"]["used"] == "anthropic" and man["model"]["model"] == "claude-opus-4-8"
    assert man["prompts"]["calls"][0]["prompt_tokens"] == 1834
    assert "SECRET" not in (tmp_path / "run.json").read_text() + out + err


@pytest.mark.vcr
def test_messages_api_streaming(feed, tmp_path):
    code, _, err = synth(feed)
    assert code == 0, err
    assert "stateless=True" in (tmp_path / "mcp" / "SKILL.md").read_text()
    assert json.loads((tmp_path / "run.json").read_text())["prompts"]["calls"][0]["completion_tokens"] == 312


@pytest.mark.vcr
def test_prompt_too_long_shrinks_and_retries(feed, tmp_path):
    code, _, err = synth(feed, "--quiet")
    assert code == 0, err
    assert "prompt is too long" in json.loads((tmp_path / "run.json").read_text())["bundle"]["shrunk_after_context_error"]["reason"]


@pytest.mark.vcr
def test_unknown_model_is_one_line(feed, tmp_path):
    code, _, err = synth(feed, "--quiet", "--llm-model", "claude-nonexistent")
    assert code == 1
    assert [l for l in err.splitlines() if "error:" in l] == ["skill3 synth: error: model 'claude-nonexistent' not found (HTTP 404): pass --llm-model with an available model"]


@pytest.mark.parametrize("model, sampled", [("claude-opus-4-8", False), ("claude-opus-4-8-20260101", False), ("claude-sonnet-4-6", True)])
def test_sampling_parameters_omitted_for_models_that_reject_them(model, sampled):
    kw = AnthropicModel(None, model, "k").request_kwargs(
        [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}], 100, 0.2)
    assert ("temperature" in kw.get("extra_body", {})) is sampled and "temperature" not in kw
    assert kw["system"] == "s" and kw["messages"] == [{"role": "user", "content": "u"}]
