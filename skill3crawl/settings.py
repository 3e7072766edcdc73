"""Scrapy settings for skill3: polite by default (DESIGN §3, issue 2)."""

BOT_NAME = "skill3"
SPIDER_MODULES = ["skill3crawl.spiders"]
NEWSPIDER_MODULE = "skill3crawl.spiders"
COMMANDS_MODULE = "skill3crawl.commands"  # `scrapy crawl` with skill3's exit codes

USER_AGENT = "skill3/0.1 (+https://github.com/skill3/skill3; polite docs crawler)"
ROBOTSTXT_OBEY = True

# Politeness
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 2
DOWNLOAD_DELAY = 0.5
DOWNLOAD_DELAY_JITTER = 0.5  # ±50% (RANDOMIZE_DOWNLOAD_DELAY is deprecated in 2.19)
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_START_DELAY = 1.0
AUTOTHROTTLE_MAX_DELAY = 30.0
AUTOTHROTTLE_TARGET_CONCURRENCY = 1.0
DOWNLOAD_TIMEOUT = 30
DOWNLOAD_MAXSIZE = 5 * 1024 * 1024
DOWNLOAD_WARNSIZE = 2 * 1024 * 1024
RETRY_ENABLED = True
RETRY_TIMES = 3
RETRY_HTTP_CODES = [429, 500, 502, 503, 504, 522, 524, 408]

# Off: nothing listens on a port during a crawl.
TELNETCONSOLE_ENABLED = False
REMOTE_CONTROL_ENABLED = False

# HTTP cache, 7-day expiry: on for the direct (docs-mode) crawl only; search results are never cached.
HTTPCACHE_ENABLED = False
HTTPCACHE_EXPIRATION_SECS = 7 * 24 * 3600
HTTPCACHE_DIR = "httpcache"
HTTPCACHE_IGNORE_HTTP_CODES = [429, 500, 502, 503, 504]
# Private: the cache folder is 0700 and its files 0600 (cached bodies can hold secrets).
HTTPCACHE_STORAGE = "skill3crawl.httpcache.PrivateFilesystemCacheStorage"

FEED_EXPORT_ENCODING = "utf-8"
# run.jsonl is written unbuffered: items already exported survive a hard stop.
FEED_STORAGES = {"": "skill3crawl.feedstorage.UnbufferedFileFeedStorage", "file": "skill3crawl.feedstorage.UnbufferedFileFeedStorage"}
LOG_LEVEL = "INFO"
LOG_FORMATTER = "skill3crawl.logformatter.Skill3LogFormatter"

# Never crawl loopback/private/link-local/metadata addresses unless this is set
# (the env var SKILL3_ALLOW_PRIVATE_NETWORKS also enables it).
SKILL3_ALLOW_PRIVATE_NETWORKS = False

# Link following stays shallow; max_pages (-a) bounds the pages written.
DEPTH_LIMIT = 3
DEPTH_STATS_VERBOSE = False

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
    "skill3crawl.jobstate.JobState": 540,
}
SKILL3_STATE_SAVE_INTERVAL = 1.0
# A host is build-dated when at least this many of its pages share one date and that date is on at least
# this share of its pages (its pages' date then says nothing about change).
SKILL3_BUILD_DATE_MIN_PAGES = 5
SKILL3_BUILD_DATE_SHARE = 0.6
# Per-page CPU work (trafilatura, htmldate, extruct): 0 = inline, N = N worker processes.
SKILL3_EXTRACT_WORKERS = 0
# Direct (docs-mode) crawls: at most this many pages requested and not yet finished; the rest wait
# as compact entries (bounded memory for sitemaps of 100,000 URLs).
SKILL3_PAGE_WINDOW = 1000
# Seconds the query planner may wait for the model.
SKILL3_PLANNER_TIMEOUT = 120

DOWNLOADER_MIDDLEWARES = {
    # Before robots.txt (100): a blocked target is never contacted, not even for robots.txt.
    "skill3crawl.netguard.NetworkGuardMiddleware": 50,
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
# {"name" or "*.suffix": "ip"}: pin names to addresses (like curl --resolve); still guarded.
SKILL3_RESOLVE = {}
# Extra trusted endpoints (URLs) besides BRAVE_SEARCH_URL and the proxies.
SKILL3_TRUSTED_ENDPOINTS = []
SKILL3_RETRY_AFTER_MAX = 60
SKILL3_MAX_CRAWL_DELAY = 60
# The search API gets its own slot: one request at a time, at most one per second.
DOWNLOAD_SLOTS = {"skill3-search-api": {"concurrency": 1, "delay": 1.0, "jitter": 0.0}}
# Fewer unique search results than this → also crawl the authoritative hosts / start URLs directly.
SKILL3_MIN_SEARCH_RESULTS = 5
# Called when the feed closes (unless -a synth=0): run_synth(SynthOptions) -> SynthResult (synth.options).
SKILL3_SYNTH_FUNCTION = "synth.run.run_synth"
# Only HTTP(S) is ever fetched (the network guard also refuses other schemes).
DOWNLOAD_HANDLERS = {"file": None, "ftp": None, "s3": None, "data": None}

# Large crawls (issue 6): JS rendering via scrapy-playwright (-s SKILL3_JS=auto|always|never)
# and the scrapy-redis profile (-s SKILL3_REDIS_URL=redis://…), both as add-ons.
SKILL3_JS = "auto"
ADDONS = {
    "skill3crawl.jsrender.JsRenderAddon": 100,
    "skill3crawl.distributed.RedisAddon": 110,
}
