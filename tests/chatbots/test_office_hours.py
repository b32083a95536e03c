"""Office hours per chatbot (issue 40): the schedule as a pure function (time zones, daylight saving, midnight),
the owner's API (validation with clear errors, another account's chatbot 404), and the hand-off after hours: no
person promised, a form offered instead, the message left stored in the conversation and the inbox, one per offer.
Real app, both databases."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from starlette.testclient import TestClient

from botyard.chatbots.handoff.hours import ScheduleError, checked_week, is_open
from botyard.chatbots.handoff.service import DEFAULT_AFTER_HOURS_MESSAGE
from tests.support.api import Api, assert_error, assert_not_found
from tests.support.handoff import answer_text, desk, office_hours
from tests.support.widget import widget_ask, widget_session

ASKING = "I want to talk to a real person please"
WORKDAYS = {day: [{"start": "09:00", "end": "17:30"}] for day in ("monday", "tuesday", "wednesday", "thursday")}
ALWAYS = {day: [{"start": "00:00", "end": "24:00"}] for day in ("monday", "tuesday", "wednesday", "thursday",
          "friday", "saturday", "sunday")}  # fmt: skip


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


PARIS = {"monday": [["09:00", "12:00"], ["14:00", "18:00"]], "saturday": [["22:00", "24:00"]]}


@pytest.mark.parametrize(
    ("moment", "expected"),
    [
        ("2026-11-30T08:00:00", True),  # Monday 09:00 in Paris (UTC+1 in winter): opens
        ("2026-11-30T07:59:00", False),  # 08:59
        ("2026-11-30T11:00:00", False),  # 12:00: the lunch break starts (an end is not open)
        ("2026-11-30T13:30:00", True),  # 14:30
        ("2026-06-01T07:00:00", True),  # Monday 09:00 in summer (UTC+2): the hours follow the clocks
        ("2026-06-01T16:30:00", False),  # 18:30 in summer
        ("2026-12-05T22:59:00", True),  # Saturday 23:59: open until midnight
        ("2026-12-05T23:00:00", False),  # Sunday 00:00: closed
        ("2026-12-01T10:00:00", False),  # Tuesday: not in the week
    ],
)
def test_a_moment_is_open_in_the_weeks_time_zone(moment: str, expected: bool) -> None:
    assert is_open(PARIS, "Europe/Paris", at(moment)) is expected


@pytest.mark.parametrize(
    ("week", "says"),
    [
        ({"funday": [["09:00", "10:00"]]}, "Unknown day 'funday'"),
        ({"monday": [["17:00", "09:00"]]}, "ends before it starts"),
        ({"monday": [["09:00", "12:00"], ["11:00", "13:00"]]}, "overlaps"),
        ({"monday": [["9:00", "12:00"]]}, "is not a time"),
        ({"monday": [[f"{h:02}:00", f"{h:02}:30"] for h in range(7)]}, "at most 6"),
    ],
)
def test_a_week_that_does_not_read_says_why(week: dict[str, list[list[str]]], says: str) -> None:
    with pytest.raises(ScheduleError, match=says):
        checked_week(week)


def test_a_stored_schedule_that_no_longer_reads_promises_a_person() -> None:
    assert is_open({"monday": [["09:00", "10:00"]]}, "Mars/Olympus", at("2026-12-01T03:00:00"))


def test_office_hours_are_off_until_set_then_kept_as_given(alice: Api, bob: Api) -> None:
    bot = alice.chatbot()["uuid"]
    first = alice.ok(alice.get(f"/chatbot/{bot}/office-hours"))
    assert first == {
        "chatbot_uuid": bot,
        "enabled": False,
        "timezone": "UTC",
        "week": {day: [] for day in ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")},
        "after_hours_message": DEFAULT_AFTER_HOURS_MESSAGE,
        "open_now": True,
        "hand_off_requests": True,  # a request for a person is handed off without an agent (issue 46, item 13)
    }
    changed = office_hours(alice, bot, enabled=True, timezone="America/New_York", week=WORKDAYS)
    assert changed["timezone"] == "America/New_York" and changed["week"]["monday"] == WORKDAYS["monday"]
    assert changed["week"]["friday"] == [] and changed["enabled"]
    kept = office_hours(alice, bot, after_hours_message="We are closed. Write to us!")  # the rest stays
    assert kept == changed | {"after_hours_message": "We are closed. Write to us!", "open_now": kept["open_now"]}
    assert alice.ok(alice.get(f"/chatbot/{bot}/office-hours")) == kept
    assert office_hours(alice, bot, after_hours_message="")["after_hours_message"] == DEFAULT_AFTER_HOURS_MESSAGE
    assert_not_found(bob.get(f"/chatbot/{bot}/office-hours"))
    assert_not_found(bob.post(f"/chatbot/{bot}/office-hours", {"enabled": False}))
    assert_not_found(bob.get(f"/chatbot/{bot}/notifications"))
    assert_not_found(bob.post(f"/chatbot/{bot}/notifications", {"emails": []}))


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"timezone": "Europe/Atlantis"}, "is not a time zone"),
        ({"week": {"monday": [{"start": "18:00", "end": "09:00"}]}}, "ends before it starts"),
        ({"week": {"monday": [{"start": "9am", "end": "5pm"}]}}, "week.monday.0.start"),
        ({"week": {"someday": []}}, "week.someday"),
        ({"after_hours_message": "x" * 2001}, "after_hours_message"),
    ],
)
def test_bad_office_hours_get_a_clear_error(alice: Api, body: dict[str, Any], says: str) -> None:
    bot = alice.chatbot()["uuid"]
    error = assert_error(alice.post(f"/chatbot/{bot}/office-hours", body), 422, "validation_error")
    assert says in error["error"]
    assert alice.ok(alice.get(f"/chatbot/{bot}/office-hours"))["enabled"] is False  # nothing changed


def test_notification_addresses_are_checked_and_kept_once_each(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    given = ["ops@example.com", "Lead@Example.com", "ops@example.com"]
    assert alice.ok(alice.post(f"/chatbot/{bot}/notifications", {"emails": given}))["emails"] == [
        "ops@example.com",
        "Lead@example.com",  # the domain as email-validator normalises it
    ]
    error = assert_error(
        alice.post(f"/chatbot/{bot}/notifications", {"emails": ["not an address"]}), 422, "validation_error"
    )
    assert "emails.0" in error["error"]
    too_many = [f"ops{n}@example.com" for n in range(21)]
    assert_error(alice.post(f"/chatbot/{bot}/notifications", {"emails": too_many}), 422, "validation_error")


def contact(client: TestClient, chat: str, **body: Any) -> Any:
    return client.post(f"/api/v1/widget/session/{chat}/contact", json=body)


def test_after_hours_the_hand_off_offers_a_form_that_reaches_the_inbox(alice: Api, client: TestClient) -> None:
    bot = desk(alice, enabled=True, week={}, after_hours_message="Closed now: leave us a note.")
    chat = widget_session(client, bot)
    assert client.get(f"/api/v1/widget/session/{chat}/contact").json() == {"offered": False, "sent": False}
    assert_error(contact(client, chat, email="ann@example.org", message="Hi"), 409, "contact_form_closed")
    response = widget_ask(client, chat, ASKING)
    assert "Closed now: leave us a note." in answer_text(response)  # no person promised
    assert alice.ok(alice.get(f"/chatbot/{bot}/inbox"))["sessions"] == []  # nobody waits for a person
    assert client.get(f"/api/v1/widget/session/{chat}/contact").json() == {"offered": True, "sent": False}

    assert "email" in assert_error(contact(client, chat, email="ann@", message="Hi"), 422, "validation_error")["error"]
    assert_error(contact(client, chat, email="ann@example.org", message="   "), 422, "validation_error")
    assert_error(contact(client, chat, email="ann@example.org", message="x" * 4001), 422, "validation_error")
    sent = contact(client, chat, email="ann@example.org", message="Please call me back about order 1234.")
    assert sent.status_code == 201 and sent.json() == {"offered": False, "sent": True}
    assert client.get(f"/api/v1/widget/session/{chat}/contact").json() == {"offered": False, "sent": True}
    assert_error(contact(client, chat, email="ann@example.org", message="again"), 409, "contact_form_closed")

    (waiting,) = alice.ok(alice.get(f"/chatbot/{bot}/inbox"))["sessions"]
    assert waiting["uuid"] == chat and waiting["preview"] == "Please call me back about order 1234."
    assert waiting["waiting_since"] is not None
    row = alice.ok(alice.get(f"/session/{chat}/messages"))[-1]
    assert row["query"] == "Please call me back about order 1234." and row["response"] == ""
    assert json.loads(row["meta_json"]) == {"kind": "contact_form", "email": "ann@example.org"}
    shown = client.get(f"/api/v1/widget/session/{chat}/messages").json()[-1]
    assert (shown["role"], shown["text"]) == ("user", "Please call me back about order 1234.")


def test_operators_hear_of_the_offer_and_of_the_message(alice: Api, client: TestClient) -> None:
    bot = desk(alice, enabled=True, week={})
    chat = widget_session(client, bot)
    widget_ask(client, chat, ASKING)
    assert contact(client, chat, email="ann@example.org", message="Call me").status_code == 201
    seen = []
    with alice.client.stream("GET", f"/api/v1/chatbot/{bot}/events", params={"after": 0}, headers=alice.auth) as body:
        for line in body.iter_lines():
            if line.startswith("data: "):
                seen.append(json.loads(line[6:]))
                if seen[-1]["type"] == "contact_form_sent":
                    break
    assert [event["type"] for event in seen] == ["contact_form_offered", "contact_form_sent"]
    assert seen[1]["email"] == "ann@example.org" and seen[1]["message"] == "Call me"


def test_within_office_hours_a_person_is_promised_as_before(alice: Api, client: TestClient) -> None:
    bot = desk(alice, enabled=True, timezone="Pacific/Kiritimati", week=ALWAYS)
    chat = widget_session(client, bot)
    assert "A person will join" in answer_text(widget_ask(client, chat, ASKING))
    assert [item["uuid"] for item in alice.ok(alice.get(f"/chatbot/{bot}/inbox"))["sessions"]] == [chat]
    assert client.get(f"/api/v1/widget/session/{chat}/contact").json() == {"offered": False, "sent": False}
