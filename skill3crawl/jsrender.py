"""JavaScript-rendered pages: detect an empty application shell, re-request it through Chromium.

``-s SKILL3_JS=auto|always|never`` (default ``auto``):

* ``auto``   — every page is downloaded plainly; a response that looks like an
  application shell (:func:`looks_like_app_shell`) is re-requested once through
  scrapy-playwright (``meta={"playwright": True}``). Pages that do not need it
  never touch the browser.
* ``always`` — every page request goes through the browser.
* ``never``  — the browser is never used; scrapy-playwright's handler is not installed.

Stats: ``skill3/js/static`` (pages served without the browser) and
``skill3/js/rendered`` (pages rendered by Chromium).

The browser is Debian's ``chromium`` (``SKILL3_CHROMIUM`` env or setting,
default ``/usr/bin/chromium``); ``playwright install`` cannot download here.
:class:`JsRenderAddon` wires the handler, launch options and middleware; it is
listed in ``ADDONS`` in :mod:`skill3crawl.settings`.

Nothing of the browser runs before a page needs it: scrapy-playwright's handler
starts Playwright (its node driver) when the engine starts, so the add-on gives
it :class:`LazyBrowserProvider` (``PLAYWRIGHT_BROWSER_PROVIDER``), which starts
the driver and Chromium on the first request marked ``playwright``. A crawl of a
static site never starts either.
"""

from __future__ import annotations

import logging
import os
import re
from typing import TYPE_CHECKING, Any

from lxml import html as lxml_html
from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import HtmlResponse

from skill3crawl.setting_values import setting_or_env
from synth.core import default_settings

if TYPE_CHECKING:
    from lxml.html import HtmlElement
    from playwright.async_api import Browser, BrowserContext
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.settings import Settings
    from scrapy_playwright.handler import Config

logger = logging.getLogger(__name__)

MODES = ("auto", "always", "never")
DEFAULT_MODE = default_settings.SKILL3_JS
DEFAULT_CHROMIUM = default_settings.SKILL3_CHROMIUM
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
PLAYWRIGHT_HANDLER = "skill3crawl.jsrender.PlainOrBrowserHandler"
LAZY_PROVIDER = "skill3crawl.jsrender.LazyBrowserProvider"

# A shell: at most this much visible text ...
SHELL_MAX_TEXT = 200
_ROOT_IDS = {"root", "app", "__next", "__nuxt", "___gatsby", "svelte", "main-app", "q-app"}
_WS = re.compile(r"\s+")
# Quick reject without building a tree (this runs on the reactor thread for every page):
# markup minus scripts/styles/tags, whitespace removed.
_QUICK_STRIP = re.compile(
    rb"<(script|style|noscript|template|svg)\b.*?</\1\s*>|<!--.*?-->|<[^>]*>", re.S | re.I
)
_QUICK_SCRIPT = re.compile(rb"<script\b", re.I)
_QUICK_WS = re.compile(rb"\s+")


def _visible_text(doc: HtmlElement) -> str:
    body = doc.find("body")
    if body is None:
        body = doc
    for bad in body.xpath(".//script|.//style|.//noscript|.//template|.//svg"):
        bad.drop_tree()
    return _WS.sub(" ", body.text_content()).strip()


def looks_like_app_shell(html: str | bytes) -> bool:
    """True when a page is an empty client-side application shell.

    Three signals must agree: little visible text (≤200 characters outside
    script/style/noscript), scripts present (an inline script or a ``src``), and a
    mount point — an element whose id is a common framework root (``root``,
    ``app``, ``__next``, ``__nuxt``, ``___gatsby`` …) or that carries a
    ``data-reactroot``/``ng-version``/``data-server-rendered`` marker, or a body
    whose only element children are scripts and one empty div.
    """
    if not html or not html.strip():
        return False
    raw = html.encode("utf-8", "replace") if isinstance(html, str) else html
    if not _QUICK_SCRIPT.search(raw):
        return False
    # plenty of text already in the first 32 KB (entities and multi-byte characters only make this larger);
    # not when the window ends inside a script (a framework's inline state can be that big)
    window = raw[:32768]
    low = window.lower()
    if low.rfind(b"<script") <= low.rfind(b"</script") and len(_QUICK_WS.sub(b"", _QUICK_STRIP.sub(b" ", window))) > 4 * SHELL_MAX_TEXT:
        return False
    try:
        doc = lxml_html.document_fromstring(html)
    except Exception:  # lxml raises ParserError/ValueError on junk
        return False
    scripts = doc.xpath("//script[@src or normalize-space(string(.))!='']")
    if not scripts:
        return False
    mount = any(
        (el.get("id") or "").lower() in _ROOT_IDS
        or el.tag == "app-root"
        or el.get("data-reactroot") is not None
        or el.get("ng-version") is not None
        or el.get("data-server-rendered") is not None
        for el in doc.iter()
        if isinstance(el.tag, str)
    )
    if not mount:
        body = doc.find("body")
        if body is None:
            return False
        children = [c for c in body if isinstance(c.tag, str)]
        non_script = [c for c in children if c.tag not in ("script", "noscript", "style", "link")]
        if len(non_script) != 1 or non_script[0].tag not in ("div", "main") or len(non_script[0]) > 0:
            return False
    return len(_visible_text(doc)) <= SHELL_MAX_TEXT


