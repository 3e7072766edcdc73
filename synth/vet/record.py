"""Where `skill3 setup` keeps SkillSpector, and the small JSON it records.

Layout (``SKILL3_HOME``, default ``~/.skill3``)::

    skillspector-src/     the clone (unless `setup --source PATH` was used)
    .venv/                the scanner's own virtualenv (Python >=3.12,<3.15)
    skillspector.json     this record: binary, version, real `scan` options

The runner reads the record; ``SKILLSPECTOR_BIN`` overrides it.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Mapping

from synth.core import default_settings
from synth.core.errors import (
    RecordError,  # noqa: F401 - defined with every error (synth.core.errors)
    )

RECORD_NAME = "skillspector.json"
REQUIRED_SCAN_OPTIONS = ("--no-llm", "--format", "--output")


def home_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    configured = env.get("SKILL3_HOME")
    return Path(configured or default_settings.SKILL3_HOME).expanduser()


def record_path(home: Path | None = None) -> Path:
    return (home or home_dir()) / RECORD_NAME


@dataclass
class SetupRecord:
    binary: str
    version: str
    scan_options: list[str] = field(default_factory=list)
    python: str = ""
    python_version: str = ""
    source: str = ""
    venv: str = ""
    recorded_at: str = ""

    def missing_options(self) -> list[str]:
        return [o for o in REQUIRED_SCAN_OPTIONS if o not in self.scan_options]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def load_record(path: Path) -> SetupRecord | None:
    """The recorded setup, ``None`` when there is none; RecordError if unreadable."""
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        known = set(SetupRecord.__dataclass_fields__)
        return SetupRecord(**{k: v for k, v in data.items() if k in known})
    except (OSError, ValueError, TypeError) as exc:
        raise RecordError(f"{path} is unreadable ({exc.__class__.__name__}); re-run `skill3 setup`") from None


def save_record(record: SetupRecord, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record.to_dict(), indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
