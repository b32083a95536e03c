"""Limits on anonymous traffic that hold whatever the client sends: a device id, a session, a connection and an
`X-Forwarded-For` header are the client's to choose; its address (behind trusted proxies only) and the chatbot's
ceiling for all anonymous callers together are not. Owners' keys keep their own limit, per session."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import ValidationError
from starlette.testclient import TestClient

from botyard.client_address import client_network, trusted_networks
from botyard.config import Settings
from botyard.identity.accounts.service import issue_key
from botyard.main import create_app
from tests.support.api import Api, assert_error
from tests.support.chat import ask, ask_anonymous, messages, new_session
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.widget import calling_from, open_bot, widget_ask, widget_session


def test_keyless_messages_count_per_address_whatever_the_session(alice: Api, client: TestClient) -> None:
    bot = open_bot(alice, rate_limit=[3, 60])
    sessions = [new_session(alice, bot) for _ in range(5)]
    statuses = [ask_anonymous(client, chat, "hello").status_code for chat in sessions]
    assert statuses == [200, 200, 200, 429, 429]
    assert sum(len(messages(alice, chat)) for chat in sessions) == 3  # nothing stored for the refused ones
    # The widget's endpoint counts in the same window: it is the same visitor.
    assert widget_ask(client, sessions[4], "and here?").status_code == 429
    # Another address is another visitor; the owner's key counts per session, as before.
    with calling_from(client, "198.51.100.20"):
        assert ask_anonymous(client, sessions[3], "hello").status_code == 200
    assert ask(alice, sessions[4], "as the owner").status_code == 200


def test_new_widget_sessions_count_per_address_whatever_the_device(alice: Api, client: TestClient) -> None:
    bot = open_bot(alice, rate_limit=[2, 60])
    widget_session(client, bot, device="device-0001")
    widget_session(client, bot, device="device-0002")
    refused = client.post(f"/api/v1/widget/{bot}/session", json={"device_id": "device-0003"})
    assert_error(refused, 429, "rate_limited")
    with calling_from(client, "2001:db8:1:2::1"):
        widget_session(client, bot, device="device-0003")
    with calling_from(client, "2001:db8:1:2::ffff"):  # the same /64: the same client
        assert client.post(f"/api/v1/widget/{bot}/session", json={"device_id": "device-0004"}).status_code == 200
        refused = client.post(f"/api/v1/widget/{bot}/session", json={"device_id": "device-0005"})
        assert_error(refused, 429, "rate_limited")
    assert len(alice.ok(alice.get(f"/chatbot/{bot}/sessions"))) == 4


def test_a_forged_forwarded_for_is_ignored_without_a_trusted_proxy(alice: Api, client: TestClient) -> None:
    bot = open_bot(alice, rate_limit=[2, 60])
    chat = widget_session(client, bot)
    statuses = [
        client.post(
            f"/api/v1/widget/session/{chat}/message/stream",
            json={"query": "hi", "device_id": f"device-{n:04}"},
            headers={"X-Forwarded-For": f"192.0.2.{n}"},
        ).status_code
        for n in range(4)
    ]
    assert statuses == [200, 200, 429, 429]


@pytest.fixture
def app_with(settings: Settings, fake_dns: FakeDns, issued_keys: list[str]) -> Iterator[Any]:
    """Another app on the test database, with some settings changed, and an owner's key for it."""
    opened: list[TestClient] = []

    def start(**changes: Any) -> tuple[TestClient, Api]:
        client = TestClient(create_app(settings.model_copy(update=changes), resolver=fake_dns))
        opened.append(client.__enter__())
        issued = Db(client).run(lambda session: issue_key(session, "limits@example.com"))
        issued_keys.append(issued.key)
        return client, Api(client, issued.key)

    yield start
    for client in opened:
        client.__exit__(None, None, None)


