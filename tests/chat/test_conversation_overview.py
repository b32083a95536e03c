"""The owner's overview of conversations: latest activity first, with a preview of the first question and figures
(issue 20, item 3); the hosted session list keeps its exact shape."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.models import MessageFeedback
from tests.support.api import Api, assert_error
from tests.support.database import Db
from tests.support.sessions import add_messages, add_session

T0 = datetime(2024, 7, 25, 10, 0, 0, tzinfo=UTC)


def test_latest_activity_first_with_preview_and_figures(alice: Api, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    quiet, busy, empty = (add_session(db, bot, T0 + timedelta(minutes=minute)) for minute in (0, 1, 2))
    add_messages(db, quiet, ("Where is\nthe shop?", "In town."))
    [first, _] = add_messages(db, busy, ("x" * 300, "Sorry."), ("Hours?", "9 to 5."))
    add_messages(db, busy, ("And prices?", "Sorry, I cannot find related information."), refused=True)

    async def go(s: AsyncSession) -> None:
        s.add(MessageFeedback(message_uuid=first, chatbot_uuid=bot, rating="down"))

    db.run(go)
    alice.ok(alice.post(f"/session/{busy}/live-chat/start"))  # an operator took it over: activity, too
    found = alice.ok(alice.get(f"/chatbot/{bot}/conversations"))
    # The messages went in through the database (their time does not move the session): `empty` started last.
    assert [item["uuid"] for item in found] == [busy, empty, quiet]
    by_uuid = {item["uuid"]: item for item in found}
    assert by_uuid[quiet]["preview"] == "Where is the shop?"
    assert by_uuid[busy]["preview"] == "x" * 199 + "…"
    assert by_uuid[empty]["preview"] == ""
    assert {key: by_uuid[busy][key] for key in ("message_count", "refused_count", "rated_up", "rated_down")} == {
        "message_count": 4,  # three exchanges and the live chat's announcement
        "refused_count": 1,
        "rated_up": 0,
        "rated_down": 1,
    }
    assert by_uuid[busy]["live_chat"] and by_uuid[busy]["handed_off"] and not by_uuid[quiet]["handed_off"]
    assert by_uuid[busy]["modified_at"] > by_uuid[busy]["created_at"]
    assert [item["uuid"] for item in alice.ok(alice.get(f"/chatbot/{bot}/conversations", params={"refused": 1}))] == [
        busy
    ]
    page = alice.ok(alice.get(f"/chatbot/{bot}/conversations", params={"limit": 1, "offset": 1}))
    assert [item["uuid"] for item in page] == [empty]
    assert set(alice.ok(alice.get(f"/chatbot/{bot}/sessions"))[0]) == {"uuid", "created_at", "modified_at"}


def test_bad_parameters_and_foreign_chatbots(alice: Api, bob: Api) -> None:
    bot = alice.chatbot()["uuid"]
    path = f"/chatbot/{bot}/conversations"
    assert_error(alice.get(path, params={"limit": 0}), 422, "validation_error")
    assert_error(alice.get(path, params={"feedback": "great"}), 422, "validation_error")
    assert_error(bob.get(path), 404, "not_found")
