"""The public Python API of a package's releases, compared statically (griffe; no Scrapy, no import of package code).

:func:`load_api` reads the ``.py``/``.pyi`` files of one release from a folder with griffe, inspection off
(``allow_inspection=False``: griffe parses the source, it never imports or runs it) and no extension beyond
griffe's built-in ones, and lists the public objects: what a module exports (``__all__`` when it has one, else the
names without a leading underscore that it defines, following aliases into the package's private modules), the
public methods and attributes of public classes; never test, example or docs modules. :func:`api_changes` compares
the baseline release with each later one, in order: an object the baseline lacks is *added* in the first release
that has it, one the newest lacks is *removed* in the first release without it, one whose signature (parameters,
defaults, annotations, return type, base classes) differs is *changed*, with what changed said
(parameters added/removed, defaults); each entry carries its module, its signature before and after and its
docstring's first sentence.

The crawl runs this module as a child process (``python -m skill3crawl.packages.apidelta``) with a time limit, so a
package that makes griffe slow cannot stall the crawl. A release without Python packages but with ``.d.ts`` files (an
npm package) is read by :mod:`skill3crawl.packages.tsdelta` instead.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterator

from skill3crawl.packages.apiobject import MAX_OBJECTS, ApiObject, first_sentence  # noqa: F401 - part of this module's API

MAX_CHANGES = 2_000  # entries of one comparison
MAX_DEPTH = 6  # module nesting followed
_SKIP_MODULES = re.compile(r"(?:^|\.)(?:tests?|testing|examples?|docs?|benchmarks?|conftest|setup|_vendor|vendor)(?:\.|$)")


@dataclass(frozen=True)
class ApiChange:
    kind: str  # added | removed | changed
    path: str
    module: str
    object_kind: str
    version: str
    before: str  # signature in the baseline ("" when added)
    after: str  # signature in ``version`` ("" when removed)
    detail: str  # what changed, in words
    doc: str
    file: str
    target: str = ""


_OLD_GENERICS = re.compile(r"\b(?:typing\.)?(List|Dict|Tuple|Type|Set|FrozenSet)\[")


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return [p for p in parts if p]


def normalize_annotation(text: str) -> str:
    """``Optional[X]`` → ``X | None``, ``Union[A, B]`` → ``A | B``, ``List[int]`` → ``list[int]``: spellings of one type
    (PEP 585/604) compared as one."""
    text = _OLD_GENERICS.sub(lambda m: m.group(1).lower() + "[", text)
    for _ in range(20):  # innermost first, bounded
        m = re.search(r"\b(?:typing\.)?(Optional|Union)\[([^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*)\]", text)
        if not m:
            break
        args = _split_top(m.group(2))
        new = " | ".join(args + (["None"] if m.group(1) == "Optional" else []))
        text = text[: m.start()] + new + text[m.end():]
    return text


def _expr(value: Any) -> str:
    return normalize_annotation(" ".join(str(value).split())) if value is not None else ""


def _params(obj: Any) -> str:
    from griffe import ParameterKind

    parts: list[str] = []
    star = False
    for i, p in enumerate(obj.parameters):
        if i == 0 and p.name in ("self", "cls") and obj.parent is not None and getattr(obj.parent, "is_class", False):
            continue
        text = p.name
        if p.kind is ParameterKind.var_positional:
            text, star = "*" + p.name, True
        elif p.kind is ParameterKind.var_keyword:
            text = "**" + p.name
        elif p.kind is ParameterKind.keyword_only and not star:
            parts.append("*")
            star = True
        if p.annotation is not None:
            text += f": {_expr(p.annotation)}"
        if p.default is not None and p.kind not in (ParameterKind.var_positional, ParameterKind.var_keyword):
            text += f" = {_expr(p.default)}" if p.annotation is not None else f"={_expr(p.default)}"
        parts.append(text)
    return ", ".join(parts)


def signature(obj: Any, name: str) -> str:
    """``name(a, *, b=1) -> int``, ``class Name(Base)(a, b=1)``, ``name: int``."""
    if obj.is_function:
        ret = f" -> {_expr(obj.returns)}" if obj.returns is not None else ""
        return f"{name}({_params(obj)}){ret}"
    if obj.is_class:
        bases = ", ".join(_expr(b) for b in obj.bases)
        init = obj.members.get("__init__")
        params = ""
        if init is not None and not init.is_alias and init.is_function:
            params = f"({_params(init)})"
        return f"class {name}" + (f"({bases})" if bases else "") + (f"; {name}{params}" if params else "")
    if obj.is_attribute:
        ann = f": {_expr(obj.annotation)}" if obj.annotation is not None else ""
        return f"{name}{ann}"
    return name


def _public(member: Any, name: str) -> bool:
    try:
        return bool(member.is_public)
    except Exception:  # noqa: BLE001 - griffe raises on aliases it cannot resolve
        return not name.startswith("_")


def _walk(obj: Any, public_path: str, roots: tuple[str, ...], depth: int, seen: set[str]) -> Iterator[tuple[str, str, Any]]:
    """(public path, public module, object) of the public objects under a module or class."""
    for name, member in list(obj.members.items()):
        if name.startswith("_") or not _public(member, name):
            continue
        target = member
        if member.is_alias:
            try:
                target = member.final_target
            except Exception:  # noqa: BLE001 - an alias out of the package (an import of another library)
                continue
            if not any(target.path == r or target.path.startswith(r + ".") for r in roots):
                continue
        path = f"{public_path}.{name}"
        if target.is_module:
            if depth < MAX_DEPTH and target.path not in seen and not _SKIP_MODULES.search(target.path):
                seen.add(target.path)
                yield from _walk(target, path, roots, depth + 1, seen)
            continue
        yield path, public_path, target
        if target.is_class and obj.is_module and depth < MAX_DEPTH:
            for mname, m in list(target.members.items()):
                if mname.startswith("_") or m.is_alias or not (m.is_function or m.is_attribute):
                    continue
                yield f"{path}.{mname}", public_path, m


def top_packages(folder: Path, hint: str = "") -> list[tuple[str, Path]]:
    """(import name, search path) of the release's top-level packages and modules (``src/`` layouts included);
    those named like the distribution (``hint``) first."""
    found: list[tuple[str, Path]] = []
    for base in (folder / "src", folder):
        if not base.is_dir():
            continue
        for child in sorted(base.iterdir()):
            name = child.name
            if child.is_dir() and ((child / "__init__.py").is_file() or (child / "__init__.pyi").is_file()):
                pkg = name
            elif child.is_file() and child.suffix in (".py", ".pyi") and base == folder / "src":
                pkg = child.stem
            elif child.is_file() and child.suffix == ".py" and not (folder / "src").is_dir():
                pkg = child.stem
            else:
                continue
            if pkg.startswith(("_", ".")) or _SKIP_MODULES.search(pkg) or pkg in ("setup", "noxfile", "conftest", "fabfile", "tasks"):
                continue
            if not re.fullmatch(r"[A-Za-z_]\w*", pkg) or any(pkg == f for f, _ in found):
                continue
            found.append((pkg, base))
    norm = re.sub(r"[-_.]+", "_", hint).lower()
    found.sort(key=lambda t: (t[0].lower() != norm and not norm.startswith(t[0].lower()), t[0]))
    return found[:5]


def load_api(folder: Path, hint: str = "") -> dict[str, ApiObject]:
    """The public API of one release (see the module doc)."""
    import griffe

    logging.getLogger("griffe").setLevel(logging.CRITICAL)
    out: dict[str, ApiObject] = {}
    tops = top_packages(folder, hint)
    loaders = {base: griffe.GriffeLoader(search_paths=[str(base)], allow_inspection=False, force_inspection=False,
                                         store_source=False) for _, base in tops}
    modules = []
    for name, base in tops:
        try:
            module = loaders[base].load(name, try_relative_path=False, find_stubs_package=False)
        except Exception:  # noqa: BLE001 - source griffe cannot read: that package has no API here
            continue
        where = module.filepath[0] if isinstance(module.filepath, list) else module.filepath
        if where is not None and str(where).startswith(str(base)):  # else an installed copy: not this release's
            modules.append((name, module))
    for loader in loaders.values():
        try:
            loader.resolve_aliases(external=False, implicit=False)
        except Exception:  # noqa: BLE001
            pass
    roots = tuple(name for name, _ in modules)
    for name, module in modules:
        for path, mod, obj in _walk(module, name, roots, 0, {name}):
            if len(out) >= MAX_OBJECTS:
                break
            kind = "function" if obj.is_function else "class" if obj.is_class else "attribute" if obj.is_attribute else "module"
            try:
                sig = signature(obj, path.rsplit(".", 1)[-1])
            except Exception:  # noqa: BLE001
                sig = path.rsplit(".", 1)[-1]
            doc = first_sentence(obj.docstring.value if obj.docstring else "")
            try:
                rel = str(Path(str(obj.filepath)).relative_to(folder))
            except (ValueError, TypeError):
                rel = ""
            out.setdefault(path, ApiObject(path, kind, mod, sig, doc, rel, str(obj.path)))
    return out


def _param_names(sig: str) -> dict[str, str]:
    sig = sig.rsplit("; ", 1)[-1] if sig.startswith("class ") else sig
    if sig.startswith("class ") or "(" not in sig:
        return {}
    depth, end = 0, -1
    for i, ch in enumerate(sig):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth == 0 and ch == ")":
            end = i
            break
    inner = sig[sig.find("(") + 1: end]
    return {re.split(r"[:=]", p, maxsplit=1)[0].strip().rstrip("?"): p for p in _split_top(inner) if p != "*"}


def _bases(sig: str) -> str:
    return sig.split("; ", 1)[0] if sig.startswith("class ") else ""


def shape(sig: str) -> tuple:
    """A signature without its annotations: base classes, parameter names, kinds and defaults."""
    params = []
    for name, p in _param_names(sig).items():
        default = p.split("=", 1)[1].strip() if "=" in p.split(":", 1)[-1] or ("=" in p and ":" not in p) else None
        params.append((name, default))
    return _bases(sig), tuple(params)


def describe_change(before: str, after: str) -> str:
    old, new = _param_names(before), _param_names(after)
    bits = []
    if _bases(before) != _bases(after):
        bits.append(f"`{_bases(before)}` → `{_bases(after)}`")
    added = [n for n in new if n not in old]
    removed = [n for n in old if n not in new]
    if added:
        bits.append("parameters added: " + ", ".join(f"`{n}`" for n in added[:8]))
    if removed:
        bits.append("parameters removed: " + ", ".join(f"`{n}`" for n in removed[:8]))
    changed = [n for n in new if n in old and new[n] != old[n]]
    if changed:
        bits.append("parameters changed: " + ", ".join(f"`{old[n]}` → `{new[n]}`" for n in changed[:6]))
    if not bits:
        bits.append("signature changed")
    return "; ".join(bits)


def api_changes(snapshots: list[tuple[str, dict[str, ApiObject]]]) -> list[ApiChange]:
    """Entries between the first snapshot (the baseline) and the last, each dated by the first release it holds in."""
    if len(snapshots) < 2:
        return []
    _, base = snapshots[0]
    newest_version, newest = snapshots[-1]
    out: list[ApiChange] = []
    for path, obj in newest.items():
        if path not in base:
            v = next((ver for ver, api in snapshots[1:] if path in api), newest_version)
            out.append(ApiChange("added", path, obj.module, obj.kind, v, "", obj.signature, "", obj.doc, obj.file, obj.target))
        elif base[path].signature != obj.signature and shape(base[path].signature) != shape(obj.signature):
            v = next((ver for ver, api in snapshots[1:] if path in api and shape(api[path].signature) != shape(base[path].signature)),
                     newest_version)
            out.append(ApiChange("changed", path, obj.module, obj.kind, v, base[path].signature, obj.signature,
                                 describe_change(base[path].signature, obj.signature), obj.doc or base[path].doc, obj.file,
                                 obj.target))
    for path, obj in base.items():
        if path not in newest:
            v = next((ver for ver, api in snapshots[1:] if path not in api), newest_version)
            out.append(ApiChange("removed", path, obj.module, obj.kind, v, obj.signature, "", "", obj.doc, obj.file, obj.target))
    out = _member_moves(_moves(_one_per_object(out)), {**base, **newest})
    # classes before their members; a member of an added or removed class is said by its class
    whole = {c.path for c in out if c.object_kind == "class" and c.kind in ("added", "removed")}
    out = [c for c in out if not any(c.path.startswith(w + ".") for w in whole)]
    # a module's own objects (what users import) before the members of its classes
    out.sort(key=lambda c: ({"removed": 0, "changed": 1, "added": 2}[c.kind], c.module, c.path.count("."), c.path))
    return out[:MAX_CHANGES]


def _member_moves(changes: list[ApiChange], objects: dict[str, ApiObject]) -> list[ApiChange]:
    """The objects of one module or class that moved to one other place are one change of it: a module moved whole
    (``pydantic.validators`` → ``pydantic.v1.validators``: "40 objects moved to `pydantic.v1.validators`: …"), a
    class's members (``pydantic.AnyUrl.host`` → ``pydantic.v1.AnyUrl.host``: "members `host`, `port` moved to …")."""
    groups: dict[tuple[str, str], list[ApiChange]] = {}
    for c in changes:
        m = _MOVED.fullmatch(c.detail)
        if m and "." in c.path and "." in m.group(1):
            old_parent, new_parent = c.path.rsplit(".", 1)[0], m.group(1).rsplit(".", 1)[0]
            parent = objects.get(old_parent)
            if old_parent == c.module or (parent is not None and parent.kind == "class"):
                groups.setdefault((old_parent, new_parent), []).append(c)
    # a class that moved whole says its members' moves
    whole = {(c.path, m.group(1)) for c in changes if (m := _MOVED.fullmatch(c.detail))}
    folded = {id(c) for key, g in groups.items() if len(g) > 1 or key in whole for c in g}
    out = [c for c in changes if id(c) not in folded]
    for (old_parent, new_parent), g in groups.items():
        if len(g) < 2 or (old_parent, new_parent) in whole:
            continue
        g.sort(key=lambda c: c.path)
        names = ", ".join(f"`{c.path.rsplit('.', 1)[1]}`" for c in g[:8]) + (", …" if len(g) > 8 else "")
        cls = objects.get(old_parent)
        if cls is not None and cls.kind == "class":
            out.append(ApiChange("changed", old_parent, cls.module, "class", g[0].version, cls.signature, cls.signature,
                                 f"{len(g)} members moved to `{new_parent}`: {names}", cls.doc, cls.file))
        else:
            out.append(ApiChange("changed", old_parent, old_parent, "module", g[0].version, "", "",
                                 f"{len(g)} objects moved to `{new_parent}`: {names}", "", g[0].file))
    return out


