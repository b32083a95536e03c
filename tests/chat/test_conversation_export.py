"""Conversations exported as CSV (a row per turn) or JSON: one, or all of a period (issue 20, item 3)."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat.history import service as history
from botyard.models import MessageFeedback
from tests.support.api import Api, assert_error
from tests.support.database import Db
from tests.support.sessions import add_messages, add_session

T0 = datetime(2024, 7, 25, 10, 0, 0, tzinfo=UTC)
HEADER = ["session_uuid", "time", "role", "text", "agent", "refused", "rating"]


def rows(api: Api, path: str, **params: str) -> list[dict[str, str]]:
    response = api.get(path, params={"format": "csv", **params})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    assert response.headers["content-disposition"].startswith("attachment; filename=")
    reader = csv.reader(io.StringIO(response.text))
    assert next(reader) == HEADER
    return [dict(zip(HEADER, row, strict=True)) for row in reader]


def as_json(api: Api, path: str, **params: str) -> list[dict[str, Any]]:
    response = api.get(path, params={"format": "json", **params})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    found: list[dict[str, Any]] = json.loads(response.text)
    return found


def rate(db: Db, bot: str, message_uuid: str, rating: str) -> None:
    async def go(s: AsyncSession) -> None:
        s.add(MessageFeedback(message_uuid=message_uuid, chatbot_uuid=bot, rating=rating))

    db.run(go)


def test_one_conversation_as_csv_and_json(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    chat = add_session(db, bot, T0)
    meta = {"agent_name": "Helper"}
    [hours] = add_messages(db, chat, ("Opening hours?", "9 to 5, on weekdays."), meta=meta)
    add_messages(db, chat, ("=SUM(A1)", "Sorry, I cannot find related information."), refused=True, meta=meta)
    rate(db, bot, hours, "up")
    found = rows(alice, f"/session/{chat}/export")
    assert [(row["role"], row["text"]) for row in found] == [
        ("user", "Opening hours?"),
        ("assistant", "9 to 5, on weekdays."),
        ("user", "'=SUM(A1)"),  # never a formula in a spreadsheet
        ("assistant", "Sorry, I cannot find related information."),
    ]
    assert {row["session_uuid"] for row in found} == {chat}
    assert [(row["agent"], row["refused"], row["rating"]) for row in found[1::2]] == [
        ("Helper", "false", "up"),
        ("Helper", "true", ""),
    ]
    assert all(row["time"].endswith("Z") for row in found)
    [conversation] = as_json(alice, f"/session/{chat}/export")
    assert conversation["uuid"] == chat
    assert [m["text"] for m in conversation["messages"]][:2] == ["Opening hours?", "9 to 5, on weekdays."]
    assert conversation["messages"][1] == {
        "time": found[1]["time"],
        "role": "assistant",
        "text": "9 to 5, on weekdays.",
        "agent": "Helper",
        "refused": False,
        "rating": "up",
    }


def test_a_period_of_a_chatbot_in_creation_order(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    before, first, second, after = (add_session(db, bot, T0 + timedelta(days=day)) for day in (-2, 0, 1, 3))
    for chat in (before, first, second, after):
        add_messages(db, chat, (f"question of {chat}", "answer"))
    period = {"start_timestamp": "2024-07-25T10:00:00Z", "end_timestamp": "2024-07-26T10:00:00Z"}
    found = rows(alice, f"/chatbot/{bot}/sessions/export", **period)
    assert [row["session_uuid"] for row in found] == [first, first, second, second]
    assert [c["uuid"] for c in as_json(alice, f"/chatbot/{bot}/sessions/export", **period)] == [first, second]
    assert [c["uuid"] for c in as_json(alice, f"/chatbot/{bot}/sessions/export")] == [before, first, second, after]


def test_a_long_period_is_read_page_by_page(alice: Api, db: Db) -> None:
    """Sessions beyond one page (same creation second, ordered by uuid) are all exported, each once."""
    bot = alice.chatbot()["uuid"]
    chats = sorted(add_session(db, bot, T0) for _ in range(history.EXPORT_PAGE + 2))
    for chat in chats:
        add_messages(db, chat, ("q", "a"))
    assert [c["uuid"] for c in as_json(alice, f"/chatbot/{bot}/sessions/export")] == chats
    assert len(rows(alice, f"/chatbot/{bot}/sessions/export")) == 2 * len(chats)


def test_an_empty_export_is_a_header_or_an_empty_array(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    assert rows(alice, f"/chatbot/{bot}/sessions/export") == []
    assert as_json(alice, f"/chatbot/{bot}/sessions/export") == []


def test_another_accounts_conversations_are_not_found(alice: Api, bob: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    chat = add_session(db, bot, T0)
    assert_error(bob.get(f"/chatbot/{bot}/sessions/export"), 404, "not_found")
    assert_error(bob.get(f"/session/{chat}/export"), 404, "not_found")
    assert_error(alice.get(f"/chatbot/{'0' * 32}/sessions/export"), 404, "not_found")


def test_bad_parameters_are_validation_errors(alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    path = f"/chatbot/{bot}/sessions/export"
    assert_error(alice.get(path, params={"format": "xml"}), 422, "validation_error")
    assert_error(alice.get(path, params={"start_timestamp": "yesterday"}), 422, "validation_error")
