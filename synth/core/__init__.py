"""What every part of skill3 stands on: the exit codes and the exception base (:mod:`synth.core.errors`) and the
console output (:mod:`synth.core.console`). Imports nothing of skill3."""
