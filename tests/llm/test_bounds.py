"""Model calls are bounded: in time (``--llm-timeout``, retries included; a run's total), and in the size of
the reply. Against the real loopback OpenAI-compatible stub, streaming and not."""

from __future__ import annotations

import json
import threading
import time

import pytest
from typer.testing import CliRunner

from skill3.cli.app import app
from synth.llm.bounds import DEFAULT_TIMEOUT, CallBudget, LLMTimeout, configured_timeout, max_reply_chars
from synth.llm.registry import make_chat_model
from tests.mockserver import StubLLM
from tests.pipeline.corpus import EXAMPLE, parse_sources, write_jsonl

from .test_openai_e2e import skill_reply


@pytest.fixture
def feed(tmp_path):
    return write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE))


def synth(feed, stub, *extra):
    r = CliRunner().invoke(app, ["synth", str(feed), "--llm-provider", "openai", "--llm-endpoint", stub.url,
                                 "--llm-model", "stub-model", *extra])
    return r.exit_code, r.stdout, r.stderr


def errors(err: str) -> list[str]:
    return [l for l in err.splitlines() if "error:" in l]


@pytest.mark.parametrize("quiet", [True, False], ids=["plain", "streaming"])
def test_a_model_that_never_answers_is_given_up_after_llm_timeout(feed, tmp_path, quiet):
    release = threading.Event()

    def hang(body: dict) -> str:
        release.wait(120)  # holds the connection open, never answers in time
        return "too late"

    with StubLLM(default=hang) as stub:
        t0 = time.monotonic()
        code, _, err = synth(feed, stub, "--llm-timeout", "2", *(["--quiet"] if quiet else []))
        took = time.monotonic() - t0
        release.set()
        tries = len(stub.chat_requests())
    assert code == 1, err
    (line,) = errors(err)
    assert "did not answer within 2 s, retries included (--llm-timeout" in line and "Traceback" not in err
    # 2 s for the call and its retries (each retry is refused at once once the budget is spent), plus the SDK's
    # backoff sleeps (< 4 s) and the run's own work; before: 600 s per attempt, 4 attempts
    assert took < 25, took
    assert tries >= 1
    assert not (tmp_path / "mcp").exists() and not (tmp_path / "run.json").exists()


@pytest.mark.parametrize("quiet", [True, False], ids=["plain", "streaming"])
def test_a_10_mb_reply_is_refused_not_written(feed, tmp_path, quiet):
    huge = skill_reply({"messages": [{"content": ""}]}) + "\n" + ("All work and no play makes a dull skill. " * 250_000)  # ~10 MB
    assert len(huge) > 10_000_000
    with StubLLM(default=huge) as stub:
        code, _, err = synth(feed, stub, *(["--quiet"] if quiet else []))
        tries = len(stub.chat_requests())
    assert code == 1, err
    (line,) = errors(err)
    assert "the model's reply was more than" in line and "refused, nothing of it is used" in line
    assert tries == 1  # an oversized reply is never fetched again by the SDK's retries
    assert not (tmp_path / "mcp").exists() and not (tmp_path / "run.json").exists()


def test_a_reply_within_the_cap_is_used(feed, tmp_path):
    with StubLLM(default=skill_reply) as stub:
        code, _, err = synth(feed, stub, "--llm-timeout", "30")
    assert code == 0, err
    assert (tmp_path / "mcp" / "SKILL.md").is_file()


def test_the_default_timeout_and_the_setting(monkeypatch):
    monkeypatch.delenv("SKILL3_LLM_TIMEOUT", raising=False)
    assert configured_timeout() == DEFAULT_TIMEOUT == 300
    monkeypatch.setenv("SKILL3_LLM_TIMEOUT", "45")
    assert configured_timeout() == 45 and configured_timeout(7) == 7
    model = make_chat_model("openai", "http://127.0.0.1:9/v1", "m", timeout=12)
    assert model.budget.timeout == 12 and model._client.timeout == 12  # each attempt at most the call's budget
    for bad in ("0", "-1", "nan", "inf", "soon", "1e9"):
        with pytest.raises(ValueError, match="--llm-timeout must be"):
            configured_timeout(bad)


def test_a_bad_setting_is_a_usage_error(feed, monkeypatch):
    monkeypatch.setenv("SKILL3_LLM_TIMEOUT", "forever")
    r = CliRunner().invoke(app, ["synth", str(feed), "--llm-provider", "extractive", "--quiet"])
    assert r.exit_code == 2 and errors(r.stderr) == ["skill3 synth: error: SKILL3_LLM_TIMEOUT must be a number of seconds, got 'forever'"]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_total_budget_of_a_run():
    clock = Clock()
    budget = CallBudget(100, total=150, clock=clock)
    budget.start(1024)
    assert budget.remaining() == 100
    clock.now = 90
    budget.finish()
    budget.start(1024)
    assert budget.remaining() == 60  # what the run has left, not the per-call 100
    clock.now = 150
    budget.finish()
    with pytest.raises(LLMTimeout, match="whole budget of 150 s"):
        budget.start(1024)


@pytest.mark.parametrize("max_tokens, cap", [(1, 65_536), (2048, 65_536), (8192, 131_072)])
def test_the_reply_cap_follows_max_tokens(max_tokens, cap):
    assert max_reply_chars(max_tokens) == cap
    budget = CallBudget(10)
    budget.start(max_tokens)
    assert budget.check_text("x" * cap) == "x" * cap
    with pytest.raises(Exception, match="more than"):
        budget.check_text("x" * (cap + 1))


def test_llm_timeout_reaches_synthesis_from_the_spider_arguments():
    from skill3crawl.args import parse_args

    args = parse_args({"topic": "mcp", "llm_timeout": "42", "synth": "0"})
    assert args.synth_options().llm_timeout == 42
    assert json.dumps(args.public_dict()["llm_timeout"]) == "42.0"
