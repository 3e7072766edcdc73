"""``skill3``: ``learn`` (:mod:`skill3crawl.cli_learn`) beside synth's commands (:mod:`synth.cli`)."""

from __future__ import annotations

from skill3crawl import cli_learn
from synth.cli import make_app

app = make_app(cli_learn.register)


def main() -> None:
    """The ``skill3`` console script."""
    app(prog_name="skill3")


if __name__ == "__main__":
    main()
