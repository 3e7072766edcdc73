"""The package source's pure parts: archives read within bounds, file roles, the user's registries, release
selection, the static API delta (skill3crawl.packages)."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from datetime import date
from pathlib import Path

import pytest

from skill3crawl.packages import userconfig
from skill3crawl.packages.apidelta import api_changes, describe_change, first_sentence, load_api, normalize_annotation
from skill3crawl.packages.archive import ArchiveError, Limits, read_archive, safe_member_path
from skill3crawl.packages.artifacts import ArchiveRef, npm_archives, pypi_archives, select_releases
from skill3crawl.packages.files import file_role, page_html, wanted
from skill3crawl.packages.spider import api_entry, read_gaps
from tests.crawl.packages.fake_packages import SOURCES, PackageRegistry, hostile, release_files, sdist, wheel


def tar_of(members: list[tarfile.TarInfo | tuple[str, bytes]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for m in members:
            if isinstance(m, tarfile.TarInfo):
                tf.addfile(m)
            else:
                info = tarfile.TarInfo(m[0])
                info.size = len(m[1])
                tf.addfile(info, io.BytesIO(m[1]))
    return buf.getvalue()


def link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info


def device(name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.CHRTYPE
    return info


@pytest.mark.parametrize("data, says", [
    (tar_of([("p-1/../../x", b"x")]), "path traversal"),
    (tar_of([("/etc/cron.d/x", b"x")]), "absolute path"),
    (tar_of([("p-1/README.md", b"x"), link("p-1/docs/a.md", "/etc/passwd")]), "link outside the archive"),
    (tar_of([("p-1/README.md", b"x"), link("p-1/docs/a.md", "../../../etc/passwd")]), "link outside the archive"),
    (tar_of([("p-1/README.md", b"x"), device("p-1/dev")]), "device or FIFO"),
    (tar_of([("p-1/big.md", b"\0" * (2 * 1024 * 1024))]), "decompression bomb"),
    (tar_of([(f"p-1/{i}.md", b"x") for i in range(30)]), "more than 20 members"),
    (b"not an archive at all", "not a tar or zip archive"),
    (b"\x1f\x8b" + b"\0" * 40, "unreadable tar archive"),
], ids=lambda v: v if isinstance(v, str) else "archive")  # ids from the bytes would hold the gzip header's time
def test_hostile_archives_are_refused(data, says):
    with pytest.raises(ArchiveError, match=says):
        read_archive(data, lambda p: True, Limits(max_unpacked=1024 * 1024, max_members=20))


def zip_of(members: list[tuple[str, bytes]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, body in members:
            zf.writestr(name, body)
    return buf.getvalue()


@pytest.mark.parametrize("pack", [tar_of, zip_of], ids=["tar", "zip"])
def test_a_wanted_member_over_the_member_cap_is_skipped_and_counted(pack):
    """tar and zip keep the same members: wanted within the cap kept, wanted over it counted, unwanted left alone."""
    data = pack([("p-1/README.md", b"r" * 100), ("p-1/CHANGES.md", b"c" * 101), ("p-1/setup.py", b"s" * 500),
                 ("p-1/docs/a.md", b"a" * 99)])
    got = read_archive(data, lambda p: p.endswith(".md"), Limits(max_member=100))
    assert sorted(got.files) == ["README.md", "docs/a.md"]
    assert got.too_large == 1 and got.top == "p-1"


def test_zip_symlinks_and_bombs_are_refused():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        info = zipfile.ZipInfo("pkg/link.md")
        info.external_attr = (0o120777 << 16)
        zf.writestr(info, "/etc/passwd")
    with pytest.raises(ArchiveError, match="symbolic link"):
        read_archive(buf.getvalue(), lambda p: True)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("pkg/zeros.md", b"\0" * (8 * 1024 * 1024))
    with pytest.raises(ArchiveError, match="expands"):
        read_archive(buf.getvalue(), lambda p: True)


def test_download_cap_and_internal_links_skipped():
    data = tar_of([("p-1/README.md", b"# hi"), link("p-1/docs/readme.md", "../README.md")])
    with pytest.raises(ArchiveError, match="over the 0 MiB cap"):
        read_archive(data, lambda p: True, Limits(max_download=10))
    archive = read_archive(data, lambda p: True)
    assert archive.files == {"README.md": b"# hi"} and archive.links_skipped == 1 and archive.top == "p-1"


@pytest.mark.parametrize("name, ok", [("a/b/../c", "a/c"), ("./a", "a"), ("a\\..\\b", None), ("C:/x", None), ("../a", None)])
def test_safe_member_path(name, ok):
    if ok is None:
        with pytest.raises(ArchiveError):
            safe_member_path(name)
    else:
        assert safe_member_path(name) == ok


def test_sdist_and_wheel_are_read_relative_to_their_top(tmp_path):
    files = release_files("2.1.0", str(tmp_path / "trap"))
    for data in (sdist("widgetlib", "2.1.0", files), wheel(files)):
        archive = read_archive(data, wanted)
        assert "CHANGELOG.md" in archive.files
        assert any(p.endswith("widgetlib/__init__.py") for p in archive.files)
        assert not any(p.startswith("tests/") or p == "setup.py" for p in archive.files)


@pytest.mark.parametrize("path, role", [
    ("CHANGELOG.md", "changes"), ("CHANGES.rst", "changes"), ("HISTORY", "changes"), ("NEWS.txt", "changes"),
    ("docs/changelog.md", "changes"), ("docs/whatsnew/3.2.rst", "changes"), ("docs/release-notes.md", "changes"),
    ("changelog.d/1234.feature.md", "changes"), ("README.md", "readme"), ("README.rst", "readme"), ("docs/usage.rst", "docs"),
    ("docs/guide/intro.md", "docs"), ("src/pkg/__init__.py", "python"), ("pkg/mod.pyi", "python"),
    ("tests/test_x.py", None), ("setup.py", None), ("docs/conf.py", None), ("examples/demo.py", None), ("pkg/README.md", None),
    ("docs/logo.png", None), ("node_modules/x/CHANGELOG.md", None), ("pkg-1.0.dist-info/METADATA", None),
    ("changelog.d/towncrier_template.rst", None),
])
def test_file_roles(path, role):
    assert file_role(path) == role


def test_rst_pages_keep_version_directives_and_never_include_files(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    text = (f"Title\n=====\n\n.. versionadded:: 2.0\n   ``f()`` is new.\n\n.. include:: {secret}\n\n"
            ".. raw:: html\n\n   <script>alert(1)</script>\n")
    html = page_html("docs/x.rst", text.encode(), "x")
    assert "New in version 2.0" in html and "TOP SECRET" not in html and "<script>" not in html


@pytest.mark.parametrize("env, files, expected", [
    ({"PIP_INDEX_URL": "https://mirror.corp/simple/"}, {}, "https://mirror.corp/pypi"),
    ({"PIP_INDEX_URL": "https://user:pw@devpi.corp/root/pypi/+simple/"}, {}, "https://devpi.corp/root/pypi"),
    ({}, {"pip.conf": "[global]\nindex-url = http://10.0.0.5:3141/simple\n"}, "http://10.0.0.5:3141/pypi"),
    ({}, {"pip.conf": "[global]\nextra-index-url = file:///opt/pypi/simple\n"}, None),
    ({"PIP_INDEX_URL": "file:///opt/pypi/simple"}, {}, None),
])
def test_pip_index(tmp_path, env, files, expected):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    full = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_DIRS": str(tmp_path / "none"), **env}
    if files:
        full["PIP_CONFIG_FILE"] = str(tmp_path / "pip.conf")
    assert userconfig.pypi_base(full)[0] == expected


def test_npm_registry(tmp_path):
    (tmp_path / ".npmrc").write_text("fund=false\nregistry=https://npm.corp/repository/npm/\n")
    assert userconfig.npm_base({"HOME": str(tmp_path)})[0] == "https://npm.corp/repository/npm"
    assert userconfig.npm_base({"HOME": str(tmp_path), "npm_config_registry": "http://10.1.1.1:4873/"})[0] == "http://10.1.1.1:4873"
    assert userconfig.registry_base(None, "npm", {"HOME": str(tmp_path / "x")}) == "https://registry.npmjs.org"
    assert userconfig.registry_base(None, "pypi", {"HOME": str(tmp_path), "SKILL3_PYPI_URL": "http://a/pypi",
                                                   "PIP_INDEX_URL": "http://b/simple"}) == "http://a/pypi"


def _ref(v: str, d: str) -> ArchiveRef:
    return ArchiveRef(v, d, f"https://f/{v}.tar.gz", f"{v}.tar.gz", "sdist")


@pytest.mark.parametrize("versions, since, limit, baseline, after", [
    ({"1.0": "2025-01-01", "1.1": "2025-06-01", "2.0rc1": "2026-02-01", "2.0": "2026-03-01", "2.1": "2026-05-01",
      "2.2": "2026-07-01", "3.0": "2026-09-01", "3.0.1": "2026-10-01"}, None, 8, "1.1", ["2.0", "2.1", "2.2", "3.0", "3.0.1"]),
    ({"1.0": "2025-01-01", "1.1": "2025-06-01", "2.0": "2026-03-01", "2.1": "2026-05-01", "3.0": "2026-09-01"}, None, 3,
     "1.1", ["2.0", "3.0"]),
    ({"1.0": "2025-01-01", "2.0": "2026-03-01", "3.0": "2026-09-01"}, "2.0", 8, "2.0", ["3.0"]),
    ({"1.0": "2025-01-01"}, None, 8, "1.0", []),
    ({"2.0rc1": "2026-02-01", "1.0": "2025-01-01"}, None, 8, "1.0", ["2.0rc1"]),  # no final after: the pre-release
])
def test_select_releases(versions, since, limit, baseline, after):
    sel = select_releases([_ref(v, d) for v, d in versions.items()], date(2026, 1, 1), since, limit)
    assert (sel.baseline.version if sel.baseline else None) == baseline
    assert [r.version for r in sel.after] == after


def test_registry_documents_name_their_archives(tmp_path):
    reg = PackageRegistry(str(tmp_path / "trap"))
    reg.base = "http://r"
    import json

    py = {r.version: (r.kind, r.date) for r in pypi_archives(json.dumps(reg.pypi_document()), "http://r/pypi/widgetlib/json")}
    assert py == {"1.0.0": ("sdist", "2025-06-01"), "2.0.0": ("wheel", "2026-03-02"), "2.1.0": ("sdist", "2026-09-15")}
    npm = npm_archives(json.dumps(reg.npm_document()), "http://r/npm/gadgets")
    assert [(r.version, r.url) for r in npm] == [("1.0.0", "http://r/npm-files/gadgets-1.0.0.tgz"),
                                                 ("2.1.0", "http://r/npm-files/gadgets-2.1.0.tgz")]


def test_api_delta_is_static(tmp_path):
    trap = tmp_path / "trap"
    snaps = []
    for v in ("1.0.0", "2.0.0"):
        folder = tmp_path / v / "src" / "widgetlib"
        folder.mkdir(parents=True)
        (folder / "__init__.py").write_text(f"open({str(trap)!r}, 'w')\n" + SOURCES[v])
        snaps.append((v, load_api(tmp_path / v, "widgetlib")))
    assert not trap.exists()
    changes = {(c.kind, c.path): c for c in api_changes(snaps)}
    assert set(changes) == {("added", "widgetlib.new_feature"), ("removed", "widgetlib.old_helper"),
                            ("changed", "widgetlib.make"), ("changed", "widgetlib.Widget.render")}
    assert changes[("added", "widgetlib.new_feature")].doc == "Frobnicate the widgets of a registry in parallel."
    assert changes[("changed", "widgetlib.make")].detail == "parameters added: `strict`; parameters changed: `size=1` → `size=2`"


@pytest.mark.parametrize("before, after, says", [
    ("f(a: Optional[int] = None)", "f(a: int | None = None)", None),
    ("f(a: List[Dict[str, int]])", "f(a: list[dict[str, int]])", None),
    ("f(a, b=1)", "f(a, b=2)", "changed: `b=1` → `b=2`"),
    ("class A(B)", "class A(C)", "`class A(B)` → `class A(C)`"),
])
def test_signature_changes(before, after, says):
    from skill3crawl.packages.apidelta import shape

    norm = normalize_annotation
    if says is None:
        assert norm(before) == norm(after) or shape(before) == shape(after)
    else:
        assert says in describe_change(before, after)


def test_first_sentence_and_entry_text():
    assert first_sentence("Do it. Then more.\n\nDetails.") == "Do it."
    entry = api_entry({"kind": "added", "path": "p.f", "module": "p", "version": "2.0", "after": "f(a)", "before": "",
                       "detail": "", "doc": "Do it."}, "p", {"2.0": "2026-03-01"}, since="1.0")
    assert entry["api"] == "p.f" and entry["date"] == "2026-03-01" and entry["path"] == ["p API", "p"]
    assert "from the package's public API" in entry["text"] and "after 1.0" in entry["text"] and '"Do it."' in entry["text"]
    moved = api_entry({"kind": "changed", "path": "p.sub", "module": "p.sub", "version": "2.0", "after": "", "before": "",
                       "detail": "2 objects moved to `p.v1.sub`: `a`, `b`", "doc": ""}, "p", {})
    assert moved["text"] == "`p.sub` changed: 2 objects moved to `p.v1.sub`: `a`, `b` (from the package's public API)."


def test_read_gaps():
    assert read_gaps(["1.0", "2.0", "2.1"], ["1.0", "1.5", "2.0", "2.1", "2.1rc1"]) == {"2.0": "1.0"}


def test_hostile_fixture_is_hostile():
    for kind in ("traversal", "symlink", "bomb", "members"):
        with pytest.raises(ArchiveError):
            read_archive(hostile(kind), wanted, Limits(max_unpacked=1024 * 1024, max_members=20))
    assert Path  # the module imports stay used


CHANGES_MD = """# Changelog

