"""Discovery, one reusable piece per source of URLs: Brave search, llms.txt, sitemaps, in-site links.

Each module is pure (text in, URLs out) plus a small request builder, so other
spiders (docs mode, distributed workers) can combine them.
"""
