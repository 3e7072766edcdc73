"""Scrapy settings for skill3: polite by default.

Only what differs from Scrapy's defaults. skill3's own settings (``SKILL3_*``) are not
listed here: each component reads its own, with its default from :mod:`synth.core.default_settings`
(every ``SKILL3_*`` default, defined once); ``-s NAME=VALUE`` sets any.
"""

from scrapy.settings import default_settings as _scrapy_defaults

BOT_NAME = "skill3"
SPIDER_MODULES = ["skill3crawl.spiders"]
NEWSPIDER_MODULE = "skill3crawl.spiders"
COMMANDS_MODULE = "skill3crawl.commands"  # `scrapy crawl` with skill3's exit codes

USER_AGENT = "skill3/0.1 (+https://github.com/skill3/skill3; polite docs crawler)"
ROBOTSTXT_OBEY = True

# Politeness
CONCURRENT_REQUESTS_PER_DOMAIN = 2
DOWNLOAD_DELAY = 0.5
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_START_DELAY = 1.0
AUTOTHROTTLE_MAX_DELAY = 30.0
DOWNLOAD_TIMEOUT = 30
DOWNLOAD_MAXSIZE = 5 * 1024 * 1024
DOWNLOAD_WARNSIZE = 2 * 1024 * 1024
RETRY_TIMES = 3

# Off: nothing listens on a port during a crawl.
TELNETCONSOLE_ENABLED = False
REMOTE_CONTROL_ENABLED = False

# HTTP cache, 7-day expiry: on for the direct (docs-mode) crawl only (skill3crawl.sitecrawl.crawl.apply_docs_settings);
# search results are never cached.
HTTPCACHE_EXPIRATION_SECS = 7 * 24 * 3600
HTTPCACHE_IGNORE_HTTP_CODES = [429, 500, 502, 503, 504]
# Private: the cache folder is 0700 and its files 0600 (cached bodies can hold secrets).
HTTPCACHE_STORAGE = "skill3crawl.httpcache.PrivateFilesystemCacheStorage"

FEED_EXPORT_ENCODING = "utf-8"
# run.jsonl is written unbuffered: items already exported survive a hard stop.
FEED_STORAGES = {"": "skill3crawl.feedstorage.UnbufferedFileFeedStorage", "file": "skill3crawl.feedstorage.UnbufferedFileFeedStorage"}
LOG_LEVEL = "INFO"
LOG_FORMATTER = "skill3crawl.logformatter.Skill3LogFormatter"

ITEM_PIPELINES = {
    "skill3crawl.pipelines.ContentPipeline": 100,  # main content, secrets redacted: they never reach run.jsonl
    "skill3crawl.pipelines.DatesPipeline": 200,
    "skill3crawl.pipelines.BuildDatePipeline": 250,  # build-dated hosts (one date on most pages)
    "skill3crawl.pipelines.ScoringPipeline": 300,
    "skill3crawl.pipelines.DuplicatePipeline": 400,
    "skill3crawl.pipelines.ConsensusPipeline": 500,
    "skill3crawl.pipelines.LimitPipeline": 800,
    "skill3crawl.pipelines.ReleasePipeline": 900,
}
EXTENSIONS = {
    "skill3crawl.logformatter.LogRedaction": 0,  # credentials in URLs never reach the log
    "skill3crawl.extensions.CrawlOutput": 500,
    "skill3crawl.extensions.SynthTrigger": 510,
    "skill3crawl.extensions.StartItemsClose": 530,
    # With JOBDIR: spider.state saved every SKILL3_STATE_SAVE_INTERVAL seconds, so a killed crawl resumes.
    "skill3crawl.resume.JobState": 540,
    # On a terminal, when the log does not show the crawl's INFO lines (skill3 learn): one live progress line.
    "skill3crawl.progress.LiveProgress": 550,
}
# Scrapy's remote control is off (REMOTE_CONTROL_ENABLED) yet its module was imported to be asked, and it imports
# aiohttp (~7.5 MB of the crawler). None in the base dict: never loaded (in EXTENSIONS the entry would be imported
# by every setdefault_in_component_priority_dict call, which loads each entry it compares).
EXTENSIONS_BASE = {**_scrapy_defaults.EXTENSIONS_BASE, "scrapy.extensions.remote_control.RemoteControl": None}

DOWNLOADER_MIDDLEWARES = {
    # Before robots.txt (100): a blocked target is never contacted, not even for robots.txt.
    "skill3crawl.netguard.NetworkGuardMiddleware": 50,
    # A docs crawl's page redirected out of its scope is not followed (a redirect target is a link).
    "skill3crawl.middlewares.RedirectScopeMiddleware": 55,
    # After robots.txt, so the host's Crawl-delay is known before its first page.
    "skill3crawl.middlewares.CrawlDelayMiddleware": 110,
    # robots.txt answering 5xx disallows the host (RFC 9309); Scrapy's own allows it.
    "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
    "skill3crawl.middlewares.RobotsTxtMiddleware": 100,
    "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
    "skill3crawl.middlewares.RetryAfterMiddleware": 550,
    # Its responses pass before the retry middleware's: the key is stripped before a retry is queued.
    "skill3crawl.middlewares.SearchKeyMiddleware": 560,
    # Closest to the downloader: a name resolving only to blocked addresses is ignored, not retried.
    "skill3crawl.netguard.NetworkGuardRefusalMiddleware": 950,
}
# Checks the addresses names resolve to when the crawler connects (network guard).
TWISTED_DNS_RESOLVER = "skill3crawl.netguard.GuardedResolver"
# The search API gets its own slot: one request at a time, at most one per second.
DOWNLOAD_SLOTS = {"skill3-search-api": {"concurrency": 1, "delay": 1.0, "jitter": 0.0}}
# Only HTTP(S) is ever fetched (the network guard also refuses other schemes).
DOWNLOAD_HANDLERS = {"file": None, "ftp": None, "s3": None, "data": None}

# Large crawls: JS rendering via scrapy-playwright (-s SKILL3_JS=auto|always|never)
# and the scrapy-redis profile (-s SKILL3_REDIS_URL=redis://…), both as add-ons.
ADDONS = {
    "skill3crawl.jsrender.JsRenderAddon": 100,
    "skill3crawl.distributed.addon.RedisAddon": 110,
}
