"""The synthesis tests' set-up (no installed scanner) and the Anthropic cassettes' body matcher."""

from tests.pipeline.conftest import _no_installed_scanner, pytest_recording_configure  # noqa: F401
