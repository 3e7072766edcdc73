"""The real-model tier: `skill3 synth` against llama.cpp serving the base Gemma 3 270M (scripts/real-llm.sh).

The model does not follow instructions; it is an adversary for the post-processor.
Whatever it writes, the result must be a valid skill (exit 0, passes the reference
validator) or a clean failure (exit 1, one error line, nothing written).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skill3.cli.app import app
from synth.llm import ContextLengthError, make_chat_model
from tests.pipeline.corpus import EXAMPLE, parse_sources, write_jsonl

URL = os.environ.get("SKILL3_REAL_LLM_URL")
MODEL = os.environ.get("SKILL3_REAL_LLM_MODEL", "gemma3-270m")
pytestmark = [
    pytest.mark.real_model,
    pytest.mark.skipif(not URL, reason="SKILL3_REAL_LLM_URL is not set: start the model with `scripts/real-llm.sh` and export its URL"),
    pytest.mark.timeout(600),
]


def test_synth_with_the_real_model_is_a_valid_skill_or_a_clean_failure(tmp_path):
    feed = write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE)[:2])
    r = CliRunner().invoke(app, ["synth", str(feed), "--llm-provider", "openai", "--llm-endpoint", URL, "--llm-model", MODEL,
                                 "--context-tokens", "2048", "--quiet"])
    assert r.exit_code in (0, 1), r.stderr
    if r.exit_code == 0:
        man = json.loads((tmp_path / "run.json").read_text())
        skill_dir = Path(man["skill"]["path"])
        exe = shutil.which("agentskills") or str(Path(sys.executable).with_name("agentskills"))
        v = subprocess.run([exe, "validate", str(skill_dir)], capture_output=True, text=True, timeout=60)
        assert v.returncode == 0, v.stdout + v.stderr
        assert man["model"]["used"] == "openai" and man["prompts"]["calls"][0]["prompt_tokens"]
    else:
        errors = [l for l in r.stderr.splitlines() if "error:" in l]
        assert len(errors) == 1 and "Traceback" not in r.stderr
        assert not (tmp_path / "run.json").exists()
        assert sorted(p.name for p in tmp_path.iterdir()) == ["run.jsonl"]


def test_the_real_servers_context_error_is_recognised():
    model = make_chat_model("openai", endpoint=URL, model=MODEL)
    with pytest.raises(ContextLengthError):
        model.complete([{"role": "user", "content": "word " * 40000}], max_tokens=8)
