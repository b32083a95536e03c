"""The postgres backend's one writer: its tables kept in step with the chunks, at the knowledge version a search
asks for.

A chatbot's rows are caught up when a search finds them behind its knowledge version (or by `botyard search
migrate`): the sources the versions since changed (`Knowledge.changed_sources`, the log the embedded backend's
catch-up reads) are indexed again, their term counts moved, so a new page costs that page. It is rebuilt whole when
the log does not reach back, when more than `CATCH_UP_SOURCES` sources changed, or when the change moves the
chatbot's languages (which decide how every chunk is read). One transaction per catch-up, under a lock per chatbot
(`pg_advisory_xact_lock`): of several processes meeting the same change, one writes and the others then find it
done. A search never sees half a change: it reads the rows before or after the catch-up's commit."""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.retrieval.bm25 import fieldnorm
from botyard.retrieval.knowledge import Knowledge
from botyard.retrieval.postgres.rows import Indexed, Languages, document_of, indexed, tf_json

log = logging.getLogger(__name__)

CATCH_UP_SOURCES = 1000
"""More changed sources than this (a bulk import) rebuild the chatbot's rows whole, as the embedded index does."""
REMEASURE_SHARE = 0.25
"""What unrelated questions find is measured again once the chatbot grew or shrank by this share (`baseline`)."""
INSERT_BATCH = 500
ROW_TABLES = ("search_posting", "search_chunk", "search_term")
"""The tables of a chatbot's rows (`search_state` says what version they are at)."""


@dataclass(frozen=True)
class State:
    """A chatbot's `search_state` row."""

    version: int
    documents: int
    total_length: int
    detected: Counter[str | None]
    unrelated: tuple[float, ...]
    unrelated_size: int

    @property
    def languages(self) -> Languages:
        return Languages.of(self.detected)


Measure = Callable[[AsyncSession, str, State], Awaitable[tuple[float, ...]]]
"""What unrelated questions find in the chatbot as its rows now are (`search.PostgresSearch.unrelated_evidence`)."""


async def read_state(session: AsyncSession, chatbot_uuid: str) -> State | None:
    statement = text(
        "SELECT version, documents, total_length, languages, unrelated, unrelated_size FROM search_state "
        "WHERE chatbot_uuid = :bot"
    )
    row = (await session.execute(statement, {"bot": chatbot_uuid})).first()
    if row is None:
        return None
    languages = row.languages if isinstance(row.languages, dict) else json.loads(row.languages)
    unrelated = row.unrelated if isinstance(row.unrelated, list) else json.loads(row.unrelated)
    detected: Counter[str | None] = Counter({(key or None): int(count) for key, count in languages.items()})
    return State(
        int(row.version), int(row.documents), int(row.total_length), detected, tuple(unrelated), row.unrelated_size
    )


async def catch_up(
    session: AsyncSession,
    knowledge: Knowledge,
    chatbot_uuid: str,
    version: int,
    embedder: str | None,
    parts: Sequence[int],
    measure: Measure,
) -> State:
    """The chatbot's rows at `version` at least (see the module), in `session`'s transaction (the caller commits)."""
    await session.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:bot, 52))"), {"bot": chatbot_uuid})
    state = await read_state(session, chatbot_uuid)
    if state is not None and state.version >= version:
        return state  # another process caught up meanwhile
    sources = None
    if state is not None:
        sources = await knowledge.changed_sources(chatbot_uuid, state.version, version)
    if sources is not None and len(sources) > CATCH_UP_SOURCES:
        sources = None
    new = None
    if state is not None and sources is not None:
        new = await _update(session, knowledge, chatbot_uuid, version, embedder, parts, state, sources)
    if new is None:
        new = await _rebuild(session, knowledge, chatbot_uuid, version, embedder, parts)
    if new.documents and abs(new.documents - new.unrelated_size) > REMEASURE_SHARE * new.unrelated_size:
        unrelated = await measure(session, chatbot_uuid, new)
        new = replace(new, unrelated=unrelated, unrelated_size=new.documents)
    await _save_state(session, chatbot_uuid, new)
    return new


