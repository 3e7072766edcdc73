"""Where the per-page CPU work runs: inline (default) or in a process pool.

``SKILL3_EXTRACT_WORKERS=N`` (N > 0) runs the pure extraction functions in N
worker processes (:mod:`skill3crawl.extract.workers`), so trafilatura/htmldate/extruct
do not serialise on Scrapy's reactor thread; 0 runs them inline.
"""

from __future__ import annotations

import asyncio
import os
import signal
from typing import TYPE_CHECKING, Any, Callable

from synth.core import default_settings

if TYPE_CHECKING:
    from skill3crawl.extract.workers import WorkerPool

PR_SET_PDEATHSIG = 1
WORKERS = default_settings.SKILL3_EXTRACT_WORKERS  # 0 = extraction inline, N = N worker processes


CRAWLER_TRIM_EVERY = 64  # pages between two malloc_trim(0) in the crawler's process


def malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim`` (None elsewhere)."""
    try:
        import ctypes

        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None


def worker_setup() -> Callable[[], Any]:
    """A worker's start (:func:`skill3crawl.extract.workers.serve`); → what runs after each call.

    Ctrl-C reaches the whole process group; the crawl shuts down gracefully and still needs its workers to
    finish the pages in flight (JOBDIR pause/resume). After each call the heap's free memory is handed back to
    the system: a large page's tree, copies and markdown (tens of MB for a 1 MB index page) are freed into
    glibc's heap, which keeps them (a worker measured 174 MB after the Python docs without this and 113 MB with
    it, at no CPU cost measurable in the noise)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(os.getppid())
    lazy_package("extruct")
    trim = malloc_trim()
    return (lambda: trim(0)) if trim is not None else (lambda: None)


def lazy_package(name: str) -> None:
    """Import package ``name`` without running its ``__init__`` until a name only ``__init__`` defines is read.

    A submodule (``from extruct.jsonld import JsonLdExtractor``) then loads alone: extruct's ``__init__`` imports
    every syntax it knows (rdflib, pyRdfa, mf2py, BeautifulSoup: ~32 MB of a worker) where the dates read only
    JSON-LD and Open Graph. Reading any other name of the package (``extruct.extract``) runs the real
    ``__init__`` in the same module first, so the package behaves as imported normally. Nothing happens when the
    package is already imported or not installed."""
    import importlib.util
    import sys

    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    module = importlib.util.module_from_spec(spec)
    loader = spec.loader

    def __getattr__(attr: str) -> Any:  # only for names the module does not have yet
        if attr.startswith("__"):
            raise AttributeError(attr)
        del module.__dict__["__getattr__"]  # once: the real __init__ defines the rest
        loader.exec_module(module)
        return getattr(module, attr)

    module.__dict__["__getattr__"] = __getattr__
    sys.modules[name] = module


def die_with_parent(parent: int) -> None:
    """The worker is killed when the crawl's process dies, even by SIGKILL (Linux: PR_SET_PDEATHSIG;
    elsewhere a thread that exits when the parent is gone)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl")
    except (OSError, AttributeError):
        import threading
        import time

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(1.0)
            os._exit(1)

        threading.Thread(target=watch, name="skill3-parent-watch", daemon=True).start()
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


class Extractor:
    def __init__(self, workers: int = 0) -> None:
        self.workers = workers
        self._pool: WorkerPool | None = None
        self._pages = 0
        self._trim = malloc_trim() if workers > 0 else None
        if workers > 0:
            from skill3crawl.extract.workers import WorkerPool, reply

            self._pool, self._reply = WorkerPool(workers), reply

    async def run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if self._pool is None:
            return fn(*args, **kwargs)
        self._pages += 1
        if self._trim is not None and self._pages % CRAWLER_TRIM_EVERY == 0:
            # The crawler frees each response's body and each result once the item is written, but glibc keeps
            # what it frees in its heap: handing it back now and then keeps the crawler's peak near what it holds.
            self._trim(0)
        # Pickled and unpickled on this thread: the pool's threads only move bytes through the pipes.
        return self._reply(await asyncio.wrap_future(self._pool.submit(fn, *args, **kwargs)))

    def close(self) -> None:
        if self._pool is not None:
            # Not waiting: joining the workers would block the reactor thread while Scrapy's download
            # handlers close their connections, and their 1 s fallback timer then fires on a Deferred
            # that already fired (Twisted AlreadyCalledError CRITICAL). The workers end after the calls
            # they have; their reader threads reap them.
            self._pool.close()
            self._pool = None


def get_extractor(crawler: Any) -> Extractor:
    """The crawl's one extractor (its process pool closes when the engine stops)."""
    from scrapy import signals  # here: a worker imports this module (its initializer) and never Scrapy (~46 MB)

    ext = getattr(crawler, "_skill3_extractor", None)
    if ext is None:
        ext = Extractor(crawler.settings.getint("SKILL3_EXTRACT_WORKERS", WORKERS))
        crawler._skill3_extractor = ext

        def close_extractor(spider: Any = None) -> None:
            ext.close()

        crawler._skill3_close_extractor = close_extractor  # keep a strong reference (weak receivers)
        crawler.signals.connect(close_extractor, signal=signals.engine_stopped)
    return ext
