"""Docs mode: the direct crawl of whole documentation sites.

* :mod:`~skill3crawl.docs.crawl` — :class:`~skill3crawl.docs.crawl.DocsCrawlMixin`, the spider side
  (sitemaps first, then llms.txt, then in-prefix links, breadth-first), and the docs-mode settings.
* :mod:`~skill3crawl.docs.scope` — where the crawl may go and why a URL is dropped (pure).
* :mod:`~skill3crawl.docs.sitemap`, :mod:`~skill3crawl.docs.llms` — the two listings a site offers (pure).
* :mod:`~skill3crawl.docs.budget` — the page budget protocol and its local implementation
  (the shared one is :class:`skill3crawl.distributed.RedisSharedState`).
* :mod:`~skill3crawl.docs.pipelines` — the single-publisher fingerprint stage.
"""
