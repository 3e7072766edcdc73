"""Vetting: SkillSpector on both sides of synthesis, secret redaction, the
self-correction loop and the exit-3 gate. Scrapy-free.

Entry points for other stages::

    from synth.vet import redact_item, vet_sources, correct, gate_exit_code, vetting_record
"""

import sys
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the names are, for the type checker (at run time each is imported on first use)
    from synth.vet.correct import (
        CorrectionResult,
        Revise,
        correct,
        describe_findings,
        prepass,
        redact_skill,
        secret_findings,
    )
    from synth.vet.findings import Finding, ScanResult
    from synth.vet.gate import blocking_findings, gate_exit_code, vetting_record
    from synth.vet.input_vet import AllSourcesQuarantined, InputVetResult, vet_sources
    from synth.vet.redact import redact_item, redact_text
    from synth.vet.runner import Scan, Scanner, ScannerUnavailable, resolve_scanner, run_scan

# Each name's module, imported when the name is first read (PEP 562): a process that needs only the redaction
# (an extraction worker, the crawler's URL redaction) does not load the scanner runner, the correction loop, the
# source item's validation and YAML (~20 MB and ~0.1 s of CPU a worker).
_MODULES = {
    "CorrectionResult": "correct", "Revise": "correct", "correct": "correct", "describe_findings": "correct",
    "prepass": "correct", "redact_skill": "correct", "secret_findings": "correct",
    "Finding": "findings", "ScanResult": "findings",
    "blocking_findings": "gate", "gate_exit_code": "gate", "vetting_record": "gate",
    "AllSourcesQuarantined": "input_vet", "InputVetResult": "input_vet", "vet_sources": "input_vet",
    "redact_item": "redact", "redact_text": "redact",
    "Scan": "runner", "Scanner": "runner", "ScannerUnavailable": "runner", "resolve_scanner": "runner", "run_scan": "runner",
}


def __getattr__(name: str) -> Any:
    if name not in _MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{_MODULES[name]}"), name)
    globals()[name] = value
    return value


class _Package(ModuleType):
    """``synth.vet.correct`` is the correction function, as when this package imported it eagerly: the import
    system binds a submodule to its package's attribute when it first loads it, and ``correct`` is both."""

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, ModuleType) and _MODULES.get(name) == name:
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


__all__ = [
    "AllSourcesQuarantined", "CorrectionResult", "Finding", "InputVetResult", "Revise", "Scan",
    "ScanResult", "Scanner", "ScannerUnavailable", "blocking_findings", "correct", "describe_findings",
    "gate_exit_code", "prepass", "redact_skill", "secret_findings",
    "redact_item", "redact_text", "resolve_scanner", "run_scan", "vet_sources", "vetting_record",
]
