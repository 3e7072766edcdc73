"""Keeping a skill current and putting it where agents look (Scrapy-free).

- :mod:`synth.agents.runview`: a run folder or skill folder read back (skill files, run.json, change entries,
  versions, sources), bounded and tolerant of older run.json files;
- :mod:`synth.agents.diff`: what changed between two runs (claims by citation and text, versions, sources);
- :mod:`synth.agents.refresh`: a synthesis into a folder that holds a previous run (version bump, history,
  the unchanged short cut, the ``refresh`` record and the preview's "since last learn" panel);
- :mod:`synth.agents.export`: the always-loaded index (AGENTS.md, CLAUDE.md, Cursor rules, llms.txt);
- :mod:`synth.agents.install`: copying a skill where Claude Code, Codex or Cursor load skills, and back out;
- :mod:`synth.agents.search`: BM25 over a skill's change entries (the MCP server's ``search_delta``);
- :mod:`skill3.cli.agents`: ``skill3 diff``, ``skill3 export``, ``skill3 install``.
"""


from synth.core.errors import AgentsError  # noqa: F401 - defined with every error (synth.core.errors)

