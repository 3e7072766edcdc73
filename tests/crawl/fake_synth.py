"""A stand-in for synth.pipeline.run.run_synth (SKILL3_SYNTH_FUNCTION in tests): records the options it got, returns exit 3."""

import dataclasses
import json
from pathlib import Path

from synth.pipeline.options import SynthOptions, SynthResult


def run_synth(options: SynthOptions) -> SynthResult:
    out = Path(options.output_dir)
    feed = Path(options.paths[0])
    record = {"options": dataclasses.asdict(options), "feed_lines": len(feed.read_text().splitlines()),
              "crawl_json": (out / "crawl.json").exists()}
    (out / "synth-call.json").write_text(json.dumps(record))
    return SynthResult(exit_code=3)


def broken_synth(options: SynthOptions) -> SynthResult:
    raise RuntimeError("model exploded\nsecond line")
