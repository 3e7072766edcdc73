"""`scrapy crawl learn -a input_file=…`: the offline corpus goes through the same pipelines, no network."""

import json

from synth.evidence.item import SourceItem
from tests.crawl.conftest import read_jsonl, scrapy_crawl

BODY = "The new streaming API landed in version 3.0 and replaces the old polling helpers for all clients. " * 3
CORPUS = f"""=== SOURCE ===
url: https://docs.example.org/guide?utm_source=newsletter#top
title: Streaming guide
date: 2026-05-01

# Streaming

{BODY}

```python
client.stream(  "x" )   # spacing kept
```

=== SOURCE ===
url: https://someone.medium.com/old-post
date: 2025-06-02

<html><body><article><h1>An old post</h1><p>{BODY}</p></article></body></html>
=== SOURCE ===
url: https://mirror.example.net/copy
date: 2026-05-03

# Streaming

{BODY}

```python
client.stream(  "x" )   # spacing kept
```

=== SOURCE ===
url: https://leak.example.org/next-year
date: 2027-01-10

{BODY}
=== SOURCE ===
url: https://empty.example.org/stub
title: Stub

Too short.
"""


def test_corpus_crawl_writes_scored_items(tmp_path):
    src = tmp_path / "corpus.txt"
    src.write_text(CORPUS, encoding="utf-8")
    out = tmp_path / "out"
    (out).mkdir()
    (out / "run.jsonl").write_text('{"url": "stale line from an earlier run"}\n')
    proc = scrapy_crawl("topic=Streaming API", f"input_file={src}", f"output_dir={out}", "synth=0", "cutoff_time=2026-01",
                        "authoritative=docs.example.org", settings={"SKILL3_TODAY": "2026-11-29"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    items = read_jsonl(out / "run.jsonl")
    assert [list(i) for i in items] == [SourceItem.field_names()] * len(items)  # declaration order, nothing extra
    by_url = {i["url"]: i for i in items}
    assert set(by_url) == {"https://docs.example.org/guide", "https://someone.medium.com/old-post"}  # overwritten, not appended
    guide = by_url["https://docs.example.org/guide"]
    assert guide["title"] == "Streaming guide"
    assert (guide["published"], guide["date_source"], guide["discovery"]) == ("2026-05-01", "corpus", "corpus")
    assert (guide["authority"], guide["post_cutoff"]) == (1.0, True)
    assert guide["code_blocks"] == [{"text": 'client.stream(  "x" )   # spacing kept\n', "language": "python"}]
    assert guide["agreeing_urls"] == ["https://mirror.example.net/copy"]  # same content, lower authority: dropped
    assert guide["combined_score"] == round(guide["authority"] * guide["recency_weight"], 4)
    old = by_url["https://someone.medium.com/old-post"]
    assert (old["authority"], old["post_cutoff"], old["recency_weight"], old["combined_score"]) == (0.2, False, 0.5, 0.1)
    assert old["consensus_count"] == 2 and old["snippet_fingerprints"]  # its sentences recur on docs.example.org

    crawl = json.loads((out / "crawl.json").read_text())
    assert crawl["cutoff"] == "2026-01" and crawl["queries"] == [] and crawl["discovery"] == ["corpus"]
    assert crawl["summary"]["dropped"] == {"duplicate": 1, "future_dated": 1, "no_content": 1}
    assert crawl["summary"]["items_written"] == 2 and crawl["summary"]["pages_fetched"] == 5
    assert "skill3 crawl summary: pages fetched 5" in proc.stderr
    assert "items written 2" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_strict_cutoff_drops_pre_cutoff_and_undated(tmp_path):
    src = tmp_path / "c.txt"
    src.write_text(CORPUS.replace("date: 2026-05-03\n", ""), encoding="utf-8")
    out = tmp_path / "o"
    proc = scrapy_crawl("topic=t", f"input_file={src}", f"output_dir={out}", "synth=0", "cutoff_time=2026-01", "strict_cutoff=1",
                        settings={"SKILL3_TODAY": "2026-11-29"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert [i["url"] for i in read_jsonl(out / "run.jsonl")] == ["https://docs.example.org/guide"]
    dropped = json.loads((out / "crawl.json").read_text())["summary"]["dropped"]
    assert dropped == {"future_dated": 1, "no_content": 1, "pre_cutoff_strict": 1, "undated_strict": 1}


def test_spider_itself_reports_bad_arguments_without_raising(monkeypatch):
    """For runners other than `scrapy crawl` (CrawlerProcess): the spider keeps the one-line error."""
    from skill3crawl.spiders.learn import LearnSpider

    spider = LearnSpider(topic="mcp", cutoff_time="13-2026", brave_key="k-123")
    assert spider.args is None and "cutoff_time" in spider.args_error
    assert not hasattr(spider, "brave_key")  # -a values are not copied onto the spider
    ok = LearnSpider(topic="mcp", brave_key="k-123")
    assert ok.args.brave_token() == "k-123" and not hasattr(ok, "brave_key")
    monkeypatch.delenv("BRAVE_SEARCH_API_KEY", raising=False)
    nothing = LearnSpider(topic="mcp", synth="0")  # no key, no sites, no corpus: the registries are asked at run time
    assert nothing.args is not None and nothing.args_error is None


def test_secrets_in_urls_and_bodies_never_reach_run_jsonl(tmp_path):
    token = "tok" + "Z9x8Y7w6V5u4T3s2R1q0"  # assembled: this file carries no secret
    key = "sk" + "-proj-" + "Ab3De6Gh9" * 5
    src = tmp_path / "corpus.txt"
    src.write_text(f"=== SOURCE ===\nurl: https://docs.example.org/feed?access_token={token}\ntitle: Feed\ndate: 2026-05-01\n\n"
                   f"# Feed\n\n{BODY}\n\n```bash\nexport OPENAI_API_KEY={key}\n```\n", encoding="utf-8")
    out = tmp_path / "out"
    proc = scrapy_crawl("topic=feeds", f"input_file={src}", f"output_dir={out}", "synth=0", "cutoff_time=2026-01")
    assert proc.returncode == 0, proc.stderr[-3000:]
    raw = (out / "run.jsonl").read_text()
    assert token not in raw and key not in raw
    (item,) = read_jsonl(out / "run.jsonl")
    assert item["url"] == "https://docs.example.org/feed?access_token=REDACTED" and item["redactions"] == 3


def test_resumed_corpus_crawl_writes_each_source_once_and_keeps_the_budget(tmp_path):
    """A JOBDIR corpus crawl run again appends to its feed: sources already in it are skipped, and they
    count against max_pages."""
    topics = ["retry policy", "connection pooling", "backpressure", "cancellation", "tracing hooks", "batch uploads"]
    src = tmp_path / "corpus.txt"
    src.write_text("".join(f"=== SOURCE ===\nurl: https://docs.example.org/page-{i}\ndate: 2026-05-0{i + 1}\n\n"
                           + f"Chapter {i} of the streaming client guide explains {t} with its own examples and caveats. " * 3
                           + "\n" for i, t in enumerate(topics)), encoding="utf-8")
    out = tmp_path / "out"
    args = ("topic=Streaming", f"input_file={src}", f"output_dir={out}", "synth=0", "cutoff_time=2026-01")
    settings = {"JOBDIR": str(tmp_path / "job"), "SKILL3_TODAY": "2026-11-29"}
    for max_pages, expected in ((2, 2), (5, 5), (5, 5)):
        proc = scrapy_crawl(*args, f"max_pages={max_pages}", settings=settings)
        assert proc.returncode == 0, proc.stderr[-3000:]
        urls = [row["url"] for row in read_jsonl(out / "run.jsonl")]
        assert len(urls) == expected and len(set(urls)) == expected, urls