async def _rebuild(
    session: AsyncSession,
    knowledge: Knowledge,
    chatbot_uuid: str,
    version: int,
    embedder: str | None,
    parts: Sequence[int],
) -> State:
    rows, vectors = await knowledge.chunks(chatbot_uuid, embedder)
    detected = [document_of(row).language() for row in rows]
    counts = Counter(detected)
    entries = indexed(rows, vectors, detected, Languages.of(counts), parts)
    await _delete(session, chatbot_uuid, ROW_TABLES)
    await _insert(session, chatbot_uuid, entries)
    await _move_terms(session, chatbot_uuid, _term_counts(entry.tf for entry in entries))
    log.info("search rows of chatbot %s rebuilt: version %d, %d chunks", chatbot_uuid, version, len(entries))
    return State(version, len(entries), sum(entry.length for entry in entries), counts, (), 0)


async def _update(
    session: AsyncSession,
    knowledge: Knowledge,
    chatbot_uuid: str,
    version: int,
    embedder: str | None,
    parts: Sequence[int],
    state: State,
    sources: set[str],
) -> State | None:
    """The rows of `sources` indexed again; None when the change moves the chatbot's languages (a rebuild)."""
    scope = {"bot": chatbot_uuid, "sources": sorted(sources)}
    old = (
        await session.execute(
            text(
                "SELECT tf, length, detected FROM search_chunk WHERE chatbot_uuid = :bot "
                "AND data_source_uuid = ANY(:sources)"
            ),
            scope,
        )
    ).all()
    rows, vectors = await knowledge.chunks(chatbot_uuid, embedder, sources) if sources else ([], [])
    detected = [document_of(row).language() for row in rows]
    counts = state.detected.copy()
    counts.subtract(row.detected for row in old)
    counts.update(detected)
    counts = +counts
    if Languages.of(counts) != state.languages:
        return None
    entries = indexed(rows, vectors, detected, state.languages, parts)
    await session.execute(
        text(
            "DELETE FROM search_posting WHERE chunk_uuid IN (SELECT chunk_uuid FROM search_chunk "
            "WHERE chatbot_uuid = :bot AND data_source_uuid = ANY(:sources))"
        ),
        scope,
    )
    await session.execute(
        text("DELETE FROM search_chunk WHERE chatbot_uuid = :bot AND data_source_uuid = ANY(:sources)"), scope
    )
    await _insert(session, chatbot_uuid, entries)
    moved = _term_counts(entry.tf for entry in entries)
    moved.subtract(_term_counts(_tf(row.tf) for row in old))
    await _move_terms(session, chatbot_uuid, moved)
    documents = state.documents - len(old) + len(entries)
    length = state.total_length - sum(row.length for row in old) + sum(entry.length for entry in entries)
    return replace(state, version=version, documents=documents, total_length=length, detected=counts)


def _tf(value: object) -> dict[str, int]:
    return value if isinstance(value, dict) else json.loads(str(value))


def _term_counts(tfs: object) -> Counter[str]:
    """How many of the documents hold each term (their document frequencies)."""
    counts: Counter[str] = Counter()
    for tf in tfs:  # type: ignore[attr-defined]
        counts.update(tf.keys())
    return counts


INSERT = text(
    "INSERT INTO search_chunk (chunk_uuid, chatbot_uuid, data_source_uuid, tf, length, norm, detected, part0, part1, "
    "part2) VALUES (:chunk, :bot, :source, CAST(CAST(:tf AS text) AS jsonb), :length, :norm, :detected, "
    "CAST(CAST(:part0 AS text) AS halfvec), CAST(CAST(:part1 AS text) AS halfvec), "
    "CAST(CAST(:part2 AS text) AS halfvec))"
)


async def _insert(session: AsyncSession, chatbot_uuid: str, entries: Sequence[Indexed]) -> None:
    for start in range(0, len(entries), INSERT_BATCH):
        batch = entries[start : start + INSERT_BATCH]
        values = []
        for entry in batch:
            vectors = (*entry.parts, None, None, None)[:3]
            values.append(
                {
                    "chunk": entry.chunk_uuid,
                    "bot": chatbot_uuid,
                    "source": entry.data_source_uuid,
                    "tf": tf_json(entry.tf),
                    "length": entry.length,
                    "norm": fieldnorm(entry.length),
                    "detected": entry.detected,
                    "part0": vectors[0],
                    "part1": vectors[1],
                    "part2": vectors[2],
                }
            )
        await session.execute(INSERT, values)
        await _insert_postings(session, chatbot_uuid, batch)


