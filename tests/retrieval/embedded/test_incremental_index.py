"""Search indexes that follow knowledge changes: a process holding an index catches up by the sources the newer
versions changed (`KnowledgeChange`) instead of rebuilding, on both databases; what it finds is what a rebuild finds;
searches of the older index are not disturbed; a gap in the log or too many dead rows rebuild."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence

import numpy as np
from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.embedding import encode_vector
from botyard.models import Chunk, DataSource, KnowledgeChange
from botyard.retrieval.embedded.index import ChatbotIndex, Search
from botyard.retrieval.fusion import Method
from botyard.retrieval.knowledge import ChunkRow
from botyard.retrieval.retriever import Retriever
from botyard.retrieval.spelling import Speller
from botyard.sources.repository import ChunkRepository, IndexReads
from tests.support.api import Api
from tests.support.database import Db
from tests.support.jobs import process
from tests.support.knowledge import add_qa, knowledge_bot
from tests.support.retrievers import embedded, embedded_retriever

TEXTS = {
    "hours": "The shop is open from nine to five on weekdays.",
    "refunds": "Unused products can be sent back within 30 days for a full refund.",
    "shipping": "We deliver to every country of the European Union within a week.",
}


def vector(seed: int) -> np.ndarray:
    found = np.random.default_rng(seed).normal(size=8).astype(np.float32)
    return found / np.linalg.norm(found)


def row(source: str, position: int, text: str) -> ChunkRow:
    uuid = f"{source}-{position}-{abs(hash(text)) % 10_000}"
    return ChunkRow(uuid, source, position, "", text, source.title(), "qa", {})


def vectors(rows: Sequence[ChunkRow]) -> list[bytes | None]:
    """Each row's vector (a function of its text, so the same text has the same vector in any index)."""
    return [encode_vector(vector(len(row.text))) for row in rows]


def index_of(version: int, rows: Sequence[ChunkRow]) -> ChatbotIndex:
    return ChatbotIndex(version, rows, vectors(rows), (8,))


def ranked(index: ChatbotIndex, query: str, top_k: int = 10) -> list[str]:
    found = index.search(Search(query, vector(len(query)), None, top_k, Method.HYBRID))
    return [index.rows[r].text for r in found.rows.tolist()]


FILLER = [row("filler", n, f"Filler passage {n} on the lighthouse keeper's log for day {n}.") for n in range(12)]


def test_an_updated_index_finds_what_a_rebuild_finds_and_the_older_one_is_unchanged() -> None:
    older = index_of(1, [row(name, 0, text) for name, text in TEXTS.items()] + FILLER)
    replaced = row("refunds", 0, "Refunds are paid within five working days to the original card.")
    added = row("gifts", 0, "Gift vouchers are sold at the counter and valid for a year.")
    newer = older.updated(2, {"refunds", "shipping", "gifts"}, [replaced, added], vectors([replaced, added]))
    assert newer is not None and (newer.version, newer.built_version, newer.size) == (2, 1, 15)
    rebuilt = index_of(2, [row("hours", 0, TEXTS["hours"]), replaced, added, *FILLER])
    for query in ("refund card", "gift vouchers", "European Union delivery", "open weekdays", "full refund unused"):
        assert ranked(newer, query) == ranked(rebuilt, query), query
        assert TEXTS["shipping"] not in ranked(newer, query)  # a deleted source's chunk is never found
        assert TEXTS["refunds"] not in ranked(newer, query)  # nor the replaced text
    # The older index, which searches in flight still hold, sees what it saw.
    assert ranked(older, "European Union delivery")[0] == TEXTS["shipping"]
    assert ranked(older, "gift vouchers") == ranked(index_of(1, older.rows), "gift vouchers")
    assert ranked(newer, "lighthouse keeper day 7")[0] == FILLER[7].text
    assert added.text not in ranked(older, "gift vouchers")


