"""The postgres backend's tables: an index derived from the chunks, like the embedded backend's files, so they are
made and filled by `botyard search migrate` (`fill`), not by the migrations: the `vector` type they need exists only
where the extension is installed, and a SQLite or plain PostgreSQL installation must migrate without it.

- `search_chunk`: one row per chunk, its scope (chatbot, source), its analysed terms with their counts (`tf`, a
  jsonb object: a hit's coverage of the question is read from it), its length in terms and that length as tantivy
  scores it (`bm25.fieldnorm`), the language it was detected in, and its vector as one `halfvec` per model part
  (`Embedder.parts`), each under an HNSW index of its own (cosine).
- `search_posting`: one row per term of each chunk, with its count and the chunk's kept length, under an index that
  holds them (chatbot, term first): BM25 reads only the postings of the question's terms, by index alone. Scoring
  from each candidate's jsonb instead cost 0.06 ms per matching chunk (54 ms against 11 at 284 chunks of XQuAD).
- `search_term`: each term's document frequency per chatbot (BM25's idf, and the words the speller knows).
- `search_state`: per chatbot, the knowledge version the rows are at, the document count and total length, the
  languages its chunks were detected in, and what unrelated questions find here (`baseline`).
- `search_meta`: which embedder made the vectors (a process with another refuses to search them).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

MAX_PARTS = 3
"""Vector columns (`part0`..): an embedder of more parts than this is refused (the bundled one has two)."""

TABLES = (
    """CREATE TABLE IF NOT EXISTS search_meta (key text PRIMARY KEY, value text NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS search_state (
        chatbot_uuid text PRIMARY KEY,
        version bigint NOT NULL,
        documents integer NOT NULL,
        total_length bigint NOT NULL,
        languages jsonb NOT NULL,
        unrelated jsonb NOT NULL,
        unrelated_size integer NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now())""",
    """CREATE TABLE IF NOT EXISTS search_chunk (
        chunk_uuid text PRIMARY KEY,
        chatbot_uuid text NOT NULL,
        data_source_uuid text NOT NULL,
        tf jsonb NOT NULL,
        length integer NOT NULL,
        norm integer NOT NULL,
        detected text,
        part0 halfvec,
        part1 halfvec,
        part2 halfvec)""",
    "CREATE INDEX IF NOT EXISTS search_chunk_scope ON search_chunk (chatbot_uuid, data_source_uuid)",
    """CREATE TABLE IF NOT EXISTS search_posting (
        chatbot_uuid text NOT NULL,
        term text NOT NULL,
        chunk_uuid text NOT NULL,
        data_source_uuid text NOT NULL,
        tf integer NOT NULL,
        norm integer NOT NULL)""",
    "CREATE UNIQUE INDEX IF NOT EXISTS search_posting_term ON search_posting (chatbot_uuid, term, chunk_uuid) "
    "INCLUDE (tf, norm, data_source_uuid)",
    "CREATE INDEX IF NOT EXISTS search_posting_chunk ON search_posting (chunk_uuid)",
    """CREATE TABLE IF NOT EXISTS search_term (
        chatbot_uuid text NOT NULL,
        term text NOT NULL,
        frequency integer NOT NULL,
        PRIMARY KEY (chatbot_uuid, term))""",
)

HNSW_M = 16
HNSW_BUILD = 64
"""pgvector's defaults (m, ef_construction): recall is set at search time (`hnsw.ef_search`, iterative scans)."""


class SearchSetupError(RuntimeError):
    """The database cannot serve `BOTYARD_SEARCH=postgres` as it is; the message says what to do."""


def part_column(part: int, width: int) -> str:
    """The expression a part's vectors are indexed and searched by: the column cast to its width (the HNSW index
    is on this expression; a search must use it as written to use the index)."""
    return f"(part{part}::halfvec({width}))"


def hnsw_indexes(parts: Sequence[int]) -> list[str]:
    return [
        f"CREATE INDEX IF NOT EXISTS search_chunk_part{part}_{width} ON search_chunk USING hnsw "
        f"({part_column(part, width)} halfvec_cosine_ops) WITH (m = {HNSW_M}, ef_construction = {HNSW_BUILD})"
        for part, width in enumerate(parts)
    ]


async def has_vector_extension(connection: AsyncConnection) -> tuple[bool, bool]:
    """(installed in this database, available to install on this server)."""
    installed = await connection.scalar(text("SELECT count(*) FROM pg_extension WHERE extname = 'vector'"))
    available = await connection.scalar(text("SELECT count(*) FROM pg_available_extensions WHERE name = 'vector'"))
    return bool(installed), bool(available)


async def create(connection: AsyncConnection, embedder: str, parts: Sequence[int]) -> None:
    """The extension (if it may be created here), the tables and the vector indexes for `embedder`'s `parts`."""
    installed, available = await has_vector_extension(connection)
    if not installed and not available:
        raise SearchSetupError(MISSING_EXTENSION)
    if not installed:
        await connection.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
    if len(parts) > MAX_PARTS:
        raise SearchSetupError(f"the embedder has {len(parts)} vector parts; the postgres search holds {MAX_PARTS}")
    for statement in (*TABLES, *hnsw_indexes(parts)):
        await connection.execute(text(statement))
    await connection.execute(
        text(
            "INSERT INTO search_meta (key, value) VALUES ('embedder', :value) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
        ),
        {"value": embedder_key(embedder, parts)},
    )


async def vacuum(connection: AsyncConnection) -> None:
    """The tables vacuumed and analysed, on a connection in autocommit (VACUUM runs in no transaction). After a
    migrate wrote many rows: BM25 reads postings by index alone, which needs the visibility map a vacuum sets (at
    100k chunks, first bytes of 1.95 s at p50 before autovacuum came by, 0.29 s after), and the planner the
    tables' sizes (`ranking.searched_exactly` reads them)."""
    await connection.execute(text("VACUUM (ANALYZE) search_chunk, search_posting, search_term, search_state"))


def embedder_key(embedder: str, parts: Sequence[int]) -> str:
    return f"{embedder} {'+'.join(str(width) for width in parts)}"


MISSING_EXTENSION = (
    "BOTYARD_SEARCH=postgres needs PostgreSQL's `vector` extension (pgvector 0.8 or newer), which this server does "
    "not have: install it (every managed PostgreSQL ships it; Debian: postgresql-<version>-pgvector), then run "
    "`botyard search migrate`; or set BOTYARD_SEARCH=embedded"
)
NOT_MIGRATED = (
    "BOTYARD_SEARCH=postgres: the search tables are missing in this database: run `botyard search migrate` (it "
    "creates them and fills them from the chunks, resumable), or set BOTYARD_SEARCH=embedded"
)


def other_embedder(found: str, wanted: str) -> str:
    return (
        f"BOTYARD_SEARCH=postgres: the search index holds vectors of the embedder `{found}`, this process embeds with "
        f"`{wanted}` (BOTYARD_EMBEDDER): their vectors cannot be compared. Run `botyard search migrate` to index the "
        "chunks' vectors of this embedder (re-embed the knowledge first if it was embedded by the other one), or "
        "set BOTYARD_EMBEDDER back"
    )


async def check(connection: AsyncConnection, embedder: str, parts: Sequence[int]) -> None:
    """That this database can serve the search (at the process's start): the extension, the tables, the embedder."""
    installed, _ = await has_vector_extension(connection)
    if not installed:
        raise SearchSetupError(MISSING_EXTENSION)
    exists = await connection.scalar(text("SELECT to_regclass('search_meta') IS NOT NULL"))
    if not exists:
        raise SearchSetupError(NOT_MIGRATED)
    found = await connection.scalar(text("SELECT value FROM search_meta WHERE key = 'embedder'"))
    wanted = embedder_key(embedder, parts)
    if found is not None and found != wanted:
        raise SearchSetupError(other_embedder(str(found), wanted))
