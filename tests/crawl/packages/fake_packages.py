"""Small packages of our own, built as real release archives, and a loopback registry serving them.

``widgetlib`` has three releases: 1.0.0 before the tests' cutoff (2026-01), 2.0.0 and 2.1.0 after it. Its API gains
(``new_feature``, ``extra``), loses (``old_helper``) and changes (``make``'s parameters, ``Widget.render``) functions;
its ``CHANGELOG.md`` has a section per release with Added / Changed / Removed / Deprecated headings; ``docs/`` holds a
Markdown page and a reStructuredText page with a ``versionadded`` directive. Importing ``widgetlib`` would write the
file ``trap`` names and raise: a run that imported it would leave that file behind.

Archives: sdists (``.tar.gz`` with the ``name-version/`` top folder) for 1.0.0 and 2.1.0, only a wheel (zip) for 2.0.0;
``npm_tarball`` builds an npm ``.tgz`` (``package/`` top folder). Hostile archives: :func:`hostile`.

The registry documents are PyPI's JSON API (``/pypi/NAME/json``: ``info``, ``releases`` with ``url``,
``packagetype``, ``digests.sha256``, ``upload_time_iso_8601``, ``yanked``; ``urls``) and npm's package document
(``versions[v].dist.tarball``, ``time``).
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import zipfile

from tests.mockserver import NOT_FOUND, MockServer

JSON = {"Content-Type": "application/json"}
CUTOFF = "2026-01"
DATES = {"1.0.0": "2025-06-01", "2.0.0": "2026-03-02", "2.1.0": "2026-09-15"}

CHANGELOG = {
    "1.0.0": "## 1.0.0 (2025-06-01)\n\n### Added\n\n- The first release: `make()` builds a widget and `old_helper()` "
             "lists the registered widgets for the default registry.\n",
    "2.0.0": "## 2.0.0 (2026-03-02)\n\n### Backwards-incompatible Changes\n\n- Widgets are immutable once built: set every "
             "attribute through `make()` and copy a widget with `Widget.evolve()` instead of assigning to it, which now "
             "raises an error that names the attribute.\n\n### Added\n\n- `new_feature()` frobnicates the widgets of a registry in parallel "
             "and returns them in their original order.\n\n### Changed\n\n- `make()` now takes a keyword-only `strict` flag, and "
             "its `size` default grows from 1 to 2 so that new widgets are readable.\n\n### Removed\n\n- `old_helper()` is "
             "removed: iterate over `Registry.widgets` instead of calling the helper.\n",
    "2.1.0": "## 2.1.0 (2026-09-15)\n\n### Added\n\n- `extra()` attaches extra metadata to a widget without copying the "
             "widget or its registry.\n\n### Changed\n\n- Rendering a widget wider than its registry's default width now "
             "wraps its label onto a second line instead of cutting it, and the registry remembers the width each widget "
             "was last rendered at so that a second render of the same widget costs nothing, even across processes that share one registry file on the same disk or on a network share.\n\n### Deprecated\n\n- The `strict` flag of `make()` is deprecated and will be removed "
             "in 3.0; validate widgets with `Widget.check()` instead.\n",
}

SOURCES = {
    "1.0.0": '''
__all__ = ["make", "old_helper", "Widget"]


def make(name, size=1):
    """Build a widget of the given size."""


def old_helper():
    """List the registered widgets."""


class Widget:
    """A widget."""

    def render(self, width):
        """Render the widget."""
''',
    "2.0.0": '''
__all__ = ["make", "new_feature", "Widget"]


def make(name, size=2, *, strict=False):
    """Build a widget of the given size."""


def new_feature(registry, workers=4):
    """Frobnicate the widgets of a registry in parallel. Returns them in order."""


class Widget:
    """A widget."""

    def render(self, width, height=None):
        """Render the widget."""
''',
}
SOURCES["2.1.0"] = SOURCES["2.0.0"].replace('"new_feature", "Widget"]', '"new_feature", "extra", "Widget"]') + '''

def extra(widget, **metadata):
    """Attach extra metadata to a widget."""
'''

DOCS_MD = "# Widgetlib\n\nWidgetlib builds widgets. Call `make()` with a name and a size to get one, then render it.\n"
DOCS_RST = """Usage
=====

