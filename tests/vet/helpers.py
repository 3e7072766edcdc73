"""Test helpers: the recorded SkillSpector runs, the fake `skillspector`."""

from __future__ import annotations

import shutil
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "skillspector"
FAKE_SOURCE = Path(__file__).resolve().parent / "fake_skillspector.py"


def case_dir(name: str) -> Path:
    matches = sorted(FIXTURES.glob(f"case-{name}*")) if len(name) == 2 else [FIXTURES / name]
    assert matches and matches[0].is_dir(), f"no fixture case {name}"
    return matches[0]


def install_executable(bin_dir: Path, name: str, script: Path) -> Path:
    """Copy a Python script to bin_dir/name with this interpreter's shebang."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    target = bin_dir / name
    target.write_text(f"#!{sys.executable}\n" + script.read_text(encoding="utf-8"), encoding="utf-8")
    target.chmod(target.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return target


@dataclass
class FakeScanner:
    binary: Path
    log: Path
    monkeypatch: pytest.MonkeyPatch

    def replay(self, case: str, variant: str = "", ignore_o: bool = False) -> None:
        self.monkeypatch.delenv("FAKE_SS_LIBRARY", raising=False)
        self.monkeypatch.setenv("FAKE_SS_CASE", str(case_dir(case)))
        self.monkeypatch.setenv("FAKE_SS_VARIANT", variant)
        if ignore_o:
            self.monkeypatch.setenv("FAKE_SS_IGNORE_O", "1")
        else:
            self.monkeypatch.delenv("FAKE_SS_IGNORE_O", raising=False)

    def line_replay(self) -> None:
        self.monkeypatch.delenv("FAKE_SS_CASE", raising=False)
        self.monkeypatch.setenv("FAKE_SS_LIBRARY", str(FIXTURES))

    def mode(self, mode: str) -> None:
        self.monkeypatch.setenv("FAKE_SS_MODE", mode)

    def calls(self) -> list[dict]:
        import json

        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]


def copy_skill(case: str, tmp_path: Path) -> Path:
    """A writable copy of a case's skill folder (named as in the fixture)."""
    folder = next(p for p in case_dir(case).iterdir() if p.is_dir())
    dest = tmp_path / "skills" / folder.name
    shutil.copytree(folder, dest)
    return dest
