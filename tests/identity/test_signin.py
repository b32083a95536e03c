"""Dashboard sign-in: email and password give a session cookie (HttpOnly, SameSite, Secure over https) whose token
is stored hashed and expires; sign-out ends it, "everywhere" ends them all; changes signed by the cookie must come
from the dashboard's own pages with its cross-site token; wrong passwords slow sign-in down."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.identity.signin.password import THROTTLE_AFTER, wait_after
from botyard.main import create_app
from botyard.models import Role
from tests.support.api import Api, assert_error
from tests.support.clock import ManualClock
from tests.support.database import Db, database_dump
from tests.support.fake_dns import FakeDns
from tests.support.people import PASSWORD, SAME_ORIGIN, Person, add_person, person, sign_in

EMAIL = "editor@example.com"


def _cookie_lines(response: object) -> dict[str, str]:
    headers = response.headers.get_list("set-cookie")  # type: ignore[attr-defined]
    return {line.split("=", 1)[0]: line for line in headers}


def test_sign_in_sets_a_protected_cookie_and_tells_who(client: TestClient, db: Db) -> None:
    add_person(db, "acme@example.com", EMAIL, Role.EDITOR)
    response = client.post("/api/v1/auth/sign-in", json={"email": " Editor@Example.com ", "password": PASSWORD})
    client.cookies.clear()
    assert response.status_code == 200, response.text
    me = response.json()
    assert me["role"] == "editor" and me["user"]["email"] == EMAIL
    assert "knowledge" in me["permissions"] and "manage" not in me["permissions"]
    cookies = _cookie_lines(response)
    session, csrf = cookies["botyard_session"].lower(), cookies["botyard_csrf"].lower()
    for line in (session, csrf):
        assert "samesite=lax" in line and "path=/" in line and "max-age=1209600" in line
        assert "secure" not in line  # plain http: a Secure cookie would never come back
    assert "httponly" in session and "httponly" not in csrf  # the dashboard's scripts read the token, not the session
    token = response.cookies["botyard_session"]
    assert token not in response.text and response.cookies["botyard_csrf"] not in response.text


def test_over_https_the_cookies_are_secure(settings: Settings, fake_dns: FakeDns, db: Db, client: TestClient) -> None:
    add_person(db, "acme@example.com", EMAIL, Role.EDITOR)
    # An app of its own: entering the shared client's app again would run (and end) its lifespan a second time.
    app = create_app(settings, resolver=fake_dns)
    with TestClient(app, base_url="https://testserver") as https:
        response = https.post("/api/v1/auth/sign-in", json={"email": EMAIL, "password": PASSWORD})
    assert response.status_code == 200
    assert all("secure" in line.lower() for line in _cookie_lines(response).values())


def test_behind_a_trusted_proxy_that_says_https_the_cookies_are_secure(
    settings: Settings, fake_dns: FakeDns, db: Db, client: TestClient
) -> None:
    add_person(db, "acme@example.com", EMAIL, Role.EDITOR)
    proxied = create_app(settings.model_copy(update={"trusted_proxies": ["127.0.0.1"]}), resolver=fake_dns)
    body = {"email": EMAIL, "password": PASSWORD}
    for peer, secure in ((("127.0.0.1", 5000), True), (("192.0.2.9", 5000), False)):  # a proxy; anyone else
        with TestClient(proxied, client=peer) as behind:
            response = behind.post("/api/v1/auth/sign-in", json=body, headers={"X-Forwarded-Proto": "https"})
        assert response.status_code == 200, response.text
        lines = _cookie_lines(response).values()
        assert all(("secure" in line.lower()) is secure for line in lines), (peer, lines)


def test_the_cookie_signs_requests_like_a_key(client: TestClient, db: Db) -> None:
    editor = person(client, db, "acme@example.com", EMAIL, Role.EDITOR)
    assert editor.ok(editor.get("/auth/me"))["user"]["email"] == EMAIL
    assert editor.ok(editor.get("/chatbots")) == []
    assert_error(client.get("/api/v1/chatbots"), 401, "unauthorized")  # no cookie, no key


def test_wrong_password_and_unknown_email_answer_alike(client: TestClient, db: Db) -> None:
    add_person(db, "acme@example.com", EMAIL, Role.EDITOR)
    wrong = client.post("/api/v1/auth/sign-in", json={"email": EMAIL, "password": "not the password"})
    unknown = client.post("/api/v1/auth/sign-in", json={"email": "nobody@example.com", "password": PASSWORD})
    assert assert_error(wrong, 401, "signin_failed") == assert_error(unknown, 401, "signin_failed")
    assert "set-cookie" not in wrong.headers


def test_sign_out_ends_this_session_only(client: TestClient, db: Db) -> None:
    add_person(db, "acme@example.com", EMAIL, Role.EDITOR)
    first, second = sign_in(client, EMAIL), sign_in(client, EMAIL)
    response = first.post("/auth/sign-out")
    assert first.ok(response) == {"ended": 1}
    assert all("max-age=0" in line.lower() for line in _cookie_lines(response).values())
    assert_error(first.get("/chatbots"), 401, "unauthorized")
    assert second.get("/chatbots").status_code == 200


def test_sign_out_everywhere_ends_every_session(client: TestClient, db: Db) -> None:
    add_person(db, "acme@example.com", EMAIL, Role.EDITOR)
    browsers = [sign_in(client, EMAIL) for _ in range(3)]
    assert browsers[0].ok(browsers[0].post("/auth/sign-out-everywhere")) == {"ended": 3}
    for browser in browsers:
        assert_error(browser.get("/chatbots"), 401, "unauthorized")
    assert sign_in(client, EMAIL).get("/chatbots").status_code == 200  # signing in again works


def test_a_cross_site_post_with_the_cookie_is_refused(client: TestClient, db: Db) -> None:
    admin = person(client, db, "acme@example.com", "admin@example.com", Role.ADMIN)
    create = {"name": "planted by another site"}
    for headers in (
        {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"},
        {"Sec-Fetch-Site": "same-site", "Origin": "https://evil.testserver"},
        {"Sec-Fetch-Site": "", "Origin": "https://evil.example"},
    ):
        sent = admin.headers() | headers
        if not headers["Sec-Fetch-Site"]:
            del sent["Sec-Fetch-Site"]  # an older browser: only Origin says where the request comes from
        response = client.post("/api/v1/chatbot/create", json=create, headers=sent)
        assert_error(response, 403, "csrf_refused")
    # A same-origin request without the token (a form, or a script that cannot read the cookie) or with another.
    missing = client.post("/api/v1/chatbot/create", json=create, headers=admin.headers(csrf=False))
    assert_error(missing, 403, "csrf_refused")
    forged = client.post("/api/v1/chatbot/create", json=create, headers=admin.headers() | {"X-Botyard-CSRF": "x" * 43})
    assert_error(forged, 403, "csrf_refused")
    assert admin.ok(admin.get("/chatbots")) == []  # nothing was made
    assert admin.ok(admin.post("/chatbot/create", create))["name"] == create["name"]


def test_a_cross_site_sign_in_is_refused(client: TestClient, db: Db) -> None:
    add_person(db, "acme@example.com", EMAIL, Role.EDITOR)
    headers = {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}
    response = client.post("/api/v1/auth/sign-in", json={"email": EMAIL, "password": PASSWORD}, headers=headers)
    assert_error(response, 403, "csrf_refused")
    assert "set-cookie" not in response.headers


def test_a_key_needs_no_cross_site_token(alice: Api, client: TestClient) -> None:
    response = client.post(
        "/api/v1/chatbot/create", json={"name": "bot"}, headers=alice.auth | {"Sec-Fetch-Site": "cross-site"}
    )
    assert response.status_code == 200  # a browser never adds an Authorization header on its own


def test_session_tokens_are_stored_hashed(client: TestClient, db: Db, settings: Settings) -> None:
    editor = person(client, db, "acme@example.com", EMAIL, Role.EDITOR)
    dump = database_dump(settings)
    assert editor.session not in dump and editor.csrf not in dump and PASSWORD not in dump
    assert "$argon2id$" in dump


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def clocked(settings: Settings, client: TestClient, fake_dns: FakeDns, clock: ManualClock) -> Iterator[TestClient]:
    """A second app on the test database, counting time by `clock`."""
    with TestClient(create_app(settings, resolver=fake_dns, clock=clock), raise_server_exceptions=False) as app:
        yield app


def test_a_session_expires(clocked: TestClient, db: Db, clock: ManualClock) -> None:
    add_person(db, "acme@example.com", EMAIL, Role.EDITOR)
    browser = sign_in(clocked, EMAIL)
    clock.advance(14 * 86400 - 60)
    assert browser.get("/chatbots").status_code == 200
    clock.advance(61)
    assert_error(browser.get("/chatbots"), 401, "unauthorized")


def test_wrong_passwords_slow_sign_in_down(clocked: TestClient, db: Db, clock: ManualClock) -> None:
    add_person(db, "acme@example.com", EMAIL, Role.EDITOR)

    def attempt(password: str) -> object:
        return clocked.post("/api/v1/auth/sign-in", json={"email": EMAIL, "password": password}, headers=SAME_ORIGIN)

    for _ in range(THROTTLE_AFTER):
        assert_error(attempt("wrong password"), 401, "signin_failed")  # type: ignore[arg-type]
    throttled = attempt(PASSWORD)  # the right one too: guessing must not go on
    assert_error(throttled, 429, "signin_throttled")  # type: ignore[arg-type]
    assert throttled.headers["retry-after"] == "30"  # type: ignore[attr-defined]
    clock.advance(30)
    assert_error(attempt("wrong again"), 401, "signin_failed")  # type: ignore[arg-type]
    assert_error(attempt(PASSWORD), 429, "signin_throttled")  # type: ignore[arg-type]
    clock.advance(60)  # the wait doubled
    assert attempt(PASSWORD).status_code == 200  # type: ignore[attr-defined]
    clocked.cookies.clear()
    assert_error(attempt("wrong password"), 401, "signin_failed")  # type: ignore[arg-type]
    assert attempt(PASSWORD).status_code == 200  # type: ignore[attr-defined] # the right one cleared the count
    clocked.cookies.clear()


def test_the_wait_grows_to_a_bound() -> None:
    waits = [wait_after(failures) for failures in range(THROTTLE_AFTER + 12)]
    assert waits[:THROTTLE_AFTER] == [None] * THROTTLE_AFTER
    seconds = [wait.total_seconds() for wait in waits[THROTTLE_AFTER:] if wait is not None]
    assert seconds[:4] == [30, 60, 120, 240] and max(seconds) == 900 and seconds == sorted(seconds)
    assert wait_after(10_000) is not None and wait_after(10_000).total_seconds() == 900  # type: ignore[union-attr]


def test_a_person_is_not_a_key(client: TestClient, db: Db) -> None:
    editor: Person = person(client, db, "acme@example.com", EMAIL, Role.EDITOR)
    bad = {"Authorization": "Bearer nonsense"}  # a header that is there must be a valid key, cookie or not
    assert_error(client.get("/api/v1/chatbots", headers=editor.headers() | bad), 401, "unauthorized")
