"""skill3 install: the skill folder where each agent's documentation says it loads skills; --uninstall takes back only that."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from skill3.cli.app import app
from synth.agents import AgentsError
from synth.agents.install import AGENTS, RECORD, install, uninstall
from tests.agents.fixtures import entry, make_run

A = "https://frob.example/changes"
# agent → the skills folder in a project, as each agent's documentation names it (docs/agents.md cites them)
WHERE = {"claude-code": ".claude/skills", "codex": ".agents/skills", "cursor": ".cursor/skills"}


@pytest.fixture
def run(tmp_path):
    return make_run(tmp_path / "out", entries=[entry("3.0", "added", "`frob.stream()` streams frames.", A)],
                    references={"references/streams.md": "# Streams\n\nDetails.\n"})


@pytest.mark.parametrize("agent", sorted(WHERE))
def test_install_into_a_project_and_uninstall_leaves_the_users_files(tmp_path, run, agent):
    proj = tmp_path / "proj"
    root = proj / WHERE[agent]
    (root / "mine").mkdir(parents=True)
    (root / "mine" / "SKILL.md").write_text("my own skill\n")
    r = CliRunner().invoke(app, ["install", str(run), "--agent", agent, "--project", str(proj)])
    assert r.exit_code == 0, r.output
    dest = root / "frob"
    assert (dest / "SKILL.md").read_bytes() == (run / "frob" / "SKILL.md").read_bytes()
    assert (dest / "references" / "streams.md").is_file()
    record = json.loads((root / RECORD).read_text())
    assert sorted(record["skills"]["frob"]["files"]) == ["SKILL.md", "references/streams.md"]
    assert AGENTS[agent].doc in r.output  # names the documentation the location comes from
    # the user adds a note inside the installed folder; uninstall removes only what skill3 put there
    (dest / "NOTES.md").write_text("mine\n")
    r = CliRunner().invoke(app, ["install", "frob", "--agent", agent, "--project", str(proj), "--uninstall"])
    assert r.exit_code == 0, r.output
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()) == ["frob/NOTES.md", "mine/SKILL.md"]
    assert not (root / RECORD).exists()


def test_install_for_the_user_goes_under_home(tmp_path, run, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    r = CliRunner().invoke(app, ["install", str(run / "frob"), "--agent", "claude-code", "--user"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "home" / ".claude" / "skills" / "frob" / "SKILL.md").is_file()


def test_a_folder_skill3_did_not_install_is_never_overwritten(tmp_path, run):
    proj = tmp_path / "p"
    dest = proj / ".claude" / "skills" / "frob"
    dest.mkdir(parents=True)
    (dest / "SKILL.md").write_text("hand-made\n")
    with pytest.raises(AgentsError, match="was not installed by skill3"):
        install(run, "claude-code", project=proj)
    assert (dest / "SKILL.md").read_text() == "hand-made\n"
    with pytest.raises(AgentsError, match="has not installed frob"):
        uninstall("frob", "claude-code", project=proj)
    assert (dest / "SKILL.md").read_text() == "hand-made\n"


def test_reinstall_updates_its_own_files_but_not_changed_ones(tmp_path, run):
    proj = tmp_path / "p"
    proj.mkdir()
    install(run, "codex", project=proj)
    dest = proj / ".agents" / "skills" / "frob"
    make_run(run, version="1.1.0", entries=[entry("3.1", "added", "`frob.batch()` sends many frames at once.", A)])
    (run / "frob" / "references" / "streams.md").unlink()
    r = install(run, "codex", project=proj)  # an update: its own files replaced, the dropped reference removed
    assert "frob.batch()" in (dest / "SKILL.md").read_text() and r.removed == ["references/streams.md"]
    assert not (dest / "references").exists()
    (dest / "SKILL.md").write_text("edited by the user\n")
    with pytest.raises(AgentsError, match="was changed after skill3 installed it"):
        install(run, "codex", project=proj)
    r = uninstall("frob", "codex", project=proj)
    assert r.kept == ["SKILL.md"] and (dest / "SKILL.md").read_text() == "edited by the user\n"


@pytest.mark.parametrize("args, message", [
    (["--agent", "vim"], "unknown agent 'vim'"),
    (["--agent", "cursor", "--project", "/no/such/dir"], "does not exist"),
    (["--agent", "cursor", "--user", "--project", "."], "not both"),
])
def test_bad_usage_is_one_line(run, args, message):
    r = CliRunner().invoke(app, ["install", str(run), *args])
    assert r.exit_code == 2 and message in r.stderr and "Traceback" not in r.output


def test_an_invalid_skill_is_not_installed(tmp_path):
    bad = tmp_path / "Bad_Name"
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\nname: other\ndescription: x\n---\nbody\n")
    with pytest.raises(AgentsError, match="not a valid Agent Skill"):
        install(bad, "cursor", project=tmp_path)
    assert not (tmp_path / ".cursor").exists()
