"""The email channel end to end, both databases: a real IMAP server on loopback (pymap, with IDLE or without) that
the channel reads, and a real SMTP server (aiosmtpd) that takes its replies; the answers come from the one answer
pipeline. A mail is answered in its thread, once; a robot's mail is never answered."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.models import ChannelEvent, ChannelReceipt
from tests.support.api import Api
from tests.support.channels import SHOP_QUESTION, owner_app, run_channel_jobs, shop
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.imap_server import PASSWORD, ImapServer, imap_server
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
    mailing = settings.model_copy(update=outbox.settings())
    with owner_app(mailing, fake_dns, clock, issued_keys) as own:
        yield own


def events(db: Db) -> list[ChannelEvent]:
    async def query(session: Any) -> list[ChannelEvent]:
        return list((await session.scalars(select(ChannelEvent).order_by(ChannelEvent.position))).all())

    found: list[ChannelEvent] = db.run(query)
    return found


def receipts(db: Db) -> list[ChannelReceipt]:
    async def query(session: Any) -> list[ChannelReceipt]:
        return list((await session.scalars(select(ChannelReceipt).order_by(ChannelReceipt.created_at))).all())

    found: list[ChannelReceipt] = db.run(query)
    return found


def test_a_mail_is_answered_in_its_thread_as_it_arrives_with_idle(
    owner: Api, imap: ImapServer, outbox: MailCatcher, clock: ManualClock, db: Db
) -> None:
    channel = email_channel(owner, shop(owner), imap)
    assert "imap_password" in channel["credentials"] and "app-password" not in str(channel)  # sealed, a hint only
    client = owner.client
    waiting = listeners(client, clock, wait_seconds=120)
    try:
        threading.Timer(0.5, imap.deliver, [bytes(mail(SHOP_QUESTION))]).start()
        started = time.monotonic()
        assert turn(client, waiting, channel["uuid"]) is True  # nothing yet: it waits in IDLE until the mail arrives
        assert time.monotonic() - started < 120  # woken by the server, not by the end of the wait
        assert waiting.mailboxes.open[channel["uuid"]].idles
        waiting.long_poll_seconds = 0
        assert turn(client, waiting, channel["uuid"]) is True
    finally:
        close(client, waiting)
    [event] = events(db)
    assert event.text == SHOP_QUESTION and event.user_id == CUSTOMER and event.user_name == "Ann Customer"
    assert event.details["message_id"] == "<q1@customer.test>" and event.details["subject"] == "Opening hours"
    run_channel_jobs(client, clock)
    [sent] = outbox.wait_for_mail(1)
    reply = sent.message
    assert sent.recipients == [CUSTOMER] and "nine to five" in sent.text
    assert reply["In-Reply-To"] == "<q1@customer.test>" and "<q1@customer.test>" in reply["References"]
    assert reply["Subject"] == f"Re: Opening hours [#{event.thread}]"
    assert reply["Auto-Submitted"] == "auto-replied" and reply["X-Auto-Response-Suppress"] == "All"
    html = reply.get_body(("html",))
    assert html is not None and "nine to five" in html.get_content()
    assert [(one.provider_id, one.conversation) for one in receipts(db)] == [(reply["Message-ID"], event.conversation)]


def test_an_html_mail_is_read_as_text_its_quoted_history_cut_and_its_attachment_listed_not_read(
    owner: Api, imap: ImapServer, outbox: MailCatcher, clock: ManualClock, db: Db
) -> None:
    channel = email_channel(owner, shop(owner), imap)
    html = (
        "<html><body><p>When is the <b>shop</b> open?</p><p>Thanks,<br>Ann</p>"
        '<div class="gmail_quote">On Mon, 30 Nov 2026, Shop wrote:<blockquote>The warehouse code is 4411'
        "</blockquote></div></body></html>"
    )
    message = mail("", html=html, message_id="<html1@customer.test>")
    message.add_attachment(b"%PDF-1.4 The secret discount code is ZEBRA-77", "application", "pdf", filename="order.pdf")
    imap.deliver(bytes(message))
    quoted = mail(
        "Are you open on Saturday?\n\nOn Mon, 30 Nov 2026 at 10:00, Shop <shop@example.test> wrote:\n"
        "> The warehouse code is 4411\n> Anything else?\n",
        subject="Saturday",
        message_id="<plain1@customer.test>",
    )
    imap.deliver(bytes(quoted))
    client = owner.client
    poller = listeners(client, clock)
    try:
        assert turn(client, poller, channel["uuid"]) is True
    finally:
        close(client, poller)
    first, second = events(db)
    assert first.text == "When is the shop open?"  # the HTML read as text, without the quote or the signature
    assert first.details["attachments"] == [{"name": "order.pdf", "type": "application/pdf", "size": 45}]
    assert second.text == "Are you open on Saturday?"  # the quoted history cut
    run_channel_jobs(client, clock)
    sent = outbox.wait_for_mail(2)
    assert all("ZEBRA" not in one.text and "4411" not in one.text for one in sent)  # never read as knowledge
    assert any("nine to five" in one.text for one in sent)


def test_a_mail_delivered_twice_is_stored_and_answered_once(
    owner: Api, imap: ImapServer, outbox: MailCatcher, clock: ManualClock, db: Db
) -> None:
    channel = email_channel(owner, shop(owner), imap)
    raw = bytes(mail(SHOP_QUESTION))
    imap.deliver(raw)
    imap.deliver(raw)  # the same mail again (a server's redelivery, a copy in two folders moved back)
    client = owner.client
    poller = listeners(client, clock)
    try:
        assert turn(client, poller, channel["uuid"]) is True
        assert turn(client, poller, channel["uuid"]) is True  # read again from the stored UID: nothing new
    finally:
        close(client, poller)
    assert len(events(db)) == 1
    run_channel_jobs(client, clock)
    assert len(outbox.wait_for_mail(1)) == 1
    time.sleep(0.5)
    assert len(outbox.messages()) == 1


def test_without_idle_the_mailbox_is_looked_at_again_after_a_pause(
    client: TestClient,
    settings: Settings,
    fake_dns: FakeDns,
    issued_keys: list[str],
    clock: ManualClock,
    outbox: MailCatcher,
    db: Db,
) -> None:
    polled = settings.model_copy(update={**outbox.settings(), "channel_mail_poll_seconds": 1})
    with imap_server(idle=False) as plain, owner_app(polled, fake_dns, clock, issued_keys) as own:
        channel = email_channel(own, shop(own), plain)
        poller = listeners(own.client, clock, wait_seconds=120)
        try:
            started = time.monotonic()
            assert turn(own.client, poller, channel["uuid"]) is True  # no IDLE: a pause of a second, not 120
            assert time.monotonic() - started < 120
            assert not poller.mailboxes.open[channel["uuid"]].idles
            plain.deliver(bytes(mail(SHOP_QUESTION)))
            assert turn(own.client, poller, channel["uuid"]) is True
        finally:
            close(own.client, poller)
        assert [event.text for event in events(db)] == [SHOP_QUESTION]
        run_channel_jobs(own.client, clock)
        assert "nine to five" in outbox.wait_for_mail(1)[0].text


def test_a_refused_sign_in_is_a_422_with_the_servers_words_and_nothing_is_made(owner: Api, imap: ImapServer) -> None:
    bot = shop(owner)
    body = {"type": "email", "credentials": {**imap.credentials(), "imap_password": "wrong"}}
    refused = owner.post(f"/chatbot/{bot}/channel/create", body)
    assert refused.status_code == 422 and refused.json()["code"] == "channel_refused"
    assert "app password" in refused.json()["error"] and "wrong" not in refused.json()["error"]
    missing = owner.post(f"/chatbot/{bot}/channel/create", {"type": "email", "credentials": {"imap_host": "x"}})
    assert missing.status_code == 422 and missing.json()["code"] == "validation_error"
    assert owner.ok(owner.get(f"/chatbot/{bot}/channels")) == []
    channel = email_channel(owner, bot, imap)
    changed = owner.post(f"/channel/{channel['uuid']}/update", {"credentials": {"imap_password": "wrong"}})
    assert changed.status_code == 422 and changed.json()["code"] == "channel_refused"  # checked again, kept as it was
    renamed = owner.ok(owner.post(f"/channel/{channel['uuid']}/update", {"credentials": {"imap_password": PASSWORD}}))
    assert renamed["credentials"]["imap_password"] == "••••" + PASSWORD[-4:]


def test_a_mail_server_on_the_services_own_network_is_refused_before_it_is_connected_to(
    owner: Api, imap: ImapServer, fake_dns: FakeDns
) -> None:
    bot = shop(owner)
    fake_dns.records["mail.intranet.example"] = ["10.1.2.3"]  # a name that points inside
    for given in (
        {"imap_host": "169.254.169.254"},  # the cloud's metadata service, by its address
        {"imap_host": "mail.intranet.example"},
        {"smtp_host": "10.1.2.3", "smtp_port": 25},  # IMAP allowed, its SMTP server inside
    ):
        body = {"type": "email", "credentials": {**imap.credentials(), **given}}
        refused = owner.post(f"/chatbot/{bot}/channel/create", body)
        assert refused.status_code == 422, given
        assert refused.json()["code"] in ("url_refused", "channel_refused"), refused.json()
        field = next(iter(given))
        assert f"credentials.{field}" in refused.json()["error"]
    assert owner.ok(owner.get(f"/chatbot/{bot}/channels")) == []  # nothing made
    assert email_channel(owner, bot, imap)["type"] == "email"  # 127.0.0.1 is on the operator's allowlist here


def test_a_reply_the_mail_server_defers_is_sent_again_later_once(
    client: TestClient,
    settings: Settings,
    fake_dns: FakeDns,
    issued_keys: list[str],
    clock: ManualClock,
    imap: ImapServer,
    db: Db,
) -> None:
    with (
        smtp_server(refuse=1) as busy,
        owner_app(settings.model_copy(update=busy.settings()), fake_dns, clock, issued_keys) as own,
    ):
        channel = email_channel(own, shop(own), imap)
        imap.deliver(bytes(mail(SHOP_QUESTION)))
        poller = listeners(own.client, clock)
        try:
            assert turn(own.client, poller, channel["uuid"]) is True
        finally:
            close(own.client, poller)
        run_channel_jobs(own.client, clock)
        [sent] = busy.wait_for_mail(1)
        assert busy.refused == 1 and "nine to five" in sent.text
        assert len(receipts(db)) == 1


def test_one_process_reads_a_mailbox_and_another_takes_it_over_from_the_stored_uid(
    owner: Api, imap: ImapServer, outbox: MailCatcher, clock: ManualClock, db: Db
) -> None:
    channel = email_channel(owner, shop(owner), imap)
    client = owner.client
    first, second = listeners(client, clock), listeners(client, clock)
    try:
        imap.deliver(bytes(mail(SHOP_QUESTION, message_id="<one@customer.test>", sender="one@customer.test")))
        assert turn(client, first, channel["uuid"]) is True
        assert turn(client, second, channel["uuid"]) is False  # one process reads a mailbox at a time
        # The first process dies: it never renews its lease again.
        imap.deliver(bytes(mail(SHOP_QUESTION, message_id="<two@customer.test>", sender="two@customer.test")))
        clock.advance(first.lease.total_seconds() + 1)
        assert turn(client, second, channel["uuid"]) is True  # taken over, from the stored UID
        assert turn(client, first, channel["uuid"]) is False
    finally:
        close(client, first)
        close(client, second)
    assert [event.user_id for event in events(db)] == ["one@customer.test", "two@customer.test"]
    run_channel_jobs(client, clock)
    assert sorted(one.recipients[0] for one in outbox.wait_for_mail(2)) == ["one@customer.test", "two@customer.test"]
