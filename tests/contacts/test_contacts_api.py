"""Contacts over HTTP, both databases: a widget visitor who gives their email is one contact across devices, with
every conversation; the after-hours form's email joins the contact; an operator edits and merges contacts; an owner
exports and erases one with its conversations; another account's contacts answer 404 on every route."""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient

from botyard.chat.contact_sessions import service as contact_sessions
from botyard.chatbots.service import by_uuid
from botyard.contacts import identities, service
from botyard.models import ChatSession, Role
from tests.support.api import Api, assert_error, assert_not_found
from tests.support.database import Db
from tests.support.people import person
from tests.support.widget import open_bot, widget_ask

PAGE = "https://shop.example/pricing"


def visit(client: TestClient, bot: str, device: str, **given: Any) -> str:
    """A widget session of `device`, with what the site passed in."""
    response = client.post(f"/api/v1/widget/{bot}/session", json={"device_id": device, **given})
    assert response.status_code == 200, response.text
    uuid: str = response.json()["session_uuid"]
    return uuid


def contacts(api: Api, q: str = "") -> dict[str, Any]:
    found: dict[str, Any] = api.ok(api.get("/contacts", params={"q": q}))
    return found


def contact(api: Api, uuid: str) -> dict[str, Any]:
    found: dict[str, Any] = api.ok(api.get(f"/contact/{uuid}"))
    return found


def on_channel(db: Db, account: str, bot: str, channel: str, user: str, name: str) -> str:
    """A conversation of a channel's user, begun as the channel begins one (in-process: no provider needed)."""

    async def begin(session: Any) -> str:
        chat = ChatSession(chatbot_uuid=bot, meta={})
        session.add(chat)
        await session.flush()
        seen = identities.of_channel(channel, "c" * 32, user)
        found = await service.recognise(session, account, chat, seen, name=name, now=chat.created_at)
        return found.uuid

    return db.run(begin)


def test_a_visitor_who_gives_their_email_is_one_contact_with_every_conversation(alice: Api, client: TestClient) -> None:
    bot = open_bot(alice)
    first = visit(client, bot, "laptop-0001", name="Ada Lovelace", email="Ada@Example.com", page=PAGE)
    widget_ask(client, first, "Do you ship to Lisbon?", device="laptop-0001")
    second = visit(client, bot, "phone-00001", email="ada@example.com", attributes={"plan": "pro"})
    listed = contacts(alice)
    assert listed["total"] == 1
    (item,) = listed["contacts"]
    assert item["name"] == "Ada Lovelace" and item["email"] == "ada@example.com" and item["channels"] == ["widget"]
    assert item["conversation_count"] == 2 and item["attributes"] == {"plan": "pro"}
    kinds = sorted(identity["kind"] for identity in item["identities"])
    assert kinds == ["email", "visitor", "visitor"]
    shown = contact(alice, item["uuid"])
    assert [one["session_uuid"] for one in shown["conversations"]] == [second, first]  # latest activity first
    talked = shown["conversations"][1]
    assert talked["chatbot_uuid"] == bot and talked["chatbot_name"] == "Support bot" and talked["channel"] == "widget"
    assert talked["visitor_page"] == PAGE and talked["status"] == "open" and talked["message_count"] == 1
    assert talked["preview"] == "Do you ship to Lisbon?"
    assert set(talked) == {
        "session_uuid", "chatbot_uuid", "chatbot_name", "channel", "channel_uuid", "created_at", "last_activity_at",
        "status", "visitor_page", "message_count", "preview",
    }  # fmt: skip
    # A third visit of the first device without an email is still Ada; what an operator wrote is kept.
    alice.ok(alice.post(f"/contact/{item['uuid']}/update", {"name": "Ada L."}))
    visit(client, bot, "laptop-0001", name="Somebody else")
    assert contacts(alice)["total"] == 1
    assert contact(alice, item["uuid"])["name"] == "Ada L." and len(contact(alice, item["uuid"])["conversations"]) == 3


