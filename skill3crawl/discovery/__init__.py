"""Discovery pieces that are pure (bytes or text in, URLs out): Brave search results and sitemaps.

Docs-mode discovery (llms.txt, scopes, locales, canonical keys) is :mod:`skill3crawl.docs`.
"""
