"""A generated docs site for delta tests: every page carries one build date; the delta lives in version markers
and a What's New page. Items look like what extraction writes (the ``changes`` contract), for a made-up project
("quill", not Python) so nothing is tuned to one real site."""

from __future__ import annotations

import json
from pathlib import Path

from tests.pipeline.corpus import make_item, write_jsonl

HOST = "docs.quill.example"
BUILD = "2026-10-07"
TODAY = "2026-11-29"

HIGHLIGHTS = [
    ("Nested fault bundles", "QEP 654: Fault bundles and catch* let a program raise and handle several unrelated faults at once."),
    ("Fault notes", "QEP 678: Faults can be enriched with notes through add_note()."),
    ("tomlread", "QEP 680: tomlread — support for parsing TOML in the standard library."),
    ("Pinpoint tracebacks", "QEP 657: Fine-grained error locations in tracebacks point at the exact expression."),
    ("Safe path option", "New -P command line option and QUILLSAFEPATH environment variable disable prepending unsafe paths."),
    ("Variadic shapes", "QEP 646: Variadic generics with TypeVarTuple."),
    ("SelfType", "QEP 673: the Self type annotates methods that return their own class."),
]
NEW_FEATURES = [
    ("TaskCrew", "Added the TaskCrew class, an asynchronous context manager holding a group of tasks that are awaited together."),
    ("quill.timeout", "Added quill.timeout(), an asynchronous context manager for cancelling work after a delay."),
]


def _ch(kind, version, text, heading="", removed_in=None, date=None, anchor=None) -> dict:
    return {"kind": kind, "version": version, "removed_in": removed_in, "date": date, "text": text, "anchor": anchor, "heading": heading}