def test_search_finds_by_name_email_or_phone_latest_seen_first(alice: Api, client: TestClient) -> None:
    bot = open_bot(alice)
    visit(client, bot, "device-0001", name="Ada Lovelace", email="ada@example.com")
    visit(client, bot, "device-0002", name="Grace Hopper", email="grace@navy.example")
    visit(client, bot, "device-0003")  # nothing given: a contact known by its device only
    assert [one["name"] for one in contacts(alice)["contacts"]] == ["", "Grace Hopper", "Ada Lovelace"]
    assert [one["name"] for one in contacts(alice, "NAVY")["contacts"]] == ["Grace Hopper"]
    assert [one["name"] for one in contacts(alice, "love")["contacts"]] == ["Ada Lovelace"]
    assert contacts(alice, "100%_")["total"] == 0  # wildcards are taken literally
    paged = alice.ok(alice.get("/contacts", params={"limit": 1, "offset": 1}))
    assert paged["total"] == 3 and [one["name"] for one in paged["contacts"]] == ["Grace Hopper"]


def test_update_normalises_the_phone_and_refuses_what_is_not_a_number(alice: Api, client: TestClient) -> None:
    bot = open_bot(alice)
    visit(client, bot, "device-0001", email="ada@example.com")
    (item,) = contacts(alice)["contacts"]
    body = {"phone": "+44 20 7946 0958", "note": "Prefers email", "attributes": {"company": "Analytical"}}
    updated = alice.ok(alice.post(f"/contact/{item['uuid']}/update", body))
    assert updated["phone"] == "+442079460958" and updated["note"] == "Prefers email"
    assert updated["attributes"] == {"company": "Analytical"} and updated["email"] == "ada@example.com"
    assert contacts(alice, "7946")["total"] == 1
    assert_error(alice.post(f"/contact/{item['uuid']}/update", {"phone": "12"}), 422, "validation_error")
    assert_error(alice.post(f"/contact/{item['uuid']}/update", {"email": "nope"}), 422, "validation_error")
    assert contact(alice, item["uuid"])["phone"] == "+442079460958"


def test_merge_moves_identities_and_conversations_and_deletes_the_other(
    alice: Api, bob: Api, client: TestClient, db: Db
) -> None:
    bot = open_bot(alice)
    chat = visit(client, bot, "device-0001", email="ada@example.com")
    (widget,) = contacts(alice)["contacts"]
    owner = db.run(lambda session: _account_of(session, bot))
    other = on_channel(db, owner, bot, "telegram", "42", "Ada on Telegram")
    assert contacts(alice)["total"] == 2
    assert_error(
        alice.post(f"/contact/{widget['uuid']}/merge", {"contact_uuid": widget["uuid"]}), 422, "merge_with_itself"
    )
    bobs = open_bot(bob)
    visit(client, bobs, "device-0009", email="bob@example.com")
    (foreign,) = contacts(bob)["contacts"]
    assert_not_found(alice.post(f"/contact/{widget['uuid']}/merge", {"contact_uuid": foreign["uuid"]}))
    assert_not_found(alice.post(f"/contact/{foreign['uuid']}/merge", {"contact_uuid": widget["uuid"]}))
    assert contact(bob, foreign["uuid"])["email"] == "bob@example.com"  # a refused merge wrote nothing
    assert contacts(alice)["total"] == 2

    merged = alice.ok(alice.post(f"/contact/{widget['uuid']}/merge", {"contact_uuid": other}))
    assert merged["name"] == "Ada on Telegram" and merged["email"] == "ada@example.com"  # empty name filled
    assert sorted(identity["kind"] for identity in merged["identities"]) == ["email", "telegram", "visitor"]
    assert len(merged["conversations"]) == 2 and chat in [one["session_uuid"] for one in merged["conversations"]]
    assert_not_found(alice.get(f"/contact/{other}"))
    assert contacts(alice)["total"] == 1
    # The next Telegram message of that user finds the merged contact.
    again = on_channel(db, owner, bot, "telegram", "42", "Ada")
    assert again == widget["uuid"] and len(contact(alice, widget["uuid"])["conversations"]) == 3


async def _account_of(session: Any, bot: str) -> str:
    chatbot = await by_uuid(session, bot)
    assert chatbot is not None
    return chatbot.account_uuid


def test_export_holds_every_conversation_with_its_messages_and_is_audited(alice: Api, client: TestClient) -> None:
    bot = open_bot(alice)
    chat = visit(client, bot, "device-0001", name="Ada", email="ada@example.com")
    widget_ask(client, chat, "Do you ship to Lisbon?", device="device-0001")
    (item,) = contacts(alice)["contacts"]
    exported = alice.ok(alice.post(f"/contact/{item['uuid']}/export"))
    assert exported["contact"]["uuid"] == item["uuid"] and exported["contact"]["email"] == "ada@example.com"
    assert {identity["kind"] for identity in exported["identities"]} == {"email", "visitor"}
    (conversation,) = exported["conversations"]
    assert conversation["session_uuid"] == chat
    assert [message["query"] for message in conversation["messages"]] == ["Do you ship to Lisbon?"]
    events = alice.ok(alice.get("/account/audit", params={"object_type": "contact"}))["events"]
    assert [(event["action"], event["object_uuid"]) for event in events] == [("exported", item["uuid"])]


