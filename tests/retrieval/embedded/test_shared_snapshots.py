"""Search index snapshots shared through the database (`botyard.retrieval.embedded.shared`): a process on another
machine (a data directory of its own) loads the snapshot one machine built and published instead of building, and
catches it up on later changes; a snapshot signed with another key, altered, not finished, moved to another account's
chatbot or signed the old way (over its bytes alone) is never used; a newer one replaces the older in the database, and
a deleted chatbot takes its own; the warmer fetches rather than builds. The service shares only on PostgreSQL
(SQLite's processes share one data directory); the mechanism itself is tested on both databases."""

from __future__ import annotations

import hashlib
import hmac
import logging
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.base import utcnow
from botyard.models import IndexSnapshot, IndexSnapshotPiece
from botyard.retrieval.embedded.shared import CLAIM_SECONDS
from botyard.retrieval.embedded.warmer import IndexWarmer
from botyard.retrieval.fusion import Method
from botyard.retrieval.retriever import Retriever
from botyard.sources.repository import IndexReads
from tests.support.api import Api
from tests.support.database import Db
from tests.support.index_snapshots import bulk_texts, fill, found_texts, index_now, process_retriever, snapshot_names
from tests.support.knowledge import knowledge_bot
from tests.support.retrievers import embedded

KEY = b"k" * 32
QUERIES = ("lighthouse keeper ledger", "storm fog day 40", "When is the shop open?")


def machine(alice: Api, db: Db, data_dir: Path, key: bytes = KEY) -> Retriever:
    """A process on a machine of its own (`data_dir`) sharing the database."""
    retriever = process_retriever(alice.client.app.state.settings, data_dir)  # type: ignore[attr-defined]
    embedded(retriever).share_through(db.database, key)
    return retriever


def shared_rows(db: Db) -> list[tuple[str, int, bool, int]]:
    """The shared snapshots: chatbot, version, signed, pieces."""

    async def work(session: AsyncSession) -> list[tuple[str, int, bool, int]]:
        rows = (await session.execute(select(IndexSnapshot).order_by(IndexSnapshot.version))).scalars().all()
        found = []
        for row in rows:
            pieces = (await session.execute(select(IndexSnapshotPiece.seq).filter_by(snapshot_uuid=row.uuid))).all()
            found.append((row.chatbot_uuid, row.version, row.signature is not None, len(pieces)))
        return found

    return db.run(work)


def same_answers(db: Db, one: Retriever, other: Retriever, bot: str) -> None:
    for query in QUERIES:
        for method in Method:
            assert found_texts(db, one, bot, query, method) == found_texts(db, other, bot, query, method), query


def test_another_machine_loads_the_shared_snapshot_and_catches_up(alice: Api, db: Db, tmp_path: Path) -> None:
    bot, sources = knowledge_bot(alice, ["hours", "refunds"])
    fill(db, sources["refunds"], bulk_texts())
    first = machine(alice, db, tmp_path / "a")
    built = index_now(db, first, bot)
    assert built is not None and embedded(first).builds == 1
    assert shared_rows(db) == [(bot, built.version, True, 1)]

    second = machine(alice, db, tmp_path / "b")
    index = index_now(db, second, bot)
    assert index is not None and embedded(second).builds == 0 and index.version == built.version
    assert snapshot_names(tmp_path / "b", bot) == snapshot_names(tmp_path / "a", bot)  # now on its own disk
    same_answers(db, second, first, bot)

    fill(db, sources["hours"], ["Zebra opening: the shop opens at ten.", "Zebra closing: it closes at six."])
    third = machine(alice, db, tmp_path / "c")
    caught_up = index_now(db, third, bot)
    assert caught_up is not None and embedded(third).builds == 0 and caught_up.built_version == built.version
    assert caught_up.version > built.version
    assert "Zebra opening: the shop opens at ten." in found_texts(db, third, bot, "zebra shop opens", Method.BM25)
    same_answers(db, third, process_retriever(alice.client.app.state.settings, tmp_path / "d"), bot)  # type: ignore[attr-defined]


