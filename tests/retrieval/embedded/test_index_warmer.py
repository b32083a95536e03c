"""Large chatbots' indexes saved ahead of their next question (`botyard.retrieval.embedded.warmer`): once a chatbot's
knowledge has been quiet, the process that runs jobs builds and saves its index, so that a process meeting its first
question loads the snapshot instead of building; a small chatbot, one already saved at its version, and one still
changing are left alone. A clock moved by hand stands for the quiet period. Real app, both databases."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.retrieval.embedded.build_lock import try_lock, wait_for_lock
from botyard.retrieval.embedded.warmer import Ahead, IndexWarmer
from botyard.sources.repository import IndexReads
from tests.support.api import Api
from tests.support.database import Db
from tests.support.index_snapshots import bulk_texts, fill, index_now, process_retriever, snapshot_names
from tests.support.knowledge import knowledge_bot
from tests.support.retrievers import embedded


def save_ahead(db: Db, warmer: IndexWarmer, bot: str) -> Ahead:
    async def work(session: AsyncSession) -> Ahead:
        repository = IndexReads(session)
        version = await repository.knowledge_version(bot)
        assert version is not None
        return await warmer.save_ahead(repository, bot, version)

    return db.run(work)


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
    warmer = IndexWarmer(db.database, embedded(worker), quiet=30, clock=clock)

    def look() -> list[str]:
        assert db.client.portal is not None
        return db.client.portal.call(warmer.look)

    assert look() == [big]  # a process that starts takes what it finds as settled; the small one is not saved
    assert (
        embedded(worker).builds == 1 and embedded(worker).cached_chunks == 0
    )  # saved, then let go: this process did not hold it
    assert snapshot_names(tmp_path, small) == [] and len(snapshot_names(tmp_path, big)) == 1
    clock.now += 10
    fill(db, sources["hours"], ["Opening: the shop opens at nine.", "Closing: it closes at six."])
    assert look() == []  # just changed: not quiet yet
    clock.now += 25
    assert look() == []  # changed 25 s ago
    clock.now += 30
    assert look() == [big]
    assert embedded(worker).builds == 2 and embedded(worker).cached_chunks == 0
    assert len(snapshot_names(tmp_path, big)) == 1  # the older snapshot went
    clock.now += 60
    assert look() == []  # nothing changed: nothing to do

    answering = process_retriever(settings, tmp_path)  # another process of the machine meets the first question
    index = index_now(db, answering, big)
    assert index is not None and embedded(answering).builds == 0  # loaded, not built
    assert index.version == index.built_version

    restarted = IndexWarmer(db.database, embedded(process_retriever(settings, tmp_path)), quiet=30, clock=clock)
    assert db.client.portal is not None
    assert db.client.portal.call(restarted.look) == []  # a snapshot of this version is on disk already


def test_a_build_under_way_in_another_process_is_left_to_it(alice: Api, db: Db, tmp_path: Path) -> None:
    big, sources = knowledge_bot(alice, ["password"])
    fill(db, sources["password"], bulk_texts())
    settings = alice.client.app.state.settings  # type: ignore[attr-defined]
    worker = process_retriever(settings, tmp_path)
    warmer = IndexWarmer(db.database, embedded(worker))
    other = try_lock(tmp_path / "indexes", big)  # another process of the machine builds it
    assert other is not None and try_lock(tmp_path / "indexes", big) is None
    assert save_ahead(db, warmer, big) is Ahead.NOT_NEEDED
    assert embedded(worker).builds == 0 and snapshot_names(tmp_path, big) == []

    async def waits_for_the_other() -> tuple[bool, bool]:
        waiting = asyncio.create_task(wait_for_lock(tmp_path / "indexes", big, seconds=60))
        await asyncio.sleep(0.3)
        assert not waiting.done()  # held: it waits
        other.release()
        lock, waited = await waiting
        assert lock is not None
        lock.release()
        return True, waited

    assert db.client.portal is not None
    assert db.client.portal.call(waits_for_the_other) == (True, True)
    assert save_ahead(db, warmer, big) is Ahead.BUILT  # free: it builds
