"""The synthesis tests' set-up: no installed scanner (see tests/pipeline/conftest.py)."""

from tests.pipeline.conftest import _no_installed_scanner  # noqa: F401