## 3.0.0 (2026-05-01)

- `pkg.spin()` is new.

## 2.5.0

- Speed.

## 2.1.0 (2026-02-01)

- Added `Widget.check()` and `frob(` helpers.

Older
=====

2.0.0
-----

- `spin` mentioned in a release the gap does not cover.
"""


@pytest.mark.parametrize("path, after, upto, expected", [
    ("pkg.spin", "2.0.0", "3.0.0", "3.0.0"),
    ("pkg.Widget.check", "2.0.0", "3.0.0", "2.1.0"),
    ("pkg.frob", "2.0.0", "3.0.0", "2.1.0"),
    ("pkg.spin", "1.0.0", "2.1.0", "2.0.0"),
    ("pkg.nothing", "2.0.0", "3.0.0", None),
])
def test_release_naming(path, after, upto, expected):
    from skill3crawl.packages.changelog import release_naming, version_sections

    sections = version_sections(CHANGES_MD, ["1.0.0", "2.0.0", "2.1.0", "2.5.0", "3.0.0"])
    assert [v for v, _ in sections] == ["3.0.0", "2.5.0", "2.1.0", "2.0.0"]
    assert release_naming(sections, path, after, upto) == expected


def test_typescript_declarations_are_compared(tmp_path):
    from skill3crawl.packages.tsdelta import load_ts_api, module_name

    old, new = tmp_path / "1", tmp_path / "2"
    (old / "lib").mkdir(parents=True)
    (new / "lib").mkdir(parents=True)
    (old / "index.d.ts").write_text("export declare function spin(speed: number): void;\nexport declare function twirl(): void;\n"
                                    "export declare class Box extends Base { constructor(a: number); private hidden(): void; }\n"
                                    "declare function internal(): void;\n")
    (new / "index.d.ts").write_text("/** Spin a gadget. Fast. */\nexport declare function spin(speed: number, cw?: boolean): void;\n"
                                    "export declare class Box extends Base { constructor(a: number, b: string); add(x: number): this; }\n"
                                    "export type Speed = number;\n")
    (new / "lib" / "util.d.ts").write_text("/** Wobble it. */\nexport declare function wobble(): void;\n")
    (new / "node_modules").mkdir()
    (new / "node_modules" / "x.d.ts").write_text("export declare function notOurs(): void;\n")
    snaps = [("1.0", load_ts_api(old, "gadgets")), ("2.0", load_ts_api(new, "gadgets"))]
    changes = {(c.kind, c.path): c for c in api_changes(snaps)}
    assert set(changes) == {("removed", "gadgets.twirl"), ("changed", "gadgets.spin"), ("changed", "gadgets.Box"),
                            ("added", "gadgets.Box.add"), ("added", "gadgets.Speed"), ("added", "gadgets/lib/util.wobble")}
    assert changes[("changed", "gadgets.spin")].detail == "parameters added: `cw`"
    assert changes[("changed", "gadgets.spin")].doc == "Spin a gadget."
    assert changes[("added", "gadgets/lib/util.wobble")].module == "gadgets/lib/util"
    assert module_name("index.d.ts", "p") == "p" and module_name("lib/a.d.ts", "p") == "p/lib/a"


def test_a_baseline_without_a_readable_api_gives_no_delta(tmp_path, capsys):
    from skill3crawl.packages.apidelta import main

    (tmp_path / "1").mkdir()
    (tmp_path / "1" / "index.d.ts").write_text("declare namespace x { function spin(): void; }\nexport = x;\n")
    (tmp_path / "2").mkdir()
    (tmp_path / "2" / "index.d.ts").write_text("export declare function spin(): void;\n")
    main(["x", f"1={tmp_path / '1'}", f"2={tmp_path / '2'}"])
    out = json.loads(capsys.readouterr().out)
    assert out["changes"] == [] and "baseline" in out["skipped"] and out["objects"] == {"1": 0, "2": 1}


SERIES_MD = """# Changelog

