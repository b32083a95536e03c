"""The email channel's threads and loops, both databases, on the loopback IMAP and SMTP servers: a customer's
answer to our reply stays in its conversation (by `In-Reply-To`, by `References`, by the thread's token in the
subject), a new subject opens another; an out-of-office reply, a bounce, a list's mail and our own reply coming
back are stored as ignored, and nothing answers them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select
from starlette.testclient import TestClient

from botyard.channels.polling import ChannelPollers
from botyard.config import Settings
from botyard.models import ChannelEvent, ChannelEventState, ChannelReply
from tests.support.api import Api
from tests.support.channels import SHOP_QUESTION, owner_app, run_channel_jobs, shop
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.imap_server import ImapServer, imap_server
from tests.support.mail_channel import CUSTOMER, close, email_channel, listeners, mail, turn
from tests.support.smtp_server import MailCatcher, smtp_server


@pytest.fixture
def imap() -> Iterator[ImapServer]:
    with imap_server() as running:
        yield running


@pytest.fixture
def outbox() -> Iterator[MailCatcher]:
    with smtp_server() as running:
        yield running


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def owner(
    settings: Settings,
    fake_dns: FakeDns,
    issued_keys: list[str],
    clock: ManualClock,
    outbox: MailCatcher,
    client: TestClient,
) -> Iterator[Api]:
    with owner_app(settings.model_copy(update=outbox.settings()), fake_dns, clock, issued_keys) as own:
        yield own


def rows(db: Db, model: Any) -> list[Any]:
    async def query(session: Any) -> list[Any]:
        order = model.position if model is ChannelEvent else model.created_at
        return list((await session.scalars(select(model).order_by(order))).all())

    found: list[Any] = db.run(query)
    return found


@pytest.fixture
def poller(owner: Api, clock: ManualClock) -> Iterator[ChannelPollers]:
    running = listeners(owner.client, clock)
    yield running
    close(owner.client, running)


def read(owner: Api, clock: ManualClock, channel: dict[str, Any], poller: ChannelPollers) -> None:
    """One look at the mailbox, then every job due run."""
    assert turn(owner.client, poller, channel["uuid"]) is True
    run_channel_jobs(owner.client, clock)
    clock.advance(10)


def test_a_thread_of_three_mails_is_one_conversation_and_a_new_subject_another(
    owner: Api, imap: ImapServer, outbox: MailCatcher, clock: ManualClock, db: Db, poller: ChannelPollers
) -> None:
    channel = email_channel(owner, shop(owner), imap)
    imap.deliver(bytes(mail(SHOP_QUESTION)))
    read(owner, clock, channel, poller)
    [first_reply] = outbox.wait_for_mail(1)
    ours = first_reply.message["Message-ID"]
    answer = mail(
        "And on Saturday?",
        subject="Re: Opening hours",
        message_id="<q2@customer.test>",
        headers={"In-Reply-To": ours, "References": f"<q1@customer.test> {ours}"},
    )
    imap.deliver(bytes(answer))
    read(owner, clock, channel, poller)
    outbox.wait_for_mail(2)
    token_only = mail("When is the shop open?", subject=first_reply.message["Subject"], message_id="<q3@customer.test>")
    imap.deliver(bytes(token_only))  # a client that keeps the subject and drops the thread's headers
    read(owner, clock, channel, poller)
    imap.deliver(bytes(mail("When is the shop open?", subject="Delivery to Spain", message_id="<q4@customer.test>")))
    read(owner, clock, channel, poller)
    outbox.wait_for_mail(4)
    events = rows(db, ChannelEvent)
    assert [event.details["message_id"] for event in events] == [f"<q{n}@customer.test>" for n in (1, 2, 3, 4)]
    first, second, third, fourth = (event.conversation for event in events)
    assert first == second == third != fourth
    assert all(event.user_id == CUSTOMER for event in events)
    replies = rows(db, ChannelReply)
    assert (
        len({reply.session_uuid for reply in replies[:3]}) == 1 and replies[3].session_uuid != replies[0].session_uuid
    )
    third_mail = outbox.messages()[2].message
    assert third_mail["In-Reply-To"] == "<q3@customer.test>" and third_mail["Subject"] == first_reply.message["Subject"]
    assert outbox.messages()[3].message["Subject"].startswith("Re: Delivery to Spain [#")


BOUNCE = (
    b"From: Mail Delivery System <MAILER-DAEMON@customer.test>\r\nTo: shop@example.test\r\n"
    b"Subject: Undelivered Mail Returned to Sender\r\nMessage-ID: <bounce1@customer.test>\r\nMIME-Version: 1.0\r\n"
    b'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"\r\n\r\n--b1\r\n'
    b"Content-Type: text/plain\r\n\r\nI'm sorry to have to inform you that your message could not be delivered.\r\n"
    b"--b1\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; customer.test\r\n\r\n"
    b"Final-Recipient: rfc822; nobody@customer.test\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n--b1--\r\n"
)


def test_auto_replies_bounces_lists_and_our_own_mail_are_stored_unanswered(
    owner: Api, imap: ImapServer, outbox: MailCatcher, clock: ManualClock, db: Db, poller: ChannelPollers
) -> None:
    channel = email_channel(owner, shop(owner), imap)
    imap.deliver(bytes(mail(SHOP_QUESTION)))
    read(owner, clock, channel, poller)
    [reply] = outbox.wait_for_mail(1)
    ours = reply.message["Message-ID"]
    away = mail(
        "I am out of the office until Monday. When is the shop open?",
        subject="Automatic reply: Re: Opening hours",
        message_id="<away1@customer.test>",
        headers={"Auto-Submitted": "auto-replied", "In-Reply-To": ours},
    )
    listed = mail("When is the shop open?", message_id="<list1@customer.test>", headers={"List-Id": "<news.shop.test>"})
    imap.deliver(bytes(away))
    imap.deliver(BOUNCE)
    imap.deliver(bytes(listed))
    imap.deliver(reply.message.as_bytes())  # our own reply, come back (a copy to the mailbox, a forward rule)
    read(owner, clock, channel, poller)
    events = rows(db, ChannelEvent)
    reasons = {event.details["message_id"]: event.details.get("unanswered") for event in events[1:]}
    assert reasons == {
        "<away1@customer.test>": "auto_submitted",
        "<bounce1@customer.test>": "delivery_report",
        "<list1@customer.test>": "mailing_list",
        ours: "ours",
    }
    assert all(event.state == ChannelEventState.IGNORED and event.text == "" for event in events[1:])
    assert len(rows(db, ChannelReply)) == 1 and len(outbox.messages()) == 1  # no answer, no loop
