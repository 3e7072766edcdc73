"""The synthesis run in its steps (:func:`synth.pipeline.run.run_synth`): options and outcomes
(:mod:`~synth.pipeline.options`), inputs, the bundle (read, rank, select), the model's synthesis or the
extractive one, the vetting and lint hooks (:mod:`~synth.pipeline.checks`), the dry run, the interrupt."""
