"""Where contacts come from, both databases: the after-hours form's email joins the conversation's contact (and a
later widget visit giving that email finds them); the widget's contact fields are bounded; a channel's user is
recognised by the channel's identity with their display name, the email channel's sender without a name by none."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.testclient import TestClient

from botyard.chatbots.service import by_uuid
from botyard.contacts import service
from botyard.contacts.identities import Identity
from botyard.models import Channel, ChatSession, IdentityKind
from tests.support.api import Api, assert_error
from tests.support.database import Db
from tests.support.handoff import answer_text, desk
from tests.support.widget import open_bot, widget_ask, widget_session

ASKING = "I want to talk to a real person please"


def test_the_after_hours_forms_email_joins_the_conversations_contact(alice: Api, client: TestClient) -> None:
    bot = desk(alice, enabled=True, week={}, after_hours_message="Closed now: leave us a note.")
    chat = widget_session(client, bot, device="laptop-0001")
    assert "Closed now" in answer_text(widget_ask(client, chat, ASKING, device="laptop-0001"))
    body = {"email": "Ann@Example.org", "message": "Please call me back about order 1234."}
    assert client.post(f"/api/v1/widget/session/{chat}/contact", json=body).status_code == 201
    (found,) = alice.ok(alice.get("/contacts"))["contacts"]
    assert found["email"] == "ann@example.org"
    assert sorted(identity["kind"] for identity in found["identities"]) == ["email", "visitor"]
    # Next week, on another device, the site passes her address in: the same person.
    response = client.post(
        f"/api/v1/widget/{bot}/session", json={"device_id": "phone-00001", "email": "ann@example.org"}
    )
    assert response.status_code == 200
    assert alice.ok(alice.get("/contacts"))["total"] == 1
    assert len(alice.ok(alice.get(f"/contact/{found['uuid']}"))["conversations"]) == 2


def test_the_widgets_contact_fields_are_bounded_and_a_bad_email_finds_nobody(alice: Api, client: TestClient) -> None:
    bot = open_bot(alice)

    def opened(**given: Any) -> Any:
        return client.post(f"/api/v1/widget/{bot}/session", json={"device_id": "device-0001", **given})

    assert_error(opened(name="x" * 201), 422, "validation_error")
    assert_error(opened(page="https://shop.example/" + "x" * 2048), 422, "validation_error")
    assert_error(opened(attributes={f"k{n}": "v" for n in range(31)}), 422, "validation_error")
    assert_error(opened(attributes={"plan": "x" * 501}), 422, "validation_error")
    assert alice.ok(alice.get("/contacts"))["total"] == 0  # a refused session made no contact
    assert opened(email="not an address", name="Sam").status_code == 200
    (found,) = alice.ok(alice.get("/contacts"))["contacts"]
    assert found["name"] == "Sam" and found["email"] == ""
    assert [identity["kind"] for identity in found["identities"]] == ["visitor"]


def test_a_channels_user_is_known_by_the_channels_identity(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]

    async def write(session: Any, channel_type: str, user: tuple[str, str]) -> str:
        chatbot = await by_uuid(session, bot)
        assert chatbot is not None
        chat = ChatSession(chatbot_uuid=bot, meta={})
        session.add(chat)
        await session.flush()
        channel = Channel(type=channel_type, uuid="c" * 32)  # what the service reads of it: never stored
        found = await service.recognise_on_channel(session, chatbot.account_uuid, chat, channel, user, chat.created_at)
        return found.uuid

    whatsapp = db.run(lambda s: write(s, "whatsapp", ("5511987654321", "Ana")))
    sms = db.run(lambda s: write(s, "sms", ("+55 11 98765-4321", "")))
    assert whatsapp == sms  # one phone number, one person
    mailed = db.run(lambda s: write(s, "email", ("ann@example.org", "ann@example.org")))
    shown = alice.ok(alice.get(f"/contact/{whatsapp}"))
    assert shown["name"] == "Ana" and shown["phone"] == "+5511987654321"
    assert [identity["kind"] for identity in shown["identities"]] == ["phone"]
    by_mail = alice.ok(alice.get(f"/contact/{mailed}"))
    assert by_mail["name"] == "" and by_mail["email"] == "ann@example.org"  # an address is not a name


def test_two_first_messages_of_one_person_at_once_make_one_contact(alice: Api, db: Db) -> None:
    """Two conversations of a new person recognised in two transactions at once: on PostgreSQL both find no contact
    and make one; the second's identity waits for the first's commit and fails, so it takes the first's contact and
    removes its own (on SQLite the writer lock runs them one after the other)."""
    bot = alice.chatbot()["uuid"]
    ada = [Identity(IdentityKind.EMAIL, "ada@example.org")]

    async def recognise(wait: bool) -> str:
        async with db.database.transaction() as session:
            chatbot = await by_uuid(session, bot)
            assert chatbot is not None
            chat = ChatSession(chatbot_uuid=bot, meta={})
            session.add(chat)
            await session.flush()
            found = await service.recognise(session, chatbot.account_uuid, chat, ada, now=chat.created_at)
            if wait:
                await asyncio.sleep(0.5)  # the other transaction meets this one's uncommitted identity meanwhile
            return found.uuid

    async def both() -> list[str]:
        first = asyncio.create_task(recognise(wait=True))
        await asyncio.sleep(0.1)
        second = asyncio.create_task(recognise(wait=False))
        return [await first, await second]

    assert alice.client.portal is not None
    first, second = alice.client.portal.call(both)
    assert first == second
    (only,) = alice.ok(alice.get("/contacts"))["contacts"]
    assert only["uuid"] == first and only["conversation_count"] == 2
    assert [identity["kind"] for identity in only["identities"]] == ["email"]
