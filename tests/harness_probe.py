"""A child for tests/test_harness.py: reports what process it is, warns once, exits with ``argv[1]``."""

import json
import os
import sys
import warnings

print(json.dumps({"pid": os.getpid(), "ppid": os.getppid(), "cwd": os.getcwd(), "env": dict(os.environ),
                  "reactor": "twisted.internet.reactor" in sys.modules}))
warnings.warn("probe warning", UserWarning)
print("probe on stderr", file=sys.stderr)
sys.exit(int(sys.argv[1]))
