"""Caps on a source item's fields (:mod:`synth.evidence.item`), in a module of their own: the crawl's extraction
workers write within them without importing the item's validation (pydantic).
"""

# Caps on what one item may carry when read back (a crawl writes far less: 200 excerpts of
# 4,000 characters, 100 code blocks of a page capped at 5 MiB). Longer lists and texts are cut.
MAX_URL_CHARS = 8192
MAX_SHORT_CHARS = 4096  # title, host, topic, dates, query, ...
MAX_LIST_ENTRIES = 1000  # excerpts, code blocks, agreeing URLs, fingerprints
MAX_TEXT_CHARS = 1_000_000  # one excerpt or code block
MAX_TOKENS_CHARS = 1_000_000  # snippet_tokens (synth.evidence.shingles)
# a change entry's heading path, API name and code examples (skill3crawl.extract.versions writes within these)
MAX_CHANGE_PATH = 8  # enclosing headings, outermost first (the innermost kept)
MAX_CHANGE_PATH_CHARS = 200  # one heading of the path
MAX_CHANGE_API_CHARS = 200
MAX_CHANGE_CODE = 3  # code examples of one entry
MAX_CHANGE_CODE_CHARS = 4000  # one code example
