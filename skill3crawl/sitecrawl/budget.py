"""The page budget of a docs-mode crawl: one protocol, a local and a shared (Redis) implementation.

``max_pages`` bounds the pages *written*: a budget slot is held by a page from
its request until its item is written; a page that ends without an item
(failed, robots-denied, not HTML, a duplicate, dropped by a pipeline) gives
its slot back to the first page waiting. Pages found while the budget is full
wait, as compact entries, bounded by :func:`waiting_cap` — beyond it they are dropped. Locally they wait
in the order a page is worth its slot (:func:`page_rank`: change-record candidates first, then by link
depth from the start pages, then spread across the site's folders), the order the crawl's requests carry
as their Scrapy priority; the shared (Redis) list keeps the order they were found in. The same budget remembers the
canonical keys of the pages written (:func:`synth.evidence.urls.url_key`).

:class:`LocalState` keeps it in ``spider.state`` (persisted with ``JOBDIR``);
:class:`skill3crawl.distributed.budget.RedisSharedState` in Redis, shared by all workers.
"""

from __future__ import annotations

import heapq
from collections import deque
from typing import Any, Literal, Protocol, runtime_checkable

from synth.core import default_settings
from synth.evidence.urls import url_key

# A page waiting for (or holding) a slot: [canonical URL, discovery, title, lastmod, hops, html_url, rank, depth];
# rank (:func:`page_rank`, higher first) and depth (link hops from a start page, or its path's depth when a sitemap
# listed it) may be missing from an entry saved by an older version (then 0).
Entry = list
RANK_CANDIDATE = 100_000  # a change-record candidate (change_like_url) before any other page
RANK_DEPTH = 1_000  # then one link hop less before one more
MAX_RANK_DEPTH = 50
MAX_FOLDER_SHARE = 999  # then the n-th page of its folder before the n+1-th: the budget spread across sections


def page_rank(candidate: bool, depth: int, nth_in_folder: int) -> int:
    """How much a page is worth its budget slot (higher first): a change-record candidate before any other page,
    then fewer link hops from the start pages before more, then the pages a folder already had fewer of before
    more (at one depth, the budget goes round the site's sections instead of exhausting the first one)."""
    return ((RANK_CANDIDATE if candidate else 0) - min(max(depth, 0), MAX_RANK_DEPTH) * RANK_DEPTH
            - min(max(nth_in_folder, 0), MAX_FOLDER_SHARE))


def entry_rank(entry: Entry) -> int:
    """The rank an entry was claimed with (0 for an entry without one)."""
    return int(entry[6]) if len(entry) > 6 and isinstance(entry[6], int) else 0


def entry_depth(entry: Entry) -> int:
    """The depth an entry was ranked with (0 for an entry without one)."""
    return int(entry[7]) if len(entry) > 7 and isinstance(entry[7], int) else 0
Claim = Literal["new", "waiting", "over", "seen"]
PAGE_WINDOW = default_settings.SKILL3_PAGE_WINDOW  # pages requested and not yet finished, at most (local crawls)


MAX_RESERVE = 100_000  # pages the full waiting list turned away, kept (compactly) in case a new version's marker points to one
RANK_YIELD = RANK_CANDIDATE // 2  # a page a new version's marker points to: as urgent as a change-record candidate


def waiting_cap(limit: int) -> int:
    """How many over-budget pages wait to replace pages that end without an item."""
    return max(limit, 1000)


@runtime_checkable
class PageBudget(Protocol):
    """What the docs crawl asks of its page budget, wherever it is kept."""

    def claim(self, key: str, limit: int, entry: Entry, defer: bool = False) -> Claim:
        """``new`` (fetch it now), ``waiting`` (queued for a slot), ``over`` (dropped: the waiting list is
        full) or ``seen`` (``key`` was claimed before). ``defer``: the page waits even when a slot is free (a
        sitemap's pages are all claimed, then the best of them start; the local budget only)."""
        ...

    def transfer(self, key: str, entry: Entry | None = None, old_key: str | None = None) -> bool:
        """A page takes over the slot of the page ``old_key`` it replaces (an ``.md`` twin's HTML page);
        False when ``key`` was claimed before."""
        ...

    def finish(self, written: bool, limit: int, key: str | None = None) -> list[Entry]:
        """The page ``key`` finished (``written``: its item was, or the budget itself dropped it); → the
        waiting entries to request now."""
        ...

    def pump(self, limit: int) -> list[Entry]:
        """The waiting entries there is room for now (requested by the caller)."""
        ...

    def recover(self) -> int:
        """After a kill: the pages that were in flight wait again, first in line; → how many."""
        ...

    def waiting_count(self) -> int:
        """Pages waiting for a slot."""
        ...

    def waiting_entries(self, most: int) -> list[Entry]:
        """At most ``most`` of the waiting entries (the first to be requested first)."""
        ...

    def add_canonical(self, key: str) -> bool:
        """Remember a written page's canonical key; False when it was known."""
        ...

    def has_canonical(self, key: str) -> bool:
        """A page with this canonical key was written."""
        ...


