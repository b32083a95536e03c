"""A conversation's context over HTTP: its contact (also on the inbox's entry), channel and page, the same contact's
conversations on other chatbots and channels (the latest first), and the bot's answers with their confidence and
sources; other accounts get 404. Real app, both databases."""

from __future__ import annotations

from typing import Any

from sqlalchemy import update

from botyard.models import Channel, Chatbot, ChatSession, Contact
from tests.support.agents import helpdesk
from tests.support.api import Api, assert_error
from tests.support.channels import SHOP_QUESTION, shop
from tests.support.chat import ask, new_session
from tests.support.database import Db

ASKING = "I want to talk to a real person please"


def account_of(db: Db, bot: str) -> str:
    async def read(session: Any) -> str:
        chatbot = await session.get(Chatbot, bot)
        return str(chatbot.account_uuid)

    return db.run(read)


def known_as(db: Db, account: str, sessions: dict[str, dict[str, Any]]) -> str:
    """One contact, Ada, writing in each of `sessions` (with the columns given for each); the contact's uuid."""

    async def write(session: Any) -> str:
        ada = Contact(account_uuid=account, name="Ada Lovelace", email="ada@example.com", phone="+15551234567")
        session.add(ada)
        await session.flush()
        for uuid, values in sessions.items():
            statement = update(ChatSession).where(ChatSession.uuid == uuid)
            await session.execute(statement.values(contact_uuid=ada.uuid, **values))
        return str(ada.uuid)

    return db.run(write)


def telegram_of(db: Db, bot: str) -> str:
    async def write(session: Any) -> str:
        channel = Channel(chatbot_uuid=bot, type="telegram", name="Shop on Telegram")
        session.add(channel)
        await session.flush()
        return str(channel.uuid)

    return db.run(write)


def test_the_context_shows_the_contact_their_other_conversations_and_the_answers(alice: Api, bob: Api, db: Db) -> None:
    desk, store = helpdesk(alice), shop(alice)
    now = new_session(alice, store)
    before, unknown = new_session(alice, desk), new_session(alice, store)
    ask(alice, before, "When will my parcel arrive?")
    ask(alice, now, SHOP_QUESTION)
    ask(alice, now, ASKING)
    telegram = telegram_of(db, store)
    ada = known_as(
        db,
        account_of(db, store),
        {now: {"visitor_page": "https://shop.example/checkout", "channel_uuid": telegram}, before: {}},
    )

    found = alice.ok(alice.get(f"/session/{now}/context"))
    contact = {"uuid": ada, "name": "Ada Lovelace", "email": "ada@example.com", "phone": "+15551234567"}
    assert found["session_uuid"] == now and found["contact"] == contact
    assert found["channel"] == {"type": "telegram", "name": "Shop on Telegram"}
    assert found["visitor_page"] == "https://shop.example/checkout"
    (earlier,) = found["earlier"]  # the other chatbot's conversation, on the widget
    assert earlier["session_uuid"] == before and earlier["chatbot_uuid"] == desk
    assert earlier["channel_type"] is None and earlier["preview"] == "When will my parcel arrive?"
    assert earlier["status"] == "open" and earlier["chatbot_name"]
    answer = found["answers"][0]
    assert answer["confidence"] == "high" and not answer["unsure"] and not answer["refused"]
    (source,) = answer["sources"]  # quoted from the Q&A pair (an offline answer of a pair has no citation marker)
    assert source["data_source_uuid"] and source["url"] is None
    assert [e["session_uuid"] for e in alice.ok(alice.get(f"/session/{before}/context"))["earlier"]] == [now]

    entries = alice.ok(alice.get(f"/chatbot/{store}/inbox", params={"view": "all"}))["sessions"]
    assert [entry["contact"] for entry in entries if entry["uuid"] == now] == [contact]
    bare = alice.ok(alice.get(f"/session/{unknown}/context"))
    assert bare == {
        "session_uuid": unknown, "contact": None, "channel": None, "visitor_page": "", "earlier": [], "answers": [],
    }  # fmt: skip
    for api, uuid in ((bob, now), (alice, "0" * 32)):
        assert_error(api.get(f"/session/{uuid}/context"), 404, "not_found")


def test_an_unsure_answer_says_so(alice: Api) -> None:
    store = shop(alice)
    chat = new_session(alice, store)
    ask(alice, chat, "Do you repair violins from the seventeenth century?")
    (answer,) = alice.ok(alice.get(f"/session/{chat}/context"))["answers"]
    assert answer["unsure"] and answer["confidence"] in ("low", "none")
