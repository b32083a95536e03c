"""Single sign-on with OpenID Connect against a real provider on loopback (`oidc-provider-mock`, its own process),
through the egress client: an existing member signs in with the same session cookies as a password sign-in and is
linked by the provider's subject; the link decides later sign-ins; an unknown or unverified email, a wrong state,
an expired ID token, a provider that cannot be reached or that egress refuses are turned away with a reason and
write nothing; the client secret appears in no log and no reply."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx2 as httpx
import pytest
from pydantic import SecretStr
from sqlalchemy import select
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.db.base import Base
from botyard.main import create_app
from botyard.models import AuditEvent, OidcIdentity, Role, User
from tests.support.api import assert_error
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.oidc_provider import MockProvider, mock_provider
from tests.support.people import SAME_ORIGIN, add_person, person
from tests.support.servers import refusing_port

SECRET = "the-client-secret-Zq9xW2"
ANN = "ann@example.com"


@pytest.fixture(scope="module")
def provider() -> Iterator[MockProvider]:
    with mock_provider() as started:
        yield started


def configured(settings: Settings, discovery_url: str, **more: Any) -> Settings:
    oidc = {"oidc_discovery_url": discovery_url, "oidc_client_id": "botyard", "oidc_client_secret": SecretStr(SECRET)}
    return settings.model_copy(update=oidc | {"oidc_name": "Acme ID"} | more)


@pytest.fixture
def sso(settings: Settings, fake_dns: FakeDns, client: TestClient, provider: MockProvider) -> Iterator[TestClient]:
    """An app with single sign-on at `provider`, on the shared database (wiped by `client`)."""
    app = create_app(configured(settings, provider.discovery_url), resolver=fake_dns)
    with TestClient(app, raise_server_exceptions=False) as browser:
        yield browser


def sign_in_with(sso: TestClient, provider: MockProvider, sub: str | None, *, state: str | None = None) -> Any:
    """A whole sign-in as the provider's `sub` (None: denied at the provider): the callback's reply."""
    start = sso.get("/api/v1/auth/oidc/start", follow_redirects=False)
    assert start.status_code == 303, start.text
    back = urlsplit(provider.authorize(start.headers["location"], sub))
    assert back.path == "/api/v1/auth/oidc/callback"
    query = back.query if state is None else back.query.replace("state=", f"state={state}&was=")
    return sso.get(f"{back.path}?{query}", follow_redirects=False)


def signed_in_as(sso: TestClient, reply: Any) -> dict[str, Any]:
    assert reply.status_code == 303 and reply.headers["location"] == "/dashboard#/chatbots", reply.headers
    me = sso.get("/api/v1/auth/me")
    assert me.status_code == 200, me.text
    sso.cookies.clear()
    body: dict[str, Any] = me.json()
    return body


def refused(reply: Any, reason: str) -> None:
    assert reply.status_code == 303, reply.text
    assert reply.headers["location"] == f"/dashboard#sso={reason}"
    assert "botyard_session" not in reply.cookies


def stored(db: Db) -> dict[str, list[Any]]:
    """Every row of every table: what a refused sign-in must leave as it was."""

    async def read(session: Any) -> dict[str, list[Any]]:
        return {
            table.name: sorted(map(str, (await session.execute(select(table))).all()))
            for table in Base.metadata.sorted_tables
        }

    return db.run(read)


def links(db: Db) -> list[tuple[str, str, str]]:
    async def read(session: Any) -> list[tuple[str, str, str]]:
        rows = (await session.execute(select(OidcIdentity))).scalars().all()
        return [(row.issuer, row.subject, row.user_uuid) for row in rows]

    return db.run(read)


def test_an_existing_member_signs_in_with_the_session_cookies_and_is_linked(
    sso: TestClient, provider: MockProvider, db: Db
) -> None:
    ann = add_person(db, "acme@example.com", ANN, Role.EDITOR)
    provider.user("ann-1", email="Ann@Example.com", email_verified=True, name="Ann")
    start = sso.get("/api/v1/auth/oidc/start", follow_redirects=False)
    cookie = start.headers["set-cookie"].lower()
    assert "botyard_oidc=" in cookie and "httponly" in cookie and "samesite=lax" in cookie
    assert "path=/api/v1/auth/oidc" in cookie and "max-age=600" in cookie
    asked = dict(httpx.URL(start.headers["location"]).params)
    assert asked["code_challenge_method"] == "S256" and asked["response_type"] == "code"
    assert asked["state"] and asked["nonce"] and asked["code_challenge"] and "openid" in asked["scope"].split()
    sso.cookies.clear()

    reply = sign_in_with(sso, provider, "ann-1")
    session_cookies = {line.split("=", 1)[0]: line.lower() for line in reply.headers.get_list("set-cookie")}
    assert "httponly" in session_cookies["botyard_session"] and "samesite=lax" in session_cookies["botyard_csrf"]
    assert "max-age=0" in session_cookies["botyard_oidc"] or 'botyard_oidc=""' in session_cookies["botyard_oidc"]
    me = signed_in_as(sso, reply)
    assert me["user"]["uuid"] == ann and me["role"] == "editor"
    assert links(db) == [(provider.base, "ann-1", ann)]
    statement = select(AuditEvent.action, AuditEvent.actor_email, AuditEvent.summary).where(
        AuditEvent.object_uuid == ann
    )
    recorded = db.run(lambda session: session.execute(statement)).all()
    assert [tuple(row) for row in recorded] == [("signed_in", ANN, f"signed in with single sign-on: {ANN}")]


def test_the_subject_decides_later_sign_ins(
    sso: TestClient, provider: MockProvider, db: Db, settings: Settings
) -> None:
    ann = add_person(db, "acme@example.com", ANN, Role.VIEWER)
    provider.user("ann-2", email=ANN, email_verified=True)
    assert signed_in_as(sso, sign_in_with(sso, provider, "ann-2"))["user"]["uuid"] == ann
    # Her email changes at the provider (not even verified yet): the link still signs her in.
    provider.user("ann-2", email="ann@new-employer.example", email_verified=False)
    assert signed_in_as(sso, sign_in_with(sso, provider, "ann-2"))["user"]["uuid"] == ann
    # Someone else is given her old address: the member is linked to another subject, so they are turned away.
    provider.user("bea-2", email=ANN, email_verified=True)
    before = stored(db)
    refused(sign_in_with(sso, provider, "bea-2"), "linked_elsewhere")
    assert stored(db) == before
    assert links(db) == [(provider.base, "ann-2", ann)]


def test_an_unknown_email_is_refused_and_told_to_ask_for_an_invitation(
    sso: TestClient, provider: MockProvider, db: Db, settings: Settings
) -> None:
    add_person(db, "acme@example.com", ANN, Role.OWNER)
    provider.user("stranger-3", email="stranger@example.com", email_verified=True)
    before = stored(db)
    refused(sign_in_with(sso, provider, "stranger-3"), "unknown_email")
    assert stored(db) == before  # no account, no member, no link
    message = sso.get("/api/v1/auth/oidc").json()["refusals"]["unknown_email"]
    assert "invitation" in message and "owner" in message


def test_an_unverified_email_is_refused(sso: TestClient, provider: MockProvider, db: Db, settings: Settings) -> None:
    add_person(db, "acme@example.com", ANN, Role.EDITOR)
    provider.user("ann-4", email=ANN, email_verified=False)
    provider.user("ann-4b", email=ANN)  # no email_verified claim at all
    before = stored(db)
    refused(sign_in_with(sso, provider, "ann-4"), "email_unverified")
    refused(sign_in_with(sso, provider, "ann-4b"), "email_unverified")
    assert stored(db) == before


def test_a_verified_email_that_passes_for_a_members_is_refused(
    sso: TestClient, client: TestClient, provider: MockProvider, db: Db
) -> None:
    """`Kate@` written with the Kelvin sign lowers to `kate@`: it must sign in neither as the member with that
    address nor by her open invitation."""
    add_person(db, "acme@example.com", "kate@example.com", Role.OWNER)
    owner = person(client, db, "acme@example.com", "owner@example.com", Role.OWNER)
    owner.ok(owner.post("/account/invitation/create", {"email": "kim@example.com", "role": "admin"}))
    provider.user("mallory-1", email="\u212aate@example.com", email_verified=True)
    provider.user("mallory-2", email="\u212aim@example.com", email_verified=True)
    before = stored(db)
    refused(sign_in_with(sso, provider, "mallory-1"), "lookalike_email")
    refused(sign_in_with(sso, provider, "mallory-2"), "lookalike_email")
    assert stored(db) == before  # no link, the invitation still open
    message = sso.get("/api/v1/auth/oidc").json()["refusals"]["lookalike_email"]
    assert "Kelvin sign" in message and "change it at the provider" in message


def test_an_open_invitation_is_accepted_by_its_verified_email(
    sso: TestClient, client: TestClient, provider: MockProvider, db: Db
) -> None:
    owner = person(client, db, "acme@example.com", "owner@example.com", Role.OWNER)
    owner.ok(owner.post("/account/invitation/create", {"email": "ivy@example.com", "role": "operator"}))
    provider.user("ivy-5", email="ivy@example.com", email_verified=True, name="Ivy Green")
    me = signed_in_as(sso, sign_in_with(sso, provider, "ivy-5"))
    assert me["role"] == "operator" and me["user"]["name"] == "Ivy Green"
    assert me["account_uuid"] == owner.me["account_uuid"]
    assert owner.ok(owner.get("/account/invitations")) == []  # used up
    # No password was chosen: none signs her in (a reset link can give her one).
    for password in ("!", "", "a password nobody has, verified when the email is unknown"):
        answer = client.post("/api/v1/auth/sign-in", json={"email": "ivy@example.com", "password": password or "x"})
        assert answer.status_code == 401
    assert signed_in_as(sso, sign_in_with(sso, provider, "ivy-5"))["user"]["uuid"] == me["user"]["uuid"]


def test_a_wrong_or_missing_state_is_refused(
    sso: TestClient, provider: MockProvider, db: Db, settings: Settings
) -> None:
    add_person(db, "acme@example.com", ANN, Role.EDITOR)
    provider.user("ann-6", email=ANN, email_verified=True)
    before = stored(db)
    refused(sign_in_with(sso, provider, "ann-6", state="forged"), "expired")
    # The provider's answer replayed in another browser (no cookie of this sign-in): refused too.
    start = sso.get("/api/v1/auth/oidc/start", follow_redirects=False)
    back = urlsplit(provider.authorize(start.headers["location"], "ann-6"))
    sso.cookies.clear()
    refused(sso.get(f"{back.path}?{back.query}", follow_redirects=False), "expired")
    # A cookie written by hand (not signed by this service) is no better.
    sso.cookies.set("botyard_oidc", "eyJzdGF0ZSI6IngifQ.bm90LXNpZ25lZA", path="/api/v1/auth/oidc")
    refused(sso.get(f"{back.path}?{back.query}", follow_redirects=False), "expired")
    assert stored(db) == before


def test_a_sign_in_denied_at_the_provider_comes_back_cancelled(sso: TestClient, provider: MockProvider) -> None:
    refused(sign_in_with(sso, provider, None), "cancelled")


def test_an_expired_id_token_is_refused(settings: Settings, fake_dns: FakeDns, client: TestClient, db: Db) -> None:
    add_person(db, "acme@example.com", ANN, Role.EDITOR)
    with mock_provider("--token-max-age", "-600") as stale:  # every ID token expired ten minutes ago
        stale.user("ann-7", email=ANN, email_verified=True)
        before = stored(db)
        with TestClient(create_app(configured(settings, stale.discovery_url), resolver=fake_dns)) as sso:
            refused(sign_in_with(sso, stale, "ann-7"), "invalid_token")
        assert stored(db) == before


def test_every_request_to_the_provider_goes_through_egress(
    settings: Settings, fake_dns: FakeDns, client: TestClient, provider: MockProvider
) -> None:
    # The provider on loopback is not allowlisted here: the egress policy refuses it before anything is sent.
    closed = configured(settings, provider.discovery_url, egress_allowlist=[])
    with TestClient(create_app(closed, resolver=fake_dns)) as sso:
        refused(sso.get("/api/v1/auth/oidc/start", follow_redirects=False), "egress_refused")
        message = sso.get("/api/v1/auth/oidc").json()["refusals"]["egress_refused"]
    assert "BOTYARD_EGRESS_ALLOWLIST" in message
    # A provider that does not answer at all (nothing listens on the port).
    with refusing_port() as port:
        gone = configured(settings, f"http://127.0.0.1:{port}/.well-known/openid-configuration")
        with TestClient(create_app(gone, resolver=fake_dns)) as sso:
            refused(sso.get("/api/v1/auth/oidc/start", follow_redirects=False), "unreachable")


def test_the_client_secret_is_in_no_log_and_no_reply(
    sso: TestClient, provider: MockProvider, db: Db, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    add_person(db, "acme@example.com", ANN, Role.EDITOR)
    provider.user("ann-8", email=ANN, email_verified=True)
    provider.user("nobody-8", email="nobody@example.com", email_verified=True)
    replies = [sign_in_with(sso, provider, "ann-8"), sign_in_with(sso, provider, "nobody-8")]
    sso.cookies.clear()
    replies += [sso.get("/api/v1/auth/oidc"), sso.get("/openapi.json")]
    for reply in replies:
        assert SECRET not in reply.text and SECRET not in str(reply.headers)
    assert "single sign-on refused: unknown_email" in caplog.text  # the log does say what happened
    assert SECRET not in caplog.text
    assert SECRET not in repr(configured(Settings(), provider.discovery_url))


def test_without_the_settings_single_sign_on_is_off(client: TestClient) -> None:
    offered = client.get("/api/v1/auth/oidc").json()
    assert offered["enabled"] is False
    body = assert_error(client.get("/api/v1/auth/oidc/start", follow_redirects=False), 404, "not_found")
    assert "BOTYARD_OIDC_DISCOVERY_URL" in body["error"]
    assert_error(client.get("/api/v1/auth/oidc/callback?code=x&state=y", follow_redirects=False), 404, "not_found")


def test_half_a_configuration_or_a_wrong_url_stops_the_start() -> None:
    with pytest.raises(ValueError, match="BOTYARD_OIDC_CLIENT_SECRET"):
        Settings(oidc_discovery_url="https://id.example.com/.well-known/openid-configuration", oidc_client_id="x")
    for url, problem in (
        ("http://id.example.com/.well-known/openid-configuration", "must use https"),  # the secret would go in clear
        ("https://id.example.com/realms/acme", "openid-configuration"),  # the issuer, not its document
    ):
        with pytest.raises(ValueError, match=problem):
            Settings(oidc_discovery_url=url, oidc_client_id="x", oidc_client_secret=SecretStr(SECRET))
    loopback = "http://127.0.0.1:9400/.well-known/openid-configuration"
    assert Settings(oidc_discovery_url=loopback, oidc_client_id="x", oidc_client_secret=SecretStr(SECRET))


def test_a_member_removed_loses_the_link(sso: TestClient, client: TestClient, provider: MockProvider, db: Db) -> None:
    owner = person(client, db, "acme@example.com", "owner@example.com", Role.OWNER)
    ann = add_person(db, "acme@example.com", ANN, Role.EDITOR)
    provider.user("ann-9", email=ANN, email_verified=True)
    signed_in_as(sso, sign_in_with(sso, provider, "ann-9"))
    assert owner.post(f"/account/member/{ann}/remove", headers=SAME_ORIGIN).status_code == 200
    assert links(db) == []
    refused(sign_in_with(sso, provider, "ann-9"), "unknown_email")

    async def users(session: Any) -> list[str]:
        return list((await session.execute(select(User.email))).scalars().all())

    assert db.run(users) == ["owner@example.com"]
