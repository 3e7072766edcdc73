"""docs/lint.md's rule table says what the catalogue says, and its facts example loads."""

import re
from pathlib import Path

from synth.lint import RULES

LINT_DOC = Path(__file__).resolve().parents[2] / "docs" / "lint.md"


def test_the_rule_table_matches_the_catalogue():
    section = LINT_DOC.read_text(encoding="utf-8").split("## Rules", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| ([A-Z]\d+) \| ([a-z /]+) \|.*\| (.+?) \|$", section, re.M)
    table = {rid: (set(sev.replace(" ", "").split("/")), needs) for rid, sev, needs in rows}
    assert list(table) == [r.id for r in RULES]
    for r in RULES:
        severities, needs = table[r.id]
        assert severities == set(r.severities), r.id
        assert (needs == "—") == (not r.needs), r.id


def test_the_facts_example_loads(tmp_path):
    import json

    from synth.lint import load_facts

    section = LINT_DOC.read_text(encoding="utf-8").split("## Facts file", 1)[1].split("\n## ", 1)[0]
    example = json.loads(re.search(r"```json\n(.*?)```", section, re.S).group(1))
    (tmp_path / "output" / "mcp").mkdir(parents=True)
    (tmp_path / "output" / "mcp" / "run.json").write_text('{"sources": [{"url": "https://r.example/"}]}')
    (tmp_path / "skills").mkdir()
    (tmp_path / "facts.json").write_text(json.dumps(example))
    facts = load_facts(tmp_path / "facts.json")
    assert "https://r.example/" in facts.used_sources and len(facts.used_sources) == 2
    assert facts.stale[0].regex.search("the HTTP+SSE transport")
