"""The evidence model, shared by the crawl and synthesis (Scrapy-free, pure): the source item
(:mod:`~synth.evidence.item`), URL identity (:mod:`~synth.evidence.urls`), scoring and the cutoff
(:mod:`~synth.evidence.scoring`, :mod:`~synth.evidence.cutoff`), consensus across hosts
(:mod:`~synth.evidence.consensus`), conflicting advice (:mod:`~synth.evidence.conflicts`) and BM25 relevance
(:mod:`~synth.evidence.relevance`). The delta is :mod:`synth.delta`'s. This is what ``skill3crawl`` may import from synthesis."""
