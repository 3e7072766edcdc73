"""The default of every ``SKILL3_*`` setting and environment variable, in one module (in the manner of Scrapy's
``scrapy/settings/default_settings.py``).

Each name here is the setting's (or the environment variable's) name; its value is the default the component
that reads it uses when it is not set. A component never writes a default of its own: it takes it from here
(``settings.getint("SKILL3_PAGE_WINDOW", default_settings.SKILL3_PAGE_WINDOW)``). ``None``: no fixed default
(computed when the value is read, or unset means off); the comment says what applies then.
``docs/settings.md`` documents every name with the same default: ``tests/test_settings_doc.py`` checks the
page against this module both ways, and that what the code reads is defined here.

Crawl settings are Scrapy settings (``-s NAME=VALUE``; "setting or env": else the environment variable of the
same name); the synthesis and command settings are environment variables.
"""

from __future__ import annotations

MiB = 1024 * 1024

# --------------------------------------------------------------------------------------------- the crawl
SKILL3_ALLOW_PRIVATE_NETWORKS = False  # setting or env: crawl loopback, private, link-local, metadata addresses
SKILL3_BUILD_DATE_MIN_PAGES = 5  # pages of a host that must carry one date before it counts as build-dated
SKILL3_BUILD_DATE_SHARE = 0.6  # share of those pages that must carry the same date
SKILL3_CHROMIUM = "/usr/bin/chromium"  # setting or env: the browser that renders JavaScript-only pages
SKILL3_EXTRACT_WORKERS = 0  # extraction processes (0: inline); docs mode sets one per core
SKILL3_JS = "auto"  # auto | always | never: JavaScript rendering
SKILL3_LIVE_PROGRESS = "auto"  # auto | 0 | 1: skill3 learn's live progress line
SKILL3_LIVE_PROGRESS_INTERVAL = 0.5  # seconds between redraws of that line
SKILL3_MAX_CRAWL_DELAY = 60.0  # seconds: a longer robots.txt Crawl-delay is capped
SKILL3_PAGE_WINDOW = 1000  # page requests queued or in flight at a time (local crawls)
SKILL3_PLANNER_TIMEOUT = 120.0  # seconds the query planner may wait for the model
SKILL3_PROGRESS_INTERVAL = 10.0  # seconds between progress lines in docs mode (0: none)
SKILL3_REGISTRIES = ("pypi", "npm", "crates")  # registries the topic is looked up in (empty: none)
SKILL3_RESOLVE: dict[str, str] = {}  # {"name" or "*.domain": "IP"}: names pinned like curl's --resolve
SKILL3_RETRY_AFTER_MAX = 60.0  # seconds: a longer Retry-After is not waited for
SKILL3_STATE_SAVE_INTERVAL = 1.0  # seconds between saves of spider.state in a JOBDIR crawl
SKILL3_SYNTH_FUNCTION = "synth.pipeline.run.run_synth"  # what the closing feed calls unless -a synth=0
SKILL3_TODAY = None  # YYYY-MM-DD; unset: today (UTC)
SKILL3_TRUSTED_ENDPOINTS: tuple[str, ...] = ()  # extra http(s)://host:port endpoints the network guard trusts

# ------------------------------------------------------------------- the package source and the registries
SKILL3_CRATES_URL = "https://crates.io/api/v1/crates"  # setting or env
SKILL3_GITHUB_RAW_URL = "https://raw.githubusercontent.com"  # setting or env: a repository's changelog file
SKILL3_GITHUB_URL = "https://github.com"  # setting or env: the code host's releases Atom feed
SKILL3_NPM_URL = "https://registry.npmjs.org"  # setting or env; unset: npm's own configuration first
SKILL3_PYPI_URL = "https://pypi.org/pypi"  # setting or env; unset: the one beside pip's index first
SKILL3_PACKAGE_API_SECONDS = 120.0  # seconds the API delta's child process may take
SKILL3_PACKAGE_ARCHIVES = 6  # release archives read per run: the baseline, the newest, each series' first between
SKILL3_PACKAGE_MAX_BYTES = 50 * MiB  # bytes of one archive download
SKILL3_PACKAGE_MAX_MEMBERS = 20_000  # members of one archive; more: refused
SKILL3_PACKAGE_MAX_UNPACKED = 500 * MiB  # bytes an archive's members declare in all; more: a decompression bomb
SKILL3_PACKAGE_PAGES = 80  # pages of the newest archive (change records first, then the README, then docs)
SKILL3_PACKAGE_SECONDS = 30.0  # seconds to read one archive

# ------------------------------------------------------------------------------------- distributed crawls
SKILL3_REDIS_IDLE_GRACE = 0.0  # extra seconds every worker must be idle on an empty queue before they close
SKILL3_REDIS_KEY = None  # prefix of the crawl's Redis keys; unset: skill3:<spider>
SKILL3_REDIS_RETRIES = 5  # reconnects of one Redis call before the server counts as lost
SKILL3_REDIS_URL = None  # redis://host:port/db: the shared scrapy-redis scheduler; unset: a local crawl

# ------------------------------------------------------------------- synthesis and the commands (environment)
SKILL3_BUNDLE_WORKERS = None  # the bundle's worker processes; unset: one per usable CPU, at most 4
SKILL3_DEBUG = False  # set: an internal error raises with its traceback
SKILL3_HOME = "~/.skill3"  # where skill3 setup puts SkillSpector
SKILL3_LLM_TIMEOUT = 300.0  # seconds one model call may take, retries included (--llm-timeout wins)
SKILL3_LLM_TOTAL_TIMEOUT = 3600.0  # seconds all model calls of one run may take together
SKILL3_LOG_LEVEL = "WARNING"  # skill3 learn's crawl log level (-s LOG_LEVEL= wins)


def defaults() -> dict[str, object]:
    """Every ``SKILL3_*`` name defined here → its default."""
    return {name: value for name, value in globals().items() if name.startswith("SKILL3_")}
