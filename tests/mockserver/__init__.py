"""Loopback HTTP servers for the tests: one :class:`MockServer` and its route tables.

* :mod:`tests.mockserver.web` — a small offline web (virtual hosts, Brave search API);
* :mod:`tests.mockserver.docsites` — generated documentation sites (Sphinx, MkDocs, Docusaurus, changelogs);
* :mod:`tests.mockserver.openai` — an OpenAI-compatible chat API, scripted (``StubLLM`` serves it).
"""

from __future__ import annotations

from typing import Callable

from tests.mockserver.docsites import BUILD_DATE, CHANGELOG_MD, bind, change_site, generated_site, html, sphinx_page
from tests.mockserver.openai import Answer, OpenAIRoutes, llm_routes
from tests.mockserver.server import MockServer, Reply, Route, Seen
from tests.mockserver.web import HTML, NOT_FOUND, PROSE, brave_rejecting, brave_routes, page, prose, site_routes


class StubLLM(MockServer):
    """A :class:`MockServer` serving :class:`OpenAIRoutes`; ``url`` is the API base (``…/v1``)."""

    def __init__(self, default: Callable[[dict], Answer] | Answer | None = None) -> None:
        self.api = OpenAIRoutes(default)
        super().__init__(self.api, name="llm")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def script(self) -> list[Answer]:
        return self.api.script

    @script.setter
    def script(self, answers: list[Answer]) -> None:
        self.api.script = list(answers)

    @property
    def requests(self) -> list[dict]:
        return self.api.requests

    def chat_requests(self) -> list[dict]:
        return [r for r in self.requests if r["path"].endswith("/chat/completions")]


__all__ = [
    "BUILD_DATE", "CHANGELOG_MD", "HTML", "NOT_FOUND", "PROSE", "Answer", "MockServer", "OpenAIRoutes", "Reply", "Route", "Seen",
    "StubLLM", "bind", "brave_rejecting", "brave_routes", "change_site", "generated_site", "html", "llm_routes", "page", "prose",
    "site_routes", "sphinx_page",
]
