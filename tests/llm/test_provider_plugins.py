"""A provider from another installed package: the ``skill3.providers`` entry-point group. A real distribution
(a ``.dist-info`` with ``entry_points.txt`` on the path) is found by ``importlib.metadata`` in a fresh ``skill3``
process; a broken or clashing plugin is left out with one warning line and never breaks skill3."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from synth.llm.provider import LLMProvider
from synth.llm.providers import RESERVED, plugin_provider

REPO = Path(__file__).resolve().parents[2]

PLUGIN = '''
from synth.llm.provider import Capabilities, LLMProvider


class FrobProvider(LLMProvider):
    """Quotes only, under its own name (a plugin that calls no model)."""

    name = "frob"
    order = 80
    capabilities = Capabilities(calls_model=False, condenses=False, min_budget=16_000)


PROVIDER = FrobProvider()
NOT_A_PROVIDER = object()
BAD_NAME = type("Bad", (LLMProvider,), {"name": "Frob Two", "capabilities": PROVIDER.capabilities})()
SHADOW = type("Shadow", (LLMProvider,), {"name": "openai", "capabilities": PROVIDER.capabilities})()
'''


def install(site: Path, entry_points: str) -> Path:
    """A distribution ``skill3-frob`` installed into ``site`` (what pip writes: the module and its .dist-info)."""
    site.mkdir(parents=True, exist_ok=True)
    (site / "skill3_frob.py").write_text(PLUGIN, encoding="utf-8")
    info = site / "skill3_frob-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: skill3-frob\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(entry_points, encoding="utf-8")
    return site


def skill3_process(site: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"PATH": os.environ["PATH"], "HOME": str(site), "PYTHONPATH": os.pathsep.join([str(site), str(REPO)]),
           "COLUMNS": "200", "TERMINAL_WIDTH": "200"}
    return subprocess.run([sys.executable, "-m", "skill3", *args], capture_output=True, text=True, env=env,
                          cwd=site, timeout=120, check=False, stdin=subprocess.DEVNULL)


def test_an_installed_plugin_is_a_provider_of_every_command(tmp_path: Path) -> None:
    site = install(tmp_path / "site", '[skill3.providers]\nfrob = skill3_frob:PROVIDER\n')
    r = skill3_process(site, "synth", "--help")
    assert r.returncode == 0, r.stderr
    assert "auto|openai|anthropic|frob|extractive" in r.stdout  # in its order (80), before extractive (90)


def test_a_run_drafts_through_the_plugin(tmp_path: Path) -> None:
    from tests.pipeline.corpus import EXAMPLE, parse_sources, write_jsonl

    site = install(tmp_path / "site", '[skill3.providers]\nfrob = skill3_frob:FrobProvider\n')  # a class: made
    feed = write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE))
    r = skill3_process(site, "synth", str(feed), "--output-dir", str(tmp_path / "out"), "--llm-provider", "frob",
                       "--no-fail-on-findings", "--quiet")
    assert r.returncode == 0, r.stderr[-2000:]
    manifest = json.loads(next((tmp_path / "out").rglob("run.json")).read_text(encoding="utf-8"))
    assert (manifest["model"]["requested"], manifest["model"]["used"]) == ("frob", "frob"), manifest["model"]


@pytest.mark.parametrize("value, problem", [
    ("skill3_frob:NOT_A_PROVIDER", "it is a object, not a synth.llm.provider.LLMProvider"),
    ("skill3_frob:BAD_NAME", "its name 'Frob Two' is not [a-z][a-z0-9_-]*"),
    ("skill3_frob:SHADOW", "the name 'openai' is taken"),
    ("skill3_frob:MISSING", "it cannot be loaded (AttributeError"),
    ("skill3_nowhere:PROVIDER", "it cannot be loaded (ModuleNotFoundError: No module named 'skill3_nowhere')"),
])
def test_a_plugin_that_is_no_provider_is_left_out_saying_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             value: str, problem: str) -> None:
    install(tmp_path, "")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        found, why = plugin_provider(EntryPoint("x", value, "skill3.providers"), RESERVED | {"openai"})
    finally:
        sys.modules.pop("skill3_frob", None)
    assert found is None and problem in why


def test_a_good_plugin_is_made_from_its_class(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(tmp_path, "")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        found, why = plugin_provider(EntryPoint("frob", "skill3_frob:FrobProvider", "skill3.providers"), RESERVED)
    finally:
        sys.modules.pop("skill3_frob", None)
    assert isinstance(found, LLMProvider) and found.name == "frob" and why == ""


def test_a_broken_plugin_warns_once_and_skill3_still_runs(tmp_path: Path) -> None:
    site = install(tmp_path / "site", '[skill3.providers]\nfrob = skill3_frob:SHADOW\nnowhere = skill3_nowhere:X\n')
    r = skill3_process(site, "synth", "--help")
    assert r.returncode == 0, r.stderr
    assert "auto|openai|anthropic|extractive" in r.stdout
    lines = [line for line in r.stderr.splitlines() if "provider plugin" in line]
    assert len(lines) == 2 and "Traceback" not in r.stderr, r.stderr
    assert any("'frob'" in line and "the name 'openai' is taken" in line for line in lines), lines
