"""Docs mode: the direct crawl of whole documentation sites.

* :mod:`~skill3crawl.sitecrawl.crawl` — :class:`~skill3crawl.sitecrawl.crawl.DocsCrawlMixin`, the spider side
  (sitemaps first, then llms.txt, then in-prefix links, breadth-first), and the docs-mode settings.
* :mod:`~skill3crawl.sitecrawl.scope` — where the crawl may go and why a URL is dropped (pure).
* :mod:`~skill3crawl.sitecrawl.sitemap`, :mod:`~skill3crawl.sitecrawl.llms` — the two listings a site offers (pure).
* :mod:`~skill3crawl.sitecrawl.budget` — the page budget protocol and its local implementation
  (the shared one is :class:`skill3crawl.distributed.budget.RedisSharedState`).
* :mod:`~skill3crawl.sitecrawl.pipelines` — the single-publisher fingerprint stage.
"""
