"""Members' rules under concurrent requests, over real loopback HTTP to a server that handles them at once (on
PostgreSQL a check read before another request's commit used to let both through): two owners demoting or removing
each other leave one owner, and an invitation accepted by eight requests at once makes one member."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2 as httpx
import pytest
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.models import Role
from tests.support.database import Db
from tests.support.live import at_once, live_app, statuses
from tests.support.people import SAME_ORIGIN, Person, person

ROUNDS = 4
"""Pairs of owners per test: each round is a new account whose two owners act at the same moment."""


@pytest.fixture(scope="module")
def live(settings: Settings) -> Iterator[str]:
    with live_app(settings) as base:
        yield base


def _owners(admin_view: Person, live: str) -> list[str]:
    listed = httpx.get(f"{live}/api/v1/account/members", headers=admin_view.headers(), timeout=30)
    assert listed.status_code == 200, listed.text
    return [member["email"] for member in listed.json() if member["role"] == "owner"]


@pytest.mark.parametrize("change", ["demote", "remove"])
def test_two_owners_changing_each_other_at_once_leave_one_owner(
    change: str, live: str, client: TestClient, db: Db
) -> None:
    for round_ in range(ROUNDS):
        account = f"shop{round_}@example.com"
        pair = [person(client, db, account, f"{name}{round_}@example.com", Role.OWNER) for name in ("ann", "bob")]
        witness = person(client, db, account, f"admin{round_}@example.com", Role.ADMIN)

        def send(http: httpx.Client, number: int, pair: list[Person] = pair) -> httpx.Response:
            actor, other = pair[number], pair[1 - number]
            uuid = other.me["user"]["uuid"]
            path, body = ("role", {"role": "admin"}) if change == "demote" else ("remove", None)
            return http.post(f"{live}/api/v1/account/member/{uuid}/{path}", json=body, headers=actor.headers())

        replies = at_once(2, send)
        # One wins. The other is refused: as the last owner (409) when the two overlap, or, when the machine ran
        # them one after the other, because its actor was no longer an owner by then (403) or, removed, no longer a
        # member at all (401: a removed member's sessions end). Never both through.
        late = {"demote": (403, "forbidden_role"), "remove": (401, "unauthorized")}[change]
        refused = statuses(replies)[1]
        assert statuses(replies)[0] == (200, None), [r.text for r in replies]
        assert refused in ((409, "last_owner"), late), [r.text for r in replies]
        assert len(_owners(witness, live)) == 1


def test_an_invitation_accepted_eight_times_at_once_makes_one_member(live: str, client: TestClient, db: Db) -> None:
    admin = person(client, db, "acme@example.com", "admin@example.com", Role.ADMIN)
    invited = admin.ok(admin.post("/account/invitation/create", {"email": "erin@example.com", "role": "editor"}))
    token = invited["link"].split("#invite=", 1)[1]

    def send(http: httpx.Client, number: int) -> httpx.Response:
        body = {"token": token, "name": f"Erin {number}", "password": "a long enough password"}
        return http.post(f"{live}/api/v1/auth/invitation/accept", json=body, headers=SAME_ORIGIN)

    replies = at_once(8, send)
    assert statuses(replies) == [(200, None)] + [(410, "link_invalid")] * 7, [r.text for r in replies]
    members = admin.ok(admin.get("/account/members"))
    assert sorted(m["email"] for m in members) == ["admin@example.com", "erin@example.com"]
