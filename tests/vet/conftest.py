"""Fixtures: a fake `skillspector` on PATH (replaying real recordings), or none at all."""

from __future__ import annotations

import os

import pytest

from .helpers import FAKE_SOURCE, FakeScanner, install_executable


@pytest.fixture
def no_scanner(tmp_path, monkeypatch):
    """No SkillSpector anywhere: empty SKILL3_HOME, no SKILLSPECTOR_BIN, PATH without it."""
    monkeypatch.delenv("SKILLSPECTOR_BIN", raising=False)
    monkeypatch.setenv("SKILL3_HOME", str(tmp_path / "home"))
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    return tmp_path


@pytest.fixture
def fake_scanner(tmp_path, monkeypatch) -> FakeScanner:
    """The fake `skillspector` first on PATH, found the way users' is (PATH)."""
    binary = install_executable(tmp_path / "fake-bin", "skillspector", FAKE_SOURCE)
    monkeypatch.delenv("SKILLSPECTOR_BIN", raising=False)
    monkeypatch.setenv("SKILL3_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PATH", str(binary.parent) + os.pathsep + os.environ.get("PATH", ""))
    for var in ("FAKE_SS_CASE", "FAKE_SS_VARIANT", "FAKE_SS_IGNORE_O", "FAKE_SS_LIBRARY", "FAKE_SS_MODE", "FAKE_SS_HELP_WITHOUT", "FAKE_SS_DROP", "FAKE_SS_SCANNED"):
        monkeypatch.delenv(var, raising=False)
    log = tmp_path / "fake-calls.jsonl"
    monkeypatch.setenv("FAKE_SS_LOG", str(log))
    return FakeScanner(binary=binary, log=log, monkeypatch=monkeypatch)
