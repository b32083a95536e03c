"""Every way into the dashboard opens its browser session through one function (`identity/browser_sessions/
opening.py`): a password sign-in, an invitation accepted and a reset link each set the same two cookies, lasting
the one setting `BOTYARD_SESSION_DAYS`, and a flow that runs its transaction again sets one pair, not two."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from starlette.requests import Request
from starlette.responses import Response
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.identity.browser_sessions import cookies
from botyard.main import create_app
from botyard.models import Role
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.people import PASSWORD, SAME_ORIGIN, add_person, person

ACME = "acme@example.com"
NEW_PASSWORD = "a brand new passphrase"


def _cookies(response: object) -> dict[str, str]:
    lines = response.headers.get_list("set-cookie")  # type: ignore[attr-defined]
    return {line.split("=", 1)[0]: line.lower() for line in lines}


def _token(link: str, kind: str) -> str:
    return link.split(f"#{kind}=", 1)[1]


def test_every_way_in_sets_the_same_cookies_for_the_one_lifetime(
    settings: Settings, fake_dns: FakeDns, db: Db, client: TestClient
) -> None:
    app = create_app(settings.model_copy(update={"session_days": 3}), resolver=fake_dns)
    with TestClient(app) as browser:
        admin = person(browser, db, ACME, "admin@example.com", Role.ADMIN)
        editor_uuid = add_person(db, ACME, "editor@example.com", Role.EDITOR)
        invited = admin.ok(admin.post("/account/invitation/create", {"email": "erin@example.com", "role": "viewer"}))
        reset = admin.ok(admin.post(f"/account/member/{editor_uuid}/reset-link"))
        ways_in = {
            "password": ("/api/v1/auth/sign-in", {"email": "editor@example.com", "password": PASSWORD}),
            "invitation": (
                "/api/v1/auth/invitation/accept",
                {"token": _token(invited["link"], "invite"), "name": "Erin", "password": NEW_PASSWORD},
            ),
            "reset": (
                "/api/v1/auth/password-reset",
                {"token": _token(reset["link"], "reset"), "password": NEW_PASSWORD},
            ),
        }
        for way, (path, body) in ways_in.items():
            browser.cookies.clear()
            response = browser.post(path, json=body, headers=SAME_ORIGIN)
            assert response.status_code == 200, (way, response.text)
            lines = _cookies(response)
            assert {"botyard_session", "botyard_csrf"} <= set(lines), way
            for name in ("botyard_session", "botyard_csrf"):
                assert f"max-age={3 * 86400}" in lines[name] and "path=/" in lines[name], (way, lines[name])
            assert len(response.headers.get_list("set-cookie")) == len(lines), way  # one line per cookie


def test_setting_the_cookies_again_replaces_the_first_pair() -> None:
    request = Request({"type": "http", "scheme": "https", "server": ("testserver", 443), "path": "/", "headers": []})
    response, now = Response(), datetime(2026, 1, 1, tzinfo=UTC)
    response.set_cookie("elsewhere", "kept")
    for attempt in ("first", "second"):  # a transaction run again, as single sign-on's on a race
        token, csrf = f"{attempt}-token", f"{attempt}-csrf"
        cookies.set_session(response, request, token=token, csrf=csrf, expires_at=now + timedelta(days=1), now=now)
    lines = [value.decode() for key, value in response.raw_headers if key == b"set-cookie"]
    assert [line.split(";")[0] for line in lines] == [
        "elsewhere=kept",
        "botyard_session=second-token",
        "botyard_csrf=second-csrf",
    ]
