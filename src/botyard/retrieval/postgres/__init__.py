"""The postgres search backend: PostgreSQL with pgvector holds and searches the index (`search`); API processes hold
none. Its tables (`schema`) are an index of the chunks, kept in step with them (`sync`)."""
