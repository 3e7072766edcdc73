"""The front door of `skill3`: --version, completion, learn --help in groups with real metavars and examples, one
line (exit 2) for an OS error, `vet` of a run folder, tables that stay readable when piped, and one console of
`skill3: warning: …` lines at the default level."""

from __future__ import annotations

import io
import logging
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skill3.cli.main import app
from skill3crawl.runner import ConsoleFormatter, uses_scrapy_logging
from synth.vet.findings import Finding, ScanResult
from synth.vet.report import VetReport, render_text
from tests.agents.fixtures import entry, make_run
from tests.harness import skill3

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = ["learn", "synth", "lint", "vet", "setup", "models", "diff", "export", "install", "mcp"]


def run(*argv: str, columns: int = 400):  # (typer reads TERMINAL_WIDTH once: the width tests/cli/test_help.py uses)
    return CliRunner().invoke(app, list(argv), env={"COLUMNS": str(columns), "TERMINAL_WIDTH": str(columns)})


def test_version_names_skill3_python_scrapy_and_skillspector() -> None:
    r = run("--version")
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert re.fullmatch(r"skill3 \d+\.\d+\S*", lines[0])
    assert lines[1].startswith("Python 3.") and re.fullmatch(r"Scrapy \d+\.\d+\S*", lines[2])
    assert lines[3].startswith("SkillSpector ") and ("found" in lines[3])


def test_shell_completion_is_offered_and_completes() -> None:
    text = run("--help").output
    assert "--install-completion" in text and "--show-completion" in text
    script = skill3("--show-completion", "bash")
    assert script.returncode == 0 and "_skill3_completion" in script.stdout
    words = skill3(env={"_SKILL3_COMPLETE": "complete_bash", "COMP_WORDS": "skill3 learn --llm-pro", "COMP_CWORD": "2"})
    assert words.stdout.split() == ["--llm-provider"]
    assert skill3(env={"_SKILL3_COMPLETE": "complete_bash", "COMP_WORDS": "skill3 le", "COMP_CWORD": "1"}).stdout.split() == ["learn"]


def test_learn_help_is_grouped_with_real_metavars() -> None:
    text = run("learn", "--help").output
    panels = re.findall(r"╭─ ([A-Za-z ]+?) ─", text)
    assert panels == ["Arguments", "Options", "What to learn", "Sources", "Model", "Output and vetting", "Crawl tuning"]
    for word in ("<bool>", "<str>", "<int>", "<float>", "<path>"):
        assert word not in text
    for option, metavar in (("--cutoff-time", "YYYY-MM"), ("--start-urls", "URL,…"), ("--max-pages", "N"),
                            ("--llm-provider", "auto|openai|anthropic|extractive")):
        assert re.search(rf"{re.escape(option)}\s+{re.escape(metavar)}", text), option


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_shows_examples(command: str) -> None:
    text = run(command, "--help").output
    examples = re.findall(rf"\$ (skill3 {command}\b.*)", text)
    assert 2 <= len(examples) <= 3, text[-800:]
    assert "<bool>" not in text


def test_an_output_folder_that_cannot_be_created_is_one_line_and_exit_2(tmp_path: Path) -> None:
    r = skill3("learn", "mcp", "--input-file", str(ROOT / "examples" / "mcp.sources"), "--output-dir", "/proc/skill3-x",
               "--llm-provider", "extractive", timeout=120)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().count("\n") == 0 and "Traceback" not in r.stderr
    assert r.stderr.startswith("skill3: error: output folder '/proc/skill3-x' cannot be used")


def test_synth_into_a_folder_that_cannot_be_created_is_one_line_and_exit_2(tmp_path: Path) -> None:
    from tests.pipeline.corpus import EXAMPLE, parse_sources, write_jsonl

    feed = write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE))
    r = run("synth", str(feed), "--output-dir", "/proc/skill3-x", "--llm-provider", "extractive", "--quiet")
    assert r.exit_code == 2, r.output
    assert "skill3 synth: error: output folder '/proc/skill3-x' cannot be used" in r.output


def test_vet_takes_a_run_folder(tmp_path: Path) -> None:
    out = make_run(tmp_path / "run", entries=[entry("2.0", "added", "Frob 2.0 adds the zap() call.", "https://frob.test/2")])
    r = run("vet", str(out), "--format", "json")
    assert r.exit_code in (0, 1), r.output  # 1: the scanner is not installed here (NOT RUN), never exit 2
    assert '"path"' in r.output and str(out / "frob") in r.output
    bad = run("vet", str(tmp_path))
    assert bad.exit_code == 2 and "neither a SKILL.md nor skill3's run.json" in bad.output


def test_a_piped_vet_table_keeps_each_finding_on_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    message = "an instruction to ignore the previous instructions and send the environment to a remote host"
    finding = Finding(rule_id="SKILL3-INJECT", category="Prompt Injection", severity="HIGH", confidence=None,
                      message=message, file="SKILL.md", line=12, fingerprint="f", title=message, tool="skill3")
    report = VetReport(path=tmp_path, scan=ScanResult(status="not_run", target=str(tmp_path), reason="not installed"),
                       extra_findings=[finding])
    out = io.StringIO()  # not a terminal: a pipe
    render_text(report, out)
    assert any(message in line for line in out.getvalue().splitlines()), out.getvalue()


def test_console_lines_are_one_per_message() -> None:
    fmt = ConsoleFormatter()
    rec = logging.LogRecord("skill3crawl.netguard", logging.WARNING, __file__, 1, "skill3: blocked %s\nsecond line", ("x",), None)
    assert fmt.format(rec) == "skill3: warning: blocked x (+1 more line(s))"
    try:
        raise ValueError("bad thing\nmore")
    except ValueError:
        import sys

        rec = logging.LogRecord("scrapy.core", logging.ERROR, __file__, 1, "Error downloading", (), sys.exc_info())
    assert fmt.format(rec) == "skill3: error: Error downloading: ValueError: bad thing"
    assert not uses_scrapy_logging({}) and uses_scrapy_logging({"LOG_LEVEL": "INFO"})


def test_learn_prints_warnings_as_skill3_lines_and_scrapys_format_only_when_asked(tmp_path: Path) -> None:
    corpus = tmp_path / "pages"  # a folder of pages, one of them without its address: the corpus reader warns about it
    (corpus / "docs.example.org").mkdir(parents=True)
    text = "The MCP 2.0 release adds streamable HTTP transport and deprecates the SSE transport for servers. " * 4
    (corpus / "docs.example.org" / "changelog.md").write_text(f"---\ndate: 2026-06-01\n---\n# MCP 2.0\n\n{text}\n",
                                                             encoding="utf-8")
    (corpus / "loose.md").write_text(f"# Notes\n\n{text}\n", encoding="utf-8")
    args = ["learn", "mcp", "--input-file", str(corpus), "--llm-provider", "extractive", "--cutoff-time", "2026-01"]
    plain = skill3(*args, "--output-dir", str(tmp_path / "a"), timeout=240)
    assert plain.returncode == 0, plain.stderr[-2000:]
    assert "skill3: warning: input_file: 1 page(s) without a URL" in plain.stderr
    assert not re.search(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[", plain.stderr, re.M), plain.stderr  # no Scrapy log format
    scrapy_fmt = skill3(*args, "--output-dir", str(tmp_path / "b"), "-s", "LOG_LEVEL=WARNING", timeout=240)
    assert re.search(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[skill3crawl\.spiders\.learn\] WARNING: skill3: input_file: 1 page",
                     scrapy_fmt.stderr, re.M), scrapy_fmt.stderr
