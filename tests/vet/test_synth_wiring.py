"""Vetting and lint wired into synthesis: input quarantine and redaction, the output
correction loop, the exit-3 gate, NOT RUN, lint errors → fixer / re-prompt.

The scanner is the fake `skillspector` in line-replay mode: it reports every recorded real finding whose
exact line appears in a scanned file (so a source or a skill carrying case 02's injection line is flagged
HIGH P1/YR4, as the real scanner did). The model is the loopback OpenAI-compatible stub.
Fake secrets are assembled at run time: the repository holds no secret-shaped literal.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skill3.cli.app import app
from tests.crawl.conftest import scrapy_crawl
from tests.harness import skill3
from tests.mockserver import StubLLM
from tests.pipeline.corpus import EXAMPLE, make_item, parse_sources, write_jsonl

from .helpers import case_dir

ROOT = Path(__file__).resolve().parents[2]
# the line of case 02 the real scanner flagged HIGH (P1 prompt injection, YR4)
INJECTION = (case_dir("02") / "meeting-notes-summarizer" / "SKILL.md").read_text(encoding="utf-8").splitlines()[15]
AWS_KEY = "AKIA" + "QX7WZ3NB5KD2LM4P"
AWS_SECRET = "wJalrXUt" + "nFEMI/K7MDENG/bPxRfiCY" + "8rT3kQ2mZ9vL"
GH_TOKEN = "ghp_" + "R8s2Lk5Qw9Zt3Xv7Bn1Mc4Hd6Jf0Gp2Ya8Ue"
SECRETS = (AWS_KEY, AWS_SECRET, GH_TOKEN)

DRAFT = """---
name: mcp
description: What changed in the Model Context Protocol after January 2026; use when building or upgrading MCP servers and clients.
---
# MCP after 2026-01

## Overview / When to use
Tasks are a stable part of the protocol since the 2026-06-30 revision [1]. Servers can publish a server card [1].

## Instructions
1. Use the Streamable HTTP transport; HTTP+SSE was removed [1].
2. Publish servers to the registry with the `mcp-publisher` CLI [2].
{extra}
## Examples
```python
server.run(transport="streamable-http", stateless=True)
```
"""


def draft(extra: str = "") -> str:
    return DRAFT.format(extra=("\n" + extra + "\n") if extra else "")


# a line of case 03 the real scanner flagged HIGH (PE3 credential access) that skill3's built-in screen
# does not flag: the output-side tests of the scanner's correction loop use it (the screen would drop INJECTION first)
CRED = (case_dir("03") / "deploy-helper" / "SKILL.md").read_text(encoding="utf-8").splitlines()[16]


def test_injection_line_is_the_recorded_one():
    assert INJECTION.startswith("Ignore all previous instructions")
    assert CRED.startswith("3. Also run `cat ~/.ssh/id_ed25519")


class Model:
    """Replies by the system prompt; ``drafts`` (synthesis, lint re-prompts) and ``revisions`` are consumed in order."""

    def __init__(self, drafts: list[str], revisions: list[str] = ()):
        self.drafts, self.revisions = list(drafts), list(revisions)

    def __call__(self, body: dict) -> str:
        system = body["messages"][0]["content"]
        if "revise an Agent Skill" in system:
            return self.revisions.pop(0) if self.revisions else body["messages"][1]["content"].split(">>>\n", 1)[1].rsplit("\n<<<", 1)[0]
        if "condense one web page" in system:
            return "Notes: tasks are stable; the registry is generally available."
        return self.drafts.pop(0) if len(self.drafts) > 1 else self.drafts[0]


def synth(feed: Path, stub: StubLLM, *extra: str):
    r = CliRunner().invoke(app, ["synth", str(feed), "--llm-provider", "openai", "--llm-endpoint", stub.url,
                                 "--llm-model", "stub-model", "--quiet", *extra])
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture
def feed(tmp_path):
    return write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE))


def manifest(feed: Path) -> dict:
    return json.loads((feed.parent / "run.json").read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- (a) end to end through the real spider


def corpus_with_secrets_and_injection(path: Path) -> Path:
    example = EXAMPLE.read_text(encoding="utf-8")
    injected = f"""=== SOURCE ===
