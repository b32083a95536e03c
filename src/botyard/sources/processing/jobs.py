"""Names of the ingestion jobs, importable without the pipeline (the API enqueues; workers run)."""

PROCESS_SOURCE = "process_source"

REEMBED_SOURCE = "reembed_source"
"""Embed again the chunks of one source that another embedder (or none) produced; queued at start-up."""
