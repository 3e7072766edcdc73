"""Session-wide test plumbing: the fork server of the crawl harness is stopped at the end."""

from __future__ import annotations

from typing import Iterator

import pytest

from tests import forkserver


@pytest.fixture(scope="session", autouse=True)
def _forkserver_stopped() -> Iterator[None]:
    yield
    forkserver.shutdown()
