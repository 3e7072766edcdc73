"""Pure per-page functions: (html, url, headers, …) → plain dicts.

They take and return only picklable values, so the pipelines can run them in a
process pool (see :mod:`skill3crawl.extract.executor`) instead of on Scrapy's
reactor thread.
"""
