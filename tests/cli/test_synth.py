"""`skill3 synth` end to end with the extractive provider (no model), plus usage errors and the dry run."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skill3.cli.app import app
from skill3.cli.main import app as skill3_app
from skill3crawl.args import learn_spider_args
from tests.pipeline.corpus import EXAMPLE, make_item, parse_sources, write_jsonl

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args):
    result = CliRunner().invoke(app, ["synth", *map(str, args), "--quiet"])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def feed(tmp_path):
    return write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE), ["{truncated"])


def validate(skill_dir: Path) -> subprocess.CompletedProcess:
    exe = shutil.which("agentskills") or str(Path(sys.executable).with_name("agentskills"))
    return subprocess.run([exe, "validate", str(skill_dir)], capture_output=True, text=True, timeout=60)


def test_extractive_end_to_end_writes_a_valid_skill(feed, tmp_path):
    code, out, err = run_cli(feed, "--llm-provider", "extractive")
    assert code == 0, err
    assert "1 malformed line(s) skipped" in err and "run.jsonl:7" in err
    skill_dir = tmp_path / "mcp"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.html", "mcp", "run.json", "run.jsonl"]
    assert sorted(p.name for p in skill_dir.iterdir()) == ["SKILL.md"]
    v = validate(skill_dir)
    assert v.returncode == 0, v.stdout + v.stderr
    text = (skill_dir / "SKILL.md").read_text()
    # every bullet is traceable to a source, and the prompt-injection line of the low-authority blog is not quoted
    for line in text.splitlines():
        if line.startswith("- ") and "## Sources" not in text.split(line)[0]:
            assert line.rstrip().endswith("]"), line
    assert "Ignore all previous instructions" not in text
    man = json.loads((tmp_path / "run.json").read_text())
    assert man["model"]["used"] == "extractive" and man["bundle"]["mode"] == "direct"
    # no SkillSpector here (conftest hides it): recorded as not run, never clean; lint always runs
    assert man["vet"]["status"] == "not run" and man["vet"]["not_run"] and man["vet"]["gate"]["blocking"] == 0
    assert man["lint"]["status"] == "done" and man["lint"]["counts"]["error"] == 0 and man["lint"]["name"] == "mcp"
    assert man["inputs"]["read"]["malformed"] == 1
    assert man["skill"]["name"] == "mcp" and man["validation"]["errors"] == []
    assert [s["url"] for s in man["bundle"]["content"]["sources"]][:1] == [man["sources"][0]["url"]]
    assert man["used_sources"] == [s["url"] for s in man["bundle"]["content"]["sources"]]
    assert set(man["timings"]) >= {"read_and_rank", "select", "synthesize", "postprocess", "write"}


def test_dry_run_prints_ranking_and_writes_nothing(feed, tmp_path):
    before = sorted(os.listdir(tmp_path))
    code, out, err = run_cli(feed, "--dry-run", "--llm-provider", "openai", "--llm-endpoint", "http://127.0.0.1:9/v1")
    assert code == 0, err
    assert "modelcontextprotocol.io" in out and "bundle:" in out and "no model called" in out
    assert sorted(os.listdir(tmp_path)) == before


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["missing.jsonl"], 2, "no such file"),
        (["{feed}", "--llm-provider", "nope"], 2, "unknown llm_provider"),
        (["{feed}", "--llm-provider", "anthropic"], 2, "ANTHROPIC_API_KEY"),
        (["{feed}", "--llm-provider", "openai", "--llm-endpoint", "https://api.openai.com/v1"], 2, "LLM_API_KEY"),
        (["{feed}", "--target-model", "gpt-99", "--llm-provider", "extractive"], 2, "--cutoff-time"),
        (["{empty}", "--llm-provider", "extractive"], 2, "no valid source item"),
        (["{stale}", "--llm-provider", "extractive", "--strict-cutoff"], 2, "no usable sources"),
        (["{feed}", "--context-tokens", "100", "--llm-provider", "extractive"], 2, "--context-tokens"),
        # an explicitly chosen model that does not answer: found before anything is read or vetted
        (["{feed}", "--llm-provider", "openai", "--llm-endpoint", "http://127.0.0.1:9/v1"], 2, "does not answer"),
        (["{feed}", "--llm-timeout", "0", "--llm-provider", "extractive"], 2, "--llm-timeout must be between 1 and"),
    ],
)
def test_errors_are_one_line_with_exit_codes(feed, tmp_path, monkeypatch, args, code, message):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("LLM_API_KEY", raising=False)
    empty = write_jsonl(tmp_path / "empty.jsonl", [], ["not json"])
    feed = write_jsonl(feed, parse_sources(EXAMPLE))
    stale = write_jsonl(tmp_path / "stale.jsonl", [make_item("https://x.example/p", published="2024-01-01")])
    args = [a.format(feed=feed, empty=empty, stale=stale) for a in args]
    got, out, err = run_cli(*args)
    assert got == code
    errors = [l for l in err.splitlines() if "error:" in l]
    assert len(errors) == 1 and message in errors[0] and "Traceback" not in err, err
    assert all("warning:" in l.lower() for l in err.splitlines() if l.strip() and l not in errors)
    assert not (tmp_path / "mcp").exists() and not (tmp_path / "run.json").exists()


def test_an_anthropic_endpoint_that_does_not_answer_is_found_before_anything_is_read(feed, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")  # a key: the endpoint is what fails
    write_jsonl(feed, parse_sources(EXAMPLE))
    code, _out, err = run_cli(feed, "--llm-provider", "anthropic", "--llm-endpoint", "http://127.0.0.1:9")
    assert code == 2
    (line,) = [l for l in err.splitlines() if "error:" in l]
    assert "llm_provider anthropic: http://127.0.0.1:9 does not answer" in line, err
    assert not (tmp_path / "run.json").exists()


def test_failed_run_leaves_the_previous_skill_alone(feed, tmp_path):
    assert run_cli(feed, "--llm-provider", "extractive")[0] == 0
    good = (tmp_path / "mcp" / "SKILL.md").read_text()
    manifest = (tmp_path / "run.json").read_text()
    code, _, err = run_cli(feed, "--llm-provider", "openai", "--llm-endpoint", "http://127.0.0.1:9/v1")
    assert code == 2
    assert (tmp_path / "mcp" / "SKILL.md").read_text() == good
    assert (tmp_path / "run.json").read_text() == manifest
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_console_script_runs(feed, tmp_path):
    exe = shutil.which("skill3") or str(Path(sys.executable).with_name("skill3"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([exe, "synth", str(feed), "--llm-provider", "extractive", "--quiet", "--output-dir", str(tmp_path / "o")],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "o" / "mcp" / "SKILL.md").is_file()


@pytest.mark.parametrize(
    "options, expected",
    [
        ({}, {"topic": "mcp", "synth": "0"}),  # left out: the spider's defaults (output_dir: output/<topic-slug>)
        ({"strict_cutoff": False, "verify": False, "fail_on_findings": True, "fresh": False, "llm_provider": None, "max_pages": None},
         {"topic": "mcp", "synth": "0", "strict_cutoff": "0", "verify": "0", "fail_on_findings": "1", "fresh": "0"}),  # as typer gives them
        ({"target_model": "claude-sonnet-4-6", "cutoff_time": "2025-09", "strict_cutoff": True, "authoritative": "a.org,b.org",
          "start_urls": "https://a.org/x", "input_file": "examples/mcp.sources", "max_pages": 40, "output_dir": "o/x",
          "llm_provider": "openai", "llm_endpoint": "http://h:1/v1", "llm_model": "m", "verify": True, "brave_key": "k",
          "depth_limit": 3, "sitemap_filter": "/docs/,/api/", "locales": "keep", "context_tokens": 4096, "fail_on_findings": False,
          "llm_timeout": 90.0, "since_version": "", "package": "pypi:mcp"},
         {"topic": "mcp", "target_model": "claude-sonnet-4-6", "cutoff_time": "2025-09", "strict_cutoff": "1",
          "authoritative": "a.org,b.org", "start_urls": "https://a.org/x", "input_file": "examples/mcp.sources",
          "max_pages": "40", "output_dir": "o/x", "llm_provider": "openai", "llm_endpoint": "http://h:1/v1",
          "llm_model": "m", "verify": "1", "brave_key": "k", "synth": "0", "depth_limit": "3",
          "sitemap_filter": "/docs/,/api/", "locales": "keep", "context_tokens": "4096", "fail_on_findings": "0",
          "llm_timeout": "90.0", "package": "pypi:mcp"}),
    ],
)
def test_learn_option_to_spider_argument_mapping(options, expected) -> None:
    assert learn_spider_args("mcp", options) == expected


@pytest.mark.parametrize(
    "args, message",
    [
        (["--llm-provider", "anthropic"], "llm_provider anthropic needs a key: set ANTHROPIC_API_KEY"),
        (["--llm-provider", "nope"], "unknown llm_provider 'nope'"),
        (["--llm-provider", "extractive", "-s", "JOBDIR"], "bad -s value 'JOBDIR': use -s NAME=VALUE"),
        (["--llm-provider", "extractive", "--set", "LOG LEVEL=INFO"], "bad -s value 'LOG LEVEL=INFO'"),
        (["--llm-provider", "extractive", "--cutoff-time", "2026-1x"], "cutoff_time must be a month like 2026-01"),
        (["--llm-provider", "extractive", "--max-pages", "0"], "bad argument max_pages"),
        (["--llm-provider", "extractive", "--package", "maven:x"], "bad argument package"),
        (["--llm-provider", "extractive", "--input-file", "/nonexistent/corpus"], "input_file"),
    ],
)
def test_learn_usage_errors_are_one_line_before_any_crawl(monkeypatch, tmp_path, args, message) -> None:
    """`skill3 learn`'s own checks, then the runner's pre-check: one line, exit 2, no crawl started, nothing written."""
    from skill3crawl import runner

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runner, "crawler_process", lambda settings: pytest.fail("crawl started"))
    r = CliRunner().invoke(skill3_app, ["learn", "mcp", *args])
    assert r.exit_code == 2, r.output
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("skill3: error: ") and message in lines[0], r.stderr
    assert list(tmp_path.iterdir()) == []


def test_learn_is_a_command_of_the_console_script_only() -> None:
    """`python -m skill3.cli.app` (synth's commands, no Scrapy) has no `learn`; the `skill3` script has both."""
    assert "learn" in [c.name for c in skill3_app.registered_commands]
    assert "learn" not in [c.name for c in app.registered_commands]
    r = CliRunner().invoke(app, ["learn", "mcp"])
    assert r.exit_code == 2 and "No such command 'learn'" in r.output


def test_run_synth_takes_the_crawl_triggers_options_and_prints_nothing_of_its_outcome(feed, tmp_path, capsys):
    from synth.pipeline.options import SynthOptions
    from synth.pipeline.run import run_synth

    result = run_synth(SynthOptions(paths=(str(feed),), output_dir=str(tmp_path / "out"), topic="mcp", cutoff_time="2026-01",
                                    llm_provider="extractive", progress=False))
    out = tmp_path / "out"
    assert result.exit_code == 0 and result.error is None and (out / "mcp" / "SKILL.md").is_file()
    assert result.skill_dir == out / "mcp" and result.written == (out / "mcp", out / "run.json", out / "index.html")
    assert result.provider == "extractive" and result.sources > 0
    assert {"read_and_rank", "select", "synthesize", "write"} <= set(result.timings)
    assert "skill3: wrote" not in capsys.readouterr().out  # the caller prints the outcome
    result.print_outcome()
    assert capsys.readouterr().out.startswith(f"skill3: wrote {out / 'mcp' / 'SKILL.md'} (")


def test_a_renamed_skill_replaces_the_previous_folder(feed, tmp_path):
    assert run_cli(feed, "--llm-provider", "extractive")[0] == 0
    assert (tmp_path / "mcp").is_dir()
    assert run_cli(feed, "--llm-provider", "extractive", "--topic", "Model Context Protocol")[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == [".history", "model-context-protocol"]
    assert (tmp_path / ".history" / "1.0.0" / "mcp" / "SKILL.md").is_file()  # the previous skill is kept, never deleted


# --------------------------------------------------------------------------- hostile run.jsonl lines

def _good() -> dict:
    return parse_sources(EXAMPLE)[0]


BAD_LINES = [
    ({"host": 5}, "'host' is a number, not a string"),
    ({"title": ["a", "b"]}, "'title' is a list, not a string"),
    ({"redactions": "x"}, "'redactions' is a string, not a whole number"),
    ({"authority": "high"}, "'authority' is a string, not a finite number"),
    ({"post_cutoff": "yes"}, "'post_cutoff' is a string, not true/false"),
    ({"excerpts": "one long string"}, "'excerpts' is a string, not a list"),
    ({"excerpts": [1, 2]}, "'excerpts' is not a list of strings"),
    ({"code_blocks": [{"text": 5}]}, "'code_blocks' is not a list of"),
    ({"agreeing_urls": {"a": 1}}, "'agreeing_urls' is an object, not a list"),
    ({"consensus_count": 2.5}, "'consensus_count' is a number, not a whole number"),
    ({"published": 20260101}, "'published' is a number, not a string"),
    ({"url": "https://x.example/" + "a" * 9000}, "'url' is longer than 8192 characters"),
]


@pytest.mark.parametrize("patch, reason", BAD_LINES, ids=[r.split("'")[1] for _, r in BAD_LINES])
def test_a_line_with_a_bad_field_is_skipped_with_a_warning(tmp_path, patch, reason):
    feed = write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE), [json.dumps({**_good(), **patch})])
    code, out, err = run_cli(feed, "--llm-provider", "extractive")
    assert code == 0, err
    assert "1 malformed line(s) skipped" in err and reason in err, err
    assert "internal error" not in err and "Traceback" not in err


