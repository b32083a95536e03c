"""A chatbot's retention period: conversations idle for longer are deleted by the job runner (issue 20, item 3)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat.history.retention import ConversationPurger
from botyard.jobs.kinds import JobKind
from botyard.models import ChatSession, Job, Message
from tests.support.api import Api, assert_error
from tests.support.database import Db
from tests.support.jobs import run_jobs
from tests.support.sessions import add_messages, add_session

NOW = datetime.now(UTC)


def idle_since(db: Db, session_uuid: str, moment: datetime) -> None:
    async def go(s: AsyncSession) -> None:
        await s.execute(update(ChatSession).where(ChatSession.uuid == session_uuid).values(modified_at=moment))

    db.run(go)


def sessions_of(db: Db, bot: str) -> set[str]:
    async def go(s: AsyncSession) -> set[str]:
        return set((await s.execute(select(ChatSession.uuid).where(ChatSession.chatbot_uuid == bot))).scalars())

    return db.run(go)


def queued_purges(db: Db, bot: str) -> list[datetime]:
    async def go(s: AsyncSession) -> list[datetime]:
        statement = select(Job.run_after).where(
            Job.kind == JobKind.PURGE_CONVERSATIONS, Job.chatbot_uuid == bot, Job.status == "queued"
        )
        return [moment for moment in (await s.execute(statement)).scalars() if moment is not None]

    return db.run(go)


def message_count(db: Db) -> int:
    async def go(s: AsyncSession) -> int:
        return len((await s.execute(select(Message.uuid))).scalars().all())

    return db.run(go)


def test_old_conversations_are_deleted_and_recent_ones_kept(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    other = alice.chatbot(name="Other bot")["uuid"]
    # Started long ago but active yesterday: kept (the period counts from the last activity).
    old, recent, started_long_ago = (add_session(db, bot, NOW - timedelta(days=days)) for days in (40, 1, 60))
    untouched = add_session(db, other, NOW - timedelta(days=400))
    add_messages(db, old, ("Hi", "Hello"))
    idle_since(db, old, NOW - timedelta(days=31))
    idle_since(db, recent, NOW - timedelta(days=1))
    idle_since(db, started_long_ago, NOW - timedelta(days=29))
    assert alice.ok(alice.get(f"/chatbot/{bot}/conversations/retention")) == {
        "chatbot_uuid": bot,
        "retention_days": None,
    }
    assert alice.ok(alice.post(f"/chatbot/{bot}/conversations/retention", {"retention_days": 30})) == {
        "chatbot_uuid": bot,
        "retention_days": 30,
    }
    assert alice.ok(alice.get(f"/chatbot/{bot}/conversations/retention"))["retention_days"] == 30
    run_jobs(alice.client, [ConversationPurger()])
    assert sessions_of(db, bot) == {recent, started_long_ago}
    assert sessions_of(db, other) == {untouched}
    assert message_count(db) == 0  # the deleted conversation's messages went with it
    [next_run] = queued_purges(db, bot)  # the chain goes on, an hour later
    assert timedelta(minutes=50) < next_run - datetime.now(UTC) <= timedelta(hours=1)


def test_clearing_the_period_keeps_everything_and_stops_the_chain(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    old = add_session(db, bot, NOW - timedelta(days=400))
    alice.ok(alice.post(f"/chatbot/{bot}/conversations/retention", {"retention_days": 30}))
    alice.ok(alice.post(f"/chatbot/{bot}/conversations/retention", {"retention_days": 365}))
    assert len(queued_purges(db, bot)) == 1  # setting it again replaced the waiting run
    alice.ok(alice.post(f"/chatbot/{bot}/conversations/retention", {"retention_days": None}))
    assert queued_purges(db, bot) == []
    run_jobs(alice.client, [ConversationPurger()])
    assert sessions_of(db, bot) == {old}


def test_bad_periods_and_foreign_chatbots(alice: Api, bob: Api) -> None:
    bot = alice.chatbot()["uuid"]
    path = f"/chatbot/{bot}/conversations/retention"
    for bad in (0, -1, 3651, "soon", 1.5):
        assert_error(alice.post(path, {"retention_days": bad}), 422, "validation_error")
    assert_error(bob.get(path), 404, "not_found")
    assert_error(bob.post(path, {"retention_days": 1}), 404, "not_found")
