"""Input-side vetting: redact every source, screen it with skill3's built-in checks
(:mod:`synth.vet.screen`, always), scan the corpus with SkillSpector, quarantine
sources with HIGH/CRITICAL findings of either - all before any model sees them.

The corpus is written as one markdown file per source (``source-N.md``, N the
1-based position in the list) into a temporary folder that is scanned like a
skill; findings map back to sources by file name. The built-in screen reads the
same rendering. Its findings (``tool="skill3"``, rule ids ``SKILL3-…``) quarantine
exactly like the scanner's; unlike the scanner's they do not trip the exit-3 gate
once their source is quarantined (a heuristic first screen: the source never reaches
a model, and a false positive on a legitimate page must not fail the run).
Invisible and bidi control characters are removed from the sources that are kept.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from synth.core.errors import (
    AllSourcesQuarantined,  # noqa: F401 - defined with every error (synth.core.errors)
    )
from synth.evidence.item import SourceItem
from synth.skill.markdown import fence_for
from synth.vet.findings import Finding, ScanResult
from synth.vet.hidden import strip_invisible
from synth.vet.redact import redact_item
from synth.vet.runner import Scan, run_scan
from synth.vet.screen import screen_markdown

SCREEN_TOOL = "skill3"

_SOURCE_FILE = re.compile(r"(?:^|[\\/])source-(\d+)\.md$")


def source_filename(index: int) -> str:
    return f"source-{index}.md"


def render_source(item: SourceItem) -> str:
    """A source as the markdown file the scanner reads."""
    parts = [f"# {item.title or item.url}", "", f"Source: {item.url}", ""]
    for excerpt in item.excerpts:
        parts += [excerpt, ""]
    for block in item.code_blocks:
        fence = fence_for(block.get("text", ""))  # the code cannot close it: the scanner reads code as code
        parts += [f"{fence}{block.get('language', '')}", block.get("text", "").rstrip("\n"), fence, ""]
    return "\n".join(parts)


def write_corpus(items: Sequence[SourceItem], folder: Path) -> dict[str, int]:
    """Write ``source-N.md`` files; return {file name: 0-based item index}."""
    folder.mkdir(parents=True, exist_ok=True)
    names: dict[str, int] = {}
    for i, item in enumerate(items):
        name = source_filename(i + 1)
        (folder / name).write_text(render_source(item), encoding="utf-8")
        names[name] = i
    return names


def source_index(file: str | None) -> int | None:
    """0-based source index for a finding's file (``source-3.md`` → 2)."""
    m = _SOURCE_FILE.search(file or "")
    return int(m.group(1)) - 1 if m else None


@dataclass
class SourceVerdict:
    index: int  # 0-based position in the input list
    url: str
    file: str  # source-N.md
    redactions: int = 0
    quarantined: bool = False
    findings: list[Finding] = field(default_factory=list)

    @property
    def rules(self) -> list[str]:
        return sorted({f.rule_id for f in self.findings if f.blocking})

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "url": self.url,
            "file": self.file,
            "redactions": self.redactions,
            "quarantined": self.quarantined,
            "blocking_rules": self.rules,
            "findings": [f.to_dict() for f in self.findings],
        }


@dataclass
class InputVetResult:
    scan: ScanResult
    sources: list[SourceVerdict] = field(default_factory=list)
    unmapped: list[Finding] = field(default_factory=list)  # findings in no source-N.md
    warnings: list[str] = field(default_factory=list)
    kept: list[SourceItem] = field(default_factory=list, repr=False)  # what synthesis may use
    invisible_removed: int = 0  # invisible/bidi characters stripped from the kept sources

    @property
    def findings(self) -> list[Finding]:
        return [f for s in self.sources for f in s.findings] + list(self.unmapped)

    @property
    def screen_findings(self) -> list[Finding]:
        return [f for f in self.findings if f.tool == SCREEN_TOOL]

    @property
    def gating_findings(self) -> list[Finding]:
        """What counts for the exit-3 gate: the findings of the sources that were kept (a kept source
        has no HIGH/CRITICAL one, so in practice none) and findings in no source file. A quarantined
        source's findings are reported, never gated: nothing of it reaches the model or the skill."""
        return [f for s in self.sources if not s.quarantined for f in s.findings] + list(self.unmapped)

    @property
    def quarantined(self) -> list[SourceVerdict]:
        return [s for s in self.sources if s.quarantined]

    @property
    def redactions(self) -> int:
        return sum(s.redactions for s in self.sources)

    def to_dict(self) -> dict[str, Any]:
        """The ``vetting.input`` block of run.json (never a secret: counts only)."""
        screen = self.screen_findings
        by_screen = [s.url for s in self.sources if s.quarantined and any(f.tool == SCREEN_TOOL and f.blocking for f in s.findings)]
        return {
            "screen": {
                "status": "ran",
                "checker": "skill3 built-in screen (synth.vet.screen): injection, pipe-to-shell, exfiltration, hidden text",
                "findings": len(screen),
                "blocking": sum(1 for f in screen if f.blocking),
                "rules": sorted({f.rule_id for f in screen}),
                "quarantined": by_screen,
                "invisible_removed": self.invisible_removed,
                "gates": "only in kept sources (a quarantined source's findings are recorded, not gated)",
            },
            "scan": self.scan.to_dict(),
            "redactions": self.redactions,
            "sources": [s.to_dict() for s in self.sources],
            "quarantined": [s.url for s in self.quarantined],
            "unmapped_findings": [f.to_dict() for f in self.unmapped],
            "warnings": list(self.warnings),
        }


