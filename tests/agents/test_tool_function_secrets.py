"""A tool function's header values are credentials: no reply shows one, to any role or to an API key; each is
shown masked, and a mask sent back keeps the stored value (the call itself: `test_tool_calls.py`)."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from botyard.models import Role, ToolFunction
from tests.support.agents import make_agent
from tests.support.api import Api, assert_error
from tests.support.database import Db
from tests.support.people import person

ACCOUNT = "alice@example.com"
SECRET = "Bearer sk-live-4f2a9c1e7b3d8a6f0e5c"
SHORT = "tiny-key"
URL = "https://api.example.com/orders"


def _plant(alice: Api) -> tuple[str, str, dict[str, Any]]:
    """A chatbot whose agent has a function with a long and a short secret header: (chatbot, agent, function)."""
    bot = alice.chatbot()["uuid"]
    agent = make_agent(alice, bot)["uuid"]
    body = {"name": "get_order", "external_url": URL, "headers": {"Authorization": SECRET, "X-Key": SHORT}}
    function = alice.ok(alice.post(f"/agent/{agent}/function/create", body))
    return bot, agent, function


def _leaks(text: str) -> list[str]:
    """The parts of the secrets a reply must never carry (a long one's last four characters may show)."""
    return [part for part in (SECRET, SECRET[:-4], "sk-live", SHORT) if part in text]


def _stored(db: Db, uuid: str) -> dict[str, Any]:
    async def go(session: Any) -> dict[str, Any]:
        function = await session.get(ToolFunction, uuid)
        return dict(function.headers)

    return db.run(go)


@pytest.mark.parametrize("role", [Role.VIEWER, Role.OPERATOR, Role.EDITOR, Role.ADMIN, Role.OWNER, "key"])
def test_no_role_reads_a_header_value(client: TestClient, db: Db, alice: Api, role: Role | str) -> None:
    bot, agent, created = _plant(alice)
    caller = alice if role == "key" else person(client, db, ACCOUNT, f"{role}@example.com", Role(role))
    replies = [caller.get(f"/agent/{agent}"), caller.get(f"/chatbot/{bot}/agents")]
    if role in (Role.EDITOR, Role.ADMIN, Role.OWNER, "key"):  # they may change agents: their replies too
        another = {"name": "other", "external_url": URL, "headers": {"A": SECRET}}
        replies += [
            caller.post(f"/function/{created['uuid']}/update", {"description": "Finds an order"}),
            caller.post(f"/agent/{agent}/update", {"prompt": "Be brief."}),
            caller.post(f"/agent/{agent}/function/create", another),
        ]
    for reply in replies:
        assert reply.status_code == 200, (role, reply.request.url, reply.text)
        assert not _leaks(reply.text), (role, reply.request.url, _leaks(reply.text))
    [shown] = [f for f in caller.ok(caller.get(f"/agent/{agent}"))["tool_functions"] if f["name"] == "get_order"]
    assert shown["headers"] == {"Authorization": "********" + SECRET[-4:], "X-Key": "********"}
    assert created["headers"] == shown["headers"]  # the maker's own reply showed the masks too


def test_a_mask_sent_back_keeps_the_value_and_a_new_value_replaces_it(alice: Api, db: Db) -> None:
    _, agent, function = _plant(alice)
    path = f"/function/{function['uuid']}/update"
    # The dashboard's edit form sends back every field as it read it, headers included.
    read = alice.ok(alice.get(f"/agent/{agent}"))["tool_functions"][0]
    editable = ("name", "description", "method", "external_url", "parameters", "headers", "enabled")
    alice.ok(alice.post(path, {key: read[key] for key in editable} | {"description": "edited"}))
    assert _stored(db, function["uuid"]) == {"Authorization": SECRET, "X-Key": SHORT}
    # One value changed, one kept, one header dropped by leaving it out, one added.
    changed = {"Authorization": "Bearer sk-live-new-value-0000000000", "X-New": "plain"}
    shown = alice.ok(alice.post(path, {"headers": changed | {"X-Key": "********"}}))["headers"]
    assert _stored(db, function["uuid"]) == changed | {"X-Key": SHORT}
    assert shown == {"Authorization": "********0000", "X-New": "********", "X-Key": "********"}
    alice.ok(alice.post(path, {"headers": {"Authorization": "********0000"}}))
    assert _stored(db, function["uuid"]) == {"Authorization": changed["Authorization"]}


@pytest.mark.parametrize(
    "headers",
    [
        {"X-Renamed": "********"},  # a header with no stored value to keep
        {"Authorization": "********abcd"},  # the mask of some other value
        {"X-Key": "********" + SECRET[-4:]},  # another header's mask
    ],
)
def test_a_mask_that_is_not_the_headers_own_is_refused(alice: Api, db: Db, headers: dict[str, str]) -> None:
    _, agent, function = _plant(alice)
    update = alice.post(f"/function/{function['uuid']}/update", {"headers": headers})
    refused = assert_error(update, 422, "validation_error")
    assert [detail["field"] for detail in refused["details"]] == [f"headers.{next(iter(headers))}"]
    assert refused["details"][0]["type"] == "masked_value"
    assert _stored(db, function["uuid"]) == {"Authorization": SECRET, "X-Key": SHORT}
    body = {"name": "copy", "external_url": URL, "headers": {"Authorization": "********"}}
    assert_error(alice.post(f"/agent/{agent}/function/create", body), 422, "validation_error")