def test_deep_nesting_huge_lines_and_non_utf8_are_warnings(tmp_path):
    import resource

    feed = write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE))
    with feed.open("ab") as fh:
        fh.write(b"[" * 100_000 + b"\n")  # RecursionError in json
        fh.write(b'{"url": "https://big.example/", "excerpts": ["' + b"x" * (200 * 1024 * 1024) + b'"]}\n')  # 200 MB
        fh.write(json.dumps({**_good(), "url": "https://latin.example/", "title": "caf\u00e9"}, ensure_ascii=False).encode("utf-8").replace(b"caf\xc3\xa9", b"caf\xe9") + b"\n")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    code, out, err = run_cli(feed, "--llm-provider", "extractive")
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert code == 0, err
    assert "2 malformed line(s) skipped" in err and "nested too deeply" in err and "longer than 16 MiB" in err
    assert "1 line(s) are not UTF-8" in err and "save the file as UTF-8" in err
    assert grown_mb < 150, grown_mb  # the 200 MB line was never held


@pytest.mark.parametrize("topic, folder", [("mcp", "output/mcp"), ("日本語", "output/日本語"), ("Café Tips", "output/café-tips")])
def test_learn_default_output_folder_is_the_crawls_topic_slug(topic, folder) -> None:
    """`skill3 learn` and `scrapy crawl learn` put a topic's run in the same folder, whatever its script."""
    from skill3crawl.args import checked_args, parse_args

    assert checked_args(learn_spider_args(topic, {})).output_dir == folder
    assert parse_args({"topic": topic, "cutoff_time": "2026-01", "input_file": str(ROOT / "examples" / "mcp.sources")}).output_dir == folder