def _split_by_source(finding: Finding) -> dict[int | None, Finding]:
    """One finding per source it occurs in (a fingerprint can span files)."""
    groups: dict[int | None, list[tuple[str | None, int | None]]] = {}
    for occ in finding.occurrences or [(finding.file, finding.line)]:
        groups.setdefault(source_index(occ[0]), []).append(occ)
    out: dict[int | None, Finding] = {}
    for index, occs in groups.items():
        out[index] = Finding(**{**finding.__dict__, "file": occs[0][0], "line": occs[0][1], "occurrences": occs})
    return out


def screen_sources(items: Sequence[SourceItem]) -> list[list[Finding]]:
    """The built-in screen's findings per source, on the same rendering the scanner reads. Pure."""
    out = []
    for i, item in enumerate(items):
        findings = screen_markdown(render_source(item), source_filename(i + 1))
        for f in findings:
            f.source_url = item.url
        out.append(findings)
    return out


def classify(items: Sequence[SourceItem], scan: ScanResult, redactions: Sequence[int] | None = None,
             screened: Sequence[Sequence[Finding]] | None = None) -> InputVetResult:
    """Map a corpus scan (and the built-in screen's findings) back to sources and decide quarantine. Pure."""
    redactions = list(redactions) if redactions is not None else [0] * len(items)
    verdicts = [
        SourceVerdict(index=i, url=item.url, file=source_filename(i + 1), redactions=redactions[i])
        for i, item in enumerate(items)
    ]
    for verdict, found in zip(verdicts, screened or []):
        verdict.findings.extend(found)
    result = InputVetResult(scan=scan, sources=verdicts)
    for finding in scan.findings:
        for index, part in _split_by_source(finding).items():
            if index is None or not 0 <= index < len(verdicts):
                result.unmapped.append(part)
                continue
            part.source_url = verdicts[index].url
            verdicts[index].findings.append(part)
    for verdict in verdicts:
        if any(f.blocking for f in verdict.findings):
            verdict.quarantined = True
            worst = ", ".join(
                f"{f.rule_id} {f.category} ({f.severity})" for f in verdict.findings if f.blocking
            )
            result.warnings.append(f"quarantined source {verdict.index + 1} {verdict.url}: {worst}")
    if scan.status != "ran":
        label = "NOT RUN" if scan.status == "not_run" else "FAILED"
        result.warnings.insert(0, f"input scan {label}: {scan.reason} - sources were redacted and passed skill3's "
                                  "built-in screen only, not scanned")
    result.kept = [item for item, v in zip(items, verdicts) if not v.quarantined]
    return result


def vet_sources(
    items: Sequence[SourceItem],
    *,
    scan: Scan | None = None,
    workdir: Path | None = None,
) -> InputVetResult:
    """Redact every item in place, scan the corpus, quarantine.

    Returns the result (``result.kept`` is what synthesis may use). Raises
    AllSourcesQuarantined when nothing survives. A scanner that did not run
    quarantines nothing and says so in ``warnings`` and ``scan``.
    """
    scan = scan or run_scan
    counts = [redact_item(item) for item in items]
    if not items:
        return classify(items, ScanResult(status="not_run", target="", reason="no sources to scan"), counts)
    screened = screen_sources(items)  # always, scanner or not
    with tempfile.TemporaryDirectory(prefix="skill3-corpus-", dir=workdir) as tmp:
        folder = Path(tmp) / "corpus"
        write_corpus(items, folder)
        result = classify(items, scan(folder), counts, screened)
    if not result.kept:
        raise AllSourcesQuarantined(
            f"all {len(items)} sources were quarantined (HIGH/CRITICAL findings of skill3's screen or SkillSpector); "
            "nothing safe to synthesise from - add trustworthy sources (see run.json vet.input)",
            result,
        )
    result.invisible_removed = sum(strip_item_invisible(item) for item in result.kept)
    return result


def strip_item_invisible(item: SourceItem) -> int:
    """Remove invisible/bidi control characters from a source's title, excerpts and code, in place."""
    total = 0
    item.title, n = strip_invisible(item.title or "")
    total += n
    excerpts = []
    for e in item.excerpts:
        e, n = strip_invisible(e)
        excerpts.append(e)
        total += n
    item.excerpts = excerpts
    for block in item.code_blocks:
        block["text"], n = strip_invisible(block.get("text", ""))
        total += n
    return total