## v3.0.1 (2026-06-01)

- Fix a crash.

## v3.0.0 (2026-05-01)

""" + "- `pkg.spin()` is new and spins widgets in place of the old twirl helper.\n" * 10 + """
## v2.6.0 (2026-03-01)

- Only fixes the package metadata.

## v2.5.0 (2026-02-01)

""" + "- Speed up frobbing widgets by caching the registry lookups of each widget.\n" * 10 + """
## v2.5.0b1 (2026-01-15)

- A beta.

## v2.4.0 (2025-06-01)

- Known to the model.
"""


@pytest.mark.parametrize("after, series", [
    ("2.4.0", [("2.5.0", ["2.5.0", "2.5.0b1"]), ("2.6.0", ["3.0.1", "3.0.0", "2.6.0"])]),  # 2.6 is one line: joins 3.0
    ("2.6.0", [("3.0.0", ["3.0.1", "3.0.0"])]),
    ("3.0.1", []),
])
def test_a_changelog_is_cut_into_its_release_series_after_the_baseline(after, series):
    from skill3crawl.packages.changelog import series_sections, version_sections

    known = ["2.4.0", "2.5.0b1", "2.5.0", "2.6.0", "3.0.0", "3.0.1"]
    got = series_sections(SERIES_MD, known, after)
    assert [(first, [v for v, _ in version_sections(text, known)]) for first, text in got] == series
    for _, text in got:
        assert text.startswith("## v") and "Known to the model" not in text  # headings kept, the baseline's left out
    assert series_sections("## 2.0.0\n\n- One release only.\n", ["2.0.0"], "1.0.0") == []


def test_members_and_modules_that_moved_are_one_change_each():
    from skill3crawl.packages.apiobject import ApiObject

    def snap(prefix: str) -> dict[str, ApiObject]:
        objs = [ApiObject(f"{prefix}.Url", "class", prefix, "class Url", "A URL.", "x.py", f"{prefix}.Url")]
        objs += [ApiObject(f"{prefix}.Url.{m}", "attribute", prefix, m, "", "x.py") for m in ("host", "port", "path")]
        objs += [ApiObject(f"{prefix}.validators.{f}", "function", f"{prefix}.validators", f"{f}(v)", "", "v.py")
                 for f in ("str_validator", "int_validator")]
        return {o.path: o for o in objs}

    old = snap("pkg")
    new = snap("pkg.v1") | {"pkg.Url": ApiObject("pkg.Url", "class", "pkg", "class Url(Base)", "", "y.py")}
    changes = api_changes([("1.0", old), ("2.0", new)])
    said = {(c.kind, c.path): c.detail for c in changes}
    assert said == {("changed", "pkg.Url"): "3 members moved to `pkg.v1.Url`: `host`, `path`, `port`",
                    ("changed", "pkg.validators"): "2 objects moved to `pkg.v1.validators`: `int_validator`, `str_validator`",
                    ("added", "pkg.v1.Url"): ""}, said  # a class that stays, its members gone to a copy; a module moved whole
