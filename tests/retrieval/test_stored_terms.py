# ruff: noqa: RUF001  (Chinese punctuation is what Chinese text is written with)
"""Index terms kept at ingestion: a build that joins them gives exactly the index that analysing every text gives,
and kept terms are only used for a row read in their language by this analysis code."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.models import Chunk
from botyard.retrieval.embedded.index import ChatbotIndex
from botyard.retrieval.knowledge import ChunkRow
from botyard.retrieval.stored_terms import ANALYSIS_KEY, analysed, tag
from tests.support.api import Api
from tests.support.database import Db
from tests.support.jobs import process

TEXTS = [
    ("Returns", "Fees", "Returned bikes cost a restocking fee of 15 dollars within 30 days."),
    ("Returns", "", "We refund the full price when the frame arrives undamaged."),
    ("Versand", "Kosten", "Ab 49 € Bestellwert liefern wir die Fahrräder montiert und versandkostenfrei."),
    ("Versand", "", "Der Reifenwechsel kostet 15 €, auch an E-Scootern."),
    ("茶叶", "运费", "大陆地区订单满299元包邮，不满299元收取运费12元。"),
    ("Prices", "", "Tyre 29er: 45"),  # no stop word: read in the chatbot's main language, never kept
    ("", "Opening hours", "Open Monday to Friday from 9 to 18, on Saturday from 10 to 14."),
]
QUERIES = ["restocking fee", "Fahrrad Versand Kosten", "运费多少", "tyre price", "when are you open on saturday"]


def rows(kept: bool) -> list[ChunkRow]:
    found = []
    for n, (title, heading, text) in enumerate(TEXTS):
        terms_tag, terms = analysed(heading, text) if kept else (None, None)
        found.append(ChunkRow(f"c{n}", f"s-{title}", n, heading, text, title, "upload", {}, 0, "", terms, terms_tag))
    return found


def test_a_build_from_kept_terms_is_the_build_from_the_texts() -> None:
    assert any(row.terms for row in rows(True)) and rows(True)[5].terms is None
    joined, analysed_again = ChatbotIndex(1, rows(True), [], None), ChatbotIndex(1, rows(False), [], None)
    assert joined.lexical._frequencies == analysed_again.lexical._frequencies
    for query in QUERIES:
        found, expected = joined.lexical.search(query, 10), analysed_again.lexical.search(query, 10)
        assert found[0].tolist() == expected[0].tolist() and found[1].tolist() == expected[1].tolist()
        assert found[2] == expected[2]


def test_kept_terms_of_another_analysis_or_another_reading_are_not_used() -> None:
    stale = [
        ChunkRow("a", "s", 0, "", "We refund the full price.", "Refunds", "qa", {}, 0, "", "planted", "english@0"),
        # English detected, but a German chatbot reads a lone English row in German (`LANGUAGE_SHARE`).
        ChunkRow("b", "s", 1, "", "Shipping is free from 49 euros.", "", "qa", {}, 0, "", "planted", tag("english")),
    ]
    german = [
        ChunkRow(f"g{n}", "t", n, "", f"Der Versand der Bestellung {n} ist ab 49 € kostenlos.", "", "qa", {}, 0, "")
        for n in range(20)
    ]
    index = ChatbotIndex(1, stale + german, [], None)
    assert "planted" not in index.lexical._frequencies
    assert index.lexical.search("refund", 3)[0].size == 1


def chunk_terms(db: Db, source: str) -> list[tuple[str, str]]:
    async def read(session: AsyncSession) -> list[tuple[str, str]]:
        rows = await session.execute(select(Chunk.terms, Chunk.terms_tag).where(Chunk.data_source_uuid == source))
        return [(str(terms), str(terms_tag)) for terms, terms_tag in rows]

    return db.run(read)


def test_ingestion_keeps_each_chunks_terms(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    body = {"question": "How much is a restocking fee?", "answer": "Returned bikes cost 15 dollars."}
    source = alice.ok(alice.post(f"/chatbot/{bot}/data-source/qa", body))["uuid"]
    process(alice.client)
    [(terms, terms_tag)] = chunk_terms(db, source)
    assert terms_tag == f"english@{ANALYSIS_KEY}" and {"restock", "fee", "dollar"} <= set(terms.split())
    alice.ok(alice.post(f"/data-source/{source}/qa/update", {"answer": "Returned bikes cost 20 euros."}))
    [(terms, _)] = chunk_terms(db, source)  # an edit replaces the pair's chunk at once, with its terms
    assert "euro" in terms.split() and "dollar" not in terms.split()
