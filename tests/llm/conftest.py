"""The synthesis tests' set-up (no installed scanner), the Anthropic cassettes' body matcher, and one real model
at a time: the llama.cpp server answers one request at a time, so a test marked ``real_model`` on one xdist worker
waits for another worker's to finish (a file lock beside the workers' temporary folders) instead of finding the
server busy (its probe of ``/models`` timing out while the other test's generation runs)."""

from __future__ import annotations

import fcntl

import pytest

from tests.pipeline.conftest import _no_installed_scanner, pytest_recording_configure  # noqa: F401


@pytest.fixture(autouse=True)
def _one_real_model_test_at_a_time(request, tmp_path_factory):
    if request.node.get_closest_marker("real_model") is None:
        yield
        return
    lock = tmp_path_factory.getbasetemp().parent / "skill3-real-model.lock"  # shared by every worker of the run
    with open(lock, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
