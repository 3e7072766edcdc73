"""Target model → knowledge-cutoff month, from the dated, sourced table in ``data/cutoffs.yaml``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from importlib import resources

import yaml

from synth.core.errors import (
    CutoffError,  # noqa: F401 - defined with every error (synth.core.errors)
    )

_MONTH = re.compile(r"^(\d{4})-(\d{2})(?:-\d{2})?$")


@dataclass(frozen=True)
class Cutoff:
    month: str  # YYYY-MM
    source: str  # "cutoff_time" when given, else which input gave it (the table entry, crawl.json, the items)
    model: str | None = None  # the table entry the target model resolved to

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


EARLIEST_YEAR = 1990  # no language model knows less; also the earliest publication date the crawl accepts


def parse_month(value: str, name: str = "cutoff_time", *, today: date | None = None) -> str:
    """Validate ``YYYY-MM`` (a ``YYYY-MM-DD`` is accepted and truncated) from :data:`EARLIEST_YEAR` on and, with
    ``today``, not after today's month (a model cannot have learnt the future)."""
    m = _MONTH.match(str(value).strip())
    if not m or not 1 <= int(m.group(2)) <= 12:
        raise CutoffError(f"{name} must be a month like 2026-01, got {value!r}")
    month = f"{m.group(1)}-{m.group(2)}"
    if int(m.group(1)) < EARLIEST_YEAR:
        raise CutoffError(f"{name} {month} is before {EARLIEST_YEAR}: pass the model's training cutoff, a month like 2026-01")
    if today is not None and month > today.strftime("%Y-%m"):
        raise CutoffError(f"{name} {month} is after this month ({today:%Y-%m}): a model's cutoff is in the past; "
                          f"pass a month up to {today:%Y-%m}")
    return month


# Host/vendor prefixes (``openai/``, ``models/``, Bedrock's ``anthropic.``) and snapshot suffixes
# (``-2024-08-06``, ``-20250929``, ``@20250929``, Bedrock ``-v1:0``, ``-latest``, Gemini ``-001``).
_PREFIX = re.compile(r"^(?:[a-z0-9._-]+/)+|^(?:anthropic|meta|xai|openai|google)\.")
_SUFFIXES = (re.compile(r"-v\d+(?::\d+)?$"), re.compile(r"@\d{8}$"), re.compile(r"-\d{8}$"),
             re.compile(r"-\d{4}-\d{2}-\d{2}$"), re.compile(r"-latest$"), re.compile(r"-\d{3}$"))


@lru_cache(maxsize=1)
def _aliases() -> dict[str, str]:
    out: dict[str, str] = {}
    for name, entry in cutoff_table()["models"].items():
        out[name.lower()] = name
        for alias in entry.get("aliases") or []:
            out.setdefault(str(alias).lower(), name)
    return out


def resolve_model(name: str) -> str | None:
    """The table entry a model name means: the name itself or a listed alias; else the name without
    its host prefix and snapshot suffixes (``openai/gpt-4o-2024-08-06`` → ``gpt-4o``); else None."""
    table = _aliases()
    candidate = str(name).strip().lower()
    if candidate in table:
        return table[candidate]
    candidate = _PREFIX.sub("", candidate)
    while candidate:
        if candidate in table:
            return table[candidate]
        for pattern in _SUFFIXES:
            stripped = pattern.sub("", candidate)
            if stripped != candidate:
                candidate = stripped
                break
        else:
            return None
    return None


def model_rows() -> list[dict]:
    """The table as rows (``skill3 models``): model, vendor, cutoff, kind, source, checked, aliases."""
    rows = []
    for name, entry in cutoff_table()["models"].items():
        rows.append({"model": name, "vendor": entry.get("vendor", ""), "cutoff": parse_month(entry["cutoff"]),
                     "kind": entry.get("kind", "knowledge"), "source": entry.get("source", ""),
                     "checked": str(entry.get("checked", cutoff_table().get("as_of", ""))),
                     "aliases": [str(a) for a in entry.get("aliases") or []]})
    return sorted(rows, key=lambda r: (r["vendor"].lower(), r["model"]))


def resolve_cutoff(target_model: str | None, cutoff_time: str | None, *, today: date | None = None) -> Cutoff:
    """``cutoff_time`` wins (checked against ``today``'s month when given, see :func:`parse_month`); else look the
    model up (``None``: the table's default model; aliases resolved); an unknown model names ``cutoff_time``.
    ``source`` says which: ``cutoff_time``, or the table entry and its source."""
    if cutoff_time:
        return Cutoff(parse_month(cutoff_time, today=today), "cutoff_time")
    model = target_model or default_model()
    name = resolve_model(model)
    if name is None:
        raise CutoffError(
            f"unknown target_model {model!r} (`skill3 models` lists the {len(cutoff_table()['models'])} known ones); "
            "pass cutoff_time=YYYY-MM (--cutoff-time) to set its cutoff"
        )
    entry = cutoff_table()["models"][name]
    which = "target_model" if target_model else "default target_model"
    cited = entry.get("source") or cutoff_table().get("source") or ""
    return Cutoff(parse_month(entry["cutoff"]), f"{which} {name} in the cutoff table" + (f" ({cited})" if cited else ""), name)
