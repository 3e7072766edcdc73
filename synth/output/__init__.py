"""What a run writes and may overwrite: atomic writes (:mod:`~synth.output.writing`), the ownership check
(:mod:`~synth.output.ownership`), the output folder's lock (:mod:`~synth.output.outdir`), run.json
(:mod:`~synth.output.manifest`) and the HTML preview (:mod:`~synth.output.preview`)."""
