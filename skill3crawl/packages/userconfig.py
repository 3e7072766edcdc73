"""The registries as the user's own tools are configured (pure: environment and file texts in, URLs out).

* PyPI: ``PIP_INDEX_URL``, else ``index-url`` in pip's configuration files (``PIP_CONFIG_FILE``, the site
  ``/etc/xdg/pip/pip.conf``, ``/etc/pip.conf``, the user's ``~/.config/pip/pip.conf``, ``~/.pip/pip.conf``, the
  virtualenv's ``pip.conf``; the later file wins, as in pip; section ``[global]``, ``[install]`` or
  ``[download]``). A simple index URL ``https://host/…/simple`` is turned into the JSON API next to it
  (``https://host/…/pypi``), the layout of PyPI, devpi, Artifactory, Nexus and the mirrors that serve both; a
  ``file:`` index is no registry and is left out.
* npm: ``npm_config_registry`` / ``NPM_CONFIG_REGISTRY``, else ``registry=`` in ``NPM_CONFIG_USERCONFIG`` or
  ``~/.npmrc``, else the global ``npmrc`` (``NPM_CONFIG_GLOBALCONFIG``, ``$PREFIX/etc/npmrc``, ``/etc/npmrc``,
  ``/usr/etc/npmrc``, ``/usr/local/etc/npmrc``).

skill3's own ``SKILL3_PYPI_URL`` / ``SKILL3_NPM_URL`` (setting or environment) win over both. Proxies are Scrapy's
(``http_proxy``/``https_proxy``), as for every request.
"""

from __future__ import annotations

import configparser
import os
import re
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlsplit, urlunsplit

SYSTEM_CONFIG_DIR = "/etc/xdg"  # XDG_CONFIG_DIRS when unset


def _home(env: Mapping[str, str]) -> Path:
    return Path(env["HOME"]) if env.get("HOME") else Path.home()


def pip_config_files(env: Mapping[str, str]) -> list[Path]:
    """pip's configuration files, lowest precedence first."""
    home = _home(env)
    xdg = env.get("XDG_CONFIG_HOME") or str(home / ".config")
    dirs = env["XDG_CONFIG_DIRS"].split(":") if env.get("XDG_CONFIG_DIRS") else [SYSTEM_CONFIG_DIR]
    files = [Path(d) / "pip" / "pip.conf" for d in dirs if d] + [Path("/etc/pip.conf"), home / ".pip" / "pip.conf",
                                                                 Path(xdg) / "pip" / "pip.conf"]
    if env.get("VIRTUAL_ENV"):
        files.append(Path(env["VIRTUAL_ENV"]) / "pip.conf")
    if env.get("PIP_CONFIG_FILE") and env["PIP_CONFIG_FILE"] != os.devnull:
        files.append(Path(env["PIP_CONFIG_FILE"]))
    return files


def pip_index_from_texts(texts: list[str]) -> str | None:
    """``index-url`` of pip configuration texts (lowest precedence first; the last one naming it wins)."""
    found = None
    for text in texts:
        parser = configparser.RawConfigParser()
        try:
            parser.read_string(text)
        except configparser.Error:
            continue
        for section in ("global", "download", "install"):
            if parser.has_option(section, "index-url"):
                found = parser.get(section, "index-url").strip() or found
    return found


def json_api_base(index_url: str) -> str | None:
    """The PyPI JSON API base next to a simple index: ``https://h/simple/`` → ``https://h/pypi``;
    ``https://h/root/pypi/+simple/`` (devpi) → ``https://h/root/pypi``; None for a ``file:`` index or no URL."""
    p = urlsplit(index_url.strip().split()[0] if index_url.strip() else "")
    if p.scheme not in ("http", "https") or not p.hostname:
        return None
    path = p.path.rstrip("/")
    if path.endswith("/+simple"):
        path = path[: -len("/+simple")]
    elif path.endswith("/simple"):
        path = path[: -len("/simple")] + "/pypi"
    elif not path.endswith("/pypi"):
        path = path + "/pypi"
    netloc = p.hostname + (f":{p.port}" if p.port else "")  # credentials never leave the user's config
    return urlunsplit((p.scheme, netloc, path, "", ""))


def npmrc_registry(texts: list[str]) -> str | None:
    """``registry=`` of npmrc texts (highest precedence first: the first one naming it wins)."""
    for text in texts:
        for line in text.splitlines():
            m = re.match(r"^\s*registry\s*=\s*(\S+)\s*$", line)
            if m and urlsplit(m.group(1)).scheme in ("http", "https"):
                return m.group(1).rstrip("/")
    return None


def _read(path: Path) -> str:
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            return fh.read(256 * 1024)
    except OSError:
        return ""


def pypi_base(env: Mapping[str, str] | None = None) -> tuple[str | None, str]:
    """(JSON API base or None, where it came from)."""
    env = os.environ if env is None else env
    if env.get("PIP_INDEX_URL"):
        return json_api_base(env["PIP_INDEX_URL"]), "PIP_INDEX_URL"
    files = pip_config_files(env)
    index = pip_index_from_texts([_read(f) for f in files])
    if index:
        return json_api_base(index), "pip configuration"
    return None, "default"


def npm_base(env: Mapping[str, str] | None = None) -> tuple[str | None, str]:
    env = os.environ if env is None else env
    for key in ("npm_config_registry", "NPM_CONFIG_REGISTRY"):
        if env.get(key) and urlsplit(env[key]).scheme in ("http", "https"):
            return env[key].rstrip("/"), key
    home = _home(env)
    prefix = env.get("PREFIX") or env.get("npm_config_prefix") or "/usr/local"
    files = [Path(env.get("NPM_CONFIG_USERCONFIG") or home / ".npmrc"), Path(env.get("NPM_CONFIG_GLOBALCONFIG") or
             Path(prefix) / "etc" / "npmrc"), Path("/etc/npmrc"), Path("/usr/etc/npmrc"), Path("/usr/local/etc/npmrc")]
    found = npmrc_registry([_read(f) for f in files])
    return (found, "npm configuration") if found else (None, "default")


# Hosts the public registries serve their archives from (a mirror's documents usually point at the mirror itself).
DEFAULT_FILE_HOSTS = ("https://files.pythonhosted.org", "https://static.crates.io")


def registry_base(settings: Any, key: str, env: Mapping[str, str] | None = None) -> str:
    """A registry's base URL as configured: skill3's own ``SKILL3_PYPI_URL`` / ``SKILL3_NPM_URL`` / … (setting, else
    environment), else (PyPI, npm) the user's pip / npm configuration, else the public service."""
    from skill3crawl.discovery.registries import DEFAULT_URLS, SETTINGS
    from skill3crawl.setting_values import setting_or_env

    given = setting_or_env(settings, SETTINGS[key], env)
    if given:
        return given
    if key == "pypi":
        found = pypi_base(env)[0]
    elif key == "npm":
        found = npm_base(env)[0]
    else:
        found = None
    return found or DEFAULT_URLS[key]


def registry_endpoints(settings: Any, env: Mapping[str, str] | None = None) -> list[str]:
    """The registry URLs the run asks (the network guard trusts their hosts for skill3's own calls)."""
    return [registry_base(settings, key, env) for key in ("pypi", "npm", "crates")] + list(DEFAULT_FILE_HOSTS)
