"""Input-side vetting through the runner and the fake scanner (line replay
of the real recordings): redaction, quarantine, the run.json record."""

from __future__ import annotations

import json

import pytest

from synth.evidence.item import SourceItem
from synth.vet.findings import Finding, ScanResult
from synth.vet.input_vet import AllSourcesQuarantined, classify, render_source, source_index, vet_sources

from .helpers import case_dir
from .test_redact import AWS_ID, AWS_SECRET, GHP


def _lines(case: str, skill: str, start: int, end: int) -> str:
    text = (case_dir(case) / skill / "SKILL.md").read_text().splitlines()
    return "\n".join(text[start - 1 : end])


def corpus() -> list[SourceItem]:
    clean = SourceItem(
        url="https://www.python-httpx.org/quickstart/",
        title="httpx quickstart",
        excerpts=[_lines("01", "httpx-quickstart", 13, 18)],
        code_blocks=[{"text": "import httpx\nhttpx.get('https://example.org', timeout=10.0)\n", "language": "python"}],
    )
    poisoned = SourceItem(
        url="https://blog.example.net/meeting-notes",
        title="Meeting notes tips",
        excerpts=["Summaries help teams.", _lines("02", "meeting-notes-summarizer", 14, 19)],
    )
    leaky = SourceItem(
        url="https://gist.example.com/deploy",
        title="Deploying with the new CLI",
        excerpts=["Set the credentials first.", f"aws_access_key_id = {AWS_ID}\naws_secret_access_key = {AWS_SECRET}"],
        code_blocks=[{"text": f"gh auth login --with-token <<< {GHP}", "language": "bash"}],
    )
    return [clean, poisoned, leaky]


def test_poisoned_source_is_quarantined_and_secrets_redacted(fake_scanner):
    fake_scanner.line_replay()
    items = corpus()
    result = vet_sources(items)
    assert result.scan.status == "ran"
    assert [s.url for s in result.quarantined] == ["https://blog.example.net/meeting-notes"]
    rules = result.quarantined[0].rules
    assert {"P1", "P6", "YR4"} <= set(rules) and {"SKILL3-INJECT-OVERRIDE", "SKILL3-INJECT-ROLE"} <= set(rules)
    assert [i.url for i in result.kept] == [items[0].url, items[2].url]
    (warning,) = result.warnings
    assert "https://blog.example.net/meeting-notes" in warning and "P1 Prompt Injection (HIGH)" in warning
    assert "SKILL3-INJECT-OVERRIDE Prompt Injection (HIGH)" in warning
    assert [s.redactions for s in result.sources] == [0, 0, 3] and items[2].redactions == 3
    # the corpus the scanner read was already redacted, and run.json holds counts only
    record = json.dumps(result.to_dict())
    for secret in (AWS_ID, AWS_SECRET, GHP):
        assert secret not in record and secret not in render_source(items[2])
    assert {f.source_url for f in result.sources[1].findings} == {items[1].url}
    assert {f.file for f in result.findings} == {"source-2.md"}
    # a quarantined source's findings, the scanner's and the screen's, are recorded and never gate
    assert {f.tool for f in result.sources[1].findings} == {"skillspector", "skill3"}
    assert result.gating_findings == []
    assert {f["rule_id"] for f in result.to_dict()["sources"][1]["findings"]} >= {"P1", "SKILL3-INJECT-OVERRIDE"}
    screen = result.to_dict()["screen"]
    assert screen["status"] == "ran" and screen["quarantined"] == [items[1].url] and screen["blocking"] >= 2


def test_secrets_never_reach_the_model(fake_scanner):
    """What a synthesiser builds its prompt from (the kept, redacted sources)
    holds neither the secrets nor the injected instructions."""
    fake_scanner.line_replay()
    requests: list[str] = []

    def stub_model(prompt: str) -> str:
        requests.append(prompt)
        return "ok"

    result = vet_sources(corpus())
    stub_model("\n\n".join(render_source(item) for item in result.kept))
    assert requests and "Ignore all previous instructions" not in requests[0]
    for secret in (AWS_ID, AWS_SECRET, GHP):
        assert secret not in requests[0]
    assert "[REDACTED:aws-access-key]" in requests[0]


def test_every_source_quarantined_fails_loudly(fake_scanner):
    fake_scanner.line_replay()
    items = [corpus()[1]]
    with pytest.raises(AllSourcesQuarantined, match="all 1 sources were quarantined") as info:
        vet_sources(items)
    assert info.value.result.quarantined[0].url == items[0].url


def test_scanner_absent_the_built_in_screen_still_quarantines_and_not_run_stays_loud(no_scanner):
    items = corpus()
    result = vet_sources(items)
    assert result.scan.status == "not_run"
    assert [s.url for s in result.quarantined] == [items[1].url] and len(result.kept) == 2
    assert {f.tool for f in result.quarantined[0].findings} == {"skill3"}
    assert result.warnings[0].startswith("input scan NOT RUN: SkillSpector is not installed")
    assert any("quarantined source 2" in w and "SKILL3-INJECT-OVERRIDE" in w for w in result.warnings)
    assert items[2].redactions == 3  # redaction does not depend on the scanner
    record = result.to_dict()
    assert record["scan"]["clean"] is False and record["screen"]["quarantined"] == [items[1].url]
    assert result.gating_findings == []


def test_no_sources():
    result = vet_sources([])
    assert result.scan.status == "not_run" and result.kept == []


@pytest.mark.parametrize(
    "file,index", [("source-1.md", 0), ("corpus/source-12.md", 11), ("SKILL.md", None), (None, None), ("xsource-1.md.bak", None)]
)
def test_source_index(file, index):
    assert source_index(file) == index


def test_finding_spanning_sources_quarantines_each():
    """One fingerprint in two files (case 04's TM2) belongs to both sources."""
    items = [SourceItem(url=f"https://e.com/{i}") for i in range(3)]
    shared = Finding("TM2", "Tool Misuse", "HIGH", 0.7, "m", "source-1.md", 4, "fp",
                     occurrences=[("source-1.md", 4), ("source-3.md", 9)])
    low = Finding("SC1", "Supply Chain", "LOW", 0.5, "m", "source-2.md", 1, "fp2")
    stray = Finding("X1", "Other", "HIGH", 0.5, "m", "README.md", 1, "fp3")
    result = classify(items, ScanResult(status="ran", target="t", findings=[shared, low, stray]))
    assert [s.quarantined for s in result.sources] == [True, False, True]
    assert result.sources[2].findings[0].line == 9
    assert [f.rule_id for f in result.unmapped] == ["X1"]
    assert [i.url for i in result.kept] == ["https://e.com/1"]