def js_mode(settings: Any) -> str:
    """``SKILL3_JS``: auto (the default), always or never; ValueError for anything else."""
    mode = str(settings.get("SKILL3_JS") or DEFAULT_MODE).strip().lower()
    if mode not in MODES:
        raise ValueError(f"SKILL3_JS must be one of auto, always, never (got {mode!r})")
    return mode


def chromium_path(settings: Any) -> str:
    """``-s SKILL3_CHROMIUM=…``, else the environment variable, else the system's Chromium."""
    return setting_or_env(settings, "SKILL3_CHROMIUM") or DEFAULT_CHROMIUM


class JsRenderAddon:
    """Scrapy add-on: installs scrapy-playwright for http/https unless ``SKILL3_JS=never``."""

    def update_settings(self, settings: Settings) -> None:
        mode = js_mode(settings)
        if mode == "never":
            return
        exe = chromium_path(settings)
        if not os.access(exe, os.X_OK):
            if mode == "always":
                raise ValueError(f"SKILL3_JS=always needs Chromium, not found at {exe} (set SKILL3_CHROMIUM)")
            logger.warning("JS rendering off: no Chromium at %s (set SKILL3_CHROMIUM or SKILL3_JS=never)", exe)
            settings.set("SKILL3_JS", "never", priority=settings.getpriority("SKILL3_JS") or 15)
            return
        handlers = settings.getdict("DOWNLOAD_HANDLERS")
        for scheme in ("http", "https"):
            handlers.setdefault(scheme, PLAYWRIGHT_HANDLER)
        settings.set("DOWNLOAD_HANDLERS", handlers, priority=max(settings.getpriority("DOWNLOAD_HANDLERS") or 0, 15))
        settings.set("PLAYWRIGHT_BROWSER_TYPE", "chromium", priority="addon")
        if not settings.get("PLAYWRIGHT_BROWSER_PROVIDER"):
            settings.set("PLAYWRIGHT_BROWSER_PROVIDER", LAZY_PROVIDER, priority="addon")
        launch = dict(settings.getdict("PLAYWRIGHT_LAUNCH_OPTIONS"))
        proxy = browser_proxy()
        if proxy and "proxy" not in launch:  # Chromium ignores http_proxy/https_proxy: hand it the crawl's proxy
            launch["proxy"] = proxy
        launch.setdefault("executable_path", exe)
        launch.setdefault("headless", True)
        launch.setdefault("args", list(CHROMIUM_ARGS))
        settings.set("PLAYWRIGHT_LAUNCH_OPTIONS", launch, priority="addon")
        settings.set("PLAYWRIGHT_MAX_CONTEXTS", settings.getint("PLAYWRIGHT_MAX_CONTEXTS") or 1, priority="addon")
        settings.set("PLAYWRIGHT_MAX_PAGES_PER_CONTEXT", settings.getint("PLAYWRIGHT_MAX_PAGES_PER_CONTEXT") or 2, priority="addon")
        settings.setdefault_in_component_priority_dict("DOWNLOADER_MIDDLEWARES", JsRenderMiddleware, 580)


def browser_proxy(env: Any = None) -> dict[str, str] | None:
    """Playwright's launch ``proxy`` for the proxy the crawl's own requests use (``https_proxy``, else
    ``http_proxy``, as Scrapy's HttpProxyMiddleware reads them; ``no_proxy`` becomes ``bypass``), credentials
    given separately as Playwright wants them; None without a proxy."""
    from urllib.parse import unquote, urlsplit
    from urllib.request import getproxies_environment

    proxies = getproxies_environment() if env is None else {k.lower().removesuffix("_proxy"): v for k, v in env.items()
                                                           if k.lower().endswith("_proxy") and v}
    url = proxies.get("https") or proxies.get("http")
    if not url:
        return None
    parts = urlsplit(url if "//" in url else f"http://{url}")
    if not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    out = {"server": f"{parts.scheme or 'http'}://{host}" + (f":{parts.port}" if parts.port else "")}
    if parts.username:
        out["username"] = unquote(parts.username)
        out["password"] = unquote(parts.password or "")
    bypass = proxies.get("no")
    if bypass:
        out["bypass"] = ",".join(b.strip() for b in bypass.split(",") if b.strip())
    return out


