"""Large chatbots' indexes saved ahead of their next question (`botyard.retrieval.warmer`): once a chatbot's
knowledge has been quiet, the process that runs jobs builds and saves its index, so that a process meeting its first
question loads the snapshot instead of building; a small chatbot, one already saved at its version, and one still
changing are left alone. A clock moved by hand stands for the quiet period. Real app, both databases."""

from __future__ import annotations

from pathlib import Path

from botyard.retrieval.warmer import IndexWarmer
from tests.support.api import Api
from tests.support.database import Db
from tests.support.index_snapshots import bulk_texts, fill, index_now, process_retriever, snapshot_names
from tests.support.knowledge import knowledge_bot


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_quiet_large_chatbot_is_saved_ahead_and_its_first_question_loads_it(
    alice: Api, db: Db, tmp_path: Path
) -> None:
    big, sources = knowledge_bot(alice, ["hours", "password"])
    small, _ = knowledge_bot(alice, ["refunds"])
    fill(db, sources["password"], bulk_texts())
    settings = alice.client.app.state.settings  # type: ignore[attr-defined]
    worker = process_retriever(settings, tmp_path)
    clock = Clock()
    warmer = IndexWarmer(db.database, worker, quiet=30, clock=clock)

    def look() -> list[str]:
        assert db.client.portal is not None
        return db.client.portal.call(warmer.look)

    assert look() == [big]  # a process that starts takes what it finds as settled; the small one is not saved
    assert worker.builds == 1 and worker.cached_chunks == 0  # saved, then let go: this process did not hold it
    assert snapshot_names(tmp_path, small) == [] and len(snapshot_names(tmp_path, big)) == 1
    clock.now += 10
    fill(db, sources["hours"], ["Opening: the shop opens at nine.", "Closing: it closes at six."])
    assert look() == []  # just changed: not quiet yet
    clock.now += 25
    assert look() == []  # changed 25 s ago
    clock.now += 30
    assert look() == [big]
    assert worker.builds == 2 and worker.cached_chunks == 0
    assert len(snapshot_names(tmp_path, big)) == 1  # the older snapshot went
    clock.now += 60
    assert look() == []  # nothing changed: nothing to do

    answering = process_retriever(settings, tmp_path)  # another process of the machine meets the first question
    index = index_now(db, answering, big)
    assert index is not None and answering.builds == 0  # loaded, not built
    assert index.version == index.built_version

    restarted = IndexWarmer(db.database, process_retriever(settings, tmp_path), quiet=30, clock=clock)
    assert db.client.portal is not None
    assert db.client.portal.call(restarted.look) == []  # a snapshot of this version is on disk already
