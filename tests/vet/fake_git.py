"""A fake `git` for `skill3 setup` tests: `git clone --depth 1 URL DEST`
creates a minimal SkillSpector checkout, or fails like an offline clone when
FAKE_GIT_FAIL=1."""

import os
import sys
from pathlib import Path

args = sys.argv[1:]
if os.environ.get("FAKE_GIT_FAIL"):
    print("Cloning into 'skillspector-src'...", file=sys.stderr)
    print(f"fatal: unable to access '{args[-2]}/': Could not resolve host: github.com", file=sys.stderr)
    sys.exit(128)
if args[:1] != ["clone"]:
    sys.exit(1)
dest = Path(args[-1])
dest.mkdir(parents=True)
(dest / "pyproject.toml").write_text('[project]\nname = "skillspector"\nversion = "2.9.6"\n')