def site_items(topic: str = "quill", cutoff: str = "2022-01", declare_build_date: bool = True) -> list[dict]:
    def page(path, title, excerpts, changes=(), page_kind="doc", page_version=None, code=()):
        it = make_item(f"http://{HOST}/{path}", published=BUILD, title=title, excerpts=excerpts, code=code, topic=topic,
                       cutoff=cutoff)
        it.update(date_source="htmldate", changes=list(changes), page_kind=page_kind, page_version=page_version,
                  build_date=BUILD if declare_build_date else None)
        return it

    hl = [_ch("release", "2.0", "Quill 2.0 is between 10-60% faster than Quill 1.9.", "Summary – Release highlights", anchor="#summary")]
    hl += [_ch("release", "2.0", f"{t}", "Summary – Release highlights", anchor="#summary") for _n, t in HIGHLIGHTS]
    body = [_ch("release", "2.0", "The parser module internals were reorganised; no user-visible change is expected from this.", "Other Language Changes"),
            _ch("release", "2.0", "Added the TaskCrew class to quill.tasks for structured concurrency.", "Improved Modules › tasks"),
            _ch("release", "2.0", "Many legacy standard library modules are deprecated and will be removed in Quill 2.2 (QEP 594).", "Important deprecations")]
    items = [
        page("whatsnew/2.0.html", "What's New In Quill 2.0",
             ["# What's New In Quill 2.0", "## Summary – Release highlights"] + [c["text"] for c in hl + body],
             hl + body, page_kind="change", page_version="2.0"),
        page("whatsnew/1.9.html", "What's New In Quill 1.9",
             ["# What's New In Quill 1.9", "Quill 1.9 was released on October 4, 2021.",
              "Structural pattern matching with match statements arrived in this release."],
             [_ch("release", "1.9", "Quill 1.9 was released on October 4, 2021.", "What's New In Quill 1.9", date="2021-10-04"),
              _ch("release", "1.9", "Structural pattern matching with match statements arrived in this release.", "Summary – Release highlights")],
             page_kind="change", page_version="1.9"),
        page("library/tasks.html", "quill.tasks — Task groups",
             ["# quill.tasks — Task groups", NEW_FEATURES[0][1] + " New in version 2.0.",
              "The legacy spawn helper starts a task in the background. New in version 1.4.",
              NEW_FEATURES[1][1] + " New in version 2.0."],
             [_ch("added", "2.0", NEW_FEATURES[0][1] + " New in version 2.0.", "TaskCrew", anchor="#quill.tasks.TaskCrew"),
              _ch("added", "1.4", "The legacy spawn helper starts a task in the background. New in version 1.4.", "spawn"),
              _ch("added", "2.0", NEW_FEATURES[1][1] + " New in version 2.0.", "timeout")],
             code=[("python", "async with quill.tasks.TaskCrew() as crew:\n    crew.create_task(work())")]),
        page("library/oldnet.html", "quill.oldnet — legacy networking",
             ["# quill.oldnet", "Deprecated since version 2.0, will be removed in version 2.2: use quill.net instead of the oldnet module."],
             [_ch("deprecated", "2.0", "Deprecated since version 2.0, will be removed in version 2.2: use quill.net instead of the oldnet module.",
                  "quill.oldnet", removed_in="2.2")]),
        page("library/shapes.html", "quill.shapes",
             ["# quill.shapes", "Shape arithmetic helpers for quill programs. New in version 2.1."],
             [_ch("added", "2.1", "Shape arithmetic helpers for quill programs. New in version 2.1.", "quill.shapes")]),
    ]
    boiler = {
        "about.html": ("About these documents", "These quill documents are generated from reStructuredText sources by Sphinx, "
                       "a quill document processor written for the quill documentation. Drake, Jr., the creator of the original quill documentation toolset."),
        "copyright.html": ("Copyright", "Copyright 2001-2026 Quill Software Foundation. All rights reserved. Quill quill quill."),
        "bugs.html": ("Dealing with Bugs", "Quill is a mature programming language; quill bugs in quill may be reported to the quill tracker."),
        "genindex.html": ("Index — Quill 2.0 documentation", "Index of quill quill symbols, quill modules and quill keywords."),
        "search.html": ("Search — Quill 2.0 documentation", "Search the quill documentation for quill topics."),
        "glossary.html": ("Glossary", "A glossary of quill terms used throughout the quill documentation of quill."),
    }
    for path, (title, text) in boiler.items():
        items.append(page(path, title, [f"# {title}", text]))
    for i in range(6):  # ordinary reference pages without markers
        items.append(page(f"library/mod{i}.html", f"quill.mod{i} — reference",
                          [f"# quill.mod{i}", f"The mod{i} module provides helper number {i} for everyday quill programs, unchanged for years."]))
    blog = make_item("https://medium.com/@someone/quill-2-taskcrew", published="2022-11-02", title="Trying TaskCrew in Quill 2.0",
                     excerpts=["I tried the new TaskCrew in Quill 2.0 and it is a nicer way to run tasks together than before."],
                     topic=topic, cutoff=cutoff)
    items.append(blog)
    return items


def crawl_json(topic: str = "quill", cutoff: str = "2022-01", declare_build_date: bool = True) -> dict:
    return {
        "topic": topic, "args": {"topic": topic, "cutoff_time": cutoff},
        "queries": [],
        "timeline": [{"version": "1.9", "date": "2021-10-04", "source": "page", "url": f"http://{HOST}/whatsnew/1.9.html"},
                     {"version": "2.0.0", "date": "2022-10-24", "source": "changelog", "url": f"http://{HOST}/whatsnew/changelog.html"}],
        "build_dated_hosts": {HOST: BUILD} if declare_build_date else {},
    }


def write_site(folder: Path, cutoff: str = "2022-01", declare_build_date: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    feed = write_jsonl(folder / "run.jsonl", site_items(cutoff=cutoff, declare_build_date=declare_build_date))
    (folder / "crawl.json").write_text(json.dumps(crawl_json(cutoff=cutoff, declare_build_date=declare_build_date)), encoding="utf-8")
    return feed
