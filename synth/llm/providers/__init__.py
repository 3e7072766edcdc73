"""The model providers, one module each: a module here that defines ``PROVIDER`` (a
:class:`synth.llm.provider.LLMProvider`) is a provider — :mod:`synth.llm.registry` loads every module of this
package into its one table, in ``order``. Adding a provider is adding one file here.

Another installed package adds one through the ``skill3.providers`` entry-point group (in the manner of simonw/llm's
plugins), in its ``pyproject.toml``::

    [project.entry-points."skill3.providers"]
    frob = "skill3_frob:PROVIDER"

The entry point names an :class:`~synth.llm.provider.LLMProvider` instance (or a subclass, made with no arguments).
A plugin that cannot be loaded, is no provider, has a name that is not ``[a-z][a-z0-9_-]*`` or takes a name already in
the table (``auto`` or a built-in one) is left out with one warning line naming the plugin and the problem: an
installed package never breaks skill3 or replaces a built-in provider.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import re
from importlib.metadata import EntryPoint, entry_points

from synth.llm.provider import LLMProvider

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "skill3.providers"
NAME = re.compile(r"[a-z][a-z0-9_-]{0,39}")
RESERVED = frozenset({"auto"})


def load() -> tuple[LLMProvider, ...]:
    """Every provider of this package, then every plugin's, in their ``order`` (then by name)."""
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        provider = getattr(module, "PROVIDER", None)
        if isinstance(provider, LLMProvider):
            found.append(provider)
    taken = RESERVED | {p.name for p in found}
    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: (p.name, p.value)):
        plugin, problem = plugin_provider(point, taken)
        if plugin is None:
            log.warning("skill3: provider plugin %r (%s) left out: %s", point.name, point.value, problem)
            continue
        found.append(plugin)
        taken = taken | {plugin.name}
    return tuple(sorted(found, key=lambda p: (p.order, p.name)))


def plugin_provider(point: EntryPoint, taken: frozenset[str]) -> tuple[LLMProvider | None, str]:
    """The provider an entry point names, or ``None`` and one line saying why it is left out."""
    try:
        obj = point.load()
        if isinstance(obj, type) and issubclass(obj, LLMProvider):
            obj = obj()
    except Exception as exc:  # noqa: BLE001 - any failure of third-party code: the plugin is left out, loudly
        return None, f"it cannot be loaded ({type(exc).__name__}: {str(exc)[:200]})"
    if not isinstance(obj, LLMProvider):
        return None, f"it is a {type(obj).__name__}, not a synth.llm.provider.LLMProvider"
    name = getattr(obj, "name", None)
    if not isinstance(name, str) or not NAME.fullmatch(name):
        return None, f"its name {name!r} is not [a-z][a-z0-9_-]* (at most 40 characters)"
    if name in taken:
        return None, f"the name {name!r} is taken (auto or a provider already in the table)"
    if not hasattr(obj, "capabilities"):
        return None, "it declares no capabilities"
    return obj, ""