def test_delete_erases_the_contact_and_its_conversations_only(alice: Api, client: TestClient) -> None:
    bot = open_bot(alice)
    first = visit(client, bot, "device-0001", email="ada@example.com")
    widget_ask(client, first, "Do you ship to Lisbon?", device="device-0001")
    second = visit(client, bot, "device-0002", email="ada@example.com")
    kept = visit(client, bot, "device-0003", email="grace@example.com")
    (ada,) = contacts(alice, "ada")["contacts"]
    assert alice.ok(alice.post(f"/contact/{ada['uuid']}/delete")) == {"success": True, "conversations_deleted": 2}
    for chat in (first, second):
        assert_not_found(alice.get(f"/session/{chat}"))
    assert_not_found(alice.get(f"/contact/{ada['uuid']}"))
    assert alice.ok(alice.get(f"/session/{kept}"))["uuid"] == kept
    assert [one["email"] for one in contacts(alice)["contacts"]] == ["grace@example.com"]
    # Ada comes back: a new contact, nothing of the old one.
    visit(client, bot, "device-0001")
    assert contacts(alice)["total"] == 2 and contacts(alice, "ada")["total"] == 0


def test_another_accounts_contact_answers_404_on_every_route(alice: Api, bob: Api, client: TestClient) -> None:
    visit(client, open_bot(alice), "device-0001", email="ada@example.com")
    (item,) = contacts(alice)["contacts"]
    uuid = item["uuid"]
    assert contacts(bob) == {"total": 0, "contacts": []}
    assert_not_found(bob.get(f"/contact/{uuid}"))
    assert_not_found(bob.post(f"/contact/{uuid}/update", {"name": "Mallory"}))
    assert_not_found(bob.post(f"/contact/{uuid}/export"))
    assert_not_found(bob.post(f"/contact/{uuid}/delete"))
    assert_not_found(bob.post(f"/contact/{uuid}/merge", {"contact_uuid": uuid}))
    assert contact(alice, uuid)["email"] == "ada@example.com" and contact(alice, uuid)["name"] == ""


def test_an_operator_edits_and_merges_but_only_an_admin_exports_or_erases(
    alice: Api, client: TestClient, db: Db
) -> None:
    visit(client, open_bot(alice), "device-0001", email="ada@example.com")
    (item,) = contacts(alice)["contacts"]
    anna = person(client, db, "alice@example.com", "anna@example.com", Role.OPERATOR)
    assert anna.ok(anna.post(f"/contact/{item['uuid']}/update", {"name": "Ada"}))["name"] == "Ada"
    assert_error(anna.post(f"/contact/{item['uuid']}/export"), 403, "forbidden_role")
    assert_error(anna.post(f"/contact/{item['uuid']}/delete"), 403, "forbidden_role")
    viewer = person(client, db, "alice@example.com", "vic@example.com", Role.VIEWER)
    assert viewer.ok(viewer.get(f"/contact/{item['uuid']}"))["name"] == "Ada"
    assert_error(viewer.post(f"/contact/{item['uuid']}/update", {"name": "Vic"}), 403, "forbidden_role")


def test_a_conversation_count_and_channels_come_from_chat(alice: Api, client: TestClient, db: Db) -> None:
    bot = open_bot(alice)
    visit(client, bot, "device-0001", email="ada@example.com")
    (item,) = contacts(alice)["contacts"]
    owner = _owner(bot, db)
    assert db.run(lambda session: contact_sessions.counts(session, [item["uuid"]])) == {item["uuid"]: 1}
    found = db.run(lambda session: service.summary(session, owner, item["uuid"]))
    assert found is not None and found.email == "ada@example.com" and found.conversation_count == 1
    assert sorted(found.identity_kinds) == ["email", "visitor"]
    assert db.run(lambda session: service.summary(session, "f" * 32, item["uuid"])) is None


def _owner(bot: str, db: Db) -> str:
    return db.run(lambda session: _account_of(session, bot))
