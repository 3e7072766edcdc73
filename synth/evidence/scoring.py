"""Authority, recency and the combined score. Pure functions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from importlib import resources
from typing import Iterable, Mapping
from urllib.parse import urlsplit

import yaml

from synth.evidence.urls import normalize_host, site_host

RECENCY_PRE_CUTOFF = 0.5
RECENCY_UNDATED = 0.3
RECENCY_FRESH_MAX = 1.0  # published today
RECENCY_FRESH_MIN = 0.6  # published just after the cutoff


@lru_cache(maxsize=1)
def authority_config() -> dict:
    text = resources.files("synth").joinpath("data/authority.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def _host_matches(host: str, pattern: str) -> bool:
    return host == pattern or host.endswith("." + pattern)


def _official_match(host: str, url: str | None, official: Mapping[str, str]) -> str | None:
    """The reason of the first official source (``host`` or ``host/path`` prefix) the page is under."""
    hosts = {host}
    path = "/"
    if url:
        hosts.add(site_host(url))
        path = (urlsplit(url).path or "/").lower()
    for prefix, reason in official.items():
        phost, _, ppath = prefix.lower().partition("/")
        phost = normalize_host(phost)
        if not any(h and _host_matches(h, phost) for h in hosts):
            continue
        if not ppath or path == "/" + ppath.rstrip("/") or path.startswith("/" + ppath.rstrip("/") + "/"):
            return reason
    return None


def authority(host: str, authoritative: Iterable[str] = (), *, url: str | None = None,
              official: Mapping[str, str] | None = None) -> tuple[float, str]:
    """Weight of a host and why: the run's official sources (found from the topic: ``host`` or
    ``host/path`` → reason) and authoritative hosts first, then the configured classes."""
    host = normalize_host(host)
    if official:
        reason = _official_match(host, url, official)
        if reason:
            return 1.0, f"official source for this run ({reason})"
    for a in authoritative:
        a = normalize_host(a)
        if a and _host_matches(host, a):
            return 1.0, f"authoritative host for this run ({a})"
    cfg = authority_config()
    for cls in cfg["classes"]:
        for pattern in cls["hosts"]:
            if _host_matches(host, pattern):
                return float(cls["weight"]), f"{cls['name']} ({pattern})"
    return float(cfg["default"]), "default weight"


@dataclass(frozen=True)
class Freshness:
    recency_weight: float
    post_cutoff: bool
    drop_reason: str | None  # "future_dated", "pre_cutoff_strict", "undated_strict" or None


def freshness(published: date | None, cutoff_start: date, today: date, strict: bool = False) -> Freshness:
    """Recency: post-cutoff decays linearly 1.0 (today) → 0.6 (just after the cutoff).

    A page is post-cutoff when published in or after the cutoff month's first day
    (the month named as the cutoff is the last month the model may know only partly).
    """
    if published is None:
        return Freshness(RECENCY_UNDATED, False, "undated_strict" if strict else None)
    if published > today:
        return Freshness(0.0, False, "future_dated")
    if published < cutoff_start:
        return Freshness(RECENCY_PRE_CUTOFF, False, "pre_cutoff_strict" if strict else None)
    span = (today - cutoff_start).days
    frac = 1.0 if span <= 0 else (published - cutoff_start).days / span
    weight = RECENCY_FRESH_MIN + (RECENCY_FRESH_MAX - RECENCY_FRESH_MIN) * frac
    return Freshness(round(weight, 4), True, None)


def combined_score(authority_weight: float, recency_weight: float) -> float:
    return round(authority_weight * recency_weight, 4)