@pytest.mark.parametrize("wrong", ["another key", "altered", "unfinished"])
def test_a_snapshot_that_cannot_be_verified_is_not_used(
    alice: Api, db: Db, tmp_path: Path, caplog: pytest.LogCaptureFixture, wrong: str
) -> None:
    bot, sources = knowledge_bot(alice, ["refunds"])
    fill(db, sources["refunds"], bulk_texts())
    assert index_now(db, machine(alice, db, tmp_path / "a"), bot) is not None
    if wrong == "altered":
        db.run(lambda session: session.execute(update(IndexSnapshotPiece).values(data=b"\0" * 1024)))
    elif wrong == "unfinished":
        db.run(lambda session: session.execute(update(IndexSnapshot).values(signature=None)))

    other = machine(alice, db, tmp_path / "b", key=b"o" * 32 if wrong == "another key" else KEY)
    with caplog.at_level(logging.WARNING, logger="botyard.retrieval.embedded.shared"):
        assert index_now(db, other, bot) is not None
    assert embedded(other).builds == 1  # built, as without sharing
    if wrong != "unfinished":
        assert "BOTYARD_SECRET_KEY" in caplog.text
    assert [name for name in snapshot_names(tmp_path / "b", bot) if name.startswith(".")] == []


def copy_snapshot(db: Db, to_chatbot: str) -> None:
    """Every shared snapshot's row copied, pieces and signature as they are, into a row of `to_chatbot`: what
    someone who can write the table (or restores one database's rows into another) could do."""

    async def work(session: AsyncSession) -> None:
        for row in (await session.execute(select(IndexSnapshot))).scalars().all():
            copy = IndexSnapshot(
                chatbot_uuid=to_chatbot,
                version=row.version,
                code_key=row.code_key,
                size=row.size,
                signature=row.signature,
            )
            session.add(copy)
            await session.flush()
            for piece in (
                await session.execute(select(IndexSnapshotPiece).filter_by(snapshot_uuid=row.uuid))
            ).scalars():
                session.add(IndexSnapshotPiece(snapshot_uuid=copy.uuid, seq=piece.seq, data=piece.data))

    db.run(work)


