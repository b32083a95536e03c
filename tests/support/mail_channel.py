"""The email channel's tests' helpers: mails as a customer's client writes them (and as robots do), an email
channel on the local IMAP server, and one process's listeners turned by the test."""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import formatdate
from typing import Any

from starlette.testclient import TestClient

from botyard.channels.polling import ChannelPollers
from tests.support.api import Api
from tests.support.clock import ManualClock
from tests.support.imap_server import ImapServer

CUSTOMER = "ann@customer.test"


def mail(
    text: str,
    *,
    subject: str = "Opening hours",
    message_id: str = "<q1@customer.test>",
    sender: str = f"Ann Customer <{CUSTOMER}>",
    to: str = "shop@example.test",
    headers: dict[str, str] | None = None,
    html: str | None = None,
) -> EmailMessage:
    """A customer's mail: plain text (or only HTML, with `html`), with the headers given."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message["Date"] = formatdate()
    if message_id:
        message["Message-ID"] = message_id
    for name, value in (headers or {}).items():
        message[name] = value
    if html is not None:
        message.set_content(html, subtype="html")
    else:
        message.set_content(text)
    return message


def email_channel(api: Api, bot: str, imap: ImapServer, **credentials: Any) -> dict[str, Any]:
    body = {"type": "email", "name": "Shop", "credentials": {**imap.credentials(), **credentials}}
    channel: dict[str, Any] = api.ok(api.post(f"/chatbot/{bot}/channel/create", body))
    return channel


def listeners(client: TestClient, clock: ManualClock, wait_seconds: int = 0) -> ChannelPollers:
    """One process's listeners, as `botyard serve` runs them, turned by the test (no background loop); each turn
    waits for new mail up to `wait_seconds`."""
    runtime = client.app.state.runtime  # type: ignore[attr-defined]
    return ChannelPollers(runtime.database, runtime.settings, runtime.egress, clock, long_poll_seconds=wait_seconds)


def turn(client: TestClient, poller: ChannelPollers, channel_uuid: str) -> bool:
    assert client.portal is not None
    held: bool = client.portal.call(poller.turn, channel_uuid)
    return held


def close(client: TestClient, poller: ChannelPollers) -> None:
    assert client.portal is not None
    client.portal.call(poller.stop)
