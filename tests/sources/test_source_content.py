"""What a source holds (`GET /data-source/{uuid}/chunks`, paged) and the edit of a Q&A pair
(`POST /data-source/{uuid}/qa/update`): the old text is never found again, the new one is, at once by words and by
meaning once the job has embedded it. Real app, both databases."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.session import Database
from botyard.embedding import Vectors
from botyard.jobs.runner import JobRunner
from botyard.models import Chatbot
from botyard.runtime import Runtime, ingestion_config
from botyard.sources import content
from botyard.sources.processing.pipeline import SourceProcessor
from botyard.sources.schemas import QaUpdate
from tests.support.api import Api, assert_error, assert_not_found
from tests.support.database import Db
from tests.support.embedders import FakeEmbedder
from tests.support.jobs import FAST, process, run_jobs
from tests.support.sources import chunks, knowledge_version, qa, source, upload

SECTIONS = "\n\n".join(
    f"# Chapter {n}\n\n" + " ".join(f"Sentence {n}.{i} about the topic of chapter {n}, with detail." for i in range(60))
    for n in range(6)
).encode()


def chunks_page(api: Api, uuid: str, **params: Any) -> dict[str, Any]:
    body: dict[str, Any] = api.ok(api.get(f"/data-source/{uuid}/chunks", params=params))
    return body


def edit(api: Api, uuid: str, **body: str) -> dict[str, Any]:
    edited: dict[str, Any] = api.ok(api.post(f"/data-source/{uuid}/qa/update", body))
    return edited


def found_texts(api: Api, bot: str, query: str, method: str = "bm25") -> list[str]:
    result = api.ok(api.post(f"/chatbot/{bot}/retrieve", {"query": query, "method": method, "top_k": 10}))
    return [chunk["text"] for chunk in result["chunks"]]


def test_a_qa_pair_holds_one_chunk(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    pair = qa(alice, bot, "What are the opening hours?", "  9 to 5.  ")
    assert chunks_page(alice, pair["uuid"]) == {
        "uuid": pair["uuid"],
        "total": 0,
        "offset": 0,
        "limit": 50,
        "chunks": [],
    }
    process(alice.client)
    page = chunks_page(alice, pair["uuid"])
    assert page["total"] == 1
    [chunk] = page["chunks"]
    assert chunk["position"] == 0 and chunk["heading"] == "" and chunk["embedded"] is True
    assert chunk["text"] == "What are the opening hours?\n\n9 to 5." and chunk["tokens"] > 0


def test_a_documents_chunks_are_paged_in_order(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    document = upload(alice, bot, "guide.md", SECTIONS)
    process(alice.client, embedder=None)
    stored = chunks(db, document["uuid"])
    assert len(stored) > 6
    page = chunks_page(alice, document["uuid"], offset=2, limit=3)
    assert page["total"] == len(stored) and page["offset"] == 2 and page["limit"] == 3
    expected = [(c.position, c.heading, c.text, c.tokens, False) for c in stored[2:5]]
    assert [(c["position"], c["heading"], c["text"], c["tokens"], c["embedded"]) for c in page["chunks"]] == expected
    assert "Chapter" in page["chunks"][0]["heading"]
    everything = chunks_page(alice, document["uuid"], limit=200)["chunks"]
    assert [chunk["position"] for chunk in everything] == list(range(len(stored)))
    assert chunks_page(alice, document["uuid"], offset=len(stored))["chunks"] == []


@pytest.mark.parametrize("params", [{"limit": 0}, {"limit": 201}, {"offset": -1}, {"limit": "x"}])
def test_bad_paging_is_a_validation_error(alice: Api, params: dict[str, Any]) -> None:
    pair = qa(alice, alice.chatbot()["uuid"])
    assert_error(alice.get(f"/data-source/{pair['uuid']}/chunks", params=params), 422, "validation_error")


def test_editing_the_answer_replaces_what_is_found(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    pair = qa(alice, bot, "What are the opening hours?", "From nine to five on weekdays.")
    other = qa(alice, bot, "Where is the shop?", "On the market square.")
    process(alice.client)
    assert any("nine to five" in text for text in found_texts(alice, bot, "nine five weekdays"))
    version = knowledge_version(db, bot)

    edited = edit(alice, pair["uuid"], answer="From ten to six, also on Saturdays.")
    assert edited["status"] == "queued" and edited["uuid"] == pair["uuid"]
    assert edited["title"] == "What are the opening hours?"
    assert json_meta(edited) == {
        "question": "What are the opening hours?",
        "answer": "From ten to six, also on Saturdays.",
    }
    assert knowledge_version(db, bot) > version
    # Before the job runs: the old answer is gone, the new one found by its words.
    assert not any("nine to five" in text for text in found_texts(alice, bot, "nine five weekdays"))
    assert any("ten to six" in text for text in found_texts(alice, bot, "ten six saturdays"))
    [chunk] = chunks_page(alice, pair["uuid"])["chunks"]
    assert (
        chunk["text"] == "What are the opening hours?\n\nFrom ten to six, also on Saturdays." and not chunk["embedded"]
    )

    process(alice.client)
    assert source(alice, pair["uuid"])["status"] == "success"
    [chunk] = chunks_page(alice, pair["uuid"])["chunks"]
    assert chunk["embedded"] and "ten to six" in chunk["text"]
    for method in ("hybrid", "dense", "bm25"):
        texts = found_texts(alice, bot, "When is the shop open?", method)
        assert not any("nine to five" in text for text in texts) and any("ten to six" in text for text in texts)
    # The edited pair's chunk is the one a new pair with the same text gets.
    fresh = qa(alice, bot, "What are the opening hours?", "From ten to six, also on Saturdays.")
    process(alice.client)
    [same] = chunks_page(alice, fresh["uuid"])["chunks"]
    assert same == chunk and source(alice, fresh["uuid"])["tokens"] == source(alice, pair["uuid"])["tokens"]
    assert chunks_page(alice, other["uuid"])["chunks"][0]["text"].endswith("market square.")


def json_meta(body: dict[str, Any]) -> dict[str, Any]:
    meta: dict[str, Any] = json.loads(body["meta_json"])
    return meta


def test_the_title_follows_the_question_unless_renamed(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    pair = qa(alice, bot, "Opening hours?", "9 to 5.", reference_source_link="https://example.com/hours")
    edited = edit(alice, pair["uuid"], question="  When are you open?  ", answer="9 to 6.")
    assert edited["title"] == "When are you open?"
    assert json_meta(edited) == {
        "question": "  When are you open?  ",
        "answer": "9 to 6.",
        "reference_source_link": "https://example.com/hours",
    }
    assert edited["file_size"] == len(b"  When are you open?  9 to 6.")
    alice.ok(alice.post(f"/data-source/{pair['uuid']}/update", {"title": "Hours"}))
    assert edit(alice, pair["uuid"], question="What are your hours?")["title"] == "Hours"


def test_an_edit_that_changes_nothing_changes_nothing(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    pair = qa(alice, bot, "Opening hours?", "9 to 5.")
    process(alice.client)
    version = knowledge_version(db, bot)
    same = edit(alice, pair["uuid"], question="Opening hours?", answer="9 to 5.")
    assert same["status"] == "success" and same["modified_at"] == source(alice, pair["uuid"])["modified_at"]
    assert knowledge_version(db, bot) == version


@pytest.mark.parametrize(
    "body", [None, {}, {"question": None, "answer": None}, {"question": "  "}, {"answer": ""}, {"answer": 5}]
)
def test_bad_edits_are_refused_and_change_nothing(alice: Api, body: Any) -> None:
    pair = qa(alice, alice.chatbot()["uuid"], "Q?", "A.")
    assert_error(alice.post(f"/data-source/{pair['uuid']}/qa/update", body), 422, "validation_error")
    assert source(alice, pair["uuid"])["meta_json"] == pair["meta_json"]


def test_only_a_qa_pair_can_be_edited(alice: Api) -> None:
    document = upload(alice, alice.chatbot()["uuid"], "notes.txt", b"Some notes.")
    assert_error(alice.post(f"/data-source/{document['uuid']}/qa/update", {"answer": "x"}), 422, "not_a_qa_source")
    assert source(alice, document["uuid"])["meta_json"] == document["meta_json"]


def test_another_accounts_source_is_not_found(alice: Api, bob: Api) -> None:
    pair = qa(alice, alice.chatbot()["uuid"], "Q?", "A.")
    assert_not_found(bob.get(f"/data-source/{pair['uuid']}/chunks"))
    assert_not_found(bob.post(f"/data-source/{pair['uuid']}/qa/update", {"answer": "stolen"}))
    assert_not_found(alice.get(f"/data-source/{'0' * 32}/chunks"))
    assert json_meta(source(alice, pair["uuid"]))["answer"] == "A."


class EditingEmbedder(FakeEmbedder):
    """Edits the pair (as the API would, in a transaction of its own) while the job that read its old text embeds
    it: that job must not store the old text over the edit."""

    def __init__(self, database: Database, account_uuid: str, source_uuid: str) -> None:
        super().__init__()
        self.database, self.account_uuid, self.source_uuid = database, account_uuid, source_uuid

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if self.calls == 0:
            async with self.database.transaction() as session:
                await content.update_qa(session, self.account_uuid, self.source_uuid, QaUpdate(answer="Ten to six."))
        return await super().embed_documents(texts)


def test_a_job_that_read_the_old_pair_does_not_undo_the_edit(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    pair = qa(alice, bot, "Opening hours?", "Nine to five.")

    async def owner(session: AsyncSession) -> str:
        return str(await session.scalar(select(Chatbot.account_uuid).where(Chatbot.uuid == bot)))

    runtime: Runtime = alice.client.app.state.runtime  # type: ignore[attr-defined]
    embedder = EditingEmbedder(runtime.database, db.run(owner), pair["uuid"])
    processor = SourceProcessor(runtime.egress, ingestion_config(runtime.settings), embedder)
    runner = JobRunner(runtime.database, [processor], FAST)
    assert alice.client.portal is not None
    assert alice.client.portal.call(runner.run_once)  # only the job that read "Nine to five."
    [chunk] = chunks_page(alice, pair["uuid"])["chunks"]
    assert chunk["text"] == "Opening hours?\n\nTen to six."
    assert source(alice, pair["uuid"])["status"] == "queued"  # the edit's own job is still to run
    run_jobs(alice.client, [processor])
    [chunk] = chunks_page(alice, pair["uuid"])["chunks"]
    assert chunk["text"] == "Opening hours?\n\nTen to six." and chunk["embedded"]
    assert source(alice, pair["uuid"])["status"] == "success"
