"""The one-call parse-and-check of a run.jsonl line (pydantic) against the field checks it stands in for."""

import json
from pathlib import Path
from typing import Any

import pytest

from synth.evidence.item import (
    MAX_CHANGE_API_CHARS,
    MAX_CHANGE_CODE,
    MAX_CHANGE_CODE_CHARS,
    MAX_CHANGE_PATH,
    MAX_CHANGE_PATH_CHARS,
    MAX_LIST_ENTRIES,
    MAX_SHORT_CHARS,
    MAX_TEXT_CHARS,
    MAX_URL_CHARS,
    check_fields,
    fields_from_json,
)

U = "https://x.example/p"
CHANGE = {"kind": "added", "version": "2.0", "text": "New in version 2.0."}


@pytest.mark.parametrize("item", [
    # accepted as they are (what a crawl writes)
    {"url": U},
    {"url": U, "final_url": None, "title": None, "published": None, "host": "x.example", "query": None, "page_kind": None},
    {"url": U, "authority": 1, "recency_weight": 0.25, "combined_score": 0, "post_cutoff": True, "consensus_count": 3,
     "redactions": 0, "unknown": {"nested": [1, 2]}},
    {"url": U, "excerpts": ["a", "b"], "agreeing_urls": [U], "snippet_fingerprints": ["ab12"]},
    {"url": U, "code_blocks": [{"text": "x = 1", "language": "python"}, {"text": "y"}, {"language": None}, {"text": "z", "language": "", "extra": 1}]},
    {"url": U, "changes": [CHANGE, {**CHANGE, "removed_in": "3.0", "date": "2026-03-01", "anchor": "a", "heading": None, "extra": 1}]},
    {"url": U, "changes": [{**CHANGE, "path": ["What's New", "asyncio"], "api": "asyncio.TaskGroup",
                            "code": [{"text": "async with TaskGroup() as tg:\n    ...\n", "language": "python"}, {"text": "x"}]},
                           {**CHANGE, "path": None, "api": None, "code": None},
                           {**CHANGE, "path": ["p" * MAX_CHANGE_PATH_CHARS] * MAX_CHANGE_PATH, "api": "a" * MAX_CHANGE_API_CHARS,
                            "code": [{"text": "c" * MAX_CHANGE_CODE_CHARS, "language": None}] * MAX_CHANGE_CODE}]},
    {"url": U, "title": "t" * MAX_SHORT_CHARS, "final_url": "u" * MAX_URL_CHARS, "excerpts": ["a"] * MAX_LIST_ENTRIES},
    {"url": U, "excerpts": ["x" * MAX_TEXT_CHARS]},
    # cut, converted or rejected by the field checks (the one-call check hands these over)
    {"url": U, "title": "t" * (MAX_SHORT_CHARS + 1)},
    {"url": U, "excerpts": ["a"] * (MAX_LIST_ENTRIES + 1)},
    {"url": U, "excerpts": ["x" * (MAX_TEXT_CHARS + 1)]},
    {"url": U, "agreeing_urls": ["u" * (MAX_URL_CHARS + 1)]},
    {"url": U, "code_blocks": [{"text": "x", "language": False}]},
    {"url": U, "code_blocks": [{"text": "x", "language": "l" * 101}]},
    {"url": U, "code_blocks": [{"text": 5}]},
    {"url": U, "changes": [{**CHANGE, "version": None}]},
    {"url": U, "changes": [{**CHANGE, "text": "t" * (MAX_SHORT_CHARS + 1)}]},
    {"url": U, "changes": [{**CHANGE, "path": [f"h{i}" for i in range(MAX_CHANGE_PATH + 2)]}]},  # the innermost kept
    {"url": U, "changes": [{**CHANGE, "path": ["p" * (MAX_CHANGE_PATH_CHARS + 1)], "api": "a" * (MAX_CHANGE_API_CHARS + 1)}]},
    {"url": U, "changes": [{**CHANGE, "code": [{"text": "c" * (MAX_CHANGE_CODE_CHARS + 1)}] * (MAX_CHANGE_CODE + 1)}]},
    {"url": U, "changes": [{**CHANGE, "path": "not a list"}]}, {"url": U, "changes": [{**CHANGE, "path": [1]}]},
    {"url": U, "changes": [{**CHANGE, "api": 5}]}, {"url": U, "changes": [{**CHANGE, "code": [{"text": 1}]}]},
    {"url": U, "authority": "high"}, {"url": U, "authority": True}, {"url": U, "consensus_count": 2.0},
    {"url": U, "consensus_count": -1}, {"url": U, "post_cutoff": 0}, {"url": U, "published": 20260101},
    {"url": ""}, {"url": None}, {"title": "no url"}, {"url": "u" * (MAX_URL_CHARS + 1)},
])
def test_one_call_check_gives_what_the_field_checks_give(item: dict[str, Any]) -> None:
    line = json.dumps(item).encode()
    got = fields_from_json(line)
    try:
        expected = check_fields(json.loads(line))
    except ValueError:
        assert got is None  # the field checks name the problem
        return
    if got is not None:
        assert got == expected
        assert {k: type(v) for k, v in got.items()} == {k: type(v) for k, v in expected.items()}


