"""Secret redaction at crawl time, so a secret never reaches ``run.jsonl`` (issue 4).

Runs right after content extraction (before duplicates and consensus, so the
snippet fingerprints are computed on redacted text): every secret in the
title, excerpts and code blocks is replaced by ``[REDACTED:<kind>]`` and
counted in the item's ``redactions`` field (the count, never the secret).
Synthesis redacts again before any model call (sources from elsewhere).
"""

from __future__ import annotations

import logging
from typing import Any

from skill3crawl.extract.executor import get_extractor
from skill3crawl.pipelines import _Base
from synth.vet.redact import apply_redaction, redact_fields

logger = logging.getLogger(__name__)


class RedactPipeline(_Base):
    """In the extraction process pool (``SKILL3_EXTRACT_WORKERS``): ~25 ms of regex work per page."""

    async def process_item(self, item: Any) -> Any:
        result = await get_extractor(self.crawler).run(redact_fields, item.title, item.excerpts, item.code_blocks)
        n = apply_redaction(item, result)
        if n:
            self.stats.inc_value("skill3/redactions", n)
            logger.info("skill3: redacted %d secret(s) from %s", n, item.url)
        return item
