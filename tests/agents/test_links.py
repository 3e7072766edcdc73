"""Round four, item 3: no write, delete or read through a symbolic link that leaves the folder skill3 owns —
install, re-install, uninstall, export, and the MCP server's root (list_skills, get_skill, read_resource). Real
files and links in tmp folders; the folder a link points at must be byte for byte as it was."""

from __future__ import annotations

import json
import shutil

import anyio
import pytest
from mcp import Client

from synth.agents import AgentsError
from synth.agents.export import FORMATS, export_run
from synth.agents.install import install, uninstall
from synth.agents.runview import load
from tests.agents.fixtures import entry, make_run, params

A = "https://frob.example/changes"


def snapshot(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def run(tmp_path):
    return make_run(tmp_path / "out", entries=[entry("3.0", "added", "`frob.stream()` streams frames.", A)],
                    references={"references/streams.md": "# Streams\n\nDetails.\n"})


@pytest.fixture
def outside(tmp_path):
    d = tmp_path / "outside"
    d.mkdir()
    (d / "streams.md").write_text("# Streams\n\nDetails.\n")  # the same bytes skill3 recorded: a delete would match
    (d / "precious.txt").write_text("the user's\n")
    return d


def _installed(tmp_path, run):
    proj = tmp_path / "proj"
    proj.mkdir()
    install(run, "claude-code", project=proj)
    return proj, proj / ".claude" / "skills" / "frob"


def _link_references(dest, outside):
    shutil.rmtree(dest / "references")
    (dest / "references").symlink_to(outside, target_is_directory=True)


def test_reinstall_never_writes_through_a_linked_folder(tmp_path, run, outside):
    proj, dest = _installed(tmp_path, run)
    _link_references(dest, outside)
    before = snapshot(outside)
    with pytest.raises(AgentsError, match="is a symbolic link; skill3 does not write through it"):
        install(run, "claude-code", project=proj)
    assert snapshot(outside) == before and not (outside / ".streams.md.tmp").exists()


def test_uninstall_never_deletes_through_a_linked_folder(tmp_path, run, outside):
    proj, dest = _installed(tmp_path, run)
    _link_references(dest, outside)
    before = snapshot(outside)
    result = uninstall("frob", "claude-code", project=proj)
    assert snapshot(outside) == before
    assert "references/streams.md" in result.kept and "SKILL.md" in result.removed


def test_a_skill_whose_skill_md_is_a_link_is_not_installed(tmp_path, run, outside):
    skill = run / "frob"
    (outside / "SKILL.md").write_bytes((skill / "SKILL.md").read_bytes())
    (skill / "SKILL.md").unlink()
    (skill / "SKILL.md").symlink_to(outside / "SKILL.md")
    proj = tmp_path / "proj"
    proj.mkdir()
    with pytest.raises(AgentsError, match=r"SKILL\.md is a symbolic link"):
        install(skill, "claude-code", project=proj)
    assert not (proj / ".claude" / "skills" / "frob").exists()


TARGETS = {"agents-md": "AGENTS.md", "claude-md": "CLAUDE.md", "cursor": ".cursor/rules/skill3-frob.mdc", "llms-txt": "llms.txt"}
LINKED = [(fmt, "FILE") for fmt in FORMATS] + [("cursor", ".cursor"), ("cursor", ".cursor/rules")]


@pytest.mark.parametrize("fmt,linked", LINKED)
def test_export_never_writes_through_a_link(tmp_path, run, outside, fmt, linked):
    to = tmp_path / "proj"
    to.mkdir()
    rel = TARGETS[fmt] if linked == "FILE" else linked
    (to / rel).parent.mkdir(parents=True, exist_ok=True)
    (to / rel).symlink_to(outside / "precious.txt" if linked == "FILE" else outside)
    before = snapshot(outside)
    with pytest.raises(AgentsError, match="symbolic link"):
        export_run(run, fmt, to=to)
    assert snapshot(outside) == before and sorted(p.name for p in outside.iterdir()) == ["precious.txt", "streams.md"]


@pytest.fixture
def linked_root(tmp_path):
    """An MCP root with one real skill and two that link outside it: a run whose skill folder is a link, a skill
    folder whose SKILL.md is a link."""
    root = tmp_path / "root"
    make_run(root / "frob", entries=[entry("3.0", "added", "`frob.stream()` streams frames.", A)])
    secret = make_run(tmp_path / "elsewhere", name="secretskill", entries=[entry("3.0", "added", "outside text here", A)])
    (root / "linkrun").mkdir()
    man = json.loads((secret / "run.json").read_text())
    (root / "linkrun" / "run.json").write_text(json.dumps(man))
    (root / "linkrun" / "secretskill").symlink_to(secret / "secretskill", target_is_directory=True)
    (root / "linkmd").mkdir()
    (root / "linkmd" / "SKILL.md").symlink_to(secret / "secretskill" / "SKILL.md")
    return root


def test_load_refuses_links_inside_a_run(linked_root):
    for name in ("linkrun", "linkmd"):
        with pytest.raises(AgentsError, match="symbolic link"):
            load(linked_root / name)


def test_the_mcp_server_never_reads_through_a_link_out_of_its_root(linked_root):
    async def main():
        async with Client(params(linked_root)) as c:
            listed = json.loads((await c.call_tool("list_skills", {})).content[0].text)
            got = await c.call_tool("get_skill", {"topic": "secretskill"})
            resources = [str(r.uri) for r in (await c.list_resources()).resources]
            try:
                await c.read_resource("skill://secretskill/SKILL.md")
                read_failed = False
            except Exception:
                read_failed = True
            return listed, got, resources, read_failed

    listed, got, resources, read_failed = anyio.run(main)
    assert [s["name"] for s in listed["skills"]] == ["frob"]
    assert got.is_error and "outside text" not in got.content[0].text
    assert resources == ["skill://frob/SKILL.md"] and read_failed


def test_a_refresh_never_writes_through_a_linked_skill_folder(tmp_path):
    """Learn once, replace the skill folder with a link to a copy elsewhere, learn again: the copy stays as it was."""
    from tests.harness import REPO, skill3

    out, outside = tmp_path / "out", tmp_path / "outside"
    args = ("learn", "mcp", "--input-file", str(REPO / "examples" / "mcp.sources"), "--output-dir", str(out),
            "--llm-provider", "extractive", "--cutoff-time", "2026-01")
    env = {"SKILL3_HOME": str(tmp_path / "home")}
    first = skill3(*args, env=env, timeout=240)
    assert first.returncode in (0, 3), first.stderr[-2000:]
    name = json.loads((out / "run.json").read_text())["written"]["skill_dir"]
    shutil.copytree(out / name, outside)
    shutil.rmtree(out / name)
    (out / name).symlink_to(outside, target_is_directory=True)
    before = snapshot(outside)
    (outside / "SKILL.md").touch()
    again = skill3(*args, "--fresh", env=env, timeout=240)
    assert snapshot(outside) == before and "Traceback" not in again.stderr
    assert "not written by skill3" in again.stderr, again.stderr[-2000:]  # the link is left alone: written beside it
    assert (out / f"{name}-2" / "SKILL.md").is_file() and (out / name).is_symlink()
