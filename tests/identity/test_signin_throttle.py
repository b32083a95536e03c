"""Sign-in under attack: an attempt is counted before its password is checked, so a burst sent at once is limited
like the same attempts sent one by one; the count is kept per address tried (known or not) and per client network;
every attempt costs one argon2 verification, whoever has the address; and a browser that signed in before passes
while a stranger's wrong passwords keep the address waiting (device cookies)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx2 as httpx
import pytest
from sqlalchemy import func, select
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.identity import passwords, resets
from botyard.identity.accounts.service import get_or_create_account
from botyard.identity.browser_sessions.devices import COOKIE
from botyard.identity.signin.password import NETWORK_THROTTLE_AFTER, THROTTLE_AFTER
from botyard.identity.signin.throttle.service import network_key
from botyard.identity.users import members
from botyard.main import create_app
from botyard.models import Role, SigninAttempt
from tests.support.api import assert_error
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.live import serving
from tests.support.people import PASSWORD, SAME_ORIGIN, add_person
from tests.support.waiting import until

EMAIL = "editor@example.com"
SIGN_IN = "/api/v1/auth/sign-in"


class Verifications:
    """The seam at the hash: every argon2 verification the app runs, with the hash it was run against; `hold()`
    keeps each one waiting until `release()`, so a test sees which attempts reached verification at all."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.hashes: list[str] = []
        self.lock = threading.Lock()
        self.gate = threading.Event()
        self.gate.set()
        real: Callable[[str, str], bool] = passwords._verify

        def verify(stored: str, password: str) -> bool:
            with self.lock:
                self.hashes.append(stored)
            self.gate.wait(120)  # bounded: a test that never releases still ends
            return real(stored, password)

        monkeypatch.setattr(passwords, "_verify", verify)

    def hold(self) -> None:
        self.gate.clear()

    def release(self) -> None:
        self.gate.set()

    @property
    def count(self) -> int:
        with self.lock:
            return len(self.hashes)


@pytest.fixture
def verifications(monkeypatch: pytest.MonkeyPatch) -> Verifications:
    return Verifications(monkeypatch)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def clocked(settings: Settings, client: TestClient, fake_dns: FakeDns, clock: ManualClock) -> Iterator[TestClient]:
    """A second app on the test database, counting time by `clock`."""
    with TestClient(create_app(settings, resolver=fake_dns, clock=clock), raise_server_exceptions=False) as app:
        yield app


def _attempt(app: TestClient, email: str, password: str, **headers: str) -> httpx.Response:
    response = app.post(SIGN_IN, json={"email": email, "password": password}, headers=SAME_ORIGIN | headers)
    app.cookies.clear()  # each attempt from a browser of its own, unless a test hands it a cookie
    return response


def _answer(response: httpx.Response) -> tuple[int, Any, str | None]:
    return response.status_code, response.json(), response.headers.get("retry-after")


async def _burst(settings: Settings, fake_dns: FakeDns, passwords_sent: list[str], hold: Verifications) -> list[int]:
    """Send one sign-in per password, all at once over real HTTP, each from a browser of its own; the verifications
    wait until every attempt has either been answered or reached its verification."""
    answered = 0

    async def attempt(base: str, password: str) -> int:
        nonlocal answered
        async with httpx.AsyncClient(base_url=base, timeout=120) as browser:
            body = {"email": EMAIL, "password": password}
            response = await browser.post(SIGN_IN, json=body, headers=SAME_ORIGIN)
        answered += 1
        return response.status_code

    async with serving(create_app(settings, resolver=fake_dns)) as base:
        hold.hold()
        sent = [asyncio.create_task(attempt(base, password)) for password in passwords_sent]
        try:
            await until(lambda: answered + hold.count == len(sent), 120, what="every attempt answered or verifying")
        finally:
            hold.release()
        return list(await asyncio.gather(*sent))


def test_a_burst_is_limited_like_a_sequence(
    settings: Settings, fake_dns: FakeDns, db: Db, client: TestClient, verifications: Verifications
) -> None:
    add_person(db, "acme@example.com", EMAIL, Role.EDITOR)
    burst = ["wrong password"] * 23 + [PASSWORD]  # the right one last, as a guesser who found it would
    statuses = asyncio.run(_burst(settings, fake_dns, burst, verifications))
    assert verifications.count == THROTTLE_AFTER, statuses  # only the attempts that took a free place were verified
    assert statuses.count(429) == len(burst) - THROTTLE_AFTER, statuses
    assert set(statuses) <= {401, 429, 200} and statuses.count(200) <= 1

    # The same attempts one after another, for another address: the same number verified, the same throttled.
    add_person(db, "acme@example.com", "other@example.com", Role.EDITOR)
    before = verifications.count
    sequence = [_attempt(client, "other@example.com", password).status_code for password in burst]
    assert sequence == [401] * THROTTLE_AFTER + [429] * (len(burst) - THROTTLE_AFTER)
    assert verifications.count - before == THROTTLE_AFTER and sequence.count(429) == statuses.count(429)


