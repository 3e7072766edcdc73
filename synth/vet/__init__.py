"""Vetting: SkillSpector on both sides of synthesis, secret redaction, the
self-correction loop and the exit-3 gate. Scrapy-free.

Entry points for other stages::

    from synth.vet import redact_item, vet_sources, correct, gate_exit_code, vetting_record
"""

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

__all__ = [
    "AllSourcesQuarantined", "CorrectionResult", "Finding", "InputVetResult", "Revise", "Scan",
    "ScanResult", "Scanner", "ScannerUnavailable", "blocking_findings", "correct", "describe_findings",
    "gate_exit_code", "prepass", "redact_skill", "secret_findings",
    "redact_item", "redact_text", "resolve_scanner", "run_scan", "vet_sources", "vetting_record",
]
