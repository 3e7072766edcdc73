"""The ``skill3`` console script: the one place synth's commands and the crawl side's ``learn`` meet.

``synth`` never imports Scrapy or ``skill3crawl``; ``skill3crawl`` imports ``synth``. Only this
package imports both.
"""
