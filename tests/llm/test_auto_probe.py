"""``--llm-provider auto``: only a 2xx JSON model list at ``GET /models`` counts as a model server.

A real loopback HTTP server answers each case (a proxy's 403, a login page, a redirect, ...)."""

from __future__ import annotations

import json
from typing import Iterator

import pytest

from synth.llm.registry import DEFAULT_OPENAI_MODEL, choose, resolve_auto, served_models
from tests.mockserver import MockServer, Reply


class _Answer:
    def __init__(self, status: int, body: bytes, ctype: str = "application/json") -> None:
        self.status, self.body, self.ctype = status, body, ctype


@pytest.fixture
def server() -> Iterator[tuple[dict, str]]:
    answer = {"now": _Answer(200, b"{}"), "gets": 0}

    def routes(srv: MockServer, host: str, path: str, query: dict, body: bytes) -> Reply:
        a = answer["now"]
        answer["gets"] += 1
        headers = {"Content-Type": a.ctype, **({"Location": "/login"} if 300 <= a.status < 400 else {})}
        return a.status, headers, a.body

    with MockServer(routes) as srv:
        yield answer, f"{srv.url}/v1"


MODELS = json.dumps({"object": "list", "data": [{"id": "m1", "object": "model"}]}).encode()

CASES = [
    # status, body, content type, provider, served
    (200, MODELS, "application/json", "openai", ["m1"]),
    (200, b'{"object": "list", "data": []}', "application/json", "openai", []),
    (403, b'{"error": "forbidden by proxy policy"}', "application/json", "extractive", []),
    (401, b'{"error": "unauthorized"}', "application/json", "extractive", []),
    (404, b"not found", "text/plain", "extractive", []),
    (407, b"proxy authentication required", "text/plain", "extractive", []),
    (302, b"", "text/html", "extractive", []),
    (200, b"<html><body>Sign in</body></html>", "text/html", "extractive", []),
    (200, b'{"status": "ok"}', "application/json", "extractive", []),
    (200, b'[{"id": "m1"}]', "application/json", "extractive", []),
    (503, MODELS, "application/json", "extractive", []),
]


@pytest.mark.parametrize("status, body, ctype, provider, served", CASES)
def test_auto_needs_a_2xx_json_model_list(server, status, body, ctype, provider, served):
    answer, url = server
    answer["now"] = _Answer(status, body, ctype)
    got, reason = resolve_auto(url)
    assert got == provider
    assert (reason is None) == (provider == "openai")
    if reason:
        assert url in reason and "\n" not in reason
    assert served_models(url) == served


@pytest.mark.parametrize("status, body, ctype, provider, served", CASES)
def test_choose_resolves_auto_with_one_probe(server, status, body, ctype, provider, served):
    answer, url = server
    answer["now"] = _Answer(status, body, ctype)
    c = choose("auto", url, None)
    assert answer["gets"] == 1
    assert c.provider == provider
    assert c.model == (served[0] if served else None)
    assert (c.reason is None) == (provider == "openai")


@pytest.mark.parametrize("requested, listed, expected", [
    ("mine", ["m1"], "mine"),
    (None, ["m1", f"{DEFAULT_OPENAI_MODEL}:7b"], f"{DEFAULT_OPENAI_MODEL}:7b"),
    (None, [], None),
])
def test_choose_picks_the_model(server, requested, listed, expected):
    answer, url = server
    answer["now"] = _Answer(200, json.dumps({"data": [{"id": m} for m in listed]}).encode())
    assert choose("auto", url, requested).model == expected


@pytest.mark.parametrize("provider", ["openai", "anthropic", "extractive"])
def test_choose_passes_concrete_providers_without_a_probe(server, provider):
    answer, url = server
    assert choose(provider, url, "m") == type(choose(provider, url, "m"))(provider, "m", None)
    assert answer["gets"] == 0


def test_providers_do_not_import_the_registry():
    """The seam (model.py) is a leaf: providers import it, never the factory (no import cycle)."""
    import ast
    import pathlib

    import synth.llm

    root = pathlib.Path(synth.llm.__file__).parent
    for name in ("model.py", "openai_compat.py", "anthropic_model.py"):
        tree = ast.parse((root / name).read_text())
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert "synth.llm.registry" not in imported, name


def test_synthesis_takes_the_callers_choice_without_a_second_probe(server, tmp_path):
    """`skill3 learn` and the crawl's planner resolve "auto" once and hand the choice on: synthesis does not
    probe again, and records the fallback without printing it a second time."""
    from rich.console import Console

    from synth.llm.registry import Choice, fallback_warning
    from synth.pipeline.options import SynthOptions
    from synth.pipeline.run import run_synth
    from tests.pipeline.corpus import EXAMPLE, parse_sources, write_jsonl

    answer, url = server
    feed = write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE))
    err = Console(file=open(tmp_path / "err.txt", "w"), width=300)
    choice = Choice("extractive", None, f"{url} answered HTTP 503 at /models (not an OpenAI-compatible model list)")
    result = run_synth(SynthOptions(paths=(str(feed),), cutoff_time="2026-01", progress=False, llm_endpoint=url,
                                    auto_choice=choice), console=err)
    err.file.close()
    assert result.exit_code == 0, result.error
    assert answer["gets"] == 0
    assert fallback_warning(choice.reason) in result.warnings
    assert "no LLM answers" not in (tmp_path / "err.txt").read_text()
    man = json.loads((tmp_path / "run.json").read_text())
    assert (man["model"]["requested"], man["model"]["used"], man["model"]["auto_fallback_reason"]) == ("auto", "extractive", choice.reason)


@pytest.mark.parametrize("planning, synthesis, text", [
    (False, True, "no LLM answers (r): falling back to the extractive synthesizer (quotes only, no model)"),
    (True, True, "no LLM answers (r): planning falls back to the fixed query plan (release notes, changelog, migration guide …) and synthesis to the extractive synthesizer (quotes only, no model)"),
    (True, False, "no LLM answers (r): planning falls back to the fixed query plan (release notes, changelog, migration guide …)"),
])
def test_the_fallback_warning(planning, synthesis, text):
    from synth.llm.registry import fallback_warning

    assert fallback_warning("r", planning=planning, synthesis=synthesis) == text


@pytest.mark.parametrize("provider", ["auto", "extractive"])
def test_the_dry_run_shows_the_bundle_the_run_builds(server, tmp_path, provider):
    """The extractive budget is decided once, on the provider the run uses: a dry run with "auto" and no model
    server selects from the same budget, in the same mode, as the run that falls back to extractive."""
    from rich.console import Console

    from synth.pipeline.options import SynthOptions
    from synth.pipeline.run import run_synth
    from tests.pipeline.corpus import EXAMPLE, parse_sources, write_jsonl

    answer, url = server
    answer["now"] = _Answer(503, b"maintenance", "text/plain")
    feed = write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE))
    err = Console(file=open(tmp_path / "err.txt", "w"), width=300)
    common = dict(paths=(str(feed),), cutoff_time="2026-01", progress=False, llm_provider=provider, llm_endpoint=url)
    dry = run_synth(SynthOptions(**common, dry_run=True), console=err)
    run = run_synth(SynthOptions(**common), console=err)
    err.file.close()
    assert dry.exit_code == run.exit_code == 0, (dry.error, run.error)
    man = json.loads((tmp_path / "run.json").read_text())
    assert man["model"]["used"] == "extractive"
    assert dry.dry_run.budget == man["bundle"]["budget_tokens"]
    assert dry.dry_run.selection.mode == man["bundle"]["mode"]  # (the dry run selects before input vetting)
