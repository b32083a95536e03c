"""Webhooks end to end: a real receiver on loopback gets each event once with a signature it verifies, a 500 is
retried on the schedule (a clock moved by hand, no sleeping), a private address is never contacted unless
allowlisted, the test endpoint pings, another account's webhooks are missing. Both databases."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.testclient import TestClient

from botyard.egress import EgressClient
from botyard.jobs.kinds import JobKind
from botyard.jobs.runner import JobRunner
from botyard.models import Job, WebhookDelivery
from botyard.outbox.sender import KEEP_DELIVERIES, MAX_ATTEMPTS, RETRY_DELAYS, WebhookSender
from botyard.runtime import Runtime
from tests.support.agents import SHIPPING, agent, disable_default
from tests.support.api import MISSING, Api, assert_error, assert_not_found, assert_timestamp, assert_uuid
from tests.support.chat import sse_events
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.jobs import FAST, process
from tests.support.webhook_receiver import Receiver, receiver
from tests.support.widget import give_feedback, open_bot, widget_ask, widget_session

EMAIL = {"name": "email", "description": "The customer's email address", "type": "string"}
PERSON = "Talk to a real person, a human operator, staff"
ALL_EVENTS = [
    "human_requested",
    "live_chat_started",
    "live_chat_ended",
    "variables_collected",
    "feedback",
    "source_failed",
    "test_run_finished",
    "contact_form_sent",
]


@pytest.fixture
def hooks() -> Iterator[Receiver]:
    with receiver() as running:
        yield running


@pytest.fixture
def clock() -> ManualClock:
    """Ahead of the real time, so the deliveries the requests queue (due at their real time) are due at once."""
    return ManualClock(datetime.now(UTC) + timedelta(minutes=1))


def runtime_of(client: TestClient) -> Runtime:
    runtime: Runtime = client.app.state.runtime  # type: ignore[attr-defined]
    return runtime


def deliver(client: TestClient, clock: ManualClock, egress: EgressClient | None = None) -> None:
    """Run every delivery due at `clock`'s now (the app's egress client unless told: 127.0.0.1 allowlisted)."""
    runtime = runtime_of(client)
    sender = WebhookSender(egress or runtime.egress, clock)
    runner = JobRunner(runtime.database, [sender], replace(FAST, clock=clock))

    async def run() -> None:
        while await runner.run_once():
            pass

    assert client.portal is not None
    client.portal.call(run)


def create(api: Api, bot: str, url: str, **fields: Any) -> dict[str, Any]:
    created: dict[str, Any] = api.ok(api.post(f"/chatbot/{bot}/webhook/create", {"url": url, **fields}))
    return created


def deliveries(api: Api, hook: str) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = api.ok(api.get(f"/webhook/{hook}/deliveries"))
    return listed


def queued_deliveries(db: Db) -> int:
    return len(
        db.run(
            lambda s: s.scalars(select(Job.uuid).where(Job.kind == JobKind.WEBHOOK_DELIVERY, Job.status == "queued"))
        ).all()
    )


def helpdesk(api: Api) -> str:
    """A public chatbot with a shipping agent that collects an email address and a human hand-off."""
    bot = open_bot(api)
    disable_default(api, bot)
    shipping = agent(api, bot, "user-facing", "Shipping", SHIPPING, use_all_sources=True)
    api.ok(api.post(f"/agent/{shipping}/update", {"variables": [EMAIL]}))
    agent(api, bot, "human-escalation", "Human hand-off", PERSON)
    return bot


def test_each_event_reaches_the_receiver_once_with_a_valid_signature(
    alice: Api, client: TestClient, hooks: Receiver, clock: ManualClock
) -> None:
    bot = helpdesk(alice)
    hook = create(alice, bot, hooks.url("/all"))
    only_feedback = create(alice, bot, hooks.url("/feedback"), events=["feedback"])
    off = create(alice, bot, hooks.url("/off"), enabled=False)

    chat = widget_session(client, bot)
    end = sse_events(widget_ask(client, chat, "My email is ann@example.com, where is my parcel?").text)[-1]
    answer = end[1]["message_uuid"]
    assert give_feedback(client, chat, answer, {"rating": "up", "comment": "quick"}).status_code == 200
    assert widget_ask(client, chat, "I want to talk to a real person please").status_code == 200
    alice.ok(alice.post(f"/session/{chat}/live-chat/start"))
    alice.ok(alice.post(f"/session/{chat}/live-chat/end"))
    alice.ok(alice.post(f"/chatbot/{bot}/office-hours", {"enabled": True, "week": {}}))  # after hours from now on
    assert widget_ask(client, chat, "I want to talk to a real person please").status_code == 200
    left = {"email": "ann@example.com", "message": "Call me back"}
    assert client.post(f"/api/v1/widget/session/{chat}/contact", json=left).status_code == 201
    source = alice.ok(alice.post(f"/chatbot/{bot}/data-source/url", {"url": hooks.url("/gone")}))["uuid"]
    case = {"question": "Do you sell bicycles?", "expect_refuse": True}
    test_set = alice.ok(alice.post(f"/chatbot/{bot}/test-sets", {"name": "Smoke", "cases": [case]}))["uuid"]
    run = alice.ok(alice.post(f"/test-set/{test_set}/run"))["uuid"]
    process(client)  # the source fails (404); this also sends what is due, as a running service would
    deliver(client, clock)

    by_path = Counter(request.path for request in hooks.received)
    assert by_path == {"/all": len(ALL_EVENTS), "/feedback": 1}
    events = {request.event["type"]: request for request in hooks.received if request.path == "/all"}
    assert sorted(events) == sorted(ALL_EVENTS)  # each once
    for request in hooks.received:
        event = request.event
        assert request.signed_with(hook["secret"] if request.path == "/all" else only_feedback["secret"])
        assert not request.signed_with(only_feedback["secret"] if request.path == "/all" else hook["secret"])
        assert request.headers["content-type"] == "application/json"
        assert request.headers["webhook-id"] == event["id"]
        assert set(event) == {"id", "type", "created_at", "chatbot_uuid", "data"} and event["chatbot_uuid"] == bot
        assert_uuid(event["id"])
        assert_timestamp(event["created_at"])
    data = {kind: request.event["data"] for kind, request in events.items()}
    assert data["variables_collected"] == {
        "session_uuid": chat,
        "message_uuid": answer,
        "variables": {"email": "ann@example.com"},
    }
    assert data["feedback"] == {"session_uuid": chat, "message_uuid": answer, "rating": "up", "comment": "quick"}
    # The hand-off agent (it collects the email) took the first message: that one asked for a person.
    assert data["human_requested"] == {"session_uuid": chat, "reason": "asked for a person", "message_uuid": answer}
    assert data["live_chat_started"]["session_uuid"] == chat and data["live_chat_ended"]["session_uuid"] == chat
    assert_uuid(data["live_chat_started"]["message_uuid"])
    assert data["contact_form_sent"] == {
        "session_uuid": chat,
        "message_uuid": data["contact_form_sent"]["message_uuid"],
        "email": "ann@example.com",
        "message": "Call me back",
    }
    assert data["test_run_finished"] == {
        "test_set_uuid": test_set, "test_run_uuid": run, "status": "done",
        "total": 1, "passed": data["test_run_finished"]["passed"], "fixed": 0, "broken": 0,
    }  # fmt: skip
    assert data["source_failed"] == {
        "data_source_uuid": source,
        "title": data["source_failed"]["title"],
        "type": "link",
        "status": "error:http 404",
    }
    listed = deliveries(alice, hook["uuid"])
    assert len(listed) == len(ALL_EVENTS)
    assert {(row["status"], row["attempts"], row["last_status_code"], row["next_attempt_at"]) for row in listed} == {
        ("delivered", 1, 200, None)
    }
    assert listed[0]["response_excerpt"] == "thanks"
    assert deliveries(alice, off["uuid"]) == []  # a disabled webhook is not even queued for


def test_a_500_is_retried_after_the_backoff_and_the_delivery_ends_delivered(
    alice: Api, client: TestClient, db: Db, hooks: Receiver, clock: ManualClock
) -> None:
    bot = alice.chatbot()["uuid"]
    hook = create(alice, bot, hooks.url())
    hooks.answer(500)
    ping = alice.ok(alice.post(f"/webhook/{hook['uuid']}/test"))
    assert ping["status"] == "pending" and ping["attempts"] == 0 and ping["event_type"] == "ping"

    deliver(client, clock)
    [failed] = deliveries(alice, hook["uuid"])
    assert (failed["status"], failed["attempts"], failed["last_status_code"]) == ("pending", 1, 500)
    assert failed["last_error"] == "http 500" and failed["response_excerpt"] == "receiver trouble"
    assert failed["next_attempt_at"] == (clock.now + RETRY_DELAYS[0]).strftime("%Y-%m-%dT%H:%M:%SZ")
    deliver(client, clock)  # not due yet
    assert len(hooks.received) == 1

    clock.advance(RETRY_DELAYS[0].total_seconds())
    deliver(client, clock)
    first, second = hooks.received
    assert first.body == second.body and first.headers["webhook-id"] == second.headers["webhook-id"] == ping["event_id"]
    assert first.signed_with(hook["secret"]) and second.signed_with(hook["secret"])
    assert first.event == {
        "id": ping["event_id"],
        "type": "ping",
        "created_at": ping["created_at"],
        "chatbot_uuid": bot,
        "data": {"webhook_uuid": hook["uuid"]},
    }
    [done] = deliveries(alice, hook["uuid"])
    assert (done["status"], done["attempts"], done["last_status_code"], done["last_error"]) == ("delivered", 2, 200, "")
    assert done["next_attempt_at"] is None and done["finished_at"] is not None
    assert queued_deliveries(db) == 0


@pytest.mark.parametrize(("status", "retried"), [(404, False), (410, False), (408, True), (429, True), (503, True)])
def test_which_answers_are_retried(
    alice: Api, client: TestClient, db: Db, hooks: Receiver, clock: ManualClock, status: int, retried: bool
) -> None:
    hook = create(alice, alice.chatbot()["uuid"], hooks.url())
    hooks.answer(status)
    alice.ok(alice.post(f"/webhook/{hook['uuid']}/test"))
    deliver(client, clock)
    [row] = deliveries(alice, hook["uuid"])
    assert (row["status"], row["attempts"], row["last_status_code"]) == ("pending" if retried else "failed", 1, status)
    assert queued_deliveries(db) == (1 if retried else 0)


def test_the_last_attempt_gives_up(alice: Api, client: TestClient, db: Db, hooks: Receiver, clock: ManualClock) -> None:
    hook = create(alice, alice.chatbot()["uuid"], hooks.url())
    hooks.answer(*[500] * MAX_ATTEMPTS)
    alice.ok(alice.post(f"/webhook/{hook['uuid']}/test"))
    deliver(client, clock)
    for delay in RETRY_DELAYS:
        clock.advance(delay.total_seconds())
        deliver(client, clock)
    assert len(hooks.received) == MAX_ATTEMPTS == 8
    assert sum(RETRY_DELAYS, timedelta()) > timedelta(hours=24)
    [row] = deliveries(alice, hook["uuid"])
    assert (row["status"], row["attempts"], row["next_attempt_at"]) == ("failed", 8, None)
    assert queued_deliveries(db) == 0


def test_a_private_address_is_never_contacted_unless_allowlisted(
    alice: Api, client: TestClient, hooks: Receiver, clock: ManualClock, fake_dns: FakeDns
) -> None:
    bot = alice.chatbot()["uuid"]
    fake_dns.records["hooks.example.com"] = ["127.0.0.1"]
    # Created while the operator allowlisted 127.0.0.1 (the suite's app); sent by a worker that does not.
    literal = create(alice, bot, hooks.url())
    named = create(alice, bot, hooks.url(host="hooks.example.com"))
    settings = runtime_of(client).settings.model_copy(
        update={"egress_allowlist": [], "egress_allowed_ports": [80, 443, hooks.port]}
    )
    strict = EgressClient(settings, fake_dns)
    for hook in (literal, named):
        alice.ok(alice.post(f"/webhook/{hook['uuid']}/test"))
    deliver(client, clock, strict)
    [refused] = deliveries(alice, literal["uuid"])
    assert (refused["status"], refused["attempts"], refused["last_error"]) == ("failed", 1, "private address")
    assert refused["last_status_code"] is None
    for delay in RETRY_DELAYS:  # a name is answered as one that does not resolve: retried on the schedule, no more
        clock.advance(delay.total_seconds())
        deliver(client, clock, strict)
    [unresolved] = deliveries(alice, named["uuid"])
    assert (unresolved["status"], unresolved["attempts"], unresolved["last_error"]) == ("failed", 8, "dns failure")
    assert hooks.received == []

    alice.ok(alice.post(f"/webhook/{literal['uuid']}/test"))
    deliver(client, clock)  # the allowlisting egress client: the same URL goes through
    assert [request.path for request in hooks.received] == ["/hook"]


@pytest.mark.parametrize(
    "url", ["http://10.0.0.1/hook", "http://[::1]:8080/x", "ftp://example.com/hook", "http://example.com:22/hook"]
)
def test_a_url_the_egress_policy_refuses_is_refused_at_creation(alice: Api, url: str) -> None:
    bot = alice.chatbot()["uuid"]
    body = assert_error(alice.post(f"/chatbot/{bot}/webhook/create", {"url": url}), 422, "url_refused")
    assert body["details"][0]["field"] == "url"
    if "ftp:" not in url:  # what a setting would lift names it
        assert "BOTYARD_EGRESS_ALLOWLIST" in body["error"]
        assert ("BOTYARD_EGRESS_ALLOWED_PORTS" in body["error"]) == (":22/" in url or ":8080/" in url)
    assert alice.ok(alice.get(f"/chatbot/{bot}/webhooks")) == []
    hook = create(alice, bot, "https://hooks.example.com/in")
    assert_error(alice.post(f"/webhook/{hook['uuid']}/update", {"url": url}), 422, "url_refused")
    assert alice.ok(alice.get(f"/webhook/{hook['uuid']}"))["url"] == "https://hooks.example.com/in"


def test_manage_webhooks_with_the_secret_shown_once(
    alice: Api, client: TestClient, hooks: Receiver, clock: ManualClock
) -> None:
    bot = alice.chatbot()["uuid"]
    hook = create(alice, bot, hooks.url(), events=["feedback", "source_failed", "feedback"])
    assert set(hook) == {"uuid", "chatbot_uuid", "url", "events", "enabled", "created_at", "modified_at", "secret"}
    assert hook["secret"].startswith("whsec_") and hook["events"] == ["feedback", "source_failed"]
    assert hook["enabled"] is True and hook["chatbot_uuid"] == bot
    shown = alice.ok(alice.get(f"/webhook/{hook['uuid']}"))
    assert shown == {key: value for key, value in hook.items() if key != "secret"}
    assert alice.ok(alice.get(f"/chatbot/{bot}/webhooks")) == [shown]
    assert create(alice, bot, hooks.url())["events"] == ALL_EVENTS  # all by default

    updated = alice.ok(alice.post(f"/webhook/{hook['uuid']}/update", {"events": ["human_requested"], "enabled": 0}))
    assert updated["events"] == ["human_requested"] and updated["enabled"] is False and "secret" not in updated
    for bad in ({"events": []}, {"events": ["ping"]}, {"events": ["nope"]}, {"url": ""}):
        assert_error(alice.post(f"/webhook/{hook['uuid']}/update", bad), 422, "validation_error")

    rotated = alice.ok(alice.post(f"/webhook/{hook['uuid']}/rotate-secret"))
    assert rotated["secret"].startswith("whsec_") and rotated["secret"] != hook["secret"]
    alice.ok(alice.post(f"/webhook/{hook['uuid']}/test"))  # a disabled webhook still gets its test
    deliver(client, clock)
    [request] = hooks.received
    assert request.signed_with(rotated["secret"]) and not request.signed_with(hook["secret"])

    assert alice.ok(alice.delete(f"/webhook/{hook['uuid']}/delete")) == {"success": True}
    assert_not_found(alice.get(f"/webhook/{hook['uuid']}"))
    assert_not_found(alice.get(f"/webhook/{hook['uuid']}/deliveries"))


def test_another_accounts_webhooks_are_missing(alice: Api, bob: Api) -> None:
    bot = alice.chatbot()["uuid"]
    hook = create(alice, bot, "https://hooks.example.com/in")["uuid"]
    assert_not_found(bob.post(f"/chatbot/{bot}/webhook/create", {"url": "https://hooks.example.com/b"}))
    assert_not_found(bob.get(f"/chatbot/{bot}/webhooks"))
    for uuid in (hook, MISSING):
        assert_not_found(bob.get(f"/webhook/{uuid}"))
        assert_not_found(bob.post(f"/webhook/{uuid}/update", {"enabled": False}))
        assert_not_found(bob.post(f"/webhook/{uuid}/rotate-secret"))
        assert_not_found(bob.post(f"/webhook/{uuid}/test"))
        assert_not_found(bob.get(f"/webhook/{uuid}/deliveries"))
        assert_not_found(bob.delete(f"/webhook/{uuid}/delete"))
    assert alice.ok(alice.get(f"/webhook/{hook}"))["enabled"] is True
    assert deliveries(alice, hook) == []


def test_deliveries_over_long_ago_leave_the_log(
    alice: Api, client: TestClient, db: Db, hooks: Receiver, clock: ManualClock
) -> None:
    bot = alice.chatbot()["uuid"]
    hook = create(alice, bot, hooks.url())["uuid"]
    for _ in range(3):
        alice.ok(alice.post(f"/webhook/{hook}/test"))
    deliver(client, clock)
    old, old_but_pending, recent = sorted(delivery["uuid"] for delivery in deliveries(alice, hook))
    long_ago = clock.now - KEEP_DELIVERIES - timedelta(days=1)

    async def age(session: AsyncSession) -> None:
        aged = WebhookDelivery.uuid.in_((old, old_but_pending))
        await session.execute(update(WebhookDelivery).where(aged).values(created_at=long_ago))
        # One still waits for its next attempt: it stays, however old.
        pending = update(WebhookDelivery).where(WebhookDelivery.uuid == old_but_pending).values(status="pending")
        await session.execute(pending)

    db.run(age)
    alice.ok(alice.post(f"/webhook/{hook}/test"))
    deliver(client, clock)  # the end of a delivery clears its webhook's log of what is over and old
    left = {delivery["uuid"] for delivery in deliveries(alice, hook)}
    assert len(left) == 3 and {old_but_pending, recent} < left and old not in left
