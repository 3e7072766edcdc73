"""Every SKILL.md reader agrees, on the adversarial drafts and on real skills (anthropics/skills).

The readers: the parser (``synth.skill.markdown`` on markdown-it-py), lint's fence rule, vet's
correction labels, the line reader used on crawled pages and streams (``FenceTracker``,
``paragraphs``, ``heading_title``) and the post-processor. ``expected.json`` pins what the parser
finds in the real skills; after a deliberate change of the reader, rewrite it with
``python -c "from tests.skill.test_skill_equivalence import write_expected; write_expected()"``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synth.lint.rules import structural_findings
from synth.skill import frontmatter, markdown
from synth.skill.postprocess import SkillContext, postprocess
from synth.vet.correct import _structure
from tests.skill.test_postprocess import CTX, adversarial_cases
from tests.skill.test_skill_format import _more_drafts

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "anthropic-skills"
EXPECTED = REAL / "expected.json"
REAL_SKILLS = sorted(p.name for p in REAL.iterdir() if (p / "SKILL.md").is_file())


def _real(name: str) -> str:
    return (REAL / name / "SKILL.md").read_text(encoding="utf-8")


def _record(text: str) -> dict:
    """What the parser reads in a SKILL.md: its fences, headings, citations and Sources entries."""
    split = frontmatter.split_frontmatter(text)
    body, first = split.body, split.body_start
    sources = markdown.find_sources(body, first)
    return {
        "body_start": first,
        "fences": [[f.start, f.end, f.char * f.length, f.language] for f in markdown.find_fences(body, first)],
        "headings": [[h.level, h.title, h.line] for h in markdown.headings(body, first)],
        "citations": [[c.number, c.line] for c in markdown.citations(body, first)],
        "sources": None if sources is None else [[e.number, e.url, e.line] for e in sources.entries],
    }


def write_expected() -> None:
    """Rewrite ``expected.json`` from the current reader (only after a deliberate change of it)."""
    skills = [f"  {json.dumps(n)}: {{\n" + ",\n".join(f"    {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}"
                                                  for k, v in _record(_real(n)).items()) + "\n  }" for n in REAL_SKILLS]
    EXPECTED.write_text("{\n" + ",\n".join(skills) + "\n}\n", encoding="utf-8")


def test_there_are_real_skills() -> None:
    assert len(REAL_SKILLS) >= 5 and (REAL / "LICENSE.txt").is_file()


@pytest.mark.parametrize("name", REAL_SKILLS)
def test_the_parser_reads_real_skills_as_pinned(name: str) -> None:
    assert _record(_real(name)) == json.loads(EXPECTED.read_text(encoding="utf-8"))[name]


def _texts() -> list[tuple[str, str]]:
    drafts = [(label, raw.replace("\r\n", "\n")) for label, raw in adversarial_cases() + _more_drafts()]
    return drafts + [(f"real:{n}", _real(n)) for n in REAL_SKILLS]


TEXTS = _texts()


@pytest.mark.parametrize("label, text", TEXTS, ids=[t[0] for t in TEXTS])
def test_the_readers_agree(label: str, text: str) -> None:
    split = frontmatter.split_frontmatter(text)
    body, first = split.body, split.body_start
    fences = markdown.find_fences(body, first)
    code = markdown.fenced_line_numbers(body, first)
    # lint's fence rule reports exactly the parser's unclosed fences
    s5 = {f.line for f in structural_findings(text, ("S5",))}
    assert s5 == {f.start for f in fences if not f.closed}
    # vet's correction never takes code for prose, nor prose for code
    labels = _structure(text.splitlines())
    assert {i + 1 for i, lab in enumerate(labels) if lab == "code"} == code
    assert {i + 1 for i, lab in enumerate(labels) if lab == "heading"} == {h.line for h in markdown.headings(body, first)}
    # the line reader (crawled pages, the corpus stream) agrees wherever fences are top-level
    if all(not f.prefix for f in fences):
        tracker = markdown.FenceTracker()
        lines = body.split("\n")
        streamed = {first + i for i, line in enumerate(lines) if tracker.feed(line)}
        assert {n for n in streamed if n < first + len(body.splitlines())} == code
        heads = [t for kind, t in markdown.paragraphs(body) if kind == "heading"]
        assert [markdown.heading_title(h) for h in heads] == [h.title for h in markdown.headings(body)]


@pytest.mark.parametrize("name", REAL_SKILLS)
def test_the_postprocessor_keeps_a_real_skill(name: str) -> None:
    """A real, well-formed skill goes through the post-processor with its code and headings intact,
    comes out clean for lint's structural rules, and a second pass changes nothing."""
    text = _real(name)
    ctx = SkillContext(name, CTX.target_model, CTX.cutoff, CTX.learned_date, [])
    skill = postprocess(text, ctx)
    assert skill.name == name
    assert structural_findings(skill.skill_md()) == []
    body = frontmatter.split_frontmatter(text).body
    written = markdown.code_block_texts(skill.body) + [c for r in skill.references.values() for c in markdown.code_block_texts(r)]
    assert written == markdown.code_block_texts(body)
    before = [h.title for h in markdown.headings(body)]
    after = [h.title for h in markdown.headings(skill.body)]
    if "added a title heading" in skill.fixes:
        after = after[1:]
    assert after == before + ["Sources"]
    assert postprocess(skill.skill_md(), ctx).skill_md() == skill.skill_md()
