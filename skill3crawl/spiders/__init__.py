"""skill3's spiders."""