_MOVED = re.compile(r"moved to `([^`]+)`")


def _one_per_object(changes: list[ApiChange]) -> list[ApiChange]:
    """One object exported under several public names (``attr.define`` and ``attrs.define``) changes once: the
    shortest name says it, the others are named in its detail."""
    groups: dict[tuple, list[ApiChange]] = {}
    for c in changes:
        key = (c.kind, c.target, c.before, c.after, c.version) if c.target else (id(c),)
        groups.setdefault(key, []).append(c)
    out = []
    for group in groups.values():
        group.sort(key=lambda c: (len(c.path), c.path))
        first, others = group[0], group[1:]
        if others:
            also = "also as " + ", ".join(f"`{o.path}`" for o in others[:4])
            first = ApiChange(first.kind, first.path, first.module, first.object_kind, first.version, first.before, first.after,
                              f"{first.detail}; {also}" if first.detail else also, first.doc, first.file, first.target)
        out.append(first)
    return out


def _moves(changes: list[ApiChange]) -> list[ApiChange]:
    """A removed object and an added one of the same name and signature are one move (``a.b.X`` → ``a.v1.b.X``)."""
    added: dict[tuple[str, str], list[ApiChange]] = {}
    for c in changes:
        if c.kind == "added":
            added.setdefault((c.path.rsplit(".", 1)[-1], c.after), []).append(c)
    moved: set[int] = set()
    out = []
    for c in changes:
        if c.kind != "removed":
            continue
        twins = [a for a in added.get((c.path.rsplit(".", 1)[-1], c.before), []) if id(a) not in moved]
        if twins:
            new = twins[0]
            moved.update({id(c), id(new)})
            out.append(ApiChange("changed", c.path, c.module, c.object_kind, new.version, c.before, new.after,
                                 f"moved to `{new.path}`", c.doc or new.doc, new.file))
    return [c for c in changes if id(c) not in moved] + out


def main(argv: list[str]) -> int:
    """``python -m skill3crawl.packages.apidelta HINT VERSION=FOLDER …`` → the changes as JSON on stdout."""
    hint, pairs = argv[0], argv[1:]
    snapshots = []
    counts = {}
    for pair in pairs:
        version, _, folder = pair.partition("=")
        api = load_api(Path(folder), hint)
        if not api and any(Path(folder).rglob("*.d.ts")):  # an npm package: its TypeScript declarations
            from skill3crawl.packages.tsdelta import load_ts_api

            api = load_ts_api(Path(folder), hint)
        counts[version] = len(api)
        snapshots.append((version, api))
    if snapshots and not snapshots[0][1] and any(api for _, api in snapshots[1:]):
        # nothing readable in the baseline (a layout the loaders do not cover): every object would look new
        json.dump({"objects": counts, "changes": [], "skipped": "no public API could be read in the baseline release"}, sys.stdout)
        return 0
    changes = api_changes(snapshots)
    json.dump({"objects": counts, "changes": [asdict(c) for c in changes]}, sys.stdout)
    return 0


if __name__ == "__main__":  # pragma: no cover - the crawl's child process
    sys.exit(main(sys.argv[1:]))
