"""Compare two crawls' items, page by page: date fields and redaction/content fields. Printed, exit 1 on a difference.

    python3 bench/compare_items.py /work/final/python311/out/run.jsonl /tmp/perf2/python311/out/run.jsonl

Items are matched by their URL's path (each crawl serves the site on its own loopback port); the host part is
left out of the compared values for the same reason. ``build_date`` is reported apart: it is set on the items
written after the crawl recognised the host as build-dated, so it follows the crawl's order (``crawl.json``'s
``build_dated_hosts`` is the figure synthesis reads); ``--strict-build-date`` counts it as a difference.
"""

from __future__ import annotations

import argparse
import json
import sys
from urllib.parse import urlsplit

DATE_FIELDS = ("published", "modified", "date_source", "post_cutoff")
CONTENT_FIELDS = ("redactions", "title", "excerpts", "code_blocks", "changes", "content_hash")


def load(path: str) -> dict[str, dict]:
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                item = json.loads(line)
                out[urlsplit(item["url"]).path] = item
    return out


def _value(item: dict, field: str) -> str:
    return json.dumps(item.get(field), sort_keys=True).replace(urlsplit(item["url"]).netloc, "HOST")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--strict-build-date", action="store_true")
    ap.add_argument("--show", type=int, default=10, help="differences printed per kind")
    a = ap.parse_args()
    before, after = load(a.before), load(a.after)
    common = sorted(before.keys() & after.keys())
    dates = [(k, f) for k in common for f in DATE_FIELDS if _value(before[k], f) != _value(after[k], f)]
    build = [(k, "build_date") for k in common if _value(before[k], "build_date") != _value(after[k], "build_date")]
    content = [(k, f) for k in common for f in CONTENT_FIELDS if _value(before[k], f) != _value(after[k], f)]
    print(f"items {len(before)} → {len(after)} ({len(common)} in both, {len(before.keys() - after.keys())} only before, "
          f"{len(after.keys() - before.keys())} only after); date fields differ on {len(dates)}, content/redaction fields on "
          f"{len(content)}; build_date differs on {len(build)} (crawl order); redactions "
          f"{sum(i.get('redactions', 0) for i in before.values())} → {sum(i.get('redactions', 0) for i in after.values())}")
    for k, f in dates[:a.show] + content[:a.show] + build[:a.show]:
        print(f"  {k} {f}: {_value(before[k], f)[:80]} → {_value(after[k], f)[:80]}")
    bad = len(dates) + len(content) + len(before.keys() ^ after.keys()) + (len(build) if a.strict_build_date else 0)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
