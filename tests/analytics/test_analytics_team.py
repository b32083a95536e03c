"""The team's figures (issue 51, item 4), both databases: a day of conversations made to measure, on the web and on
two channels, handed to two people at known times (the app's clock is the day's evening, so the default period
covers it), whose first response and resolution times, per person and per channel, and buckets that sum to the
conversations are asserted exactly; a live chat through the API is timed from its stored rows; the period and
`channel` as the analytics read them, and another account's chatbot answers 404."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.db.base import Base
from botyard.live.service import flag_for_operators
from botyard.models import ChatSession, Message, Role
from tests.support.api import Api, assert_error
from tests.support.channels import owner_app
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.people import add_person
from tests.support.team_day import HANDED, Conversation, conversation_rows, day_rows
from tests.support.webhook_receiver import Receiver, receiver

DAY = datetime(2026, 7, 14, 9, tzinfo=UTC)
"""The morning the conversations of `tests/support/team_day.py` begin (one an hour)."""
OWNER = "owner@example.com"


@pytest.fixture
def callback() -> Iterator[Receiver]:
    with receiver() as running:
        yield running


@pytest.fixture
def owner(settings: Settings, client: TestClient, fake_dns: FakeDns, issued_keys: list[str]) -> Iterator[Api]:
    """The owner, on an app whose clock reads the day's evening."""
    with owner_app(settings, fake_dns, ManualClock(DAY + timedelta(hours=12)), issued_keys) as own:
        yield own


def generic(api: Api, bot: str, name: str, callback: Receiver) -> str:
    body = {"type": "generic", "name": name, "credentials": {"callback_url": callback.url("/replies")}}
    uuid: str = api.ok(api.post(f"/chatbot/{bot}/channel/create", body))["uuid"]
    return uuid


def write(db: Db, rows: list[tuple[ChatSession, list[Base]]]) -> None:
    async def go(s: AsyncSession) -> None:
        for session, following in rows:
            s.add(session)
            await s.flush()  # the rows that name it come after it
            s.add_all(following)

    db.run(go)


def team(api: Api, bot: str, **params: Any) -> dict[str, Any]:
    found: dict[str, Any] = api.ok(api.get(f"/chatbot/{bot}/analytics/team", params=params))
    return found


def day_setup(owner: Api, db: Db, callback: Receiver) -> tuple[str, dict[str, str | None], dict[str, str]]:
    bot = owner.chatbot()["uuid"]
    channels = {"web": None, "helpdesk": generic(owner, bot, "Helpdesk", callback)}
    channels["shop"] = generic(owner, bot, "Shop", callback)
    people = {name: add_person(db, OWNER, f"{name}@example.com", Role.OPERATOR) for name in ("ada", "grace")}
    long_ago = Conversation("web", HANDED, asked=1, replies=(2,), resolved=3, person="ada")  # before the period
    other = owner.chatbot("Another bot")["uuid"]  # another chatbot's hand-off counts for it only
    theirs = Conversation("web", HANDED, asked=0, replies=(1,), person="ada")
    write(db, day_rows(bot, DAY, channels, people))
    write(db, [conversation_rows(bot, DAY - timedelta(days=40), long_ago, None, people)])
    write(db, [conversation_rows(other, DAY, theirs, None, people)])
    return bot, channels, people


def test_the_teams_times_people_and_channels_over_a_day(owner: Api, db: Db, callback: Receiver) -> None:
    bot, channels, people = day_setup(owner, db, callback)
    found = team(owner, bot)  # the last 30 days up to the app's clock
    assert (found["start"], found["end"], found["channel"]) == ("2026-06-15T00:00:00Z", "2026-07-14T21:00:00Z", None)
    assert (found["conversations"], found["handed_to_person"]) == (11, 6)
    assert (found["answered_by_person"], found["resolved_by_person"], found["unassigned"]) == (5, 4, 1)
    # First responses 240, 60, 120, 600 (from the request kept in the meta), 90 s; the waiting one has none yet.
    assert found["first_response"] == {"count": 5, "median_seconds": 120, "p90_seconds": 600}
    assert found["resolution"] == {"count": 4, "median_seconds": 1200, "p90_seconds": 3600}  # 600, 1200, 1740, 3600
    ada = {"user_uuid": people["ada"], "name": "ada", "conversations": 3, "resolved": 3}
    ada |= {"first_response_median_seconds": 90, "resolution_median_seconds": 1740}
    grace = {"user_uuid": people["grace"], "name": "grace", "conversations": 2, "resolved": 1}
    grace |= {"first_response_median_seconds": 120, "resolution_median_seconds": 1200}
    assert found["people"] == [ada, grace]
    assert sum(person["conversations"] for person in found["people"]) + found["unassigned"] == 6

    buckets = ("resolved_by_bot", "unresolved_by_bot", "handed_to_person", "no_outcome")
    rows = {row["channel"]: row for row in found["by_channel"]}
    assert list(rows) == ["web", channels["helpdesk"], channels["shop"]]
    expected = {
        "web": (4, (1, 1, 1, 1), 1, 240),
        channels["helpdesk"]: (4, (1, 0, 3, 0), 1, 60),  # 60 and 120 s: the lower middle
        channels["shop"]: (3, (0, 0, 2, 1), 2, 90),
    }
    for channel, (conversations, counts, by_person, first) in expected.items():
        row = rows[channel]
        assert (row["conversations"], tuple(row[key] for key in buckets)) == (conversations, counts)
        assert sum(counts) == conversations
        assert (row["resolved_by_person"], row["first_response_median_seconds"]) == (by_person, first)
    assert (rows[channels["shop"]]["type"], rows[channels["shop"]]["name"]) == ("generic", "Shop")

    # The analytics beside it count the same conversations into the same buckets.
    totals = owner.ok(owner.get(f"/chatbot/{bot}/analytics"))["totals"]
    counted = [totals[key] for key in ("resolved", "unresolved", "handed_to_person", "no_outcome")]
    assert counted == [2, 1, 6, 2] and sum(counted) == totals["conversations"] == found["conversations"]
    assert (totals["bot_conversations"], totals["bot_resolution_rate"]) == (3, 0.6667)


