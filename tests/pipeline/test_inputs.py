"""synth.pipeline.inputs: crawl.json and the run.jsonl items are read once, and only as far as the values still needed."""

import json
from datetime import datetime, timezone

import pytest

import synth.pipeline.inputs as inputs_mod
from synth.core.errors import SynthFailure
from synth.pipeline.inputs import resolve_inputs
from synth.pipeline.options import SynthOptions
from tests.pipeline.corpus import make_item, write_jsonl

STARTED = datetime(2026, 11, 29, tzinfo=timezone.utc)


def _items(*topics: str, cutoff: str = "2026-01") -> list[dict]:
    return [make_item(f"https://docs.example/{i}", excerpts=["A fact."], topic=t, cutoff=cutoff) for i, t in enumerate(topics)]


# (case, crawl.json or None, items, options, expected (topic, cutoff month, cutoff source start), items read)
CASES = [
    ("items only", None, _items("mcp", "mcp", "mcp"), {}, ("mcp", "2026-01", "the cutoff recorded in the run.jsonl items"), 1),
    ("crawl.json has topic and cutoff", {"args": {"topic": "Widgets", "cutoff": "2025-11"}, "cutoff_source": "table"},
     _items("mcp", "mcp"), {}, ("Widgets", "2025-11", "crawl.json "), 1),
    ("topic only on the third item", None, _items("", "", "mcp", "other"), {}, ("mcp", "2026-01", "the cutoff"), 3),
    ("--topic and --cutoff-time given", None, _items("mcp", "mcp"), {"topic": "T", "cutoff_time": "2026-03"},
     ("T", "2026-03", "cutoff_time"), 1),
]


@pytest.mark.parametrize("crawl, items, given, expected, read", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_inputs_are_resolved_in_one_read(tmp_path, monkeypatch, crawl, items, given, expected, read):
    feed = write_jsonl(tmp_path / "run.jsonl", items)
    if crawl is not None:
        (tmp_path / "crawl.json").write_text(json.dumps(crawl), encoding="utf-8")
    passes, yielded = [], []
    real = inputs_mod.iter_items

    def counting(paths, *a, **k):
        passes.append(paths)
        for pair in real(paths, *a, **k):
            yielded.append(pair[0])
            yield pair

    monkeypatch.setattr(inputs_mod, "iter_items", counting)
    got = resolve_inputs(SynthOptions(paths=(str(feed),), **given), STARTED)
    assert (got.topic, got.cutoff.month) == expected[:2] and got.cutoff.source.startswith(expected[2])
    assert len(passes) == 1 and len(yielded) == read
    assert got.out_dir == tmp_path and got.today == "2026-11-29" and got.context_tokens == 8192


# (case, items or raw lines, options, exit code, message part)
BAD = [
    ("no topic anywhere", _items("", ""), {}, 2, "no topic in the items or crawl.json: pass --topic"),
    ("no valid item", ["{truncated", "[]"], {}, 2, "run.jsonl"),
    ("context too small", _items("mcp"), {"context_tokens": 512}, 2, "--context-tokens must be at least 1024, got 512"),
    ("missing file", None, {}, 2, "no such file (pass a run.jsonl written by the crawl)"),
    ("since-version not a version", _items("mcp"), {"since_version": "latest"}, 2, "--since-version: 'latest' is not a version"),
]


@pytest.mark.parametrize("lines, given, code, message", [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_bad_inputs_stop_with_one_line(tmp_path, lines, given, code, message):
    feed = tmp_path / "run.jsonl"
    if lines is not None:
        write_jsonl(feed, [x for x in lines if isinstance(x, dict)], [x for x in lines if isinstance(x, str)])
    with pytest.raises(SynthFailure) as exc:
        resolve_inputs(SynthOptions(paths=(str(feed),), **given), STARTED)
    assert exc.value.code == code and message in str(exc.value) and "\n" not in str(exc.value)
