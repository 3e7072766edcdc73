"""Discovery: search providers (Brave, SearXNG) and the official sources of a topic (registries → repository).

Docs-mode discovery (sitemaps, llms.txt, scopes, locales) is :mod:`skill3crawl.sitecrawl`.
"""
