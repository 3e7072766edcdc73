"""`scrapy crawl` with skill3's exit codes.

For the ``learn`` spider the arguments are validated before Scrapy starts (a
bad one prints one line and exits 2); after the crawl the exit code is the
crawl's own (``skill3/exit_code`` in the stats: 1 nothing usable, 2 bad usage,
or the synthesis exit code).
"""

from __future__ import annotations

import sys

from scrapy.commands.crawl import Command as ScrapyCrawl


class Command(ScrapyCrawl):
    def process_options(self, args, opts) -> None:
        super().process_options(args, opts)
        # Before Scrapy sets up logging and the crawler process: one line, exit 2.
        if args == ["learn"] and opts.spargs.get("role") != "worker":  # a worker's arguments come from Redis
            from skill3crawl.args import ArgsError, parse_args

            try:
                problem = parse_args(opts.spargs).usage_problem()
            except ArgsError as exc:
                problem = str(exc)
            if problem:
                print(f"scrapy crawl learn: {problem}", file=sys.stderr)
                sys.exit(2)

    def run(self, args, opts) -> None:
        if len(args) != 1:
            return super().run(args, opts)
        spname = args[0]
        assert self.crawler_process
        crawler = self._create_crawler(spname)
        self.crawler_process.crawl(crawler, **opts.spargs)
        self.crawler_process.start()
        if self.crawler_process.bootstrap_failed:
            self.exitcode = 1
            return
        from skill3crawl.extensions import crawl_exit_code

        self.exitcode = crawl_exit_code(crawler)
