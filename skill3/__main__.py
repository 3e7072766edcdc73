"""``python -m skill3`` is the ``skill3`` console script."""

from skill3.cli.main import main

main()
