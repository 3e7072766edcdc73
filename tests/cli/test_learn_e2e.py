"""`skill3 learn` end to end on the example corpus (crawl + synthesis), as a child process (one Twisted reactor per process)."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness import skill3

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("provider", ["extractive", "auto"])
def test_learn_the_example_corpus(tmp_path, provider):
    out = tmp_path / "mcp"
    r = skill3("learn", "mcp", "--input-file", str(ROOT / "examples" / "mcp.sources"), "--output-dir", str(out),
               "--llm-provider", provider, "--llm-endpoint", "http://127.0.0.1:9/v1", timeout=240)
    assert r.returncode == 0, r.stderr[-2000:]
    assert sorted(p.name for p in out.iterdir()) == ["crawl.json", "index.html", "mcp", "run.json", "run.jsonl"]
    exe = shutil.which("agentskills") or str(Path(sys.executable).with_name("agentskills"))
    v = subprocess.run([exe, "validate", str(out / "mcp")], capture_output=True, text=True, timeout=60)
    assert v.returncode == 0, v.stdout + v.stderr
    man = json.loads((out / "run.json").read_text())
    assert man["crawl"]["topic"] == "mcp" and man["model"]["used"] == "extractive"
    assert len(man["sources"]) == 6
    if provider == "auto":
        assert man["model"]["requested"] == "auto" and man["model"]["auto_fallback_reason"]


def test_learn_probes_auto_once_and_warns_once(tmp_path):
    """`skill3 learn` resolves "auto" once for the crawl's planner and for synthesis: one GET /models
    against a server that is not a model server, one warning, and run.json still says what was asked."""
    from tests.mockserver import MockServer

    def not_a_model_server(srv, host, path, query, body):
        return 503, {"Content-Type": "text/plain"}, b"maintenance"

    out = tmp_path / "mcp"
    with MockServer(not_a_model_server) as srv:
        r = skill3("learn", "mcp", "--input-file", str(ROOT / "examples" / "mcp.sources"), "--output-dir", str(out),
                   "--llm-endpoint", f"{srv.url}/v1", timeout=240)
        probes = [s.path for s in srv.seen]
    assert r.returncode == 0, r.stderr[-2000:]
    assert probes == ["/v1/models"]
    assert r.stderr.count("no LLM answers") == 1, r.stderr
    man = json.loads((out / "run.json").read_text())
    assert man["model"]["requested"] == "auto" and man["model"]["used"] == "extractive"
    assert "HTTP 503" in man["model"]["auto_fallback_reason"]
    assert any(w.startswith("no LLM answers") for w in man["warnings"])  # recorded, not printed twice


def test_learn_synthesis_uses_the_crawls_today(tmp_path):
    """`-s SKILL3_TODAY=` bounds the crawl and the synthesis it runs (one day, not the crawl's and today)."""
    out = tmp_path / "mcp"
    r = skill3("learn", "mcp", "--input-file", str(ROOT / "examples" / "mcp.sources"), "--output-dir", str(out),
               "--llm-provider", "extractive", "--cutoff-time", "2026-01", "--context-tokens", "4096",
               "-s", "SKILL3_TODAY=2026-11-29", timeout=240)
    assert r.returncode == 0, r.stderr[-2000:]
    crawl = json.loads((out / "crawl.json").read_text())
    man = json.loads((out / "run.json").read_text())
    assert crawl["today"] == man["today"] == "2026-11-29"
    assert man["bundle"]["context_tokens"] == 4096 and crawl["args"]["context_tokens"] == 4096
    assert man["cutoff"] == {"month": "2026-01", "source": "cutoff_time"}
