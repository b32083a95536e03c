"""A session's `modified_at` is its last activity: every message written into it moves it (issue 20, item 3)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.models import ChatSession
from tests.support.api import Api
from tests.support.chat import ask, messages, new_session
from tests.support.database import Db

HOUR_AGO = timedelta(hours=1)


def started_an_hour_ago(db: Db, session_uuid: str) -> None:
    """Move the session's creation (and its last activity) an hour back, as if it had been idle since."""
    then = datetime.now(UTC).replace(microsecond=0) - HOUR_AGO

    async def go(s: AsyncSession) -> None:
        statement = update(ChatSession).where(ChatSession.uuid == session_uuid)
        await s.execute(statement.values(created_at=then, modified_at=then))

    db.run(go)


def moment(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def test_a_message_and_its_answer_move_the_last_activity(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    chat = new_session(alice, bot)
    started_an_hour_ago(db, chat)
    assert ask(alice, chat, "What are the opening hours?").status_code == 200
    session = alice.ok(alice.get(f"/session/{chat}"))
    [message] = messages(alice, chat)
    assert moment(session["modified_at"]) > moment(session["created_at"])
    assert moment(session["modified_at"]) >= moment(message["modified_at"]) >= moment(message["created_at"])
    assert datetime.now(UTC) - moment(session["modified_at"]) < timedelta(minutes=1)
    listed = alice.ok(alice.get(f"/chatbot/{bot}/sessions"))
    assert [item["modified_at"] for item in listed] == [session["modified_at"]]


def test_a_live_chat_reply_moves_the_last_activity(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    chat = new_session(alice, bot)
    alice.ok(alice.post(f"/session/{chat}/live-chat/start"))
    started_an_hour_ago(db, chat)
    reply = alice.ok(alice.post(f"/session/{chat}/live-chat/message", {"text": "Hello, Sam here."}))
    session = alice.ok(alice.get(f"/session/{chat}"))
    assert moment(session["modified_at"]) > moment(session["created_at"])
    assert moment(session["modified_at"]) >= moment(reply["created_at"])


def test_the_last_activity_never_moves_back(alice: Api, db: Db) -> None:
    """A message stamped earlier than the session's last activity (a clock behind) leaves it where it is."""
    bot = alice.chatbot()["uuid"]
    chat = new_session(alice, bot)
    later = datetime.now(UTC).replace(microsecond=0) + timedelta(days=1)

    async def go(s: AsyncSession) -> None:
        await s.execute(update(ChatSession).where(ChatSession.uuid == chat).values(modified_at=later))

    db.run(go)
    assert ask(alice, chat, "Hello?").status_code == 200
    assert moment(alice.ok(alice.get(f"/session/{chat}"))["modified_at"]) == later
