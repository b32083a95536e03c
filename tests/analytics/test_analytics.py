"""A chatbot's analytics (issue 20, item 2): a scripted day's exact counts per owner's day, on both databases,
with the time zone moving a late-evening question to the owner's day; the answer pipeline stores the first-byte
time it measured; 404 across accounts, 422 on a bad period."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.models import ChatbotEvent, ChatSession, Message, MessageFeedback
from tests.support.api import Api, assert_error
from tests.support.chat import ask, new_session
from tests.support.database import Db

DAY = datetime(2026, 7, 14, tzinfo=UTC)
"""The scripted day: a Tuesday in summer (New York is UTC-4)."""
HOURS = "What are your opening hours?"
SHIPPING = "Do you ship to Canada?"
OPENING = {"data_source_uuid": "a" * 32, "title": "Opening hours", "text": "9 to 5", "file_name": None, "type": "qa"}
DELIVERY = {"data_source_uuid": "b" * 32, "title": "Delivery", "text": "EU only", "file_name": None, "type": "qa"}
_STARTS = {"a": 13.0, "b": 15.0, "c": 20.0, "d": 26.5}
"""The conversations' start, in hours after midnight UTC on the 14th."""


def _at(hours: float) -> datetime:
    return DAY + timedelta(hours=hours)


def _answer(query: str, hours: float, ms: int | None, cited: dict[str, Any] | None = None, **fields: Any) -> Message:
    values: dict[str, Any] = {"response": "An answer.", "first_byte_ms": ms, "cite_data": cited or {}}
    return Message(query=query, created_at=_at(hours), **{**values, **fields})


def script_day(db: Db, bot: str) -> dict[str, str]:
    """Four conversations of the 14th in New York, the last one at 22:30 there (02:30 UTC on the 15th)."""

    async def go(s: AsyncSession) -> dict[str, str]:
        sessions = {name: ChatSession(chatbot_uuid=bot, meta={}, created_at=_at(h)) for name, h in _STARTS.items()}
        s.add_all(sessions.values())
        await s.flush()
        rows = {
            "a1": _answer(HOURS, 13.1, 100, {"1": OPENING}),
            "a2": _answer(HOURS.lower().rstrip("?"), 13.2, 300, {"1": OPENING, "2": DELIVERY, "3": OPENING}),
            "a3": _answer(SHIPPING, 13.3, 50, refused=True),
            "b1": _answer(SHIPPING, 15.1, 60, refused=True),
            "b2": _answer("Where is the shop?", 15.2, 200, {"1": DELIVERY}),
            "b3": _answer("Can I talk to a person?", 16.2, None, response=""),  # a live chat's user message
            "b4": _answer("", 16.3, None, response="Hello, Sam here."),  # the operator's reply: not a question
            "c1": _answer("Hi", 20.1, 20, state="streaming"),  # still streaming: asked, neither answered nor refused
            "d1": _answer(HOURS, 26.6, 400, {"1": OPENING}),  # 22:36 in New York
            "late": _answer(HOURS, 60, 999, {"1": DELIVERY}),  # the 16th: outside the period
        }
        for name, row in rows.items():
            row.session_uuid = sessions[name[0] if name != "late" else "d"].uuid
        s.add_all(rows.values())
        await s.flush()
        for name, rating, hours in (("a1", "up", 14), ("b2", "up", 15.5), ("a3", "down", 27)):
            s.add(MessageFeedback(message_uuid=rows[name].uuid, chatbot_uuid=bot, rating=rating, created_at=_at(hours)))
        events = (("b", "human_requested", 16), ("b", "live_chat_started", 16.1), ("a", "user_message", 13.1))
        for name, kind, hours in events:  # b is handed off (twice: one hand-off); a's event is not one
            s.add(ChatbotEvent(chatbot_uuid=bot, session_uuid=sessions[name].uuid, kind=kind, created_at=_at(hours)))
        return {name: row.uuid for name, row in sessions.items()}

    return db.run(go)


def analytics(api: Api, bot: str, **params: Any) -> dict[str, Any]:
    found: dict[str, Any] = api.ok(api.get(f"/chatbot/{bot}/analytics", params=params))
    return found


