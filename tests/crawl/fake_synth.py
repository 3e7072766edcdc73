"""A stand-in for synth.run.run_synth (SKILL3_SYNTH_FUNCTION in tests): records its call, returns 3."""

import json
from pathlib import Path


def run_synth(**kwargs):
    out = Path(kwargs["output_dir"])
    feed = Path(kwargs["paths"][0])
    record = {"kwargs": kwargs, "feed_lines": len(feed.read_text().splitlines()), "crawl_json": (out / "crawl.json").exists()}
    (out / "synth-call.json").write_text(json.dumps(record))
    return 3


def broken_synth(**kwargs):
    raise RuntimeError("model exploded\nsecond line")