def _add_sso_member(db: Db, email: str) -> None:
    async def add(session: Any) -> None:
        account = await get_or_create_account(session, "acme@example.com")
        await members.add(
            session,
            account.uuid,
            email=email,
            name="joined by sso",
            password_hash=members.NO_PASSWORD,
            role=Role.EDITOR,
            now=account.created_at,
        )

    db.run(add)


def test_unknown_known_and_sso_addresses_answer_alike(
    clocked: TestClient, db: Db, clock: ManualClock, verifications: Verifications
) -> None:
    add_person(db, "acme@example.com", EMAIL, Role.EDITOR)
    _add_sso_member(db, "sso@example.com")
    answers: dict[str, list[tuple[int, Any, str | None]]] = {}
    for email in (EMAIL, "nobody@example.com", "sso@example.com"):
        before = verifications.count
        answers[email] = [_answer(_attempt(clocked, email, "wrong password")) for _ in range(THROTTLE_AFTER + 2)]
        # Every attempt that was checked cost one argon2 verification, also for the member without a password.
        assert verifications.count - before == THROTTLE_AFTER
        assert all(stored.startswith("$argon2id$") for stored in verifications.hashes[before:]), email
    known, unknown, sso = answers.values()
    assert known == unknown == sso
    assert [status for status, _, _ in known] == [401] * THROTTLE_AFTER + [429, 429]
    assert known[-1][1]["code"] == "signin_throttled" and known[-1][2] == "30"
    clock.advance(30)
    assert _answer(_attempt(clocked, "nobody@example.com", "x" * 12)) == _answer(_attempt(clocked, EMAIL, "x" * 12))


def test_a_member_without_a_password_costs_a_verification(
    client: TestClient, db: Db, verifications: Verifications
) -> None:
    _add_sso_member(db, "sso@example.com")  # joined by single sign-on: no password hash, only a marker
    assert_error(_attempt(client, "sso@example.com", "any password at all"), 401, "signin_failed")
    assert verifications.count == 1 and verifications.hashes[0].startswith("$argon2id$")  # as for an unknown address


def test_a_browser_that_signed_in_before_passes_while_a_stranger_is_throttled(clocked: TestClient, db: Db) -> None:
    add_person(db, "acme@example.com", EMAIL, Role.EDITOR)
    add_person(db, "acme@example.com", "other@example.com", Role.EDITOR)
    signed_in = _attempt(clocked, EMAIL, PASSWORD)
    assert signed_in.status_code == 200
    line = next(line for line in signed_in.headers.get_list("set-cookie") if line.startswith(f"{COOKIE}="))
    assert "httponly" in line.lower() and "samesite=strict" in line.lower() and f"path={SIGN_IN}" in line.lower()
    device = signed_in.cookies[COOKIE]
    assert EMAIL not in device  # it names the address, but not in plain words

    for _ in range(THROTTLE_AFTER):  # a stranger guesses
        assert_error(_attempt(clocked, EMAIL, "wrong password"), 401, "signin_failed")
    assert_error(_attempt(clocked, EMAIL, PASSWORD), 429, "signin_throttled")  # without the cookie: waits
    with_device = {"Cookie": f"{COOKIE}={device}"}
    assert _attempt(clocked, EMAIL, PASSWORD, **with_device).status_code == 200  # the person's browser: passes
    # The cookie is for that address only, and cannot be made or changed by hand.
    assert_error(_attempt(clocked, "other@example.com", "wrong", **with_device), 401, "signin_failed")
    forged = device[:-2] + ("AA" if not device.endswith("AA") else "BB")
    assert_error(_attempt(clocked, EMAIL, PASSWORD, Cookie=f"{COOKIE}={forged}"), 429, "signin_throttled")
    # The device has a budget of its own: guessing from it is slowed as well, and leaves the address's count alone.
    for _ in range(THROTTLE_AFTER):
        assert_error(_attempt(clocked, EMAIL, "wrong password", **with_device), 401, "signin_failed")
    assert_error(_attempt(clocked, EMAIL, PASSWORD, **with_device), 429, "signin_throttled")