def test_equal_scores_rank_by_content_after_updates_as_after_a_build() -> None:
    """An updated index's rows are no longer in content order; its ties must still break as a build's do."""
    older = index_of(1, [row(name, 0, text) for name, text in TEXTS.items()] + FILLER)
    same = "Parking is free for customers in the yard behind the shop."
    copies = [row(source, 0, same) for source in ("zeta", "alpha", "mid")]
    first = older.updated(2, {"zeta", "mid"}, copies[::2], vectors(copies[::2]))
    assert first is not None  # rows now mid, zeta, then alpha: not content order
    newer = first.updated(3, {"alpha"}, copies[1:2], vectors(copies[1:2]))
    assert newer is not None
    rebuilt = index_of(3, [row(name, 0, text) for name, text in TEXTS.items()] + FILLER + copies)
    for method in (Method.BM25,):
        query = Search("free parking yard", vector(3), None, 3, method)
        found, expected = newer.search(query), rebuilt.search(query)
        assert len(set(found.score.tolist())) == 1  # three ties
        titles = [newer.rows[r].source_title for r in found.rows.tolist()]
        assert titles == [rebuilt.rows[r].source_title for r in expected.rows.tolist()] == ["Alpha", "Mid", "Zeta"]


def test_too_many_dead_rows_or_a_new_main_language_ask_for_a_rebuild() -> None:
    index: ChatbotIndex | None = index_of(1, [row(name, 0, text) for name, text in TEXTS.items()])
    assert index is not None
    # Replacing two sources of three: two rows of five would be dead, past the quarter an update may leave.
    hours, refunds = row("hours", 0, "The shop opens at ten on Saturdays."), row("refunds", 0, "No refunds.")
    assert index.updated(2, {"hours", "refunds"}, [hours, refunds], vectors([hours, refunds])) is None
    german = [row(f"de{n}", 0, f"Die Werkstatt repariert Fahrräder und E-Scooter, Auftrag {n}.") for n in range(5)]
    assert index.updated(2, {f"de{n}" for n in range(5)}, german, vectors(german)) is None


def test_a_typo_of_a_word_an_update_brought_is_read_as_that_word() -> None:
    frequencies = Counter({"voucher": 1})
    speller = Speller(frequencies)
    assert speller.correct("giftcrad") is None
    frequencies.update(["giftcard"])  # the frequencies are shared: the index changes them, the speller its words
    updated = speller.updated(["giftcard"], [])
    assert updated.correct("giftcrad") == "giftcard"
    assert speller.correct("giftcrad") is None  # the older speller is unchanged
    del frequencies["voucher"]
    assert updated.updated([], ["voucher"]).correct("vouchre") is None  # a word the knowledge no longer uses


def chunks(source: DataSource, texts: Sequence[str]) -> list[Chunk]:
    return [
        Chunk(data_source_uuid=source.uuid, chatbot_uuid=source.chatbot_uuid, position=n, text=text, tokens=9)
        for n, text in enumerate(texts)
    ]


def replace(db: Db, source_uuid: str, texts: Sequence[str]) -> None:
    async def work(session: AsyncSession) -> None:
        source = await session.get(DataSource, source_uuid)
        assert source is not None
        await ChunkRepository(session).replace(source, chunks(source, texts))

    db.run(work)


def texts_found(db: Db, retriever: Retriever, bot: str, query: str) -> list[str]:
    found = db.run(lambda session: retriever.retrieve(session, bot, query, top_k=20, method=Method.BM25))
    return [hit.text for hit in found.hits]


BULK = [f"Filler passage {n} on the lighthouse keeper's log for day {n}." for n in range(30)]
"""A source large enough that the changes of the tests leave fewer dead rows than an update may (`DEAD_SHARE`)."""


def test_a_process_catches_up_on_the_sources_that_changed(alice: Api, db: Db) -> None:
    bot, sources = knowledge_bot(alice, ["hours", "refunds", "password"])
    replace(db, sources["password"], BULK)
    retriever: Retriever = alice.client.app.state.runtime.retriever  # type: ignore[attr-defined]
    first = db.run(lambda session: embedded(retriever).index(session, bot))
    assert first is not None

    add_qa(alice, bot, "shipping")
    process(alice.client)
    replace(db, sources["hours"], ["Zebra opening: the shop opens at ten.", "Zebra closing: it closes at six."])
    alice.ok(alice.delete(f"/data-source/{sources['refunds']}/delete"))
    caught_up = db.run(lambda session: embedded(retriever).index(session, bot))
    assert caught_up is not None and caught_up.built_version == first.version < caught_up.version

    found = texts_found(db, retriever, bot, "zebra shop opens closes refund international shipping")
    assert "Zebra opening: the shop opens at ten." in found and "Zebra closing: it closes at six." in found
    assert not any("springfield" in text.lower() or "refund" in text.lower() for text in found)
    assert any("International shipping" in text for text in found)
    # A process that starts now (a fresh cache) builds the same knowledge whole and finds the same.
    fresh = embedded_retriever(retriever.embedder, alice.client.app.state.settings)  # type: ignore[attr-defined]
    assert texts_found(db, fresh, bot, "zebra shop opens closes refund international shipping") == found


