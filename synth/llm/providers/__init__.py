"""The model providers, one module each: a module here that defines ``PROVIDER`` (a
:class:`synth.llm.provider.LLMProvider`) is a provider — :mod:`synth.llm.registry` loads every module of this
package into its one table, in ``order``. Adding a provider is adding one file here."""

from __future__ import annotations

import importlib
import pkgutil

from synth.llm.provider import LLMProvider


def load() -> tuple[LLMProvider, ...]:
    """Every provider of this package, in their ``order`` (then by name)."""
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        provider = getattr(module, "PROVIDER", None)
        if isinstance(provider, LLMProvider):
            found.append(provider)
    return tuple(sorted(found, key=lambda p: (p.order, p.name)))
