"""The /proc process-tree sampler the benchmarks and the lazy-browser test rely on."""

import os
import signal
import subprocess
import sys
import time

from tests.proctree import TreeSampler, command_name, descendants, rss_bytes

# a child that holds ~60 MB and starts a grandchild that holds ~30 MB
CHILD = (
    "import subprocess,sys,time;b=bytearray(60*2**20);"
    "g=subprocess.Popen([sys.executable,'-c','import time;b=bytearray(30*2**20);time.sleep(30)']);"
    "time.sleep(30)"
)


def test_sampler_sums_the_whole_tree_and_keeps_the_largest_process():
    proc = subprocess.Popen([sys.executable, "-c", CHILD])
    try:
        deadline = time.monotonic() + 20
        while len(descendants(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)  # let both allocate
        pids = descendants(proc.pid)
        assert len(pids) == 2 and pids[0] == proc.pid
        assert all(command_name(p).startswith("python") for p in pids)
        with TreeSampler(proc.pid, interval=0.05) as tree:
            time.sleep(0.3)
        assert tree.peak_processes == 2
        assert tree.peak_single >= 60 * 2**20 and tree.peak_tree >= tree.peak_single + 30 * 2**20
    finally:
        for p in reversed(descendants(proc.pid)):
            os.kill(p, signal.SIGTERM)
        proc.wait(timeout=10)
    assert rss_bytes(proc.pid) == 0 and command_name(proc.pid) == ""
