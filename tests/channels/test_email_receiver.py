"""The built-in SMTP receiver, both databases: mail delivered by SMTP to an email channel's address (or a `+tag` of
it) is stored and answered like mail read from its mailbox, once; any other recipient is refused (550), so it
relays nothing."""

from __future__ import annotations

from collections.abc import Iterator

import aiosmtplib
import pytest
from sqlalchemy import select
from starlette.testclient import TestClient

from botyard.channels.email.receiver import MailReceiver
from botyard.config import Settings
from botyard.models import ChannelEvent
from tests.support.api import Api
from tests.support.channels import SHOP_QUESTION, owner_app, run_channel_jobs, shop
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.imap_server import ImapServer, imap_server
from tests.support.mail_channel import CUSTOMER, email_channel, mail
from tests.support.smtp_server import MailCatcher, smtp_server


@pytest.fixture
def outbox() -> Iterator[MailCatcher]:
    with smtp_server() as running:
        yield running


@pytest.fixture
def imap() -> Iterator[ImapServer]:
    with imap_server() as running:
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


def test_mail_delivered_by_smtp_is_answered_and_other_recipients_are_refused(
    owner: Api, imap: ImapServer, outbox: MailCatcher, clock: ManualClock, db: Db
) -> None:
    email_channel(owner, shop(owner), imap)
    client = owner.client
    runtime = client.app.state.runtime  # type: ignore[attr-defined]
    receiver = MailReceiver(runtime.database, runtime.settings, clock)
    assert client.portal is not None
    client.portal.call(receiver.start)
    raw = bytes(mail(SHOP_QUESTION, to="shop+orders@example.test"))

    async def deliver(recipients: list[str]) -> None:
        await aiosmtplib.send(raw, sender=CUSTOMER, recipients=recipients, hostname="127.0.0.1", port=receiver.port)

    try:
        with pytest.raises(aiosmtplib.SMTPRecipientsRefused):
            client.portal.call(deliver, ["someone@elsewhere.test"])  # no relay
        client.portal.call(deliver, ["shop+orders@example.test"])
        client.portal.call(deliver, ["shop@example.test"])  # the same mail again: stored once
    finally:
        client.portal.call(receiver.stop)

    async def stored(session: object) -> list[ChannelEvent]:
        return list((await session.scalars(select(ChannelEvent))).all())  # type: ignore[attr-defined]

    [event] = db.run(stored)
    assert event.text == SHOP_QUESTION and event.user_id == CUSTOMER
    run_channel_jobs(client, clock)
    [reply] = outbox.wait_for_mail(1)
    assert reply.recipients == [CUSTOMER] and "nine to five" in reply.text