def test_a_network_that_guesses_many_addresses_waits(
    settings: Settings, fake_dns: FakeDns, db: Db, client: TestClient, clock: ManualClock
) -> None:
    add_person(db, "acme@example.com", EMAIL, Role.EDITOR)
    behind_proxy = settings.model_copy(update={"trusted_proxies": ["127.0.0.1"]})
    proxied = create_app(behind_proxy, resolver=fake_dns, clock=clock)
    with TestClient(proxied, client=("127.0.0.1", 5000), raise_server_exceptions=False) as proxy:

        def attempt(email: str, password: str, client_ip: str) -> httpx.Response:
            return _attempt(proxy, email, password, **{"X-Forwarded-For": client_ip})

        for n in range(NETWORK_THROTTLE_AFTER):  # one wrong password for each of many addresses: none of them waits
            assert_error(
                attempt(f"person{n}@example.com", "wrong password", f"203.0.113.{n + 1}"), 401, "signin_failed"
            )
        throttled = attempt(EMAIL, PASSWORD, "203.0.113.200")  # the same /24
        assert_error(throttled, 429, "signin_throttled")
        assert "network" in throttled.json()["error"] and throttled.headers["retry-after"] == "30"
        signed_in = attempt(EMAIL, PASSWORD, "198.51.100.7")  # another network: not slowed
        assert signed_in.status_code == 200
        device = {"Cookie": f"{COOKIE}={signed_in.cookies[COOKIE]}"}
        assert attempt(EMAIL, PASSWORD, "203.0.113.201").status_code == 429  # a new browser in the guessing network
        with_device = proxy.post(
            SIGN_IN,
            json={"email": EMAIL, "password": PASSWORD},
            headers=SAME_ORIGIN | device | {"X-Forwarded-For": "203.0.113.201"},
        )
        proxy.cookies.clear()
        assert with_device.status_code == 200  # the person's own browser there


def test_networks_are_ipv4_24s_and_ipv6_64s() -> None:
    assert network_key("203.0.113.7").key == network_key("203.0.113.250").key == "network:203.0.113.0/24"
    assert network_key("203.0.114.7").key != network_key("203.0.113.7").key
    assert network_key("2001:db8:1:2::1").key == network_key("2001:db8:1:2:ffff::9").key == "network:2001:db8:1:2::/64"
    assert network_key("unknown").key == "network:unknown"


def test_a_reset_link_lets_the_person_in_again(clocked: TestClient, db: Db, clock: ManualClock) -> None:
    add_person(db, "acme@example.com", EMAIL, Role.EDITOR)
    for _ in range(THROTTLE_AFTER):
        assert_error(_attempt(clocked, EMAIL, "wrong password"), 401, "signin_failed")
    assert_error(_attempt(clocked, EMAIL, PASSWORD), 429, "signin_throttled")
    _, token = db.run(lambda session: resets.issue_for_email(session, EMAIL, clock()))
    new = "a brand new password"
    body = {"token": token, "password": new}
    assert clocked.post("/api/v1/auth/password-reset", json=body, headers=SAME_ORIGIN).status_code == 200
    clocked.cookies.clear()
    assert _attempt(clocked, EMAIL, new).status_code == 200  # a new browser, no device cookie: the wait was lifted


def _counts(db: Db) -> int:
    return int(db.run(lambda session: session.scalar(select(func.count()).select_from(SigninAttempt))))


def test_old_counts_start_again_and_are_forgotten(clocked: TestClient, db: Db, clock: ManualClock) -> None:
    add_person(db, "acme@example.com", EMAIL, Role.EDITOR)
    for n in range(THROTTLE_AFTER):
        _attempt(clocked, EMAIL, "wrong password")
        _attempt(clocked, f"guess{n}@example.com", "wrong password")
    assert_error(_attempt(clocked, EMAIL, PASSWORD), 429, "signin_throttled")
    assert _counts(db) == 1 + THROTTLE_AFTER + 1  # the address, each address guessed, and the network
    clock.advance(86400 + 1)
    assert _attempt(clocked, EMAIL, PASSWORD).status_code == 200  # a day later the wait and the count are over
    assert _attempt(clocked, "someone.new@example.com", "wrong password").status_code == 401
    assert _counts(db) == 3  # the counts that ended were forgotten when a new one began
