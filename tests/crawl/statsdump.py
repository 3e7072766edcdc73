"""A stats collector that also writes the final stats as JSON (``SKILL3_TEST_STATS_FILE``), for subprocess crawls."""

import json
import os

from scrapy.statscollectors import MemoryStatsCollector


class JsonFileStatsCollector(MemoryStatsCollector):
    def _persist_stats(self, stats):
        super()._persist_stats(stats)
        path = os.environ.get("SKILL3_TEST_STATS_FILE")
        if path:
            with open(path, "w", encoding="utf-8") as f:
                json.dump(stats, f, default=str)
