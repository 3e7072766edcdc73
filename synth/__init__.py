"""skill3's Scrapy-free side: scoring, bundle, models, synthesis, lint, vet, CLI."""

__version__ = "0.1.0"
