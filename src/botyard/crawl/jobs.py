"""Name of the crawl job, importable without the crawler (the API enqueues; workers run)."""

CRAWL_SITE = "crawl_site"
