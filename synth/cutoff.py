"""Target model → knowledge-cutoff month, from the dated, sourced table in ``data/cutoffs.yaml``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from importlib import resources

import yaml

_MONTH = re.compile(r"^(\d{4})-(\d{2})(?:-\d{2})?$")


class CutoffError(ValueError):
    """A cutoff could not be determined; the message names the fix."""


@dataclass(frozen=True)
class Cutoff:
    month: str  # YYYY-MM
    source: str  # "cutoff_time" when given, else which input gave it (the table entry, crawl.json, the items)

    @property
    def start(self) -> date:
        y, m = self.month.split("-")
        return date(int(y), int(m), 1)


@lru_cache(maxsize=1)
def cutoff_table() -> dict:
    text = resources.files("synth").joinpath("data/cutoffs.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def default_model() -> str:
    return cutoff_table()["default_model"]


def parse_month(value: str, name: str = "cutoff_time") -> str:
    """Validate ``YYYY-MM`` (a ``YYYY-MM-DD`` is accepted and truncated)."""
    m = _MONTH.match(str(value).strip())
    if not m or not 1 <= int(m.group(2)) <= 12:
        raise CutoffError(f"{name} must be a month like 2026-01, got {value!r}")
    return f"{m.group(1)}-{m.group(2)}"


def resolve_cutoff(target_model: str | None, cutoff_time: str | None) -> Cutoff:
    """``cutoff_time`` wins; else look the model up (``None``: the table's default model); an unknown
    model names ``cutoff_time``. ``source`` says which: ``cutoff_time``, or the table entry and its source."""
    if cutoff_time:
        return Cutoff(parse_month(cutoff_time), "cutoff_time")
    model = target_model or default_model()
    entry = cutoff_table()["models"].get(model)
    if entry is None:
        known = ", ".join(sorted(cutoff_table()["models"]))
        raise CutoffError(
            f"unknown target_model {model!r} (known: {known}); pass cutoff_time=YYYY-MM (--cutoff-time) to set its cutoff"
        )
    which = "target_model" if target_model else "default target_model"
    cited = entry.get("source") or cutoff_table().get("source") or ""
    return Cutoff(parse_month(entry["cutoff"]), f"{which} {model} in the cutoff table" + (f" ({cited})" if cited else ""))