def test_a_scripted_day_in_the_owners_time_zone(alice: Api, bob: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    script_day(db, bot)
    script_day(db, bob.chatbot()["uuid"])  # another chatbot's day counts for it only
    new_york = {"timezone": "America/New_York"}
    found = analytics(
        alice, bot, start_timestamp="2026-07-14T00:00-04:00", end_timestamp="2026-07-14T23:59:59-04:00", **new_york
    )
    assert (found["start"], found["end"], found["timezone"]) == (
        "2026-07-14T04:00:00Z",
        "2026-07-15T04:00:00Z",
        "America/New_York",
    )
    figures = {
        "conversations": 4,  # d at 22:30 here
        "messages": 8,  # every message with a question; not the operator's reply
        "answered": 4,  # a1, a2, b2, d1
        "refused": 2,  # a3, b1
        "handed_off": 1,  # asked for a person, then taken over: one conversation
        "resolved": 0,  # scripted rows carry no outcome (test_outcomes.py has answered ones)
        "unresolved": 0,
        "handed_to_person": 0,
        "no_outcome": 4,  # so every conversation is in the bucket of those without one
        "bot_conversations": 0,
        "bot_resolution_rate": None,
        "resolution_rate": None,
        "feedback_up": 2,
        "feedback_down": 1,  # given at 03:00 UTC on the 15th: 23:00 on the 14th here
        "feedback_ratio": 0.6667,
        "first_byte_p50_ms": 100,  # 20, 50, 60, 100, 200, 300, 400: the 4th of 7
        "first_byte_p95_ms": 400,
    }
    assert found["totals"] == figures
    assert found["days"] == [{"date": "2026-07-14", **figures}]
    assert found["top_questions"] == [
        {"question": HOURS, "count": 3},  # three wordings of one question, shown as most asked
        {"question": SHIPPING, "count": 2},
        {"question": "Hi", "count": 1},  # asked last of the once-asked
        {"question": "Can I talk to a person?", "count": 1},
        {"question": "Where is the shop?", "count": 1},
    ]
    assert found["top_sources"] == [
        {"data_source_uuid": "a" * 32, "title": "Opening hours", "count": 3},  # cited twice by a2: one answer
        {"data_source_uuid": "b" * 32, "title": "Delivery", "count": 2},
    ]


def test_utc_days_put_the_late_evening_on_the_next_day(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    script_day(db, bot)
    found = analytics(alice, bot, start_timestamp="2026-07-14", end_timestamp="2026-07-15T23:59:59Z")
    [first, second] = found["days"]
    assert (first["date"], second["date"]) == ("2026-07-14", "2026-07-15")
    assert [first[key] for key in ("conversations", "messages", "answered", "refused", "handed_off")] == [3, 7, 3, 2, 1]
    assert [second[key] for key in ("conversations", "messages", "answered", "refused", "handed_off")] == [
        1,
        1,
        1,
        0,
        0,
    ]
    assert (first["feedback_up"], first["feedback_down"], second["feedback_down"]) == (2, 0, 1)
    assert (first["first_byte_p50_ms"], first["first_byte_p95_ms"], second["first_byte_p50_ms"]) == (60, 300, 400)
    assert second["feedback_ratio"] == 0.0 and first["feedback_ratio"] == 1.0
    assert found["totals"]["conversations"] == 4 and found["totals"]["messages"] == 8


def test_days_follow_a_daylight_saving_change(alice: Api, db: Db) -> None:
    """Paris leaves UTC+1 for UTC+2 at 01:00Z on 29 March 2026: each side of it is counted with its own offset."""
    bot = alice.chatbot()["uuid"]
    moments = ("2026-03-28T23:30:00Z", "2026-03-29T21:30:00Z", "2026-03-29T22:30:00Z")  # 29th, 29th, 30th in Paris

    async def go(s: AsyncSession) -> None:
        s.add_all(ChatSession(chatbot_uuid=bot, meta={}, created_at=datetime.fromisoformat(at)) for at in moments)

    db.run(go)
    found = analytics(alice, bot, start_timestamp="2026-03-28", end_timestamp="2026-03-31", timezone="Europe/Paris")
    by_day = {day["date"]: day["conversations"] for day in found["days"]}
    assert by_day == {"2026-03-28": 0, "2026-03-29": 2, "2026-03-30": 1, "2026-03-31": 0}
    utc = analytics(alice, bot, start_timestamp="2026-03-28", end_timestamp="2026-03-31")
    assert [day["conversations"] for day in utc["days"]] == [1, 2, 0, 0]


def test_an_answer_keeps_its_first_byte_time_and_the_default_period_is_the_last_30_days(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    chat = new_session(alice, bot)
    assert ask(alice, chat, "Do you repair bicycles?").status_code == 200  # no knowledge: the no-answer reply

    async def go(s: AsyncSession) -> int | None:
        return (await s.execute(select(Message.first_byte_ms).where(Message.session_uuid == chat))).scalar_one()

    stored = db.run(go)
    assert stored is not None and 0 <= stored < 60_000
    found = analytics(alice, bot)
    assert len(found["days"]) == 30 and found["days"][-1]["date"] == datetime.now(UTC).date().isoformat()
    assert found["totals"] | {"feedback_ratio": None} == {
        "conversations": 1,
        "messages": 1,
        "answered": 0,
        "refused": 1,
        "handed_off": 0,
        "resolved": 0,
        "unresolved": 1,  # the no-answer reply left it unresolved
        "handed_to_person": 0,
        "no_outcome": 0,
        "bot_conversations": 1,
        "bot_resolution_rate": 0.0,
        "resolution_rate": 0.0,
        "feedback_up": 0,
        "feedback_down": 0,
        "feedback_ratio": None,
        "first_byte_p50_ms": stored,
        "first_byte_p95_ms": stored,
    }
    assert found["top_questions"] == [{"question": "Do you repair bicycles?", "count": 1}]
    assert found["top_sources"] == []


def test_bad_periods_and_foreign_chatbots(alice: Api, bob: Api) -> None:
    bot = alice.chatbot()["uuid"]
    path = f"/chatbot/{bot}/analytics"
    for params in (
        {"timezone": "Mars/Olympus_Mons"},
        {"timezone": "../../etc/passwd"},
        {"start_timestamp": "2026-07-02", "end_timestamp": "2026-07-01"},
        {"start_timestamp": "2025-01-01", "end_timestamp": "2026-07-01"},
        {"start_timestamp": "yesterday"},
    ):
        assert_error(alice.get(path, params=params), 422, "validation_error")
    assert_error(bob.get(path), 404, "not_found")
    assert_error(alice.get("/chatbot/" + "0" * 32 + "/analytics"), 404, "not_found")
    whole_year = {"start_timestamp": "2024-01-01", "end_timestamp": "2024-12-31T23:59:59Z"}  # 366 days: allowed
    assert len(analytics(alice, bot, **whole_year)["days"]) == 366
