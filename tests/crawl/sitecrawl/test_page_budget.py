"""The page budget protocol: the same cases against the local state and the Redis-shared state."""

from __future__ import annotations

import os
import uuid
from types import SimpleNamespace
from typing import Iterator

import pytest
from scrapy.settings import Settings

from skill3crawl.sitecrawl.budget import LocalState, PageBudget, waiting_cap

REDIS_URL = os.environ.get("SKILL3_TEST_REDIS_URL")
LIMIT = 3


def _entry(name: str) -> list:
    return [f"https://docs.example.org/{name}", "link", "", None, 1, None]


@pytest.fixture(params=[
    pytest.param("local", id="local"),
    pytest.param("redis", id="redis", marks=[
        pytest.mark.redis,
        pytest.mark.skipif(not REDIS_URL, reason="SKILL3_TEST_REDIS_URL not set (scripts/test.sh starts redis-server on loopback)"),
    ]),
])
def budget(request: pytest.FixtureRequest) -> Iterator[PageBudget]:
    """A fresh budget: in ``spider.state`` (with a window wider than the budget: no window effect), or in Redis."""
    if request.param == "local":
        yield LocalState(SimpleNamespace(state={}), window=1000)
        return
    from skill3crawl.distributed import server_from_settings
    from skill3crawl.distributed.budget import RedisSharedState

    key = f"skill3test:{uuid.uuid4().hex[:8]}"
    settings = Settings({"SKILL3_REDIS_URL": REDIS_URL, "SKILL3_REDIS_KEY": key})
    try:
        yield RedisSharedState(settings, "docs")
    finally:
        server = server_from_settings(settings)
        for k in server.keys(key + ":*"):
            server.delete(k)


def _claims(budget: PageBudget, names: list[str]) -> list[str]:
    return [budget.claim(n, LIMIT, _entry(n)) for n in names]


# Each case: steps on a fresh budget (limit 3) and what each step answers.
CASES = {
    "within the budget: new, then seen": [
        ("claim", ["a", "b", "a"], ["new", "new", "seen"]),
    ],
    "over the budget: waiting, in order": [
        ("claim", ["a", "b", "c", "d", "e"], ["new", "new", "new", "waiting", "waiting"]),
        ("waiting_count", None, 2),
    ],
    "a page written keeps its slot": [
        ("claim", ["a", "b", "c", "d"], ["new", "new", "new", "waiting"]),
        ("finish", True, []),
        ("waiting_count", None, 1),
    ],
    "a page without an item passes its slot to the first waiting page": [
        ("claim", ["a", "b", "c", "d", "e"], ["new", "new", "new", "waiting", "waiting"]),
        ("finish", False, [_entry("d")]),
        ("finish", False, [_entry("e")]),
        ("finish", False, []),
        ("claim", ["f"], ["new"]),  # the slot nobody waited for came back
    ],
    "nothing waits: a freed slot returns to the budget": [
        ("claim", ["a", "b", "c"], ["new", "new", "new"]),
        ("finish", False, []),
        ("pump", None, []),
        ("claim", ["d", "e"], ["new", "waiting"]),
    ],
    "transfer: a page takes over a slot once": [
        ("claim", ["a"], ["new"]),
        ("transfer", "a.html", True),
        ("transfer", "a.html", False),
        ("transfer", "a", False),
    ],
    "canonical keys": [
        ("has_canonical", "k", False),
        ("add_canonical", "k", True),
        ("add_canonical", "k", False),
        ("has_canonical", "k", True),
        ("has_canonical", "other", False),
    ],
}


@pytest.mark.parametrize("case", list(CASES))
def test_page_budget_contract(budget: PageBudget, case: str) -> None:
    assert isinstance(budget, PageBudget)
    for step, arg, expected in CASES[case]:
        if step == "claim":
            got = _claims(budget, arg)
        elif step == "finish":
            got = budget.finish(arg, LIMIT)
        elif step == "pump":
            got = budget.pump(LIMIT)
        elif step == "waiting_count":
            got = budget.waiting_count()
        elif step == "transfer":
            got = budget.transfer(arg, _entry(arg))
        else:
            got = getattr(budget, step)(arg)
        assert got == expected, f"{case}: {step}({arg!r})"


def test_page_budget_waiting_list_is_bounded(budget: PageBudget) -> None:
    claims = _claims(budget, [f"u{i}" for i in range(LIMIT + waiting_cap(LIMIT) + 2)])
    assert claims.count("new") == LIMIT and claims.count("waiting") == waiting_cap(LIMIT)
    assert claims[-2:] == ["over", "over"]


def test_redis_state_is_a_page_budget() -> None:
    """Declared, not only shaped alike: the shared state subclasses the protocol."""
    from skill3crawl.distributed.budget import RedisSharedState

    assert issubclass(RedisSharedState, PageBudget) and issubclass(LocalState, PageBudget)