def test_a_source_url_with_parentheses_survives_citations_sources_and_lint(tmp_path):
    url = "https://en.wikipedia.org/wiki/Mercury_(planet)"
    feed = write_jsonl(tmp_path / "run.jsonl", [make_item(
        url, title="Mercury (planet)", topic="mercury", excerpts=[
            "# Mercury", "In 2026 the mercury-maps package version 2.0 replaced the old mercmap tool for surface maps.",
            "Use `mercury-maps render --projection polar` to draw the new polar maps."])])
    code, _, err = run_cli(feed, "--llm-provider", "extractive")
    assert code == 0, err
    text = (tmp_path / "mercury" / "SKILL.md").read_text()
    assert url in text.split("## Sources", 1)[1]
    man = json.loads((tmp_path / "run.json").read_text())
    assert man["used_sources"] == [url] and man["lint"]["counts"]["error"] == 0


def test_a_source_heading_of_three_hyphens_neither_cuts_the_frontmatter_nor_fails_the_run(tmp_path):
    feed = write_jsonl(tmp_path / "run.jsonl", [make_item(
        "https://docs.dash.example/news", title="Dash news", topic="dash", excerpts=[
            "# ---", "Dash 3.0 replaces the legacy dash.old module with the new dash.core module for all parsing work.",
            "## --- Parsing ---", "Use dash.core.parse(text) instead of dash.old.parse_text(text), which is deprecated."])])
    code, _, err = run_cli(feed, "--llm-provider", "extractive")
    assert code == 0, err
    text = (tmp_path / "dash" / "SKILL.md").read_text()
    assert "---" not in text[4:].split("\n---\n", 1)[0]
    assert validate(tmp_path / "dash").returncode == 0
