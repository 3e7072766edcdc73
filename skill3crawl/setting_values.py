"""Values that may come from a Scrapy setting or from the environment, with Scrapy's precedence."""

from __future__ import annotations

import os
from typing import Any, Mapping


def setting_or_env(settings: Any, name: str, env: Mapping[str, str] | None = None) -> str | None:
    """``NAME`` as configured: the setting when it is set (``-s NAME=…`` on the command line, or a
    settings module; set empty, it switches the value off), else the environment variable of the
    same name, else None. ``settings`` may be None (then only the environment counts)."""
    value = settings.get(name) if settings is not None else None
    if value is None:
        value = (os.environ if env is None else env).get(name)
    return str(value).strip() or None if value is not None else None
