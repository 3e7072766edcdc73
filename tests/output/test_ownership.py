"""Never delete or overwrite what skill3 did not write in the output folder.

Real `skill3 synth` runs (extractive provider, so the skill is named from the topic) into folders that
already hold the user's own files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skill3.cli.app import app
from synth.output.ownership import GENERATOR_META, OwnershipError, check_outputs, free_skill_name, owned_skill_dirs
from synth.pipeline.run import SynthFailure, write_skill
from synth.skill.postprocess import Skill
from tests.pipeline.corpus import EXAMPLE, parse_sources, write_jsonl


@pytest.fixture
def feed(tmp_path):
    return write_jsonl(tmp_path / "run.jsonl", parse_sources(EXAMPLE))


def synth(feed: Path, *extra: str):
    r = CliRunner().invoke(app, ["synth", str(feed), "--llm-provider", "extractive", "--quiet", *extra])
    return r.exit_code, r.stderr


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def users_skill(folder: Path) -> dict[str, bytes]:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: mcp\ndescription: my own notes\n---\n# Mine\n", encoding="utf-8")
    (folder / "notes.txt").write_text("hand-written, not backed up\n", encoding="utf-8")
    return snapshot(folder)


def test_a_users_folder_named_like_the_skill_is_kept_and_the_skill_written_beside_it(feed, tmp_path):
    mine = users_skill(tmp_path / "mcp")
    code, err = synth(feed)
    assert code == 0, err
    assert snapshot(tmp_path / "mcp") == mine
    text = (tmp_path / "mcp-2" / "SKILL.md").read_text(encoding="utf-8")
    assert "\nname: mcp-2\n" in text
    assert "was not written by skill3" in err and "mcp-2" in err
    man = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    assert man["skill"]["name"] == "mcp-2" and man["written"]["skill_dir"] == "mcp-2"
    assert "mcp-2/SKILL.md" in man["written"]["files"] and any("not written by skill3" in w for w in man["warnings"])
    # the next run recognises its own mcp-2 (from run.json) and replaces it; the user's folder is still untouched
    (tmp_path / "mcp-2" / "SKILL.md").write_text("stale", encoding="utf-8")
    code, err = synth(feed)
    assert code == 0, err
    assert snapshot(tmp_path / "mcp") == mine and not (tmp_path / "mcp-3").exists()
    assert "name: mcp-2" in (tmp_path / "mcp-2" / "SKILL.md").read_text(encoding="utf-8")


def test_a_users_file_named_like_the_skill_is_kept(feed, tmp_path):
    (tmp_path / "mcp").write_text("a file of mine", encoding="utf-8")
    code, err = synth(feed)
    assert code == 0, err
    assert (tmp_path / "mcp").read_text(encoding="utf-8") == "a file of mine"
    assert (tmp_path / "mcp-2" / "SKILL.md").is_file()


def test_skill3s_own_skill_folder_is_replaced_in_place(feed, tmp_path):
    code, err = synth(feed)
    assert code == 0, err
    (tmp_path / "mcp" / "SKILL.md").write_text("stale", encoding="utf-8")
    code, err = synth(feed)
    assert code == 0, err
    assert "name: mcp" in (tmp_path / "mcp" / "SKILL.md").read_text(encoding="utf-8")
    assert not (tmp_path / "mcp-2").exists() and "not written by skill3" not in err


def test_the_previous_runs_skill_under_another_name_is_removed_but_a_users_folder_never(feed, tmp_path):
    code, err = synth(feed, "--topic", "mcp-old")
    assert code == 0, err
    assert (tmp_path / "mcp-old" / "SKILL.md").is_file()
    mine = users_skill(tmp_path / "other")
    code, err = synth(feed)
    assert code == 0, err
    assert not (tmp_path / "mcp-old").exists() and (tmp_path / "mcp" / "SKILL.md").is_file()
    assert snapshot(tmp_path / "other") == mine


@pytest.mark.parametrize("name, content", [
    ("run.json", '{"results": [1, 2, 3]}'),
    ("run.json", '{"schema": "other-tool/1", "skill": {"name": "mcp"}}'),
    ("run.json", "not json at all"),
    ("index.html", "<!doctype html><title>My dashboard</title>"),
    ("index.html", ""),
])
def test_a_users_run_json_or_index_html_is_refused_with_one_line(feed, tmp_path, name, content):
    (tmp_path / name).write_text(content, encoding="utf-8")
    before = snapshot(tmp_path)
    code, err = synth(feed)
    assert code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and str(tmp_path / name) in lines[0] and "not written by skill3" in lines[0]
    assert "--output-dir" in lines[0]
    assert snapshot(tmp_path) == before and not (tmp_path / "mcp").exists()


def test_a_symlinked_run_json_is_refused(feed, tmp_path):
    target = tmp_path / "elsewhere.json"
    target.write_text('{"schema": "skill3.run/1"}', encoding="utf-8")
    os.symlink(target, tmp_path / "run.json")
    code, err = synth(feed)
    assert code == 2 and "run.json" in err
    assert target.read_text(encoding="utf-8") == '{"schema": "skill3.run/1"}'


def test_learn_refuses_a_users_run_json_before_crawling(tmp_path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "run.json").write_text("{}", encoding="utf-8")
    from skill3.cli.main import app as skill3_app

    r = CliRunner().invoke(skill3_app, ["learn", "mcp", "--input-file", str(EXAMPLE), "--output-dir", str(out),
                                 "--llm-provider", "extractive", "--cutoff-time", "2026-01"])
    assert r.exit_code == 2
    assert "not written by skill3" in r.stderr and not (out / "run.jsonl").exists()
    assert (out / "run.json").read_text(encoding="utf-8") == "{}"


def test_skill3s_own_outputs_are_recognised(tmp_path):
    (tmp_path / "run.json").write_text(json.dumps({"schema": "skill3.run/1", "skill": {"name": "mcp"},
                                                   "written": {"skill_dir": "mcp", "files": []}}), encoding="utf-8")
    (tmp_path / "index.html").write_text(f"<!doctype html>\n<html><head>{GENERATOR_META}</head></html>", encoding="utf-8")
    check_outputs(tmp_path)
    assert owned_skill_dirs(tmp_path) == {"mcp"}
    (tmp_path / "index.html").write_text("<html><title>mcp — skill3 preview</title></html>", encoding="utf-8")
    check_outputs(tmp_path)  # a preview from before the generator tag
    (tmp_path / "index.html").write_text("<html>mine</html>", encoding="utf-8")
    with pytest.raises(OwnershipError):
        check_outputs(tmp_path)


def test_the_preview_carries_the_generator_tag(feed, tmp_path):
    code, err = synth(feed)
    assert code == 0, err
    assert GENERATOR_META in (tmp_path / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("existing, owned, name, expected", [
    ([], set(), "mcp", "mcp"),
    (["mcp"], {"mcp"}, "mcp", "mcp"),
    (["mcp"], set(), "mcp", "mcp-2"),
    (["mcp", "mcp-2"], set(), "mcp", "mcp-3"),
    (["mcp", "mcp-2"], {"mcp-2"}, "mcp", "mcp-2"),
    (["a" * 64], set(), "a" * 64, "a" * 62 + "-2"),
    (["a" * 62 + "-b"], set(), "a" * 62 + "-b", "a" * 62 + "-2"),
])
def test_free_skill_name(tmp_path, existing, owned, name, expected):
    for n in existing:
        (tmp_path / n).mkdir()
    got = free_skill_name(tmp_path, name, owned)
    assert got == expected and len(got) <= 64 and "--" not in got


def test_write_skill_never_replaces_a_folder_it_does_not_own(tmp_path):
    mine = users_skill(tmp_path / "mcp")
    skill = Skill(name="mcp", frontmatter={"name": "mcp", "description": "What changed in MCP."}, body="# MCP\n")
    with pytest.raises(SynthFailure) as exc:
        write_skill(tmp_path, skill)
    assert "not written by skill3" in str(exc.value) and snapshot(tmp_path / "mcp") == mine
    assert [p.name for p in tmp_path.iterdir()] == ["mcp"]  # no staging left behind
    dest, _ = write_skill(tmp_path, skill, owned={"mcp"})
    assert dest == tmp_path / "mcp" and not (tmp_path / "mcp" / "notes.txt").exists()
