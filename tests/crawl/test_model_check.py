"""An explicitly chosen model that does not answer is found before anything is fetched (exit 2, one line);
usage errors come before any word about the model. `skill3 learn` and `scrapy crawl learn` as child processes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.crawl.conftest import scrapy_crawl
from tests.harness import skill3
from tests.mockserver import MockServer, StubLLM

REPO = Path(__file__).resolve().parents[2]
CORPUS = str(REPO / "examples" / "mcp.sources")
DEAD = "http://127.0.0.1:9/v1"  # nothing listens on port 9
LOOPBACK = {"SKILL3_ALLOW_PRIVATE_NETWORKS": "1"}


def error_lines(stderr: str) -> list[str]:
    return [l for l in stderr.splitlines() if l.strip()]


@pytest.mark.parametrize("provider, env", [("openai", {}), ("anthropic", {"ANTHROPIC_API_KEY": "sk-ant-test"})])
def test_learn_checks_an_explicit_model_before_crawling(tmp_path, provider, env):
    site = MockServer({"/docs/": (200, "text/html", b"<html><body><h1>Docs</h1><p>words</p></body></html>")}).start()
    try:
        out = tmp_path / "out"
        r = skill3("learn", "mcp", "--start-urls", f"{site.url}/docs/", "--cutoff-time", "2026-01", "--output-dir", str(out),
                   "--llm-provider", provider, "--llm-endpoint", DEAD.removesuffix("/v1") if provider == "anthropic" else DEAD,
                   env={**LOOPBACK, **env}, timeout=120)
        seen = list(site.seen)
    finally:
        site.stop()
    assert r.returncode == 2, r.stderr[-2000:]
    (line,) = error_lines(r.stderr)
    assert line.startswith(f"skill3: error: llm_provider {provider}: ") and "does not answer" in line, line
    assert seen == []  # nothing fetched
    assert not (out / "run.jsonl").exists()


def test_scrapy_crawl_learn_checks_an_explicit_model_before_crawling(tmp_path):
    out = tmp_path / "out"
    r = scrapy_crawl("topic=mcp", f"input_file={CORPUS}", f"output_dir={out}", "cutoff_time=2026-01",
                     "llm_provider=openai", f"llm_endpoint={DEAD}")
    assert r.returncode == 2, r.stderr[-2000:]
    (line,) = error_lines(r.stderr)
    assert line.startswith("scrapy crawl learn: llm_provider openai: ") and "does not answer" in line
    assert not (out / "run.jsonl").exists()


def test_no_model_is_needed_without_synthesis(tmp_path):
    """synth=0 on a corpus: no model is called, so none is checked."""
    out = tmp_path / "out"
    r = scrapy_crawl("topic=mcp", f"input_file={CORPUS}", f"output_dir={out}", "cutoff_time=2026-01", "synth=0",
                     "llm_provider=openai", f"llm_endpoint={DEAD}")
    assert r.returncode == 0, r.stderr[-2000:]
    assert (out / "run.jsonl").is_file()


def test_a_model_that_answers_passes_the_check(tmp_path):
    with StubLLM(default="not a skill at all") as stub:
        r = skill3("learn", "mcp", "--input-file", CORPUS, "--cutoff-time", "2026-01", "--output-dir", str(tmp_path / "o"),
                   "--llm-provider", "openai", "--llm-endpoint", stub.url, "--llm-model", "stub-model", timeout=180)
        chats = stub.chat_requests()
        probes = [s for s in stub.seen if s.method == "GET" and s.path.rstrip("/").endswith("/models")]
    assert (tmp_path / "o" / "run.jsonl").is_file()  # the crawl ran
    assert chats, r.stderr[-2000:]  # and synthesis called the model
    assert len(probes) == 1  # checked once, before the crawl: synthesis does not probe it again


@pytest.mark.parametrize("bad, message", [
    (["--max-pages", "0"], "bad argument max_pages"),
    (["--cutoff-time", "2026-13"], "cutoff"),
    (["-s", "JOBDIR"], "bad -s value"),
    (["--llm-timeout", "0"], "--llm-timeout must be between 1 and"),
])
def test_usage_errors_come_before_any_model_warning(tmp_path, bad, message):
    r = skill3("learn", "mcp", "--input-file", CORPUS, "--output-dir", str(tmp_path / "o"), "--llm-endpoint", DEAD, *bad)
    assert r.returncode == 2, r.stderr[-2000:]
    (line,) = error_lines(r.stderr)  # no "no LLM answers" warning before it
    assert line.startswith("skill3: error: ") and message in line, line
