"""The generic signed channel end to end, both databases: an event signed as Standard Webhooks sign is answered and
the reply POSTed, signed, to the owner's callback (a receiver on loopback verifies it from the specification); a
stale, forged or unsigned event is refused and writes nothing; a `conversation_closed` is stored, not answered."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import func, select
from starlette.testclient import TestClient

from botyard.models import ChannelEvent
from tests.support.api import Api, assert_error
from tests.support.channels import run_channel_jobs, signed_headers
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.jobs import process
from tests.support.webhook_receiver import Receiver, receiver


@pytest.fixture
def callback() -> Iterator[Receiver]:
    with receiver() as running:
        yield running


def helpdesk(alice: Api, url: str) -> tuple[dict[str, Any], str]:
    bot: str = alice.chatbot()["uuid"]
    qa = {"question": "When is the shop open?", "answer": "The shop is open from nine to five, Monday to Friday."}
    alice.ok(alice.post(f"/chatbot/{bot}/data-source/qa", qa))
    process(alice.client)
    body = {"type": "generic", "name": "Helpdesk", "credentials": {"callback_url": url}}
    channel: dict[str, Any] = alice.ok(alice.post(f"/chatbot/{bot}/channel/create", body))
    secret = channel.pop("signing_secret")
    assert secret.startswith("whsec_")
    assert "signing_secret" not in alice.ok(alice.get(f"/channel/{channel['uuid']}"))
    return channel, secret


def send(client: TestClient, channel: dict[str, Any], event: dict[str, Any], headers: dict[str, str]) -> Any:
    return client.post(f"/channels/{channel['uuid']}/inbound", content=json.dumps(event).encode(), headers=headers)


def test_a_signed_message_is_answered_on_the_owners_callback_signed(
    alice: Api, client: TestClient, callback: Receiver, db: Db
) -> None:
    channel, secret = helpdesk(alice, callback.url("/replies"))
    event = {
        "id": "evt-1",
        "type": "message",
        "user": {"id": "u-7", "name": "Ada"},
        "thread": "t-1",
        "text": "When are you open?",
    }
    body = json.dumps(event).encode()
    answer = client.post(
        f"/channels/{channel['uuid']}/inbound", content=body, headers=signed_headers(secret, "evt-1", body)
    )
    assert answer.status_code == 200 and answer.json() == {"ok": True}
    run_channel_jobs(client, ManualClock())
    typing, received = callback.received  # "typing" while the answer is made, then the answer
    assert typing.signed_with(secret) and typing.event["type"] == "typing"
    assert typing.event["user"] == {"id": "u-7"} and typing.event["thread"] == "t-1"
    assert received.path == "/replies" and received.signed_with(secret)
    reply = received.event
    assert reply["type"] == "message" and reply["user"] == {"id": "u-7"} and reply["thread"] == "t-1"
    assert "nine to five" in reply["text"] and isinstance(reply["citations"], list)
    # A repeat of the event (the sender retried) is answered once.
    again = client.post(
        f"/channels/{channel['uuid']}/inbound", content=body, headers=signed_headers(secret, "evt-1", body)
    )
    assert again.json() == {"ok": True, "duplicate": True}
    run_channel_jobs(client, ManualClock())
    assert len(callback.received) == 2


@pytest.mark.parametrize("forgery", ["stale", "other-secret", "other-body", "unsigned"])
def test_a_stale_forged_or_unsigned_event_is_refused_and_writes_nothing(
    alice: Api, client: TestClient, callback: Receiver, db: Db, forgery: str
) -> None:
    channel, secret = helpdesk(alice, callback.url())
    event = {"id": "evt-9", "type": "message", "user": {"id": "u-1"}, "text": "Hello?"}
    body = json.dumps(event).encode()
    headers = {
        "stale": signed_headers(secret, "evt-9", body, int(time.time()) - 600),
        "other-secret": signed_headers("whsec_" + base64.b64encode(b"k" * 32).decode(), "evt-9", body),
        "other-body": signed_headers(secret, "evt-9", body + b" "),
        "unsigned": {"content-type": "application/json"},
    }[forgery]
    assert_error(
        client.post(f"/channels/{channel['uuid']}/inbound", content=body, headers=headers), 401, "signature_invalid"
    )
    assert db.run(lambda s: s.scalar(select(func.count()).select_from(ChannelEvent))) == 0


def test_a_closed_conversation_is_stored_and_not_answered_and_an_unknown_type_is_ignored(
    alice: Api, client: TestClient, callback: Receiver, db: Db
) -> None:
    channel, secret = helpdesk(alice, callback.url())
    closed = {"id": "evt-c", "type": "conversation_closed", "user": {"id": "u-1"}}
    assert send(client, channel, closed, signed_headers(secret, "evt-c", json.dumps(closed).encode())).json() == {
        "ok": True
    }
    odd = {"id": "evt-o", "type": "reaction", "user": {"id": "u-1"}}
    ignored = send(client, channel, odd, signed_headers(secret, "evt-o", json.dumps(odd).encode()))
    assert ignored.status_code == 200 and ignored.json()["ignored"] == "not the provider's shape"
    run_channel_jobs(client, ManualClock())
    assert callback.received == []
    assert db.run(lambda s: s.scalar(select(func.count()).select_from(ChannelEvent))) == 1


def test_live_chat_reaches_the_helpdesk_as_handoff_messages_and_resolved(
    alice: Api, client: TestClient, callback: Receiver, db: Db
) -> None:
    channel, secret = helpdesk(alice, callback.url("/events"))

    def deliver(event_id: str, text: str) -> None:
        event = {"id": event_id, "type": "message", "user": {"id": "u-8"}, "thread": "t-2", "text": text}
        body = json.dumps(event).encode()
        response = client.post(
            f"/channels/{channel['uuid']}/inbound", content=body, headers=signed_headers(secret, event_id, body)
        )
        assert response.json() == {"ok": True}

    deliver("evt-20", "When are you open?")
    run_channel_jobs(client, ManualClock())
    [session] = alice.ok(alice.get(f"/chatbot/{channel['chatbot_uuid']}/sessions"))
    alice.ok(alice.post(f"/session/{session['uuid']}/live-chat/start"))
    run_channel_jobs(client, ManualClock())
    deliver("evt-21", "Can you hold a parcel?")
    run_channel_jobs(client, ManualClock())
    alice.ok(alice.post(f"/session/{session['uuid']}/live-chat/message", {"text": "Yes, until Friday."}))
    alice.ok(alice.post(f"/session/{session['uuid']}/live-chat/end"))
    run_channel_jobs(client, ManualClock())
    events = [received.event for received in callback.received]
    assert all(received.signed_with(secret) for received in callback.received)
    # The bot's answer, then the live chat: no answer of the bot while the operator has it.
    assert [event["type"] for event in events] == ["typing", "message", "handoff", "message", "resolved"]
    assert events[2]["text"] == "You are now chatting with a person."
    assert events[3]["text"] == "Yes, until Friday."
    assert all(event["user"] == {"id": "u-8"} and event["thread"] == "t-2" for event in events)