def test_a_channel_and_a_period_narrow_the_teams_figures(owner: Api, db: Db, callback: Receiver) -> None:
    bot, channels, people = day_setup(owner, db, callback)
    helpdesk = team(owner, bot, channel=channels["helpdesk"])
    assert (helpdesk["conversations"], helpdesk["handed_to_person"], helpdesk["unassigned"]) == (4, 3, 1)
    assert helpdesk["first_response"] == {"count": 2, "median_seconds": 60, "p90_seconds": 120}
    assert [(person["name"], person["conversations"]) for person in helpdesk["people"]] == [("ada", 1), ("grace", 1)]
    assert [row["channel"] for row in helpdesk["by_channel"]] == [channels["helpdesk"]]
    web = team(owner, bot, channel="web")
    assert (web["handed_to_person"], web["resolution"]["median_seconds"]) == (1, 1740)
    # The morning only (09:00 to 12:59 UTC): the web's four conversations, and the day 40 days before on its own.
    morning = team(owner, bot, start_timestamp="2026-07-14T09:00:00Z", end_timestamp="2026-07-14T12:59:59Z")
    assert (morning["conversations"], morning["handed_to_person"], morning["first_response"]["count"]) == (4, 1, 1)
    before = (DAY - timedelta(days=40)).date().isoformat()
    long_ago = team(owner, bot, start_timestamp=before, end_timestamp=f"{before}T23:59:59Z")
    assert long_ago["first_response"] == {"count": 1, "median_seconds": 60, "p90_seconds": 60}
    assert long_ago["people"][0]["user_uuid"] == people["ada"]
    empty = team(owner, bot, start_timestamp="2026-07-01", end_timestamp="2026-07-01T23:59:59Z")
    assert empty["first_response"] == {"count": 0, "median_seconds": None, "p90_seconds": None}
    assert (empty["people"], empty["handed_to_person"]) == ([], 0)


def test_a_live_chat_through_the_api_is_timed_from_its_rows(alice: Api, bob: Api, db: Db) -> None:
    """A visitor asks for a person (the live service's own flag, dated five minutes ago); an operator takes the
    conversation over and replies through the API: the start announcement is no reply, the reply is; the hand-off
    is timed from the request, not from the take-over."""
    bot = alice.chatbot()["uuid"]
    chat = alice.ok(alice.post(f"/chatbot/{bot}/session/create"))["uuid"]
    asked = datetime.now(UTC) - timedelta(minutes=5)
    assert db.run(lambda s: flag_for_operators(s, chat, asked, reason="visitor_asked"))
    alice.ok(alice.post(f"/session/{chat}/live-chat/start"))  # the outcome: handed off
    alice.ok(alice.post(f"/session/{chat}/live-chat/message", {"text": "Hello, how can I help?"}))

    async def replied(s: AsyncSession) -> datetime:
        rows = (await s.scalars(select(Message).where(Message.session_uuid == chat, Message.query == ""))).all()
        return next(row.created_at for row in rows if row.meta.get("kind") == "operator")

    waited = round((db.run(replied) - asked).total_seconds())
    assert 290 <= waited <= 360
    found = team(alice, bot)
    assert (found["conversations"], found["handed_to_person"], found["answered_by_person"]) == (1, 1, 1)
    assert found["first_response"] == {"count": 1, "median_seconds": waited, "p90_seconds": waited}
    assert (found["resolved_by_person"], found["resolution"]["count"], found["unassigned"]) == (0, 0, 1)
    path = f"/chatbot/{bot}/analytics/team"
    assert_error(bob.get(path), 404, "not_found")
    assert_error(alice.get(path, params={"channel": "telegram"}), 422, "validation_error")
    assert_error(alice.get(path, params={"channel": "0" * 32}), 404, "not_found")
    assert_error(alice.get(path, params={"timezone": "Mars/Olympus_Mons"}), 422, "validation_error")
