"""Reading run.jsonl: the lines one at a time (bounded), each checked as a source item; the first pass reads every
field, the second (:func:`_vote_lines`, :func:`_vote_line`) only what the consensus vote needs."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Iterator, Protocol

import orjson

from synth.core.errors import (
    BundleError,  # noqa: F401 - defined with every error (synth.core.errors)
    )
from synth.evidence.item import SourceItem, check_fields, fields_from_json
from synth.evidence.shingles import TOKENS_KEY

MAX_LINE_BYTES = 16 * 1024 * 1024  # one run.jsonl line; a crawl writes a few MiB at most
MAX_REPORTED_MALFORMED = 20
# the read buffer of both passes: a run.jsonl line is a few KiB, and at the default 8 KiB a line costs a read call or two
# (readline at 1 MiB: ~1.3 µs a line against ~3.3 µs)
READ_BUFFER = 1 << 20


class Splitter(Protocol):
    """What the first pass tells of the lines it reads (:class:`synth.pipeline.bundle.parallel.Splitter` is one)."""

    def start_file(self, path: str) -> None: ...

    def line(self, n: int, end: int) -> None: ...


@dataclass
class ReadReport:
    files: list[str] = field(default_factory=list)
    lines: int = 0
    items: int = 0
    malformed: int = 0
    malformed_at: list[str] = field(default_factory=list)  # "file:line: reason", first few
    dropped: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    duplicates: int = 0
    not_utf8: int = 0  # lines that were not UTF-8 (read with replacement characters)
    not_utf8_at: str = ""  # the first of them

    def note_not_utf8(self, where: str) -> None:
        self.not_utf8 += 1
        self.not_utf8_at = self.not_utf8_at or where

    def note_malformed(self, where: str, reason: str) -> None:
        self.malformed += 1
        if len(self.malformed_at) < MAX_REPORTED_MALFORMED:
            self.malformed_at.append(f"{where}: {reason}")

    def to_dict(self) -> dict:
        return {
            "files": self.files,
            "lines": self.lines,
            "items": self.items,
            "malformed": self.malformed,
            "malformed_at": self.malformed_at,
            "dropped": dict(self.dropped),
            "duplicates": self.duplicates,
            "not_utf8": self.not_utf8,
        }


def _lines(fh: IO[bytes], limit: int, first: int = 1) -> Iterator[tuple[int, bytes | None]]:
    """(line number, bytes) of a binary file from its current position, whose line is number ``first``, one line at
    a time; a line longer than ``limit`` bytes is read past in pieces and comes as ``None`` (never held whole)."""
    n = first - 1
    while True:
        chunk = fh.readline(limit + 1)
        if not chunk:
            return
        n += 1
        if len(chunk) > limit and not chunk.endswith(b"\n"):
            while chunk and not chunk.endswith(b"\n"):
                chunk = fh.readline(1 << 20)
            yield n, None
        else:
            yield n, chunk


def iter_items(paths: list[str], report: ReadReport | None = None, *, skipped: set[str] | None = None,
               loose: set[str] | None = None, splitter: Splitter | None = None) -> Iterator[tuple[str, SourceItem]]:
    """Stream (``file:line``, item) from JSONL files; malformed lines (not JSON, nested too deep, a
    field of the wrong type, longer than :data:`MAX_LINE_BYTES`) are counted in ``report`` and skipped.
    Lines that are not UTF-8 are read with replacement characters and counted (``not_utf8``).
    ``skipped`` collects the ``file:line`` of every line skipped as malformed, ``loose`` of every line with
    ``snippet_tokens`` read otherwise than as it is (:func:`_read_line`); ``splitter`` is told where each line ends
    (pass 2's chunks)."""
    for path in paths:
        p = Path(path)
        if not p.is_file():
            raise BundleError(f"{path}: no such file (pass a run.jsonl written by the crawl)")
        if report is not None and path not in report.files:
            report.files.append(path)
        if splitter is not None:
            splitter.start_file(path)
        with p.open("rb", buffering=READ_BUFFER) as fh:
            for n, raw in _lines(fh, MAX_LINE_BYTES):
                if splitter is not None:
                    splitter.line(n, fh.tell())
                where = f"{path}:{n}"
                item = _read_line(raw, where, report, skipped, loose)
                if item is not None:
                    yield where, item


def _read_line(raw: bytes | None, where: str, report: ReadReport | None, skipped: set[str] | None,
               loose: set[str] | None = None) -> SourceItem | None:
    """One line (``None``: longer than :data:`MAX_LINE_BYTES`) as a source item; ``None`` for a blank line and for
    a malformed one (counted in ``report``, its ``where`` added to ``skipped``). A line the one-call check does not
    accept as it is (not UTF-8, over a cap: its texts may be cut) that carries ``snippet_tokens`` has its ``where``
    added to ``loose``: the tokens may not be its texts' as read, and the vote does not use them."""
    if raw is None:
        if report is not None:
            report.lines += 1
        _malformed(where, f"line longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB", report, skipped)
        return None
    fields = fields_from_json(raw)  # parsed and checked in one call; None: read it the long way
    if fields is not None:
        if report is not None:
            report.lines += 1
        return SourceItem(**fields)
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError:
        line = raw.decode("utf-8", "replace")
        if report is not None:
            report.note_not_utf8(where)
    if not line.strip():
        return None
    if report is not None:
        report.lines += 1
    if loose is not None and TOKENS_KEY in raw:
        loose.add(where)
    try:
        return SourceItem.from_dict(_loads(line))
    except RecursionError:
        reason = "JSON nested too deeply"
    except (ValueError, TypeError) as exc:
        reason = str(exc).splitlines()[0][:120]
    _malformed(where, reason, report, skipped)
    return None


def _malformed(where: str, reason: str, report: ReadReport | None, skipped: set[str] | None) -> None:
    if skipped is not None:
        skipped.add(where)
    if report is not None:
        report.note_malformed(where, reason)


_VOTE_FIELDS = ("url", "final_url", "host", "authority", "excerpts", "code_blocks")


def _vote_lines(paths: list[str], skipped: set[str], loose: set[str] | frozenset[str] = frozenset()) -> Iterator[tuple[bytes, bool]]:
    """Second pass over ``paths``: :func:`_vote_marks` of their lines."""
    for path in paths:
        with Path(path).open("rb", buffering=READ_BUFFER) as fh:
            yield from _vote_marks(path, _lines(fh, MAX_LINE_BYTES), skipped, loose)


def _vote_marks(path: str, numbered: Iterable[tuple[int, bytes | None]], skipped: set[str] | frozenset[str],
                loose: set[str] | frozenset[str]) -> Iterator[tuple[bytes, bool]]:
    """(raw line, whether its snippet tokens may be used — not for the lines in ``loose``) of every numbered line of
    ``path`` the first pass accepted (those in ``skipped`` are not)."""
    for n, raw in numbered:
        if raw is None:
            continue
        where = f"{path}:{n}" if skipped or loose else ""
        if not (skipped and where in skipped):
            yield raw, not (loose and where in loose)


def _vote_line(raw: bytes, may_vote: Callable[[bytes], bool] | None = None) -> dict | None:
    """One line's fields for the vote (checked and capped as :func:`iter_items` does; the other fields are not checked
    again); None for a blank line, one ``may_vote(line)`` (a cheap test on the raw line) rejects, or one changed since
    pass 1."""
    if not raw.strip() or (may_vote is not None and not may_vote(raw)):
        return None
    fields = fields_from_json(raw)
    if fields is not None:
        return fields
    line = raw.decode("utf-8", "replace")
    try:
        data = _loads(line)
        return check_fields({k: data[k] for k in _VOTE_FIELDS if k in data})
    except (ValueError, TypeError, RecursionError, KeyError, AttributeError):
        return None  # the file changed since the first pass


def _loads(line: str) -> Any:
    """``json.loads`` semantics at orjson's speed: a line orjson rejects (NaN, lone surrogates, huge integers,
    malformed JSON) is parsed again by the standard library, which accepts it or names the problem as before."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line)
