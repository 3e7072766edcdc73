"""skill3 diff: versions, claims (by citation and text) and sources between two runs; the run folder read back."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from skill3.cli.app import app
from synth.agents import AgentsError
from synth.agents.diff import diff_claims, diff_runs, summary_lines
from synth.agents.runview import Entry, entries_from_skill, load
from tests.agents.fixtures import entry, make_run

A, B, C = "https://frob.example/changes", "https://frob.example/api", "https://blog.example/frob-3"


def E(text, url=A, version="3.0"):
    return Entry.stated(version=version, kind="added", area="", text=text, url=url)


@pytest.mark.parametrize("old, new, added, removed, changed", [
    ([E("frob.stream() streams frames.")], [E("frob.stream() streams frames.")], 0, 0, 0),       # same claim
    ([E("frob.stream() streams frames.")], [E("Frob.stream()  streams frames!")], 0, 0, 0),      # spacing/case/punctuation
    ([E("frob.stream() streams frames.")], [E("frob.stream() streams frames.", url=B)], 1, 1, 0),  # another citation: not the same claim
    ([E("frob.stream() streams frames from a channel.")],
     [E("frob.stream() streams frames from a channel as an async iterator.")], 0, 0, 1),          # same citation, similar text
    ([E("frob.stream() streams frames.")], [E("The legacy module is gone entirely now.")], 1, 1, 0),  # same citation, other text
    ([], [E("frob.stream() streams frames.")], 1, 0, 0),
    ([E("frob.stream() streams frames.")], [], 0, 1, 0),
])
def test_claims_by_citation_and_text(old, new, added, removed, changed):
    d = diff_claims(old, new)
    assert (len(d["added"]), len(d["removed"]), len(d["changed"])) == (added, removed, changed)


def test_diff_of_two_run_folders_uses_the_delta_entries(tmp_path):
    old = make_run(tmp_path / "old", entries=[entry("3.0", "added", "frob.stream() streams frames.", A),
                                              entry("3.0", "removed", "The frob.legacy module is gone.", A)],
                   versions=[{"version": "3.0", "date": "2026-04-20", "state": "post", "how": "changelog"}])
    new = make_run(tmp_path / "new", version="1.1.0",
                   entries=[entry("3.0", "added", "frob.stream() streams frames.", A),
                            entry("3.1", "added", "frob.batch() sends many frames at once.", C)],
                   versions=[{"version": "3.0", "date": "2026-04-20", "state": "post", "how": "changelog"},
                             {"version": "3.1", "date": "2026-09-30", "state": "post", "how": "changelog"}])
    d = diff_runs(load(old), load(new))
    assert d["claims_from"] == {"old": "run.json delta.entries", "new": "run.json delta.entries"}
    assert [v["version"] for v in d["versions"]["added"]] == ["3.1"]
    assert [c["text"] for c in d["claims"]["added"]] == ["frob.batch() sends many frames at once."]
    assert [c["text"] for c in d["claims"]["removed"]] == ["The frob.legacy module is gone."]
    assert d["sources"] == {"added": [C], "removed": []}
    assert not d["unchanged"]
    lines = summary_lines(d)
    assert lines[0].startswith("since 1.0.0 → 1.1.0: versions +1 (3.1); claims +1 −1 ~0; sources +1 −0")
    assert any("frob.batch()" in line for line in lines)


def test_same_run_is_unchanged_and_the_cli_says_so(tmp_path):
    old = make_run(tmp_path / "a", entries=[entry("3.0", "added", "frob.stream() streams frames.", A)])
    new = make_run(tmp_path / "b", entries=[entry("3.0", "added", "frob.stream() streams frames.", A)])
    r = CliRunner().invoke(app, ["diff", str(old), str(new / "frob"), "--exit-code"])
    assert r.exit_code == 0, r.output
    assert "no change" in r.output
    r = CliRunner().invoke(app, ["diff", str(old), str(new), "--format", "json"])
    assert json.loads(r.output)["unchanged"] is True


def test_older_run_json_falls_back_to_the_skills_bullets_and_citations(tmp_path):
    out = make_run(tmp_path / "o", entries=[entry("3.0", "added", "Added in version 3.0: frob.stream() streams frames.", A),
                                            entry("", "changed", "Use `frob.connect()` instead of `frob.open()` everywhere.", B)],
                   with_entries=False)
    view = load(out)
    got = view.entries()
    assert view.entries_source == "the skill's bullet lines"
    assert [(e.version, e.url) for e in got] == [("3.0", A), ("", B)]
    assert got[1].use == "`frob.connect()`" and got[1].instead_of == "`frob.open()`"
    assert view.sources() == [B, A]  # run.json used_sources
    man = json.loads((out / "run.json").read_text())
    del man["used_sources"]
    (out / "run.json").write_text(json.dumps(man))
    assert load(out).sources() == [B, A]  # the Sources section, in its order


def test_bullets_in_fences_and_sources_are_not_claims():
    md = ("---\nname: x\n---\n# X\n\n## Instructions\n\n- A real claim about the frobnicator API [1]\n\n```\n- not a claim inside a fence\n```\n\n"
          "## Sources\n\n- [1] One — https://a.example/1\n")
    got = entries_from_skill({"SKILL.md": md, "references/more.md": "# More\n\n- Another claim from a reference file\n"})
    assert [(e.text, e.url, e.file) for e in got] == [("A real claim about the frobnicator API", "https://a.example/1", "SKILL.md"),
                                                      ("Another claim from a reference file", "", "references/more.md")]


@pytest.mark.parametrize("make, message", [
    (lambda p: p, "does not exist"),
    (lambda p: (p.mkdir(), p)[1], "holds neither a SKILL.md nor skill3's run.json"),
    (lambda p: (p.mkdir(), (p / "run.json").write_text('{"schema": "other"}'), p)[2], "holds neither"),
    (lambda p: (p.mkdir(), (p / "notes.txt").write_text("x"), p / "notes.txt")[2], "is a file"),
])
def test_bad_paths_are_one_line_errors(tmp_path, make, message):
    with pytest.raises(AgentsError, match=message):
        load(make(tmp_path / "x"))
    r = CliRunner().invoke(app, ["diff", str(make(tmp_path / "y")), str(tmp_path)])
    assert r.exit_code == 2 and message in r.stderr and "Traceback" not in r.output