class PlainOrBrowserHandler(HTTP11DownloadHandler):
    """The http/https download handler: a request marked ``playwright`` goes to scrapy-playwright's handler,
    which is imported and built on the first such request; every other request is Scrapy's own HTTP/1.1 download.

    scrapy-playwright's handler, installed for http/https, would pass the plain requests to the same HTTP/1.1
    code, but it and Playwright's client are imported when the crawl starts (~11 MB and ~0.2 s of CPU in the
    crawler) whether or not a page ever needs a browser. Built late, it is started as the engine start would
    have started it (with :class:`LazyBrowserProvider`, that starts no browser either: the page does)."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self._browser: Any = None
        self._browser_lock: Any = None

    async def download_request(self, request: Request) -> Response:
        if request.meta.get("playwright"):
            return await (await self._browser_handler()).download_request(request)
        return await super().download_request(request)

    async def _browser_handler(self) -> Any:
        import asyncio

        if self._browser_lock is None:
            self._browser_lock = asyncio.Lock()
        async with self._browser_lock:
            if self._browser is None:
                from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler

                handler = ScrapyPlaywrightDownloadHandler.from_crawler(self._crawler)
                await handler._maybe_launch_in_thread()  # what it runs when the engine starts, which has passed
                self._browser = handler
        return self._browser

    async def close(self) -> None:
        await super().close()
        if self._browser is not None:
            await self._browser.close()


class LazyBrowserProvider:
    """scrapy-playwright browser provider that starts Playwright on the first browser launch, not at start-up.

    The default provider starts Playwright's node driver when the engine starts, for every
    crawl that might render; this one defers that (and Chromium) to the first page that needs
    it. Same browser, same launch options: it delegates to scrapy-playwright's own provider.
    """

    def __init__(self, config: Config) -> None:
        import asyncio

        from scrapy_playwright.provider import PlaywrightBrowserProvider

        self._provider = PlaywrightBrowserProvider(config)
        self._start_lock = asyncio.Lock()
        self.started = False

    async def start(self) -> None:
        """Called by the handler when the engine starts: nothing to do yet."""

    async def _ensure_started(self) -> None:
        async with self._start_lock:
            if not self.started:
                logger.info("first page that needs a browser: starting Playwright")
                await self._provider.start()
                self.started = True

    async def launch_browser(self) -> Browser:
        await self._ensure_started()
        return await self._provider.launch_browser()

    async def launch_persistent_context(self, context_kwargs: dict) -> BrowserContext:
        await self._ensure_started()
        return await self._provider.launch_persistent_context(context_kwargs)

    async def close(self) -> None:
        if self.started:
            await self._provider.close()


def _is_page_request(request: Request) -> bool:
    """Only document pages are rendered: never robots.txt, sitemaps, llms.txt, .md or API calls."""
    if request.meta.get("skill3_kind", "page") != "page":
        return False
    path = request.url.split("?", 1)[0].lower()
    return not path.endswith((".xml", ".txt", ".md", ".json", ".xml.gz", ".pdf"))


def _is_playwright_error(exception: BaseException) -> bool:
    try:
        from playwright.async_api import Error as PlaywrightError
    except ImportError:  # pragma: no cover - scrapy-playwright is a dependency
        return False
    return isinstance(exception, PlaywrightError)


class JsRenderMiddleware:
    """Downloader middleware: route shells (auto) or every page (always) through Chromium."""

    def __init__(self, crawler: Crawler) -> None:
        self.mode = js_mode(crawler.settings)
        if self.mode == "never":
            raise NotConfigured
        self.stats = crawler.stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> JsRenderMiddleware:
        return cls(crawler)

    def process_request(self, request: Request) -> None:
        if self.mode == "always" and not request.meta.get("playwright") and _is_page_request(request):
            request.meta["playwright"] = True
            request.meta["dont_cache"] = True  # the HTTP cache keys by URL: it would answer with the plain page
        return None

    def process_exception(self, request: Request, exception: BaseException) -> None:
        """A page the browser cannot render (Playwright's error: a name Chromium cannot resolve, a proxy it
        cannot reach, a crashed tab) is a dropped page — ``skill3/dropped/not_rendered``, one log line —
        never a traceback or a failed run."""
        if not request.meta.get("playwright") or not _is_playwright_error(exception):
            return None
        self.stats.inc_value("skill3/dropped/not_rendered")
        first = str(exception).strip().splitlines()[0] if str(exception).strip() else type(exception).__name__
        logger.warning("skill3: could not render %s in Chromium (%s): dropped", request.url[:200], first[:200])
        raise IgnoreRequest(f"not rendered: {first[:200]}")

    def process_response(self, request: Request, response: Response) -> Request | Response:
        if not _is_page_request(request) or not isinstance(response, HtmlResponse):
            return response
        if request.meta.get("playwright"):
            self.stats.inc_value("skill3/js/rendered")
            return response
        if self.mode == "auto" and response.status == 200 and looks_like_app_shell(response.body):
            self.stats.inc_value("skill3/js/shell_detected")
            logger.debug("application shell, rendering with Chromium: %s", response.url)
            meta = dict(request.meta)
            meta["playwright"] = True
            meta["skill3_js_rerender"] = True
            meta["dont_cache"] = True  # else HttpCacheMiddleware answers the re-request with the cached shell
            return request.replace(meta=meta, dont_filter=True)
        self.stats.inc_value("skill3/js/static")
        return response
