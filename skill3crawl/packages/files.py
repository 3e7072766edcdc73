"""What a file in a release archive is, and the HTML page the crawl's extraction reads of it.

Roles (:func:`file_role`, on the path relative to the archive's top folder):

* ``changes``: change records — ``CHANGELOG``/``CHANGES``/``HISTORY``/``NEWS``/``RELEASE-NOTES``/``WHATSNEW``
  files (any case, ``.md``/``.rst``/``.txt``/``.markdown`` or no suffix) at the top or in the docs folder, every
  file of a ``changelog.d``-style folder (towncrier's ``changes/``, ``newsfragments/``), and docs pages named
  ``changelog*``, ``changes*``, ``history*``, ``whatsnew*``/``whats-new*``, ``release-notes*``/``releases*``;
* ``readme``: the top-level README;
* ``docs``: the other Markdown, reStructuredText and text pages under ``docs/``, ``doc/`` or ``documentation/``;
* ``python``: ``.py``/``.pyi`` sources for the API delta (never tests, examples, docs, benchmarks or build scripts);
* ``types``: TypeScript declarations (``.d.ts``) for the API delta of npm packages.

Markdown and text become HTML through :func:`skill3crawl.corpus.markdown_to_html` (as ``--input-file`` pages
do); reStructuredText through docutils with file insertion and raw HTML off, and Sphinx's version directives
(``versionadded``, ``versionchanged``, ``deprecated``, ``versionremoved``) written as the "New in version X"
sentences the version markers read.
"""

from __future__ import annotations

import html as html_lib
import io
import re
from typing import Any

from skill3crawl.corpus import markdown_to_html

TEXT_SUFFIXES = ("", ".md", ".markdown", ".rst", ".txt")
_CHANGE_STEMS = re.compile(r"^(?:change[-_ ]?log|changes|history|news|release[-_ ]?notes|releases|whats[-_]?new)"
                           r"(?:[-_.][\w.-]*)?$", re.I)
_FRAGMENT_DIRS = {"changelog.d", "changes.d", "newsfragments", "news.d", "changelog", "changes", "whatsnew", "release-notes",
                  "release_notes", "releases", ".changeset"}
_DOC_DIRS = ("docs", "doc", "documentation")
_NOT_API = {"tests", "test", "testing", "examples", "example", "docs", "doc", "benchmarks", "benchmark", "bench", "scripts",
            "tools", "build", "dist", "node_modules", "site-packages", "__pycache__", "conftest.py", "setup.py", "noxfile.py",
            "fabfile.py", "tasks.py", "docs_src", "tutorial", "samples"}
_SKIP_DIRS = {"node_modules", ".git", ".github", "__pycache__", "_build", "site-packages"}
MAX_TEXT_BYTES = 2 * 1024 * 1024


def _split(path: str) -> tuple[list[str], str, str]:
    parts = path.split("/")
    name = parts[-1]
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        stem, ext = name, ""
    return parts[:-1], stem, ("." + ext.lower()) if ext else ""


def file_role(path: str) -> str | None:
    """``changes``, ``readme``, ``docs``, ``python`` or None (see the module doc)."""
    folders, stem, ext = _split(path)
    if any(f in _SKIP_DIRS or f.startswith(".") and f != ".changeset" for f in folders):
        return None
    if path.endswith(".d.ts"):
        return None if any(p.lower() in _NOT_API or p == "__tests__" for p in folders) else "types"
    if ext in (".py", ".pyi"):
        if any(p.lower() in _NOT_API for p in [*folders, stem + ext]) or any(p.endswith(".dist-info") or p.endswith(".egg-info")
                                                                            for p in folders):
            return None
        return "python"
    if ext not in TEXT_SUFFIXES or stem.startswith("."):
        return None
    top = folders[0].lower() if folders else ""
    in_docs = top in _DOC_DIRS
    if not folders and stem.lower() == "readme":
        return "readme"
    if _CHANGE_STEMS.match(stem) and (not folders or in_docs):
        return "changes"
    if folders and folders[-1].lower() in _FRAGMENT_DIRS and (len(folders) == 1 or in_docs) and ext \
            and not re.search(r"(?i)template|^readme$", stem):
        return "changes"
    if in_docs and ext:
        return "docs"
    return None


API_ROLES = ("python", "types")


def wanted(path: str, api: bool = True) -> bool:
    role = file_role(path)
    return role is not None and (api or role not in API_ROLES)


def decode(body: bytes) -> str:
    text = body.decode("utf-8", "replace")
    return text.removeprefix("\ufeff")


def is_rst(path: str, text: str) -> bool:
    """reStructuredText: by suffix, or (no suffix / .txt) a title underlined with ``===``/``---``/``~~~``."""
    ext = _split(path)[2]
    if ext == ".rst":
        return True
    if ext in ("", ".txt"):
        return bool(re.search(r"^\S.*\n[=\-~^\"'`#*+]{3,}\s*$", text[:20_000], re.M)) and not re.search(r"^#{1,6} ", text[:20_000], re.M)
    return False


def page_html(path: str, body: bytes, title: str) -> str:
    """The file as an HTML page (see the module doc)."""
    text = decode(body[:MAX_TEXT_BYTES])
    if is_rst(path, text):
        html = rst_to_html(text, title)
        if html is not None:
            return html
    return markdown_to_html(text, title)


_VERSION_DIRECTIVES = {"versionadded": "New in version", "versionchanged": "Changed in version",
                       "deprecated": "Deprecated since version", "versionremoved": "Removed in version"}


def _directives() -> None:
    """Sphinx's version directives as docutils directives (registered once)."""
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives

    if getattr(_directives, "done", False):
        return

    class VersionDirective(Directive):
        required_arguments = 1
        optional_arguments = 1
        final_argument_whitespace = True
        has_content = True

        def run(self) -> list[Any]:
            words = _VERSION_DIRECTIVES[self.name]
            version, _, rest = " ".join(self.arguments).partition(" ")
            para = nodes.paragraph(text=f"{words} {version}: {rest}".rstrip(": ") + (":" if not rest else ""))
            box = nodes.container()
            box += para
            if self.content:
                self.state.nested_parse(self.content, self.content_offset, box)
            return [box]

    for name in _VERSION_DIRECTIVES:
        directives.register_directive(name, VersionDirective)
    _directives.done = True  # type: ignore[attr-defined]


def rst_to_html(text: str, title: str) -> str | None:
    """docutils' HTML of a reStructuredText text (no file insertion, no raw HTML, nothing reported); None when it fails."""
    try:
        from docutils.core import publish_parts
    except ImportError:  # pragma: no cover - docutils is a dependency
        return None
    _directives()
    settings = {"file_insertion_enabled": False, "raw_enabled": False, "report_level": 5, "halt_level": 5,
                "warning_stream": io.StringIO(), "input_encoding": "unicode", "_disable_config": True,
                "syntax_highlight": "none", "embed_stylesheet": False, "doctitle_xform": False}
    try:
        parts = publish_parts(text, writer="html5", settings_overrides=settings)
    except Exception:  # noqa: BLE001 - docutils raises many kinds on odd input: the text goes the markdown way
        return None
    head = f"<title>{html_lib.escape(title)}</title>" if title else ""
    return f"<html><head>{head}</head><body><main>{parts['body']}</main></body></html>"