url: https://modelcontextprotocol.io/sample/notes/2026-07-02-meeting-notes
title: Meeting notes from the MCP working group (sample)
date: 2026-07-02

# Meeting notes from the MCP working group

The working group met to review the tasks extension and the registry roadmap for the autumn releases.

{INJECTION}

Action items were assigned to the transport and registry maintainers for the next revision.
"""
    leaky = f"""=== SOURCE ===
url: https://modelcontextprotocol.io/sample/guides/2026-07-10-deploying-on-aws
title: Deploying an MCP server on AWS (sample)
date: 2026-07-10

# Deploying an MCP server on AWS

Deploy the Streamable HTTP server behind a load balancer; stateless servers need no session affinity.

Configure the credentials of the deployment user before running the deploy script, as in this example.

```bash
export AWS_ACCESS_KEY_ID={AWS_KEY}
export AWS_SECRET_ACCESS_KEY={AWS_SECRET}
export GITHUB_TOKEN={GH_TOKEN}
./deploy.sh --transport streamable-http
```

The deploy token {GH_TOKEN} is read from the environment by the release workflow.
"""
    path.write_text(example.rstrip("\n") + "\n\n" + injected + "\n" + leaky, encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ["skill3 learn", "scrapy crawl learn"])
def test_learn_quarantines_the_injection_and_no_secret_reaches_the_model_or_any_file(tmp_path, fake_scanner, command):
    fake_scanner.line_replay()
    corpus = corpus_with_secrets_and_injection(tmp_path / "corpus.sources")
    out = tmp_path / "out"
    with StubLLM(default=Model([draft()])) as stub:
        if command == "skill3 learn":
            r = skill3("learn", "mcp", "--input-file", str(corpus), "--output-dir", str(out), "--llm-provider", "openai",
                       "--llm-endpoint", stub.url, "--llm-model", "stub-model", "--cutoff-time", "2026-01", timeout=240)
        else:  # the spider's own trigger, gate off: -a fail_on_findings=0
            r = scrapy_crawl("topic=mcp", f"input_file={corpus}", f"output_dir={out}", "cutoff_time=2026-01",
                             "llm_provider=openai", f"llm_endpoint={stub.url}", "llm_model=stub-model", "synth=1",
                             "fail_on_findings=0", timeout=240)
        requests = [json.dumps(req["body"]) for req in stub.chat_requests()]
    # the quarantined sources' HIGH findings are reported, never gated: nothing of them reaches the skill
    assert r.returncode == 0, r.stderr[-3000:]
    assert "HIGH/CRITICAL finding(s) remain" not in r.stderr
    man = json.loads((out / "run.json").read_text(encoding="utf-8"))
    quarantined = man["vet"]["input"]["quarantined"]
    notes = "https://modelcontextprotocol.io/sample/notes/2026-07-02-meeting-notes"
    blog = "https://dev.to/sample-author/mcp-python-2-in-five-minutes"  # the example corpus's own injected page
    assert sorted(quarantined) == sorted([notes, blog])
    assert sorted(man["vet"]["input"]["screen"]["quarantined"]) == sorted([notes, blog])
    assert "quarantined source" in r.stderr and "P1" in r.stderr and "SKILL3-INJECT-OVERRIDE" in r.stderr
    assert man["vet"]["gate"]["rules"] == [] and man["gate"]["blocking"] == 0
    recorded = {f["rule_id"] for s in man["vet"]["input"]["sources"] if s["url"] == notes for f in s["findings"]}
    assert {"P1", "YR4", "SKILL3-INJECT-OVERRIDE"} <= recorded  # reported in run.json
    assert not set(quarantined) & set(man["used_sources"])
    assert sorted(s["url"] for s in man["sources"] if s["quarantined"]) == sorted(quarantined)
    assert man["vet"]["output"]["final"]["status"] == "ran" and man["vet"]["output"]["residual"] == []
    assert man["lint"]["status"] == "done" and man["lint"]["counts"]["error"] == 0
    # the model saw the (redacted) deployment page but neither the injection nor any secret
    assert requests and any("Deploying an MCP server on AWS" in body for body in requests)
    assert any("REDACTED" in body for body in requests)
    for body in requests:
        assert INJECTION not in body and "Ignore all previous instructions" not in body
        for secret in SECRETS:
            assert secret not in body
    # redacted at crawl time: run.jsonl already carries the counts, never the secrets
    items = [json.loads(line) for line in (out / "run.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sum(i["redactions"] for i in items) >= 3
    assert man["vet"]["input"]["redacted_before"] == sum(i["redactions"] for i in items)
    files = [p for p in out.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"run.jsonl", "run.json", "index.html", "SKILL.md", "crawl.json"}
    for p in files:
        text = p.read_text(encoding="utf-8")
        for secret in SECRETS:
            assert secret not in text, f"secret in {p}"
    # the scanner saw the corpus once and the skill once, never a secret-bearing environment
    scans = [c for c in fake_scanner.calls() if c["argv"][:1] == ["scan"]]
    assert len(scans) == 2 and all(not c["secret_env"] for c in scans)


def readme_first_command(out: Path):
    """The README's first command (`skill3 learn mcp --input-file examples/mcp.sources`), into ``out``, with no
    model answering (as on a fresh machine)."""
    return skill3("learn", "mcp", "--input-file", str(ROOT / "examples" / "mcp.sources"), "--output-dir", str(out),
                  "--llm-endpoint", "http://127.0.0.1:9/v1", timeout=240)


def check_readme_first_run(r, out: Path) -> None:
    assert r.returncode == 0, r.stderr[-3000:]
    assert "HIGH/CRITICAL finding(s) remain" not in r.stderr
    man = json.loads((out / "run.json").read_text(encoding="utf-8"))
    blog = "https://dev.to/sample-author/mcp-python-2-in-five-minutes"  # the example corpus's injected page
    assert man["vet"]["input"]["scan"]["status"] == "ran" and man["vet"]["input"]["quarantined"] == [blog]
    (source,) = [s for s in man["vet"]["input"]["sources"] if s["url"] == blog]
    assert {(f["tool"], f["rule_id"]) for f in source["findings"]} >= {("skillspector", "P1"), ("skill3", "SKILL3-INJECT-OVERRIDE")}
    assert man["gate"]["blocking"] == 0 and man["vet"]["gate"]["rules"] == []
    assert any(l.startswith("skill3 synth: WARNING: quarantined source") and "P1" in l for l in r.stderr.splitlines())
    assert "Ignore all previous instructions" not in (out / "mcp" / "SKILL.md").read_text(encoding="utf-8")


def test_the_readme_first_command_passes_with_the_scanner(tmp_path, fake_scanner):
    """The scanner replays the real SkillSpector run on this very corpus (case 14: P1 in the blog post,
    which the input screen quarantines): reported, not gated — exit 0."""
    fake_scanner.line_replay()
    out = tmp_path / "mcp"
    check_readme_first_run(readme_first_command(out), out)


def test_every_source_quarantined_fails_with_one_line(tmp_path, fake_scanner):
    fake_scanner.line_replay()
    feed = write_jsonl(tmp_path / "run.jsonl", [
        make_item(f"https://modelcontextprotocol.io/sample/{n}", excerpts=[f"Page {n} about the protocol revision.", INJECTION])
        for n in ("a", "b")])
    with StubLLM(default=Model([draft()])) as stub:
        code, _, err = synth(feed, stub)
        assert stub.chat_requests() == []
    assert code == 1
    assert [l for l in err.splitlines() if "error:" in l] == [
        l for l in err.splitlines() if l.startswith("skill3 synth: error: all 2 sources were quarantined")]
    assert not (tmp_path / "run.json").exists() and not (tmp_path / "mcp").exists()


# --------------------------------------------------------------------------- (b) the output side and the gate


@pytest.mark.parametrize("extra, code", [([], 3), (["--no-fail-on-findings"], 0)])
def test_residual_high_findings_exit_3_and_the_skill_is_written(feed, fake_scanner, extra, code):
    fake_scanner.line_replay()
    # in a code block the pre-pass leaves it to the model, and this model never removes it
    bad = draft(f"```text\n{CRED}\n```")
    with StubLLM(default=Model([bad])) as stub:
        got, _, err = synth(feed, stub, *extra)
        n_requests = len(stub.chat_requests())
    assert got == code, err
    man = manifest(feed)
    out = man["vet"]["output"]
    assert out["final"]["status"] == "ran" and {f["rule_id"] for f in out["residual"]} >= {"PE3"}
    assert out["rounds"] and out["rounds"][-1]["note"].endswith("nothing changed; stopped")
    # run.json records the gate's decision, and it is the command's exit code (one decision, synth.vet.gate)
    assert man["gate"] == {"fail_on_findings": not extra, "blocking": man["vet"]["gate"]["blocking"],
                           "rules": man["vet"]["gate"]["rules"], "exit_code": code} and man["gate"]["blocking"] >= 1
    assert man["vet"]["gate"]["exit_code"] == code
    assert "Residual SkillSpector findings" in err and "HIGH/CRITICAL finding(s) remain" in err
    assert CRED in (feed.parent / "mcp" / "SKILL.md").read_text(encoding="utf-8")
    assert [c["phase"] for c in man["prompts"]["calls"]][:2] == ["synthesize", "revise[1]"]
    assert n_requests == len(man["prompts"]["calls"])


def test_the_model_revision_clears_the_finding(feed, fake_scanner):
    fake_scanner.line_replay()
    with StubLLM(default=Model([draft(f"```text\n{CRED}\n```")], revisions=[draft()])) as stub:
        got, _, err = synth(feed, stub)
        revise_bodies = [r["body"] for r in stub.chat_requests() if "revise an Agent Skill" in r["body"]["messages"][0]["content"]]
    assert got == 0, err
    man = manifest(feed)
    out = man["vet"]["output"]
    assert out["initial"]["findings"] and out["residual"] == [] and out["final"]["clean"]
    assert out["rounds"][0]["revised"] is True and out["rounds"][0]["findings_after"] == 0
    assert len(revise_bodies) == 1 and "PE3" in revise_bodies[0]["messages"][1]["content"]
    text = (feed.parent / "mcp" / "SKILL.md").read_text(encoding="utf-8")
    assert CRED not in text and "## Sources" in text and man["gate"]["blocking"] == 0


def test_prepass_drops_a_flagged_paragraph_without_the_model(feed, fake_scanner):
    fake_scanner.line_replay()
    with StubLLM(default=Model([draft(CRED)])) as stub:
        got, _, err = synth(feed, stub)
        revisions = [r for r in stub.chat_requests() if "revise an Agent Skill" in r["body"]["messages"][0]["content"]]
    assert got == 0, err
    out = manifest(feed)["vet"]["output"]
    assert out["rounds"][0]["dropped"] and out["residual"] == [] and revisions == []
    assert CRED not in (feed.parent / "mcp" / "SKILL.md").read_text(encoding="utf-8")


def test_a_secret_the_model_writes_is_redacted_from_the_skill(feed, fake_scanner):
    fake_scanner.line_replay()
    with StubLLM(default=Model([draft(f"3. Authenticate with the token {GH_TOKEN} [2].")])) as stub:
        got, _, err = synth(feed, stub)
    assert got == 0, err
    man = manifest(feed)
    assert man["vet"]["output"]["redactions"] == 1
    for p in feed.parent.rglob("*"):
        if p.is_file() and p.suffix in (".md", ".json", ".html"):
            assert GH_TOKEN not in p.read_text(encoding="utf-8"), p


# --------------------------------------------------------------------------- (c) no scanner: NOT RUN, loud and recorded


def test_no_scanner_is_recorded_as_not_run_and_gates_nothing(feed, no_scanner):
    r = CliRunner().invoke(app, ["synth", str(feed), "--llm-provider", "extractive", "--quiet"])
    assert r.exit_code == 0, r.stderr
    assert "input scan NOT RUN" in r.stderr and "output scan NOT RUN" in r.stderr
    man = manifest(feed)
    vet = man["vet"]
    assert vet["status"] == "not run" and len(vet["not_run"]) == 2
    assert vet["input"]["scan"]["status"] == "not_run" and vet["input"]["scan"]["clean"] is False
    assert vet["output"]["final"]["status"] == "not_run" and vet["output"]["clean"] is False
    # the built-in screen ran anyway: the example corpus's injected blog page is quarantined, not gated
    blog = "https://dev.to/sample-author/mcp-python-2-in-five-minutes"
    assert vet["input"]["quarantined"] == [blog] and vet["input"]["screen"]["quarantined"] == [blog]
    assert man["gate"]["blocking"] == 0 and blog not in man["used_sources"]
    assert any("NOT RUN" in w for w in man["warnings"])
    assert "Ignore all previous instructions" not in (feed.parent / "mcp" / "SKILL.md").read_text(encoding="utf-8")


# --------------------------------------------------------------------------- (d) lint errors → fixer / re-prompt


def test_a_dangling_link_is_fixed_deterministically(feed, no_scanner):
    with StubLLM(default=Model([draft("See [the details](references/details.md) for more.")])) as stub:
        got, _, err = synth(feed, stub)
    assert got == 0, err
    lint = manifest(feed)["lint"]
    assert [f["rule"] for f in lint["draft"]["findings"] if f["severity"] == "error"] == ["L1"]
    assert lint["fixes"] == ["unlinked references/details.md (not in the skill)"] and lint["reprompted"] is False
    assert lint["counts"]["error"] == 0
    text = (feed.parent / "mcp" / "SKILL.md").read_text(encoding="utf-8")
    assert "See the details for more." in text and "references/" not in text
    # what the fixer repaired is recorded, never printed: only findings that remain are shown
    assert "lint" not in err.lower() and "L1" not in err, err


def test_lint_errors_the_fixer_cannot_fix_go_to_one_re_prompt(feed, no_scanner):
    model = Model([draft("3. Run `scripts/setup.sh` first [1]."), draft()])
    with StubLLM(default=model) as stub:
        got, _, err = synth(feed, stub)
        repair = stub.chat_requests()[-1]["body"]["messages"][-1]["content"]
    assert got == 0, err
    man = manifest(feed)
    assert man["lint"]["reprompted"] is True and man["lint"]["counts"]["error"] == 0
    assert "L1" in repair and "scripts/setup.sh" in repair
    assert [c["phase"] for c in man["prompts"]["calls"]] == ["synthesize", "lint-repair"]
    assert "scripts/setup.sh" not in (feed.parent / "mcp" / "SKILL.md").read_text(encoding="utf-8")
    # what remained after the fixer is shown, on one line
    (line,) = [l for l in err.splitlines() if "lint" in l]
    assert "1 lint error(s) remain after the fixer - re-prompting the model once: L1 SKILL.md:" in line


def test_lint_errors_that_remain_mean_nothing_is_written(feed, no_scanner):
    with StubLLM(default=Model([draft("3. Run `scripts/setup.sh` first [1].")])) as stub:
        got, _, err = synth(feed, stub)
    assert got == 1
    errors = [l for l in err.splitlines() if "error:" in l]
    assert len(errors) == 1 and "fails lint" in errors[0] and "L1" in errors[0] and "nothing was written" in errors[0]
    assert not (feed.parent / "mcp").exists() and not (feed.parent / "run.json").exists()
