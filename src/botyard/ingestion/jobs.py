"""Names of the ingestion jobs, importable without the pipeline (the API enqueues; workers run)."""

PROCESS_SOURCE = "process_source"