Frobnicating
------------

.. versionadded:: 2.0
   ``new_feature()`` frobnicates the widgets of a registry in parallel, in worker threads.

Widgets are made with ``make()`` and rendered with ``Widget.render()``; each render is cached per width.
"""


def trap_code(trap: str) -> str:
    """Module code that, if ever imported, writes ``trap`` and fails."""
    return f"open({trap!r}, 'w').write('imported')\nraise RuntimeError('widgetlib was imported')\n"


def release_files(version: str, trap: str) -> dict[str, str]:
    changelog = "# Changelog\n\n" + "\n".join(CHANGELOG[v] for v in sorted(DATES, reverse=True) if v <= version)
    return {
        "PKG-INFO": f"Metadata-Version: 2.1\nName: widgetlib\nVersion: {version}\n",
        "CHANGELOG.md": changelog,
        "README.md": f"# widgetlib {version}\n\nWidgets for everyone: build, render and frobnicate widgets.\n",
        "docs/index.md": DOCS_MD,
        "docs/usage.rst": DOCS_RST,
        "src/widgetlib/__init__.py": trap_code(trap) + SOURCES[version],
        "tests/test_widgets.py": "def test_nothing():\n    assert False\n",
        "setup.py": trap_code(trap),
    }


def sdist(name: str, version: str, files: dict[str, str]) -> bytes:
    return _tgz(f"{name}-{version}", files)


def wheel(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, text in files.items():
            zf.writestr(path.removeprefix("src/"), text)
    return buf.getvalue()


def npm_tarball(files: dict[str, str]) -> bytes:
    return _tgz("package", files)


def _tgz(top: str, files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for path, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{top}/{path}")
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def hostile(kind: str) -> bytes:
    """An sdist that must be refused: ``traversal``, ``symlink``, ``bomb`` (2 MiB of zeros: over a 1 MiB unpacked cap)
    or ``members`` (50 members: over a cap of 20)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        def add(name: str, data: bytes) -> None:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))

        add("widgetlib-2.1.0/CHANGELOG.md", b"# Changelog\n\n## 2.1.0\n\n- hostile\n")
        if kind == "traversal":
            add("widgetlib-2.1.0/../../escaped.txt", b"outside")
        elif kind == "symlink":
            link = tarfile.TarInfo("widgetlib-2.1.0/docs/passwd.md")
            link.type = tarfile.SYMTYPE
            link.linkname = "/etc/passwd"
            tf.addfile(link)
        elif kind == "bomb":
            add("widgetlib-2.1.0/docs/zeros.md", b"\0" * (2 * 1024 * 1024))
        elif kind == "members":
            for i in range(50):
                add(f"widgetlib-2.1.0/docs/p{i}.md", b"# page\n")
    return buf.getvalue()


