"""The embedded backend's cached index follows the chatbot's knowledge version: reused while the knowledge is
unchanged, replaced once a source changes (what the next search then finds: tests/retrieval/test_retrieval.py)."""

from __future__ import annotations

from typing import Any

from botyard.retrieval.retriever import Retriever
from tests.support.api import Api
from tests.support.database import Db
from tests.support.jobs import process
from tests.support.knowledge import add_qa, knowledge_bot
from tests.support.retrievers import embedded


def test_the_cached_index_is_reused_until_the_knowledge_changes(alice: Api, db: Db) -> None:
    bot, sources = knowledge_bot(alice, ["hours", "refunds"])
    retriever: Retriever = alice.client.app.state.runtime.retriever  # type: ignore[attr-defined]

    def index() -> Any:
        return db.run(lambda session: embedded(retriever).index(session, bot))

    first = index()
    assert index() is first  # unchanged knowledge: the cached index answers
    assert {row.data_source_uuid for row in first.rows} == {sources["hours"], sources["refunds"]}
    add_qa(alice, bot, "shipping")
    process(alice.client)
    assert index() is not first
