"""skill3's Scrapy project: the `learn` spider, its middlewares, pipelines and extensions."""