class PackageRegistry:
    """Routes of a loopback PyPI (``/pypi/NAME/json``, files under ``/files/``) and npm (``/npm/NAME``, ``/npm-files/``).
    ``archives``: file name → bytes; ``docs``: the Documentation URL the PyPI document names."""

    def __init__(self, trap: str, docs: str = "http://docs.widgetlib.test/", hostile_kind: str | None = None) -> None:
        self.trap = trap
        self.docs = docs
        self.archives: dict[str, bytes] = {}
        self.base = ""
        for v in DATES:
            files = release_files(v, trap)
            if v == "2.0.0":
                self.archives[f"widgetlib-{v}-py3-none-any.whl"] = wheel(files)
            else:
                self.archives[f"widgetlib-{v}.tar.gz"] = sdist("widgetlib", v, files)
        if hostile_kind:
            self.archives["widgetlib-2.1.0.tar.gz"] = hostile(hostile_kind)
        for v in ("1.0.0", "2.1.0"):
            self.archives[f"gadgets-{v}.tgz"] = npm_tarball({
                "package.json": json.dumps({"name": "gadgets", "version": v}),
                "CHANGELOG.md": "# Changelog\n\n" + ("## 2.1.0 (2026-09-15)\n\n### Added\n\n- `gadget.spin()` spins a gadget "
                                                     "around its axis at the given speed, in revolutions per second, and "
                                                     "returns the gadget so that calls can be chained.\n\n### Removed\n\n- "
                                                     "`gadget.twirl()` is removed: call `gadget.spin()` with a negative speed "
                                                     "to turn the other way.\n\n" if v == "2.1.0" else "")
                + "## 1.0.0 (2025-06-01)\n\n- First release of the gadgets: `gadget.twirl()` turns a gadget once around "
                  "its axis, and gadgets can be grouped into sets.\n",
                "README.md": "# gadgets\n\nGadgets that spin. Create a gadget, spin it at any speed and group gadgets into "
                             "sets that spin together; every gadget keeps its own axis and speed.\n",
                "index.d.ts": ("/** Spin a gadget around its axis. */\nexport declare function spin(speed: number, clockwise?: boolean): "
                               "Gadget;\nexport interface Gadget { id: string; }\n" if v == "2.1.0" else
                               "export declare function spin(speed: number): Gadget;\nexport declare function twirl(): void;\n"
                               "export interface Gadget { id: string; }\n"),
            })

    def pypi_document(self) -> dict:
        releases = {}
        for v, d in DATES.items():
            fname = next(f for f in self.archives if f.startswith(f"widgetlib-{v}"))
            data = self.archives[fname]
            releases[v] = [{"filename": fname, "packagetype": "bdist_wheel" if fname.endswith(".whl") else "sdist",
                            "python_version": "py3" if fname.endswith(".whl") else "source", "size": len(data),
                            "digests": {"sha256": hashlib.sha256(data).hexdigest(), "md5": hashlib.md5(data).hexdigest()},
                            "upload_time": d + "T10:00:00", "upload_time_iso_8601": d + "T10:00:00.000000Z",
                            "url": f"{self.base}/files/{fname}", "yanked": False, "yanked_reason": None}]
        return {"info": {"name": "widgetlib", "version": "2.1.0", "summary": "Widgets", "home_page": None, "docs_url": None,
                         "project_urls": {"Documentation": self.docs}, "requires_python": ">=3.9", "yanked": False},
                "last_serial": 1, "releases": releases, "urls": releases["2.1.0"], "vulnerabilities": []}

    def npm_document(self) -> dict:
        versions = {v: {"name": "gadgets", "version": v, "dist": {"tarball": f"{self.base}/npm-files/gadgets-{v}.tgz",
                                                                   "shasum": hashlib.sha1(self.archives[f"gadgets-{v}.tgz"]).hexdigest()}}
                    for v in ("1.0.0", "2.1.0")}
        return {"_id": "gadgets", "name": "gadgets", "dist-tags": {"latest": "2.1.0"}, "versions": versions,
                "time": {"created": "2025-06-01T00:00:00.000Z", "modified": "2026-09-15T00:00:00.000Z",
                         "1.0.0": "2025-06-01T12:00:00.000Z", "2.1.0": "2026-09-15T12:00:00.000Z"}}

    def __call__(self, srv: MockServer, host: str, path: str, query: dict, body: bytes):
        self.base = self.base or f"http://127.0.0.1:{srv.port}"
        if path in ("/pypi/widgetlib/json", "/pypi/widgetlib/json/"):
            return 200, JSON, json.dumps(self.pypi_document())
        if path == "/npm/gadgets":
            return 200, JSON, json.dumps(self.npm_document())
        if path.startswith(("/files/", "/npm-files/")):
            data = self.archives.get(path.rsplit("/", 1)[-1])
            if data is not None:
                return 200, {"Content-Type": "application/octet-stream"}, data
        if path.startswith(("/pypi/", "/npm/")):
            return 404, JSON, json.dumps({"message": "Not Found"})
        return NOT_FOUND