def test_a_snapshot_moved_to_another_accounts_chatbot_is_not_used_there(
    alice: Api, bob: Api, db: Db, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    bot, sources = knowledge_bot(alice, ["refunds"])
    fill(db, sources["refunds"], bulk_texts())
    assert index_now(db, machine(alice, db, tmp_path / "a"), bot) is not None
    theirs, their_sources = knowledge_bot(bob, ["hours"])
    fill(db, their_sources["hours"], [text.replace("Log entry", "Kennel note") for text in bulk_texts(seed=3)])
    [(_, version, _, _)] = shared_rows(db)
    assert db.run(lambda session: IndexReads(session).knowledge_version(theirs)) >= version  # the copy is a candidate
    copy_snapshot(db, theirs)

    other = machine(alice, db, tmp_path / "b")
    with caplog.at_level(logging.WARNING, logger="botyard.retrieval.embedded.shared"):
        assert index_now(db, other, theirs) is not None
    assert embedded(other).builds == 1 and "does not match its signature" in caplog.text  # built its own
    for query in QUERIES:
        for method in Method:
            assert not [text for text in found_texts(db, other, theirs, query, method) if "Log entry" in text], query
    assert [text for text in found_texts(db, other, theirs, "kennel note storm", Method.BM25) if "Kennel note" in text]


def test_a_snapshot_signed_over_its_bytes_alone_is_not_used(alice: Api, db: Db, tmp_path: Path) -> None:
    """As releases before the signature named what a snapshot is for signed it: such a row is rebuilt, not read."""
    bot, sources = knowledge_bot(alice, ["refunds"])
    fill(db, sources["refunds"], bulk_texts())
    first = machine(alice, db, tmp_path / "a")
    assert index_now(db, first, bot) is not None

    async def sign_the_old_way(session: AsyncSession) -> None:
        for row in (await session.execute(select(IndexSnapshot))).scalars().all():
            pieces = select(IndexSnapshotPiece.data).filter_by(snapshot_uuid=row.uuid).order_by(IndexSnapshotPiece.seq)
            data = b"".join((await session.execute(pieces)).scalars())
            row.signature = hmac.new(KEY, data, hashlib.sha256).hexdigest()

    db.run(sign_the_old_way)
    other = machine(alice, db, tmp_path / "b")
    assert index_now(db, other, bot) is not None and embedded(other).builds == 1


def test_a_newer_snapshot_replaces_the_older_and_a_deleted_chatbot_takes_its_own(
    alice: Api, db: Db, tmp_path: Path
) -> None:
    bot, sources = knowledge_bot(alice, ["hours", "refunds"])
    fill(db, sources["refunds"], bulk_texts())
    first = machine(alice, db, tmp_path / "a")
    older = index_now(db, first, bot)
    # Every row replaced: too many dead rows for a catch-up, so the next machine rebuilds, and shares what it built.
    fill(db, sources["refunds"], bulk_texts(seed=8))
    newer = index_now(db, machine(alice, db, tmp_path / "b", key=KEY), bot)
    assert older is not None and newer is not None and newer.version > older.version
    rows = shared_rows(db)
    assert [(row[1], row[2]) for row in rows] == [(newer.version, True)]
    alice.ok(alice.delete(f"/chatbot/{bot}/delete"))
    assert shared_rows(db) == []


def test_the_warmer_fetches_a_shared_snapshot_instead_of_building(alice: Api, db: Db, tmp_path: Path) -> None:
    bot, sources = knowledge_bot(alice, ["refunds"])
    fill(db, sources["refunds"], bulk_texts())
    assert index_now(db, machine(alice, db, tmp_path / "a"), bot) is not None
    worker = machine(alice, db, tmp_path / "b")
    warmer = IndexWarmer(db.database, embedded(worker))
    assert db.client.portal is not None
    assert db.client.portal.call(warmer.look) == []  # nothing built: fetched
    assert embedded(worker).builds == 0 and len(snapshot_names(tmp_path / "b", bot)) == 1


def test_machines_starting_together_build_each_chatbot_once(alice: Api, db: Db, tmp_path: Path) -> None:
    bot, sources = knowledge_bot(alice, ["refunds"])
    fill(db, sources["refunds"], bulk_texts())
    first, second = machine(alice, db, tmp_path / "a"), machine(alice, db, tmp_path / "b")
    version = db.run(lambda session: IndexReads(session).knowledge_version(bot))
    assert version is not None and embedded(first).shared is not None
    assert db.client.portal is not None
    assert db.client.portal.call(embedded(first).shared.claim, bot, version)  # the first machine's warmer builds it
    waiting = IndexWarmer(db.database, embedded(second))
    assert (
        db.client.portal.call(waiting.look) == [] and embedded(second).builds == 0
    )  # claimed elsewhere: not built here
    assert snapshot_names(tmp_path / "b", bot) == []
    assert index_now(db, first, bot) is not None and embedded(first).builds == 1  # built and shared
    assert db.client.portal.call(waiting.look) == [] and embedded(second).builds == 0  # looked again: fetched
    assert len(snapshot_names(tmp_path / "b", bot)) == 1
    assert [(row[1], row[2]) for row in shared_rows(db)] == [(version, True)]  # the claim went with the publication

    # A claim whose process stopped holds CLAIM_SECONDS; after that another machine builds.
    fill(db, sources["refunds"], bulk_texts(seed=9))
    newer = db.run(lambda session: IndexReads(session).knowledge_version(bot))
    assert newer is not None and db.client.portal.call(embedded(first).shared.claim, bot, newer)
    assert not db.client.portal.call(embedded(first).shared.claim, bot, newer)
    stopped = utcnow() - timedelta(seconds=CLAIM_SECONDS + 1)
    db.run(lambda session: session.execute(update(IndexSnapshot).values(created_at=stopped)))
    third = machine(alice, db, tmp_path / "c")
    assert (
        db.client.portal.call(IndexWarmer(db.database, embedded(third)).look) == [bot] and embedded(third).builds == 1
    )


def test_the_service_shares_snapshots_only_on_postgresql(alice: Api) -> None:
    runtime = alice.client.app.state.runtime  # type: ignore[attr-defined]
    assert (embedded(runtime.retriever).shared is None) == runtime.settings.is_sqlite
