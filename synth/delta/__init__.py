"""The delta: what changed after the cutoff, from version markers, change pages and a version timeline.

Pure functions and small accumulators; :mod:`synth.pipeline.bundle` wires them into the streaming ranking.
"""
