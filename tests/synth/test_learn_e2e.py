"""`skill3 learn` end to end on the example corpus (crawl + synthesis), in a subprocess (one Twisted reactor per process).

Needs the crawl's `learn` spider (skill3crawl/spiders/learn.py); skipped where it is not present.
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HAVE_SPIDER = importlib.util.find_spec("skill3crawl") is not None and (ROOT / "skill3crawl" / "spiders" / "learn.py").is_file()


@pytest.mark.skipif(not HAVE_SPIDER, reason="the crawl's learn spider (skill3crawl/spiders/learn.py) is not on this branch")
@pytest.mark.parametrize("provider", ["extractive", "auto"])
def test_learn_the_example_corpus(tmp_path, provider):
    out = tmp_path / "mcp"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run(
        [sys.executable, "-m", "skill3", "learn", "mcp", "--input-file", str(ROOT / "examples" / "mcp.sources"),
         "--output-dir", str(out), "--llm-provider", provider, "--llm-endpoint", "http://127.0.0.1:9/v1"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=240,
    )
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
