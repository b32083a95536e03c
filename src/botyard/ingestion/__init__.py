"""Ingestion: the stages that turn a data source into indexed chunks (fetch, parse, chunk, count tokens, embed)."""
