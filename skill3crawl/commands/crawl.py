"""`scrapy crawl` with skill3's exit codes.

For skill3's spiders (``learn``, ``docs``) the arguments are validated before
Scrapy starts (a bad one prints one line and exits 2); after the crawl the exit
code is the crawl's own (``skill3/exit_code`` in the stats: 1 nothing usable,
2 bad usage, or the synthesis exit code). Both steps are
:mod:`skill3crawl.runner`'s, which ``skill3 learn`` runs too.
"""

from __future__ import annotations

import argparse
import sys

from scrapy.commands.crawl import Command as ScrapyCrawl

from skill3crawl import runner
from synth.core.errors import ExitCode


class Command(ScrapyCrawl):
    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        """Scrapy's options, then (before Scrapy sets up logging and the crawler process) the
        spider arguments: one line and exit 2 on the first problem."""
        super().process_options(args, opts)
        if len(args) != 1 or self.settings is None:
            return
        try:
            spidercls = runner.spider_class(self.settings, args[0])
        except KeyError:  # an unknown spider: Scrapy says so when it runs
            return
        problem = runner.argument_problem(spidercls, opts.spargs) or runner.hold_output_dir(spidercls, opts.spargs)
        if problem:
            print(f"scrapy crawl {args[0]}: {problem}", file=sys.stderr)
            sys.exit(ExitCode.USAGE)

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        """Scrapy's crawl of one spider, whose exit code is the crawl's own."""
        if len(args) != 1:
            return super().run(args, opts)
        assert self.crawler_process
        crawler = self._create_crawler(args[0])
        self.exitcode = int(runner.run_spider(self.crawler_process, args[0], opts.spargs, crawler=crawler).exit_code)
