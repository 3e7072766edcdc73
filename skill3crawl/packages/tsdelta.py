"""The public TypeScript API of an npm release: its ``.d.ts`` declarations parsed with tree-sitter (no Node.js, no code run).

:func:`load_ts_api` reads every ``.d.ts`` file of a release folder (never ``node_modules``, tests or examples) with
tree-sitter's TypeScript grammar and lists what the files ``export``: functions (their parameters and return
type), classes (heritage, constructor parameters, public methods and properties), interfaces (extends, members),
type aliases, enums, constants. Each is an :class:`~skill3crawl.packages.apidelta.ApiObject`, so the comparison is
:func:`~skill3crawl.packages.apidelta.api_changes`'s. Not covered: re-exports (``export { a as b }``,
``export * from``) are not followed, overloads count once (the first), namespaces and module augmentation are left out
(a release declared only that way — ``declare namespace x {…}; export = x`` — has no API here), vendored copies too.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

from skill3crawl.packages.apidelta import MAX_OBJECTS, ApiObject, first_sentence

MAX_FILES = 2_000
MAX_FILE_BYTES = 2 * 1024 * 1024
_SKIP = re.compile(r"(?:^|/)(?:node_modules|tests?|__tests__|examples?|docs?|bench(?:marks?)?|vendor)(?:/|$)")
_DECLS = {"function_signature": "function", "function_declaration": "function", "class_declaration": "class",
          "abstract_class_declaration": "class", "interface_declaration": "class", "type_alias_declaration": "attribute",
          "enum_declaration": "class", "lexical_declaration": "attribute", "variable_declaration": "attribute"}


def _text(node: Any) -> str:
    return " ".join(node.text.decode("utf-8", "replace").split()) if node is not None else ""


def _doc(node: Any) -> str:
    prev = node.prev_named_sibling
    if prev is not None and prev.type == "comment" and _text(prev).startswith("/**"):
        body = re.sub(r"^/\*\*|\*/$", "", prev.text.decode("utf-8", "replace").strip())
        body = "\n".join(line.strip().lstrip("*").strip() for line in body.splitlines())
        return first_sentence(re.split(r"\n@", body, maxsplit=1)[0])
    return ""


def _function(node: Any, name: str) -> str:
    params = _text(node.child_by_field_name("parameters")) or "()"
    ret = _text(node.child_by_field_name("return_type"))
    return f"{name}{params}{ret}"


def _members(body: Any, owner: str) -> Iterator[tuple[str, str, str]]:
    """(name, kind, signature) of a class or interface body's public members."""
    for m in body.named_children if body is not None else []:
        name_node = m.child_by_field_name("name")
        name = _text(name_node)
        if not name or name.startswith(("#", "_")) or re.search(r"\b(?:private|protected)\b", _text(m)[:40]):
            continue
        if m.type in ("method_signature", "method_definition", "abstract_method_signature"):
            yield name, "function", _function(m, name)
        elif m.type in ("property_signature", "public_field_definition"):
            yield name, "attribute", f"{name}{_text(m.child_by_field_name('type'))}"


def _declarations(decl: Any, module: str) -> Iterator[tuple[str, str, str, Any]]:
    """(public path, kind, signature, node) of one exported declaration and its members."""
    kind = _DECLS.get(decl.type)
    if kind is None:
        return
    if decl.type in ("lexical_declaration", "variable_declaration"):
        for d in decl.named_children:
            if d.type == "variable_declarator":
                name = _text(d.child_by_field_name("name"))
                yield f"{module}.{name}", "attribute", f"{name}{_text(d.child_by_field_name('type'))}", decl
        return
    name = _text(decl.child_by_field_name("name"))
    if not name:
        return
    path = f"{module}.{name}"
    if kind == "function":
        yield path, kind, _function(decl, name), decl
    elif decl.type == "type_alias_declaration":
        yield path, kind, f"type {name} = {_text(decl.child_by_field_name('value'))}", decl
    else:
        heritage = " ".join(_text(c) for c in decl.named_children if c.type in ("class_heritage", "extends_type_clause"))
        tparams = _text(decl.child_by_field_name("type_parameters"))
        body = decl.child_by_field_name("body")
        ctor = next((m for m in (body.named_children if body is not None else []) if _text(m.child_by_field_name("name")) == "constructor"), None)
        word = {"interface_declaration": "interface", "enum_declaration": "enum"}.get(decl.type, "class")
        sig = f"class {name}{tparams}" + (f"({heritage})" if heritage else "") + (f"; {_function(ctor, name)}" if ctor is not None else "")
        sig = sig.replace("class ", f"{word} ", 1) if word != "class" else sig
        yield path, "class", sig, decl
        if decl.type != "enum_declaration":
            for mname, mkind, msig in _members(body, name):
                if mname != "constructor":
                    yield f"{path}.{mname}", mkind, msig, None


def module_name(rel: str, package: str) -> str:
    """``index.d.ts`` → the package; ``lib/util.d.ts`` → ``package/lib/util``."""
    stem = rel[: -len(".d.ts")]
    stem = re.sub(r"(?:^|/)index$", "", stem)
    return f"{package}/{stem}" if stem else package


def load_ts_api(folder: Path, package: str) -> dict[str, ApiObject]:
    """The exported declarations of the release's ``.d.ts`` files (see the module doc)."""
    import tree_sitter
    import tree_sitter_typescript

    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_typescript.language_typescript()))
    out: dict[str, ApiObject] = {}
    files = sorted(p for p in folder.rglob("*.d.ts") if p.is_file() and not _SKIP.search(str(p.relative_to(folder))))
    for path in files[:MAX_FILES]:
        rel = str(path.relative_to(folder))
        data = path.read_bytes()[:MAX_FILE_BYTES]
        module = module_name(rel, package)
        for node in parser.parse(data).root_node.named_children:
            if node.type != "export_statement":
                continue
            decl = next((c for c in node.named_children if c.type in _DECLS or c.type == "ambient_declaration"), None)
            if decl is not None and decl.type == "ambient_declaration":
                decl = next((c for c in decl.named_children if c.type in _DECLS), None)
            if decl is None:
                continue
            doc = _doc(node)
            for pub, kind, sig, _ in _declarations(decl, module):
                if len(out) >= MAX_OBJECTS:
                    return out
                out.setdefault(pub, ApiObject(pub, kind, module, sig, doc if pub.count(".") == module.count(".") + 1 else "",
                                              rel, f"{rel}:{pub}"))
    return out