def test_a_gap_in_the_change_log_rebuilds_the_index(alice: Api, db: Db) -> None:
    bot, sources = knowledge_bot(alice, ["hours", "refunds", "shipping", "password"])
    retriever: Retriever = alice.client.app.state.runtime.retriever  # type: ignore[attr-defined]
    first = db.run(lambda session: embedded(retriever).index(session, bot))
    assert first is not None
    replace(db, sources["password"], ["Passwords are reset from the account page by the owner."])

    async def forget(session: AsyncSession) -> None:
        await session.execute(delete(KnowledgeChange).where(KnowledgeChange.chatbot_uuid == bot))

    db.run(forget)
    rebuilt = db.run(lambda session: embedded(retriever).index(session, bot))
    assert rebuilt is not None and rebuilt.built_version == rebuilt.version > first.version
    assert "Passwords are reset from the account page by the owner." in texts_found(db, retriever, bot, "reset owner")


def test_two_processes_never_see_half_a_source_or_a_deleted_one(alice: Api, db: Db) -> None:
    bot, sources = knowledge_bot(alice, ["hours", "refunds", "shipping", "password"])
    replace(db, sources["password"], BULK)
    settings = alice.client.app.state.settings  # type: ignore[attr-defined]
    runtime_retriever: Retriever = alice.client.app.state.runtime.retriever  # type: ignore[attr-defined]
    processes = [embedded_retriever(runtime_retriever.embedder, settings) for _ in range(2)]
    query = "walrus generation marker"

    async def read(retriever: Retriever) -> list[str]:
        async with db.database.transaction() as session:
            found = await retriever.retrieve(session, bot, query, top_k=30, method=Method.BM25)
        return [hit.text for hit in found.hits if "walrus" in hit.text]

    async def write(generation: int) -> None:
        async with db.database.transaction() as session:
            source = await session.get(DataSource, sources["hours"])
            assert source is not None
            texts = [f"walrus generation marker {generation} part {part}" for part in range(3)]
            await ChunkRepository(session).replace(source, chunks(source, texts))

    caught_up = []

    async def run() -> None:
        for generation in range(12):
            writer = asyncio.create_task(write(generation))
            while not writer.done():  # questions while the source is being replaced
                for found in await asyncio.gather(*(read(each) for each in processes)):
                    generations = {text.split()[3] for text in found}
                    assert len(generations) <= 1 and len(found) in (0, 3), found  # a whole source, old or new
            await writer
            for found in await asyncio.gather(*(read(each) for each in processes)):
                assert sorted(found) == [f"walrus generation marker {generation} part {part}" for part in range(3)]
            for each in processes:
                async with db.database.transaction() as session:
                    index = await embedded(each).index(session, bot)
                assert index is not None
                caught_up.append(index.built_version < index.version)

    assert alice.client.portal is not None
    alice.client.portal.call(run)
    # Most changes were caught up on; a rebuild comes when the dead rows pass their share.
    assert sum(caught_up) > len(caught_up) / 2 and not all(caught_up)


def test_the_change_log_names_the_changed_sources(alice: Api, db: Db) -> None:
    bot, sources = knowledge_bot(alice, ["hours", "refunds"])
    before = db.run(lambda session: IndexReads(session).knowledge_version(bot))
    assert before is not None
    alice.ok(alice.post(f"/data-source/{sources['hours']}/update", {"title": "Opening times"}))
    alice.ok(alice.post("/data-sources/delete", {"uuids": [sources["refunds"]]}))
    after = db.run(lambda session: IndexReads(session).knowledge_version(bot))
    assert after == before + 2
    changed = db.run(lambda session: IndexReads(session).changed_sources(bot, before, after))
    assert changed == {sources["hours"], sources["refunds"]}
    assert db.run(lambda session: IndexReads(session).changed_sources(bot, before - 50, after)) is None
