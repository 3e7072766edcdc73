"""The crawl harness's children are real processes: own pid, working directory, environment, exit status, output."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests import forkserver, harness


@pytest.mark.parametrize("status", [0, 2, 130])
def test_a_child_is_its_own_process_with_the_requested_cwd_env_and_status(tmp_path, monkeypatch, status):
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "from-the-developer-shell")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:1")
    r = forkserver.run(["tests.harness_probe", str(status)], env=harness.crawl_env({"SKILL3_PROBE": "yes"}), cwd=tmp_path)
    assert r.returncode == status, r.stderr
    seen = json.loads(r.stdout)
    assert seen["pid"] != os.getpid()
    assert seen["cwd"] == str(tmp_path)
    assert seen["env"]["SKILL3_PROBE"] == "yes" and seen["env"]["PYTHONPATH"] == str(harness.REPO)
    assert "BRAVE_SEARCH_API_KEY" not in seen["env"] and "HTTPS_PROXY" not in seen["env"]
    assert not seen["reactor"]  # Scrapy installs the reactor its settings name, in the child
    assert "probe on stderr" in r.stderr and "UserWarning: probe warning" in r.stderr


def test_strict_children_turn_warnings_into_errors():
    r = forkserver.run(["tests.harness_probe", "0"], env=harness.crawl_env(), strict=True)
    assert r.returncode == 1 and "UserWarning: probe warning" in r.stderr and "Traceback" in r.stderr


def test_a_child_over_its_time_is_killed_and_the_next_run_works():
    with pytest.raises(subprocess.TimeoutExpired):
        forkserver.run(["timeit", "-n1", "-r1", "import time; time.sleep(60)"], env=harness.crawl_env(), timeout=1)
    assert forkserver.run(["tests.harness_probe", "3"], env=harness.crawl_env()).returncode == 3
