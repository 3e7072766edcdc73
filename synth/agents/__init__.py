"""Keeping a skill current and putting it where agents look (Scrapy-free).

- :mod:`synth.agents.runview`: a run folder or skill folder read back (skill files, run.json, change entries,
  versions, sources), bounded and tolerant of older run.json files;
- :mod:`synth.agents.diff`: what changed between two runs (claims by citation and text, versions, sources);
- :mod:`synth.agents.refresh`: a synthesis into a folder that holds a previous run (version bump, history,
  the unchanged short cut, the ``refresh`` record and the preview's "since last learn" panel);
- :mod:`synth.agents.export`: the always-loaded index (AGENTS.md, CLAUDE.md, Cursor rules, llms.txt);
- :mod:`synth.agents.install`: copying a skill where Claude Code, Codex or Cursor load skills, and back out;
- :mod:`synth.agents.search`: BM25 over a skill's change entries (the MCP server's ``search_delta``);
- :mod:`synth.agents.library`: the skills of a root as one library (``resolve_skill``, ``search`` across skills,
  ``get_skill`` within a token budget);
- :mod:`synth.agents.runfacts`: the lint facts a run folder holds (the MCP server's ``lint`` and ``vet``);
- :mod:`skill3.cli.agents`: ``skill3 diff``, ``skill3 export``, ``skill3 install``.
"""


from pathlib import Path

from synth.core.errors import AgentsError  # noqa: F401 - defined with every error (synth.core.errors)


def linked_part(root: Path, path: Path) -> Path | None:
    """The first of ``path`` and the folders between ``root`` and it that is a symbolic link (or None); ``path``
    must lie under ``root``. Every write, delete or read skill3 does inside a folder it owns goes through this
    check: a link there may point anywhere, and skill3 never follows one out of the folder it owns."""
    rel = Path(path).relative_to(root)
    p = Path(root)
    for part in rel.parts:
        p = p / part
        if p.is_symlink():
            return p
    return None


def no_links(root: Path, path: Path, doing: str) -> None:
    """AgentsError when :func:`linked_part` finds a link between ``root`` and ``path``."""
    link = linked_part(root, path)
    if link is not None:
        raise AgentsError(f"{link} is a symbolic link; skill3 does not {doing} through it (nothing was changed; "
                          "replace the link with a folder or file, or move it away)")