class LocalState(PageBudget):
    """The page budget, its waiting list and the canonical set in ``spider.state`` (persisted with JOBDIR).

    At most ``window`` pages are requested and not yet finished (the others wait),
    so a sitemap of 100,000 URLs never becomes 100,000 queued requests.
    """

    def __init__(self, spider: Any, window: int = PAGE_WINDOW) -> None:
        """``spider``: anything with a ``state`` dict (Scrapy's SpiderState extension replaces the spider's
        when a JOBDIR holds one, so it is read on every use)."""
        self.spider = spider
        self.window = max(1, window)

    @property
    def _s(self) -> dict:
        st = self.spider.state
        st.setdefault("pages", set())
        st.setdefault("canonical", set())
        st.setdefault("count", 0)  # pages requested and not ended without an item
        st.setdefault("active", 0)  # pages requested and not finished
        waiting = st.setdefault("waiting", [])
        if isinstance(waiting, deque):  # a JOBDIR saved by a version that queued in FIFO order
            st["waiting"] = [(0, i, e) for i, e in enumerate(waiting)]
            heapq.heapify(st["waiting"])
        st.setdefault("seq", 0)  # ties keep the order pages were found in
        st.setdefault("inflight", {})  # key → entry of the pages requested and not finished (requeued after a kill)
        st.setdefault("reserve", {})  # key → entry of the pages the full waiting list turned away
        st.setdefault("started", set())  # keys of the pages requested (a promoted page may wait twice: started once)
        return st

    def _add(self, name: str, key: str) -> bool:
        """Add ``key`` to the set ``name``; False when it was there."""
        seen = self._s[name]
        if key in seen:
            return False
        seen.add(key)
        return True

    def _can_start(self, limit: int) -> bool:
        """A page may be requested now: budget and window both have room (then both count it)."""
        s = self._s
        if s["count"] < limit and s["active"] < self.window:
            s["count"] += 1
            s["active"] += 1
            return True
        return False

    def _may_start(self, entry: Entry, limit: int) -> bool:
        """Whether a page may take a slot now. When fewer slots are left than pages wait, the budget goes level by
        level: a page more than one hop deeper than the shallowest page in flight waits for it (that page's links
        may rank higher — a change record two links from the start beats a sitemap's deep pages); a change-record
        candidate never waits."""
        s = self._s
        if not s["inflight"] or limit - s["count"] > len(s["waiting"]) or entry_rank(entry) >= RANK_CANDIDATE // 2:
            return True
        shallowest = min(entry_depth(e) for e in s["inflight"].values())
        return entry_depth(entry) <= shallowest + 1

    def _start(self, entry: Entry) -> Entry:
        key = url_key(entry[0])
        self._s["inflight"][key] = entry
        self._s["started"].add(key)
        return entry

    def promote(self, key: str, rank: int = RANK_YIELD) -> str:
        """A page a new version's marker points to waits again at ``rank`` (and before the waiting cap): ``"taken back"``
        from the pages the full waiting list turned away, or ``"moved up"`` in the waiting list; ``""`` when it was
        requested already, is not known, or waits at that rank already."""
        s = self._s
        if key in s["started"]:
            return ""
        how = "taken back"
        entry = s["reserve"].pop(key, None)
        if entry is None:
            copies = [e for _r, _n, e in s["waiting"] if url_key(e[0]) == key]
            if not copies or max(entry_rank(e) for e in copies) >= rank:
                return ""
            entry, how = copies[0], "moved up"
        entry = list(entry)
        entry[6:8] = [rank, entry_depth(entry)]
        self._wait(entry, rank)  # a copy that waited before stays behind it and is skipped when its turn comes
        return how

    def _wait(self, entry: Entry, rank: int) -> None:
        s = self._s
        s["seq"] += 1
        heapq.heappush(s["waiting"], (-rank, s["seq"], entry))

    def claim(self, key: str, limit: int, entry: Entry, defer: bool = False) -> Claim:
        if not self._add("pages", key):
            return "seen"
        waiting = self._s["waiting"]
        rank = entry_rank(entry)
        if not defer and (not waiting or -waiting[0][0] < rank) and self._may_start(entry, limit) and self._can_start(limit):  # never ahead of a better waiting page
            self._start(entry)
            return "new"
        if len(waiting) < waiting_cap(limit):
            self._wait(entry, rank)
            return "waiting"
        reserve = self._s["reserve"]
        if len(reserve) < MAX_RESERVE:
            reserve[key] = entry
        return "over"

    def transfer(self, key: str, entry: Entry | None = None, old_key: str | None = None) -> bool:
        if old_key is not None:
            self._s["inflight"].pop(old_key, None)
        if not self._add("pages", key):
            return False
        if entry is not None:
            self._start(entry)
        return True

    def finish(self, written: bool, limit: int, key: str | None = None) -> list[Entry]:
        s = self._s
        if key is not None:
            s["inflight"].pop(key, None)
        s["active"] -= 1
        if not written:
            s["count"] -= 1
        return self.pump(limit)

    def _refill(self, limit: int) -> None:
        """Budget left and no page waiting: the pages the full waiting list turned away wait again, in the order they
        were turned away (a sitemap's best first), as many as the waiting list holds."""
        s = self._s
        reserve = s["reserve"]
        if s["waiting"] or not reserve or s["count"] >= limit:
            return
        for key in list(reserve)[:waiting_cap(limit)]:
            entry = reserve.pop(key)
            self._wait(entry, entry_rank(entry))
            s["taken_back"] = s.get("taken_back", 0) + 1

    def taken_back(self) -> int:
        """Pages taken back from the turned-away ones to wait again (counted as dropped when they were turned away)."""
        return int(self._s.get("taken_back", 0))

    def pump(self, limit: int) -> list[Entry]:
        s = self._s
        ready = []
        self._refill(limit)
        while s["waiting"]:
            if url_key(s["waiting"][0][2][0]) in s["started"]:  # a promoted page's earlier place in line
                heapq.heappop(s["waiting"])
                continue
            if not (self._may_start(s["waiting"][0][2], limit) and self._can_start(limit)):
                break
            ready.append(self._start(heapq.heappop(s["waiting"])[2]))
        if not s["waiting"] and s["reserve"] and s["count"] < limit:
            ready += self.pump(limit)  # the turned-away pages wait again (each round takes some out of the reserve)
        return ready

    def recover(self) -> int:
        """The pages that were requested and not finished lost their queued requests in the kill."""
        s = self._s
        entries = list(s["inflight"].values())
        for key in s["inflight"]:  # fetched perhaps, but never written: not a canonical duplicate of itself
            s["canonical"].discard(key)
            s["started"].discard(key)
        s["inflight"] = {}
        first = min((r for r, _, _ in s["waiting"]), default=0) - 1  # before every waiting page, in their own order
        for entry in entries:
            s["seq"] += 1
            heapq.heappush(s["waiting"], (first, s["seq"], entry))
        s["active"] = max(0, s["active"] - len(entries))
        s["count"] = max(0, s["count"] - len(entries))
        return len(entries)

    def waiting_count(self) -> int:
        started = self._s["started"]
        return sum(1 for _r, _n, e in self._s["waiting"] if url_key(e[0]) not in started)

    def waiting_entries(self, most: int) -> list[Entry]:
        """At most ``most`` waiting entries, best first."""
        started = self._s["started"]
        return [e for _, _, e in heapq.nsmallest(most, self._s["waiting"]) if url_key(e[0]) not in started]

    def add_canonical(self, key: str) -> bool:
        return self._add("canonical", key)

    def has_canonical(self, key: str) -> bool:
        return key in self._s["canonical"]
