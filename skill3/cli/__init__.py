"""The ``skill3`` command line (typer), one module per command: :mod:`~skill3.cli.learn`, :mod:`~skill3.cli.synth`,
:mod:`~skill3.cli.lint`, :mod:`~skill3.cli.vet`, :mod:`~skill3.cli.models`, :mod:`~skill3.cli.agents` (diff, export,
install); :mod:`~skill3.cli.app` puts synth's commands on one app, :mod:`~skill3.cli.main` adds ``learn`` and ``mcp``
(the console script)."""
