"""The SKILL.md format in one place.

- ``spec``: the Agent Skills limits and names (keys, name pattern, lengths, reserved words);
- ``frontmatter``: the strict split with line numbers and the lenient recovery of a draft;
- ``markdown``: fences, headings, sections, links, citations and the Sources section,
  read with markdown-it-py's line maps;
- ``size``: the offline token estimate.

The post-processor, the linter and the output vetting all read a skill through here.
"""