POSTINGS = text(
    "INSERT INTO search_posting (chatbot_uuid, term, chunk_uuid, data_source_uuid, tf, norm) "
    "SELECT :bot, term, chunk, source, tf, norm FROM unnest(CAST(:terms AS text[]), CAST(:chunks AS text[]), "
    "CAST(:sources AS text[]), CAST(:tfs AS integer[]), CAST(:norms AS integer[])) AS p(term, chunk, source, tf, norm)"
)


async def _insert_postings(session: AsyncSession, chatbot_uuid: str, entries: Sequence[Indexed]) -> None:
    """Each entry's terms as postings, in one statement (arrays: a row per term would be a round trip each)."""
    columns: dict[str, list[object]] = {"terms": [], "chunks": [], "sources": [], "tfs": [], "norms": []}
    for entry in entries:
        norm = fieldnorm(entry.length)
        for term, count in entry.tf.items():
            columns["terms"].append(term)
            columns["chunks"].append(entry.chunk_uuid)
            columns["sources"].append(entry.data_source_uuid)
            columns["tfs"].append(count)
            columns["norms"].append(norm)
    if columns["terms"]:
        await session.execute(POSTINGS, {"bot": chatbot_uuid, **columns})


async def _move_terms(session: AsyncSession, chatbot_uuid: str, moved: Counter[str]) -> None:
    """Each term's document frequency moved by `moved` (terms no chunk holds any more are removed)."""
    changed = {term: count for term, count in moved.items() if count}
    if not changed:
        return
    terms = sorted(changed)
    await session.execute(
        text(
            "INSERT INTO search_term (chatbot_uuid, term, frequency) "
            "SELECT :bot, term, frequency FROM unnest(CAST(:terms AS text[]), CAST(:counts AS integer[])) "
            "AS moved(term, frequency) ON CONFLICT (chatbot_uuid, term) "
            "DO UPDATE SET frequency = search_term.frequency + excluded.frequency"
        ),
        {"bot": chatbot_uuid, "terms": terms, "counts": [changed[term] for term in terms]},
    )
    await session.execute(
        text("DELETE FROM search_term WHERE chatbot_uuid = :bot AND term = ANY(:terms) AND frequency <= 0"),
        {"bot": chatbot_uuid, "terms": terms},
    )


async def _save_state(session: AsyncSession, chatbot_uuid: str, state: State) -> None:
    languages = {(language or ""): count for language, count in state.detected.items() if count > 0}
    await session.execute(
        text(
            "INSERT INTO search_state (chatbot_uuid, version, documents, total_length, languages, unrelated, "
            "unrelated_size, updated_at) VALUES (:bot, :version, :documents, :length, CAST(CAST(:languages AS text) "
            "AS jsonb), CAST(CAST(:unrelated AS text) AS jsonb), :unrelated_size, now()) ON CONFLICT (chatbot_uuid) "
            "DO UPDATE SET version = excluded.version, documents = excluded.documents, total_length = "
            "excluded.total_length, languages = excluded.languages, unrelated = excluded.unrelated, unrelated_size = "
            "excluded.unrelated_size, updated_at = now()"
        ),
        {
            "bot": chatbot_uuid,
            "version": state.version,
            "documents": state.documents,
            "length": state.total_length,
            "languages": json.dumps(languages),
            "unrelated": json.dumps(list(state.unrelated)),
            "unrelated_size": state.unrelated_size,
        },
    )


async def indexed_chatbots(session: AsyncSession) -> list[str]:
    """The chatbots the tables hold rows of (each has its `search_state`, written with its rows)."""
    return list((await session.scalars(text("SELECT chatbot_uuid FROM search_state ORDER BY chatbot_uuid"))).all())


async def forget(session: AsyncSession, chatbot_uuid: str) -> None:
    """A deleted chatbot's rows."""
    await _delete(session, chatbot_uuid, (*ROW_TABLES, "search_state"))


async def _delete(session: AsyncSession, chatbot_uuid: str, tables: Sequence[str]) -> None:
    for table in tables:
        await session.execute(text(f"DELETE FROM {table} WHERE chatbot_uuid = :bot"), {"bot": chatbot_uuid})  # noqa: S608
