"""The embedded search backend: per-chatbot indexes in each process's memory (`search.EmbeddedSearch`).

An index (`index.ChatbotIndex`) is its rows as columns (`rows`), a tantivy BM25 index (`lexical`) and int8 vector
matrices (`dense`) over the same rows, built off the event loop (`building`) with what the unrelated questions find
in it (`unrelated`). The process keeps them in a bounded cache (`index_cache`); large ones are saved on disk
(`snapshot`, in directories of the process's own: `private`), shared through the database on PostgreSQL (`shared`,
its SQL in `repository`), built once per machine (`build_lock`) and ahead of their first question (`warmer`).
What the backends share (text analysis, BM25's numbers, the query side, fusion, the relevance decision) is in
`botyard.retrieval`.
"""
