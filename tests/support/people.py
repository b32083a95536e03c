"""People signed in to the dashboard, on the shared test client: each keeps its own cookies (the client's jar is
emptied after every sign-in, so that no other test sends them by accident) and sends them as a browser of the
dashboard would, with the cross-site token header."""

from __future__ import annotations

from typing import Any

import httpx2 as httpx
from starlette.testclient import TestClient

from botyard.identity import passwords
from botyard.identity.accounts.service import get_or_create_account
from botyard.identity.users import members
from botyard.models import Role
from tests.support.database import Db

PASSWORD = "correct horse battery"
SAME_ORIGIN = {"Sec-Fetch-Site": "same-origin", "Origin": "http://testserver"}


class Person:
    """A signed-in person: requests carry the session cookie, and changes the `X-Botyard-CSRF` token."""

    def __init__(self, client: TestClient, session: str, csrf: str, me: dict[str, Any]) -> None:
        self.client = client
        self.session = session
        self.csrf = csrf
        self.me = me

    def headers(self, *, csrf: bool = True, **extra: str) -> dict[str, str]:
        headers = {"Cookie": f"botyard_session={self.session}; botyard_csrf={self.csrf}", **SAME_ORIGIN}
        if csrf:
            headers["X-Botyard-CSRF"] = self.csrf
        return headers | extra

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = self.headers() | kwargs.pop("headers", {})
        response = self.client.request(method, f"/api/v1{path}", headers=headers, **kwargs)
        self.client.cookies.clear()
        return response

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, json: Any = None, **kwargs: Any) -> httpx.Response:
        return self.request("POST", path, json=json, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("DELETE", path, **kwargs)

    def ok(self, response: httpx.Response) -> Any:
        assert response.status_code == 200, (response.status_code, response.text)
        return response.json()


def add_person(db: Db, account_email: str, email: str, role: Role, password: str = PASSWORD) -> str:
    """A member of the account of `account_email` (made if needed), straight through the service; their uuid."""

    async def add(session: Any) -> str:
        account = await get_or_create_account(session, account_email)
        password_hash = await passwords.hash_password(password)
        user = await members.add(
            session,
            account.uuid,
            email=email,
            name=email.split("@")[0],
            password_hash=password_hash,
            role=role,
            now=account.created_at,
        )
        return user.uuid

    return db.run(add)


def sign_in(client: TestClient, email: str, password: str = PASSWORD) -> Person:
    response = client.post("/api/v1/auth/sign-in", json={"email": email, "password": password}, headers=SAME_ORIGIN)
    assert response.status_code == 200, (response.status_code, response.text)
    session, csrf = response.cookies["botyard_session"], response.cookies["botyard_csrf"]
    client.cookies.clear()
    return Person(client, session, csrf, response.json())


def person(client: TestClient, db: Db, account_email: str, email: str, role: Role) -> Person:
    """A new member of the account, signed in."""
    add_person(db, account_email, email, role)
    return sign_in(client, email)
