"""The package itself as a source: its release archives from the registry (docs/packages.md).

Pure parts (no Scrapy, no network): :mod:`.userconfig` (the registries as the user's pip and npm are
configured), :mod:`.artifacts` (which releases and which archive of each), :mod:`.archive` (reading an
untrusted archive within bounds), :mod:`.files` (what a file in it is, and the page made of it),
:mod:`.apidelta` (the static API difference of releases with griffe, run in a child process), :mod:`.tsdelta`
(an npm release's ``.d.ts`` declarations with tree-sitter), :mod:`.changelog` (the release a change came with).
:mod:`.spider` is the thin adapter the ``learn`` spider mixes in.
"""