def test_behind_a_trusted_proxy_the_forwarded_client_counts(client: TestClient, app_with: Any) -> None:
    proxied, owner = app_with(trusted_proxies=["203.0.113.0/24"])
    bot = open_bot(owner, rate_limit=[2, 60])
    chat = widget_session(proxied, bot)

    def send(forwarded_for: str) -> int:
        body = {"query": "hi", "device_id": "device-0001"}
        headers = {"X-Forwarded-For": forwarded_for}
        return proxied.post(f"/api/v1/widget/session/{chat}/message/stream", json=body, headers=headers).status_code

    with calling_from(proxied, "203.0.113.9"):
        # The client may put anything before what the proxy appended: the rightmost untrusted hop is the client.
        assert [send(f"10.9.9.{n}, 198.51.100.1") for n in range(3)] == [200, 200, 429]
        assert send("198.51.100.2") == 200  # another client behind the same proxy
        assert send("198.51.100.3, 203.0.113.7") == 200  # through two trusted proxies
    # Not from the proxy: the header is the caller's own words, and the caller is its peer address.
    with calling_from(proxied, "192.0.2.50"):
        assert [send(f"198.51.100.{n}") for n in range(10, 13)] == [200, 200, 429]


def test_the_anonymous_ceiling_holds_across_addresses(app_with: Any, issued_keys: list[str]) -> None:
    capped, owner = app_with(anonymous_messages_per_minute=3)
    bot = open_bot(owner, rate_limit=[5, 60])
    chat = new_session(owner, bot)
    statuses = []
    for n in range(5):
        with calling_from(capped, f"198.51.100.{n + 1}"):
            statuses.append(ask_anonymous(capped, chat, f"q{n}").status_code)
    assert statuses == [200, 200, 200, 429, 429]
    assert ask(owner, chat, "the owner's own key").status_code == 200  # keys keep their own limit
    # Another account's key is a visitor here, under the same ceiling (tests/chat/test_visitor_keys.py for the rest).
    issued = Db(capped).run(lambda session: issue_key(session, "visitor@example.com"))
    issued_keys.append(issued.key)
    with calling_from(capped, "198.51.100.50"):
        assert_error(ask(Api(capped, issued.key), chat, "with a key of my own"), 429, "rate_limited")
    with calling_from(capped, "198.51.100.99"):  # new sessions have a ceiling of their own
        assert [
            capped.post(f"/api/v1/widget/{bot}/session", json={"device_id": "device-0001"}).status_code
            for _ in range(4)
        ] == [200, 200, 200, 429]


@pytest.mark.parametrize(
    ("peer", "forwarded_for", "client"),
    [
        ("192.0.2.1", None, "192.0.2.1"),
        ("192.0.2.1", "198.51.100.1", "192.0.2.1"),  # an untrusted peer's header is ignored
        ("10.0.0.2", "198.51.100.1", "198.51.100.1"),
        ("10.0.0.2", "6.6.6.6, 198.51.100.1, 10.0.0.3", "198.51.100.1"),  # rightmost untrusted hop
        ("10.0.0.2", "10.0.0.4, 10.0.0.3", "10.0.0.4"),  # all trusted: the first of them
        ("10.0.0.2", "198.51.100.1, garbage", "10.0.0.2"),  # a malformed hop vouches for nothing before it
        ("10.0.0.2", "", "10.0.0.2"),
        ("2001:db8:aa:bb:1:2:3:4", None, "2001:db8:aa:bb::/64"),  # an IPv6 client is its /64
        ("::ffff:192.0.2.8", None, "192.0.2.8"),  # IPv4 on a dual-stack socket
        ("testclient", None, "unknown"),
        (None, "198.51.100.1", "unknown"),
    ],
)
def test_the_client_network(peer: str | None, forwarded_for: str | None, client: str) -> None:
    assert client_network(peer, forwarded_for, trusted_networks(["10.0.0.0/8"])) == client


def test_a_bad_trusted_proxy_stops_the_start() -> None:
    assert Settings(trusted_proxies="10.0.0.0/8, 2001:db8::1").trusted_proxies == ["10.0.0.0/8", "2001:db8::1"]
    with pytest.raises(ValidationError, match="trusted_proxies"):
        Settings(trusted_proxies="10.0.0.0/8, proxy.internal")
