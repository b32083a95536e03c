"""A person's erasure reaches what a channel kept of them, both databases: the generic channel's deliveries with
their words and the replies sent to them go with the contact; another customer's on the same channel stay."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.testclient import TestClient

from botyard.models import ChannelEvent, ChannelReply
from tests.support.api import Api
from tests.support.channels import run_channel_jobs, signed_headers
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.jobs import process
from tests.support.webhook_receiver import Receiver, receiver


@pytest.fixture
def callback() -> Iterator[Receiver]:
    with receiver() as running:
        yield running


def deliver(client: TestClient, channel: dict[str, Any], secret: str, event_id: str, user: str, text: str) -> None:
    event = {"id": event_id, "type": "message", "user": {"id": user, "name": user.title()}, "text": text}
    body = json.dumps(event).encode()
    headers = signed_headers(secret, event_id, body)
    answer = client.post(f"/channels/{channel['uuid']}/inbound", content=body, headers=headers)
    assert answer.status_code == 200, answer.text


def kept(db: Db, user: str) -> tuple[int, int]:
    """How many deliveries of `user` and replies to them the channel's tables hold."""

    async def count(session: AsyncSession) -> tuple[int, int]:
        events = select(func.count()).select_from(ChannelEvent).where(ChannelEvent.user_id == user)
        replies = select(func.count()).select_from(ChannelReply).where(ChannelReply.recipient == user)
        return int((await session.execute(events)).scalar() or 0), int((await session.execute(replies)).scalar() or 0)

    return db.run(count)


def test_erasing_a_contact_deletes_what_the_channel_kept_of_them(
    alice: Api, client: TestClient, callback: Receiver, db: Db
) -> None:
    bot: str = alice.chatbot()["uuid"]
    qa = {"question": "When is the shop open?", "answer": "The shop is open from nine to five, Monday to Friday."}
    alice.ok(alice.post(f"/chatbot/{bot}/data-source/qa", qa))
    process(alice.client)
    body = {"type": "generic", "name": "Helpdesk", "credentials": {"callback_url": callback.url("/replies")}}
    channel: dict[str, Any] = alice.ok(alice.post(f"/chatbot/{bot}/channel/create", body))
    secret = channel.pop("signing_secret")
    deliver(client, channel, secret, "evt-1", "u-ada", "When are you open?")
    deliver(client, channel, secret, "evt-2", "u-grace", "When is the shop open?")
    run_channel_jobs(client, ManualClock())
    assert kept(db, "u-ada") == (1, 1) and kept(db, "u-grace") == (1, 1)
    found = alice.ok(alice.get("/contacts", params={"q": "Ada"}))["contacts"]
    assert [one["name"] for one in found] == ["U-Ada"]

    erased = alice.ok(alice.post(f"/contact/{found[0]['uuid']}/delete"))
    assert erased == {"success": True, "conversations_deleted": 1}
    assert kept(db, "u-ada") == (0, 0)
    assert kept(db, "u-grace") == (1, 1)  # another customer of the same channel keeps theirs
    # A repeated delivery of the erased message is new again: nothing of it was kept (not even its id).
    deliver(client, channel, secret, "evt-1", "u-ada", "When are you open?")
    assert kept(db, "u-ada") == (1, 0)
