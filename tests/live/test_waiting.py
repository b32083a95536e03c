"""What the dashboard announces on every page (issue 40): the visitors of all the account's chatbots who wait for a
person, the longest waiting first; one an operator took over, or dismissed, no longer waits; another account's never
show. Real app, both databases."""

from __future__ import annotations

from typing import Any

from tests.support.agents import helpdesk
from tests.support.api import Api
from tests.support.chat import ask, new_session

ASKING = "I want to talk to a real person please"


def waiting(api: Api) -> dict[str, Any]:
    found: dict[str, Any] = api.ok(api.get("/inbox/waiting"))
    return found


def test_the_waiting_visitors_of_every_chatbot_of_the_account(alice: Api, bob: Api) -> None:
    shop, desk = helpdesk(alice), helpdesk(alice)
    alice.ok(alice.post(f"/chatbot/{desk}/update", {"name": "Desk"}))
    first, second, taken, quiet = (
        new_session(alice, shop),
        new_session(alice, desk),
        *(new_session(alice, shop) for _ in range(2)),
    )
    ask(alice, quiet, "When will my parcel arrive?")
    assert waiting(alice) == {"waiting": 0, "sessions": []}
    for chat in (first, second, taken):
        ask(alice, chat, ASKING)
    alice.ok(alice.post(f"/session/{taken}/live-chat/start"))
    listed = waiting(alice)
    assert listed["waiting"] == 2
    assert [(item["session_uuid"], item["chatbot_uuid"]) for item in listed["sessions"]] == [
        (first, shop),
        (second, desk),
    ]
    assert listed["sessions"][1]["chatbot_name"] == "Desk" and listed["sessions"][1]["preview"] == ASKING
    assert (
        listed["sessions"][0]["waiting_since"] == alice.ok(alice.get(f"/session/{first}"))["meta"]["human_requested_at"]
    )
    assert waiting(bob) == {"waiting": 0, "sessions": []}
    alice.ok(alice.post(f"/session/{first}/human-request/dismiss"))
    assert [item["session_uuid"] for item in waiting(alice)["sessions"]] == [second]
