"""Pipelines as adapters, driven with a real Crawler (no network): drops are counted, duplicates resolved."""

import json

import pytest
from scrapy.exceptions import DropItem
from scrapy.utils.test import get_crawler

from skill3crawl.crawl_record import get_state
from skill3crawl.extensions import rewrite_feed, summary_figures, summary_line
from skill3crawl.items import PageItem
from skill3crawl.pipelines import ConsensusPipeline, DuplicatePipeline, LimitPipeline, ScoringPipeline
from skill3crawl.spiders.learn import LearnSpider


@pytest.fixture
def crawler():
    c = get_crawler(LearnSpider, {"SKILL3_TODAY": "2026-11-29"})
    c.spider = LearnSpider(topic="t", cutoff_time="2026-01", authoritative="docs.example.org", max_pages="2", brave_key="k")
    c.stats.open_spider()
    return c


def item(url, host, content_hash="h1", published=None, excerpts=()):
    return PageItem(url=url, host=host, content_hash=content_hash, published=published, excerpts=list(excerpts))


def test_scoring_and_freshness_drops(crawler):
    p = ScoringPipeline(crawler)
    a = p.process_item(item("https://docs.example.org/a", "docs.example.org", published="2026-11-29"))
    assert (a.authority, a.post_cutoff, a.recency_weight, a.combined_score) == (1.0, True, 1.0, 1.0)
    with pytest.raises(DropItem):
        p.process_item(item("https://x.example/f", "x.example", published="2026-12-01"))
    assert crawler.stats.get_value("skill3/dropped/future_dated") == 1


def test_duplicate_keeps_the_higher_authority_url(crawler, tmp_path):
    p = DuplicatePipeline(crawler)
    for it in (item("https://a.medium.com/p", "a.medium.com"), item("https://docs.example.org/p", "docs.example.org"), item("https://b.example/p", "b.example")):
        ScoringPipeline(crawler).process_item(it)
        try:
            p.process_item(it)
        except DropItem:
            pass
    state = get_state(crawler)
    assert state.superseded == {"https://a.medium.com/p"}
    assert state.agreeing == {"https://docs.example.org/p": ["https://a.medium.com/p", "https://b.example/p"]}
    assert crawler.stats.get_value("skill3/dropped/duplicate") == 2
    feed = tmp_path / "run.jsonl"
    feed.write_text("".join(json.dumps({"url": u, "agreeing_urls": []}) + "\n" for u in ("https://a.medium.com/p", "https://docs.example.org/p", "https://c.example/q")))
    assert rewrite_feed(feed, state.superseded, state.agreeing) == 2
    lines = [json.loads(x) for x in feed.read_text().splitlines()]
    assert lines == [
        {"url": "https://docs.example.org/p", "agreeing_urls": ["https://a.medium.com/p", "https://b.example/p"]},
        {"url": "https://c.example/q", "agreeing_urls": []},
    ]


def test_limit_and_consensus(crawler):
    lim = LimitPipeline(crawler)
    lim.process_item(item("u1", "h"))
    lim.process_item(item("u2", "h"))
    with pytest.raises(DropItem):
        lim.process_item(item("u3", "h"))
    assert crawler.stats.get_value("skill3/dropped/max_pages") == 1
    con = ConsensusPipeline(crawler)
    claim = "The alpha toolkit now ships a streaming transport that replaces long polling."
    one = con.process_item(item("https://alpha.com/1", "alpha.com", excerpts=[claim]))
    two = con.process_item(item("https://beta.org/2", "beta.org", excerpts=[claim]))
    same_site = con.process_item(item("https://docs.alpha.com/3", "docs.alpha.com", excerpts=[claim]))  # not independent
    assert (one.consensus_count, two.consensus_count, same_site.consensus_count) == (1, 2, 2)
    assert one.snippet_fingerprints == two.snippet_fingerprints


def test_summary_line_and_figures():
    fig = summary_figures({"skill3/pages_fetched": 5, "robotstxt/forbidden": 2, "skill3/dropped/no_content": 1,
                           "skill3/dropped/duplicate": 2, "skill3/items_written": 2, "skill3/failed/http_404": 1})
    assert fig == {"pages_fetched": 5, "robots_denied": 2, "robots_unavailable": 0, "network_guard_blocked": 0, "dropped": {"duplicate": 2, "no_content": 1},
                   "failed": {"http_404": 1}, "items_written": 2, "httpcache": {},
                   "unreached_change_records": [], "unreached_change_records_count": 0}
    unreached = summary_figures({"skill3/reach/unreached_change_records": ["http://h/NEWS"],
                                 "skill3/reach/unreached_change_records_count": 3})
    assert (unreached["unreached_change_records"], unreached["unreached_change_records_count"]) == (["http://h/NEWS"], 3)
    assert summary_figures({"httpcache/revalidate": 3, "httpcache/invalidate": 1})["httpcache"] == {"invalidate": 1, "revalidate": 3}
    assert summary_line(fig) == (
        "skill3 crawl summary: pages fetched 5, robots-denied 2, blocked by network guard 0, "
        "dropped 3 (duplicate 2, no_content 1), failed 1, items written 2"
    )


def test_extractor_runs_the_pure_functions_in_a_process_pool():
    """The seam for SKILL3_EXTRACT_WORKERS: same result inline and in a worker process."""
    import asyncio
    import os

    from skill3crawl.extract.content import extract_content
    from skill3crawl.extract.executor import Extractor

    paras = "".join(f"<p>Paragraph {i} has enough distinct words to count as content for the extractor.</p>" for i in range(6))
    html = "<html><body><article><h1>T</h1>" + paras + "</article></body></html>"
    inline, pool = Extractor(0), Extractor(1)
    try:
        a = asyncio.run(inline.run(extract_content, html, "https://a.example/"))
        b = asyncio.run(pool.run(extract_content, html, "https://a.example/"))
        pid = asyncio.run(pool.run(os.getpid))
    finally:
        pool.close()
    assert a == b and a["drop_reason"] is None
    assert pid != os.getpid()
