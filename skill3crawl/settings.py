"""Scrapy settings for skill3: polite by default (DESIGN §3, issue 2)."""

BOT_NAME = "skill3"
SPIDER_MODULES = ["skill3crawl.spiders"]
NEWSPIDER_MODULE = "skill3crawl.spiders"

USER_AGENT = "skill3/0.1 (+https://github.com/skill3/skill3; polite docs crawler)"
ROBOTSTXT_OBEY = True

# Politeness
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 2
DOWNLOAD_DELAY = 0.5
RANDOMIZE_DOWNLOAD_DELAY = True
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

# Optional HTTP cache (-s HTTPCACHE_ENABLED=1), 7-day expiry.
HTTPCACHE_ENABLED = False
HTTPCACHE_EXPIRATION_SECS = 7 * 24 * 3600
HTTPCACHE_DIR = "httpcache"
HTTPCACHE_IGNORE_HTTP_CODES = [429, 500, 502, 503, 504]

FEED_EXPORT_ENCODING = "utf-8"
LOG_LEVEL = "INFO"

# Never crawl loopback/private/link-local/metadata addresses unless this is set
# (the env var SKILL3_ALLOW_PRIVATE_NETWORKS also enables it).
SKILL3_ALLOW_PRIVATE_NETWORKS = False

# Large crawls (issue 6): JS rendering via scrapy-playwright (-s SKILL3_JS=auto|always|never)
# and the scrapy-redis profile (-s SKILL3_REDIS_URL=redis://…), both as add-ons.
SKILL3_JS = "auto"
ADDONS = {
    "skill3crawl.jsrender.JsRenderAddon": 100,
    "skill3crawl.distributed.RedisAddon": 110,
}
