"""Settings and defaults: Scrapy's precedence for values that may also come from the environment;
settings.py only overrides Scrapy's defaults."""

from __future__ import annotations

import pytest
from scrapy.settings import Settings, default_settings

from skill3crawl import settings as project_settings
from skill3crawl.discovery import brave
from skill3crawl.discovery.search import BraveProvider, SearXNGProvider, configured_provider
from skill3crawl.netguard import trusted_endpoints
from skill3crawl.setting_values import setting_or_env

SET, ENV = "http://127.0.0.1:8801/res/v1/web/search", "http://127.0.0.1:8802/res/v1/web/search"


@pytest.mark.parametrize(
    "setting, env, expected",
    [
        (SET, ENV, SET),  # -s NAME=… beats the environment, as every Scrapy setting does
        (None, ENV, ENV),  # the environment is the fallback
        (SET, None, SET),
        (None, None, None),
        ("", ENV, None),  # set empty on the command line: off, whatever the environment says
        ("  ", None, None),
    ],
)
def test_setting_or_env(setting: str | None, env: str | None, expected: str | None) -> None:
    s = Settings()
    if setting is not None:
        s.set("BRAVE_SEARCH_URL", setting, priority="cmdline")
    environ = {} if env is None else {"BRAVE_SEARCH_URL": env}
    assert setting_or_env(s, "BRAVE_SEARCH_URL", environ) == expected
    assert setting_or_env(None, "BRAVE_SEARCH_URL", environ) == (env or None)


@pytest.mark.parametrize(
    "setting, env, endpoint, trusted, untrusted",
    [
        (SET, ENV, SET, ("127.0.0.1", 8801), ("127.0.0.1", 8802)),
        (None, ENV, ENV, ("127.0.0.1", 8802), ("127.0.0.1", 8801)),
        (None, None, brave.DEFAULT_URL, ("api.search.brave.com", 443), ("127.0.0.1", 8802)),
    ],
    ids=["setting-wins", "env-fallback", "default"],
)
def test_brave_search_url_precedence(monkeypatch: pytest.MonkeyPatch, setting: str | None, env: str | None, endpoint: str,
                                     trusted: tuple[str, int], untrusted: tuple[str, int]) -> None:
    """The provider and the network guard agree on the one search endpoint, the setting first."""
    monkeypatch.delenv("SEARXNG_URL", raising=False)
    if env is None:
        monkeypatch.delenv("BRAVE_SEARCH_URL", raising=False)
    else:
        monkeypatch.setenv("BRAVE_SEARCH_URL", env)
    s = Settings({} if setting is None else {"BRAVE_SEARCH_URL": setting})
    provider = configured_provider(s, "key")
    assert isinstance(provider, BraveProvider) and provider.endpoint == endpoint
    endpoints = trusted_endpoints(s, proxies=False)
    assert trusted in endpoints and untrusted not in endpoints


def test_searxng_url_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEARXNG_URL", "http://127.0.0.1:8812/")
    s = Settings({"SEARXNG_URL": "http://127.0.0.1:8811/"})
    provider = configured_provider(s, None)
    assert isinstance(provider, SearXNGProvider) and provider.endpoint == "http://127.0.0.1:8811/"
    assert ("127.0.0.1", 8811) in trusted_endpoints(s, proxies=False)
    assert ("127.0.0.1", 8812) not in trusted_endpoints(s, proxies=False)
    assert configured_provider(Settings({"SEARXNG_URL": ""}), None) is None  # -s SEARXNG_URL= turns it off


def _project_settings() -> list[str]:
    return [name for name in dir(project_settings) if name.isupper()]


@pytest.mark.parametrize("name", _project_settings())
def test_project_settings_only_override_scrapy(name: str) -> None:
    """Every project setting is one of Scrapy's and differs from its default; skill3's own settings
    (SKILL3_*) have their defaults in the components that read them."""
    assert hasattr(default_settings, name), f"{name} is not a Scrapy setting: its default belongs in the component"
    assert getattr(project_settings, name) != getattr(default_settings, name), f"{name} restates Scrapy's default"


def test_no_depth_limit_setting() -> None:
    """The link-hop limit is the spider argument depth_limit; Scrapy's DEPTH_LIMIT stays off."""
    assert not hasattr(project_settings, "DEPTH_LIMIT")
