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
