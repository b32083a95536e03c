"""Zapier and Make on the hosted service's paths, both databases: a message asked and answered from the one answer
pipeline (a new session, or one continued), another account's chatbot and session 404, a bad body 422; REST hooks
subscribed (their events delivered signed by the outbox to the target URL) and unsubscribed; the latest messages
polled newest first; `GET /user` answering the account's email as `data.email`."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select
from starlette.testclient import TestClient

from botyard.jobs.runner import JobRunner
from botyard.models import ChatSession, IntegrationHook, Webhook
from botyard.outbox.sender import WebhookSender
from botyard.runtime import Runtime
from tests.support.api import Api, assert_error, assert_not_found
from tests.support.channels import SHOP_ANSWER, SHOP_QUESTION
from tests.support.chat import sse_events
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.jobs import FAST, process
from tests.support.webhook_receiver import Receiver, receiver
from tests.support.widget import give_feedback, widget_ask, widget_session

HOSTED_KEYS = {
    "uuid",
    "query",
    "response",
    "finish_reason",
    "cite_data_json",
    "meta_json",
    "created_at",
    "modified_at",
    "background_pending_tasks",
    "detected_frustrations",
    "error_message",
    "feedback_json",
    "labels",
    "session_documents",
    "ai_context_json",
}
SEGMENTS = ("zapier", "make-app")


@pytest.fixture
def hooks() -> Iterator[Receiver]:
    with receiver() as running:
        yield running


def shop(api: Api, **fields: Any) -> str:
    bot: str = api.chatbot(**fields)["uuid"]
    api.ok(api.post(f"/chatbot/{bot}/data-source/qa", {"question": SHOP_QUESTION, "answer": SHOP_ANSWER}))
    process(api.client)
    return bot


def sessions(db: Db) -> int:
    return int(db.run(lambda s: s.scalar(select(func.count()).select_from(ChatSession))))


@pytest.mark.parametrize("segment", SEGMENTS)
def test_a_message_is_answered_in_a_new_session_then_in_the_same_one(alice: Api, db: Db, segment: str) -> None:
    bot = shop(alice)
    first = alice.ok(alice.post(f"/chatbot/{bot}/{segment}/message/create", {"query": "When are you open?"}))
    assert set(first) == HOSTED_KEYS | {"session_uuid"}
    assert "nine to five" in first["response"] and first["query"] == "When are you open?"
    session = first["session_uuid"]
    again = {"query": "And on Saturdays?", "session_uuid": session}
    second = alice.ok(alice.post(f"/chatbot/{bot}/{segment}/message/create", again))
    assert second["session_uuid"] == session and second["uuid"] != first["uuid"]
    listed = alice.ok(alice.get(f"/session/{session}/messages"))
    assert [message["uuid"] for message in listed] == [first["uuid"], second["uuid"]]
    assert alice.ok(alice.get(f"/message/{first['uuid']}")) == {
        key: value for key, value in first.items() if key != "session_uuid"
    }
    assert sessions(db) == 1


def test_another_accounts_chatbot_or_session_is_missing_and_a_bad_body_is_refused(alice: Api, bob: Api, db: Db) -> None:
    bot, other = shop(alice), bob.chatbot()["uuid"]
    asked = alice.ok(alice.post(f"/chatbot/{bot}/zapier/message/create", {"query": "When are you open?"}))
    assert_not_found(bob.post(f"/chatbot/{bot}/zapier/message/create", {"query": "Hello?"}))
    theirs = {"query": "Hello?", "session_uuid": asked["session_uuid"]}
    assert_not_found(bob.post(f"/chatbot/{other}/make-app/message/create", theirs))
    another = alice.chatbot()["uuid"]  # a session of another chatbot of the same account
    assert_not_found(alice.post(f"/chatbot/{another}/zapier/message/create", theirs))
    for body in ({}, {"query": ""}, {"query": 7}, {"query": "Hi", "session_uuid": ""}):
        refused = assert_error(alice.post(f"/chatbot/{bot}/zapier/message/create", body), 422, "validation_error")
        assert refused["details"]
    assert sessions(db) == 1
    assert_not_found(bob.get(f"/chatbot/{bot}/zapier/poll"))


def test_the_poll_lists_the_latest_answered_messages_newest_first_with_an_id(alice: Api) -> None:
    bot = shop(alice)
    asked = [
        alice.ok(alice.post(f"/chatbot/{bot}/zapier/message/create", {"query": query}))
        for query in ("When are you open?", "Are you open on Monday?", "And Friday?")
    ]
    polled = alice.ok(alice.get(f"/chatbot/{bot}/make-app/poll"))
    assert [item["id"] for item in polled] == [message["uuid"] for message in reversed(asked)]
    assert all(item["id"] == item["uuid"] and item["session_uuid"] for item in polled)
    assert [item["id"] for item in alice.ok(alice.get(f"/chatbot/{bot}/zapier/poll?limit=1"))] == [asked[-1]["uuid"]]
    assert_error(alice.get(f"/chatbot/{bot}/zapier/poll?limit=0"), 422, "validation_error")


def deliver(client: TestClient, clock: ManualClock) -> None:
    runtime: Runtime = client.app.state.runtime  # type: ignore[attr-defined]
    runner = JobRunner(runtime.database, [WebhookSender(runtime.egress, clock)], replace(FAST, clock=clock))

    async def run() -> None:
        while await runner.run_once():
            pass

    assert client.portal is not None
    client.portal.call(run)


def test_a_subscription_gets_its_event_signed_by_the_outbox_until_it_unsubscribes(
    alice: Api, bob: Api, client: TestClient, hooks: Receiver, db: Db
) -> None:
    bot = shop(alice, visibility="public")
    target = hooks.url("/zap")
    made = alice.ok(alice.post(f"/chatbot/{bot}/zapier/subscribe", {"target_url": target, "event": "feedback"}))
    assert made["id"] == made["uuid"] and made["event"] == "feedback" and made["platform"] == "zapier"
    assert alice.ok(alice.get(f"/chatbot/{bot}/zapier/subscriptions")) == [made]
    assert alice.ok(alice.get(f"/chatbot/{bot}/make-app/subscriptions")) == []
    chat = widget_session(client, bot)
    answer = sse_events(widget_ask(client, chat, "When are you open?").text)[-1][1]["message_uuid"]
    assert give_feedback(client, chat, answer, {"rating": "up", "comment": "quick"}).status_code == 200
    deliver(client, ManualClock(datetime.now(UTC) + timedelta(minutes=1)))
    [received] = hooks.received
    assert received.path == "/zap" and received.event["type"] == "feedback"
    assert received.event["data"]["message_uuid"] == answer and received.event["data"]["rating"] == "up"
    secret = db.run(lambda s: s.scalar(select(Webhook.secret).where(Webhook.uuid == made["id"])))
    assert received.signed_with(secret)
    # Another account, another platform, another chatbot: missing. Then unsubscribed: nothing more is sent.
    assert_not_found(bob.delete(f"/chatbot/{bot}/zapier/unsubscribe/{made['id']}"))
    assert_not_found(alice.delete(f"/chatbot/{bot}/make-app/unsubscribe/{made['id']}"))
    alice.ok(alice.delete(f"/chatbot/{bot}/zapier/unsubscribe/{made['id']}"))
    assert_not_found(alice.delete(f"/chatbot/{bot}/zapier/unsubscribe/{made['id']}"))
    assert db.run(lambda s: s.scalar(select(func.count()).select_from(IntegrationHook))) == 0
    assert db.run(lambda s: s.scalar(select(func.count()).select_from(Webhook))) == 0


def test_a_subscription_with_a_bad_body_or_on_another_accounts_chatbot_writes_nothing(
    alice: Api, bob: Api, hooks: Receiver, db: Db
) -> None:
    bot = alice.chatbot()["uuid"]
    for body in (
        {"target_url": hooks.url()},
        {"target_url": hooks.url(), "event": "everything"},
        {"event": "feedback"},
    ):
        assert_error(alice.post(f"/chatbot/{bot}/make-app/subscribe", body), 422, "validation_error")
    private = {"target_url": "http://10.0.0.1/hook", "event": "feedback"}
    assert_error(alice.post(f"/chatbot/{bot}/make-app/subscribe", private), 422, "url_refused")
    assert_not_found(bob.post(f"/chatbot/{bot}/zapier/subscribe", {"target_url": hooks.url(), "event": "feedback"}))
    assert db.run(lambda s: s.scalar(select(func.count()).select_from(IntegrationHook))) == 0


def test_user_answers_the_accounts_email_as_data_email(alice: Api, bob: Api, client: TestClient) -> None:
    assert alice.ok(alice.get("/user")) == {"data": {"email": "alice@example.com"}}
    assert bob.ok(bob.get("/user"))["data"]["email"] != "alice@example.com"
    assert client.get("/api/v1/user").status_code == 401