@pytest.mark.parametrize("line", [
    b'{"url": "https://x.example/p", "authority": NaN}', b'{"url": "https://x.example/p", "x": NaN}',
    b'{"url": "https://x.example/p", "authority": 1e400}', b'{"url": "https://x.example/\\ud800"}',
    b'{"url": "https://x.example/\xff"}', b'\xef\xbb\xbf{"url": "https://x.example/p"}', b'{"url": "a\tb"}',
    b'{"url": "https://x.example/p"} trailing', b'["https://x.example/p"]', b"", b"\n", b"{not json",
    b'{"url": "https://x.example/p", "url": "https://y.example/q"}', b'{"url": "https://x.example/p", "n": 123456789012345678901234567890}',
])
def test_json_edge_cases_are_accepted_only_as_json_loads_reads_them(line: bytes) -> None:
    got = fields_from_json(line)
    if got is None:
        return  # read the long way, as before
    assert got == check_fields(json.loads(line.decode("utf-8")))


def test_typical_crawl_lines_take_the_one_call_path(tmp_path: Path) -> None:
    from tests.pipeline.bundle.bundle_equivalence import generate

    lines = generate(tmp_path / "run.jsonl", n=400).read_bytes().splitlines()
    fast = [line for line in lines if fields_from_json(line) is not None]
    assert len(fast) >= len(lines) - 4  # the generated run's malformed, blank and non-UTF-8 lines
    for line in fast:
        assert fields_from_json(line) == check_fields(json.loads(line))


def test_a_number_too_large_for_a_float_skips_the_line_with_one_line_reason(tmp_path: Path) -> None:
    from synth.pipeline.bundle import ReadReport, iter_items

    path = tmp_path / "run.jsonl"
    path.write_text('{"url": "https://x.example/a"}\n{"url": "https://x.example/b", "authority": 1' + "0" * 400 + "}\n",
                    encoding="utf-8")
    report = ReadReport()
    assert [item.url for _where, item in iter_items([str(path)], report)] == ["https://x.example/a"]
    assert report.malformed == 1 and report.malformed_at[0].endswith(":2: 'authority' is a number, not a finite number")


def test_change_entry_fields_are_checked_and_cut() -> None:
    entry = {**CHANGE, "path": [f"h{i}" for i in range(MAX_CHANGE_PATH + 2)], "api": "a" * (MAX_CHANGE_API_CHARS + 5),
             "code": [{"text": "c" * (MAX_CHANGE_CODE_CHARS + 1), "language": None}] * (MAX_CHANGE_CODE + 2)}
    got = check_fields({"url": U, "changes": [entry, CHANGE]})["changes"]
    assert got[0]["path"] == [f"h{i}" for i in range(2, MAX_CHANGE_PATH + 2)]
    assert len(got[0]["api"]) == MAX_CHANGE_API_CHARS
    assert got[0]["code"] == [{"text": "c" * MAX_CHANGE_CODE_CHARS, "language": ""}] * MAX_CHANGE_CODE
    assert (got[1]["path"], got[1]["api"], got[1]["code"]) == ([], None, [])  # a line of an older crawl
    with pytest.raises(ValueError, match=r"'changes\[\]\.path' is not a list of strings"):
        check_fields({"url": U, "changes": [{**CHANGE, "path": [1]}]})
