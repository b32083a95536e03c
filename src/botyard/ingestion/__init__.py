"""Ingestion, a library: bytes to a parsed document, a document to chunks, chunks to token counts, and the freshness
check of a fetched page. No database: `sources.processing` runs it over stored sources."""
