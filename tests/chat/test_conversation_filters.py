"""Filters on a chatbot's sessions: refused answers, hand-off to a person, the users' feedback (issue 20, item 3)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.models import ChatSession, Message, MessageFeedback
from tests.support.api import Api, assert_error
from tests.support.chat import ask, new_session
from tests.support.database import Db
from tests.support.jobs import process
from tests.support.sessions import add_messages
from tests.support.sources import qa


def listed(api: Api, bot: str, **params: str) -> set[str]:
    return {item["uuid"] for item in api.ok(api.get(f"/chatbot/{bot}/sessions", params=params))}


def rate(db: Db, bot: str, message_uuid: str, rating: str) -> None:
    async def go(s: AsyncSession) -> None:
        s.add(MessageFeedback(message_uuid=message_uuid, chatbot_uuid=bot, rating=rating))

    db.run(go)


def flag_once(db: Db, session_uuid: str) -> None:
    """A person was asked for, and the live chat that followed is over (the flag cleared, its time kept)."""

    async def go(s: AsyncSession) -> None:
        session = await s.get(ChatSession, session_uuid)
        assert session is not None
        session.meta = {**session.meta, "human_requested": False, "human_requested_at": "2024-07-25T10:00:00Z"}

    db.run(go)


def test_sessions_filter_by_refused_hand_off_and_feedback(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    plain, refused, handed, flagged_now, up, down = (new_session(alice, bot) for _ in range(6))
    for chat in (plain, handed, flagged_now):
        add_messages(db, chat, ("Hi", "Hello!"))
    add_messages(db, refused, ("Hi", "Hello!"), ("Who won?", "Sorry, I cannot find related information."))
    add_messages(db, refused, ("And?", "Sorry."), refused=True)
    flag_once(db, handed)
    alice.ok(alice.post(f"/session/{flagged_now}/live-chat/start"))
    [liked] = add_messages(db, up, ("Hours?", "9 to 5."))
    [disliked] = add_messages(db, down, ("Price?", "10 euros."))
    rate(db, bot, liked, "up")
    rate(db, bot, disliked, "down")
    everything = {plain, refused, handed, flagged_now, up, down}
    assert listed(alice, bot) == everything
    assert listed(alice, bot, refused="1") == {refused}
    assert listed(alice, bot, refused="0") == everything - {refused}
    assert listed(alice, bot, handed_off="true") == {handed, flagged_now}
    assert listed(alice, bot, handed_off="false") == everything - {handed, flagged_now}
    assert listed(alice, bot, feedback="any") == {up, down}
    assert listed(alice, bot, feedback="up") == {up}
    assert listed(alice, bot, feedback="down") == {down}
    assert listed(alice, bot, feedback="none") == everything - {up, down}
    assert listed(alice, bot, feedback="any", refused="1") == set()


def test_an_answer_the_knowledge_does_not_hold_is_recorded_as_refused(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    qa(alice, bot, "What are the opening hours?", "We are open from 9 to 5 on weekdays.")
    process(alice.client)
    answered, refused = new_session(alice, bot), new_session(alice, bot)
    assert ask(alice, answered, "What are the opening hours?").status_code == 200
    assert ask(alice, refused, "Which team won the 1954 football world cup final?").status_code == 200

    async def go(s: AsyncSession) -> dict[str, bool]:
        rows = await s.execute(select(Message.session_uuid, Message.refused))
        return {session_uuid: flag for session_uuid, flag in rows.all()}

    assert db.run(go) == {answered: False, refused: True}
    assert listed(alice, bot, refused="1") == {refused}


def test_bad_filter_values_are_validation_errors(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    assert_error(alice.get(f"/chatbot/{bot}/sessions", params={"feedback": "maybe"}), 422, "validation_error")
    assert_error(alice.get(f"/chatbot/{bot}/sessions", params={"refused": "perhaps"}), 422, "validation_error")


def test_another_accounts_chatbot_is_not_found(alice: Api, bob: Api) -> None:
    bot = alice.chatbot()["uuid"]
    response = bob.get(f"/chatbot/{bot}/sessions", params={"refused": "1"})
    assert response.status_code == 404
