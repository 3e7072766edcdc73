"""Session-wide test plumbing: the fork server of the crawl harness is stopped at the end, and the folder rule of
the ``unit`` marker.

``pytest -m unit`` runs the fast unit tests: pure logic, no crawl, no server, no subprocess — every test in a
folder of :data:`UNIT_FOLDERS` that is not marked ``slow`` (a test of a few seconds or more: a bound checked at
scale, a scan of every module). The subset runs in well under a minute on an idle machine."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from tests import forkserver


@pytest.fixture(scope="session", autouse=True)
def _forkserver_stopped() -> Iterator[None]:
    yield
    forkserver.shutdown()


TESTS = Path(__file__).resolve().parent
UNIT_FOLDERS = ("core", "delta", "evidence", "lint", "skill")  # tests of pure logic (tests/<folder>/)


def is_unit(path: Path, markers: set[str]) -> bool:
    """The folder rule: a test is a fast unit test when its file is under a unit folder and it is not marked slow."""
    try:
        folder = path.resolve().relative_to(TESTS).parts[0]
    except ValueError:
        return False
    return folder in UNIT_FOLDERS and "slow" not in markers


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if is_unit(Path(str(item.fspath)), {m.name for m in item.iter_markers()}):
            item.add_marker(pytest.mark.unit)
