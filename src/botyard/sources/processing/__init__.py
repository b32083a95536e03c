"""Processing a data source into indexed chunks: the jobs that read a source, run the ingestion library over its
bytes (parse, chunk, count tokens: `botyard.ingestion`), embed the chunks and store them (`sources` owns the
tables)."""
