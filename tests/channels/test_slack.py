"""Slack end to end against a Web API server on loopback (tests/support/slack_api.py), both databases: the token
checked with `auth.test`, the Events URL verified, a direct message and a mention answered in their thread,
signatures checked by Slack's rule (bad, missing, stale: 401, nothing stored), Slack's retries of one event answered
once, the bot's own messages and edits ignored, a 429's Retry-After honoured."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import func, select
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.models import ChannelEvent, ChannelReply, ChatSession
from tests.support.api import Api, assert_error
from tests.support.channels import owner_app, run_channel_jobs
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.jobs import process
from tests.support.slack_api import (
    BOT_TOKEN,
    BOT_USER,
    SIGNING_SECRET,
    SlackApi,
    event_callback,
    rate_limited,
    signed_request,
    slack_api,
)


@pytest.fixture
def workspace() -> Iterator[SlackApi]:
    with slack_api() as running:
        yield running


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def owner(
    settings: Settings,
    client: TestClient,
    fake_dns: FakeDns,
    issued_keys: list[str],
    clock: ManualClock,
    workspace: SlackApi,
) -> Iterator[Api]:
    with owner_app(settings, fake_dns, clock, issued_keys, slack_api_url=workspace.url) as own:
        yield own


def connect(api: Api) -> dict[str, Any]:
    bot: str = api.chatbot()["uuid"]
    qa = {"question": "When is the shop open?", "answer": "The shop is open from nine to five, Monday to Friday."}
    api.ok(api.post(f"/chatbot/{bot}/data-source/qa", qa))
    process(api.client)
    credentials = {"bot_token": BOT_TOKEN, "signing_secret": SIGNING_SECRET}
    channel: dict[str, Any] = api.ok(
        api.post(f"/chatbot/{bot}/channel/create", {"type": "slack", "credentials": credentials})
    )
    return channel


def post(api: Api, channel: dict[str, Any], body: dict[str, Any], **signing: Any) -> Any:
    raw, headers = signed_request(body, **signing)
    return api.client.post(f"/channels/{channel['uuid']}/inbound", content=raw, headers=headers)


def test_a_direct_message_and_a_mention_are_answered_in_their_threads(
    owner: Api, workspace: SlackApi, clock: ManualClock, db: Db
) -> None:
    channel = connect(owner)
    assert channel["credentials"] == {
        "bot_token": "••••" + BOT_TOKEN[-4:],
        "signing_secret": "••••" + SIGNING_SECRET[-4:],
    }
    assert BOT_TOKEN not in str(channel) and "signing_secret" not in {key for key in channel if key != "credentials"}
    verification = post(
        owner,
        channel,
        {"type": "url_verification", "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P", "token": "x"},
    )
    assert verification.json() == {"challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}
    assert post(owner, channel, event_callback("Ev01", "When are you open?", ts="1764680001.000100")).json() == {
        "ok": True
    }
    mention = event_callback(
        "Ev02",
        f"<@{BOT_USER}> when are you open?",
        channel="C0GENERAL",
        type="app_mention",
        ts="1764680050.000200",
        thread_ts="1764680040.000100",
    )
    mention["event"].pop("channel_type")
    post(owner, channel, mention)
    run_channel_jobs(owner.client, clock)
    posted = sorted(workspace.posted(), key=lambda message: message["channel"])
    assert [(message["channel"], message.get("thread_ts")) for message in posted] == [
        ("C0GENERAL", "1764680040.000100"),  # in the mention's thread
        ("D0DM01", None),  # a direct message answered in the DM
    ]
    assert all("nine to five" in message["text"] and message["mrkdwn"] is True for message in posted)
    # While the answer was made, the thread showed it (the DM has no thread to show it on).
    assert workspace.statuses() == [
        {"channel_id": "C0GENERAL", "thread_ts": "1764680040.000100", "status": "is typing..."}
    ]
    # The DM's next message continues its conversation: one session for the DM, one for the thread.
    clock.advance(60)
    post(owner, channel, event_callback("Ev03", "And on Saturdays?", ts="1764680101.000100"))
    run_channel_jobs(owner.client, clock)
    sessions = db.run(
        lambda s: s.scalars(select(ChatSession.channel_thread).where(ChatSession.channel_uuid == channel["uuid"]))
    ).all()
    assert sorted(sessions) == ["C0GENERAL:1764680040.000100", "D0DM01"]


@pytest.mark.parametrize("forgery", ["other-secret", "stale", "unsigned", "not-a-number"])
def test_a_request_not_signed_by_slack_is_refused_and_stores_nothing(
    owner: Api, workspace: SlackApi, db: Db, forgery: str
) -> None:
    channel = connect(owner)
    body = event_callback("Ev10", "hello")
    if forgery == "unsigned":
        answer = owner.client.post(f"/channels/{channel['uuid']}/inbound", json=body)
    elif forgery == "not-a-number":
        raw, headers = signed_request(body)
        answer = owner.client.post(
            f"/channels/{channel['uuid']}/inbound",
            content=raw,
            headers={**headers, "X-Slack-Request-Timestamp": "soon"},
        )
    else:
        options = {"other-secret": {"secret": "another-signing-secret"}, "stale": {"timestamp": int(time.time()) - 301}}
        answer = post(owner, channel, body, **options[forgery])
    assert_error(answer, 401, "signature_invalid")
    assert db.run(lambda s: s.scalar(select(func.count()).select_from(ChannelEvent))) == 0


def test_slacks_retries_of_an_event_are_answered_once_and_the_bots_own_messages_never(
    owner: Api, workspace: SlackApi, clock: ManualClock
) -> None:
    channel = connect(owner)
    body = event_callback("Ev20", "When are you open?")
    assert post(owner, channel, body).json() == {"ok": True}
    for attempt in (1, 2):  # Slack retries after 3 s without a 200, the same event_id
        raw, headers = signed_request(body)
        again = owner.client.post(
            f"/channels/{channel['uuid']}/inbound",
            content=raw,
            headers={**headers, "X-Slack-Retry-Num": str(attempt), "X-Slack-Retry-Reason": "http_timeout"},
        )
        assert again.json() == {"ok": True, "duplicate": True}
    post(owner, channel, event_callback("Ev21", "I am the bot", user=BOT_USER))
    post(owner, channel, event_callback("Ev22", "a bot", bot_id="B0OTHER"))
    post(owner, channel, event_callback("Ev23", "edited", subtype="message_changed"))
    run_channel_jobs(owner.client, clock)
    assert len(workspace.posted()) == 1


def test_slacks_rate_limit_is_waited_out_and_a_missing_channel_fails_for_good(
    owner: Api, workspace: SlackApi, clock: ManualClock, db: Db
) -> None:
    channel = connect(owner)
    workspace.fail_next(rate_limited(20))
    post(owner, channel, event_callback("Ev30", "When are you open?"))
    started = clock.now
    run_channel_jobs(owner.client, clock)
    [reply] = db.run(lambda s: s.scalars(select(ChannelReply))).all()
    assert reply.state == "sent" and reply.attempts == 1 and reply.sent_at is not None
    assert (reply.sent_at - started).total_seconds() >= 20
    workspace.fail_next((200, {}, {"ok": False, "error": "channel_not_found"}))
    post(owner, channel, event_callback("Ev31", "When are you open on Monday?", channel="D0GONE"))
    run_channel_jobs(owner.client, clock)
    failed = db.run(lambda s: s.scalars(select(ChannelReply).where(ChannelReply.state == "failed"))).all()
    assert len(failed) == 1 and failed[0].attempts == 1 and "channel_not_found" in failed[0].last_error


def test_a_token_slack_refuses_is_refused_storing_nothing(owner: Api, workspace: SlackApi) -> None:
    bot = owner.chatbot()["uuid"]
    body = {"type": "slack", "credentials": {"bot_token": "xoxb-wrong", "signing_secret": SIGNING_SECRET}}
    refused = assert_error(owner.post(f"/chatbot/{bot}/channel/create", body), 422, "channel_refused")
    assert "invalid_auth" in refused["error"] and "xoxb-wrong" not in refused["error"]
    missing = {"type": "slack", "credentials": {"bot_token": BOT_TOKEN}}
    assert (
        assert_error(owner.post(f"/chatbot/{bot}/channel/create", missing), 422, "validation_error")["details"][0][
            "field"
        ]
        == "credentials.signing_secret"
    )
    assert owner.ok(owner.get(f"/chatbot/{bot}/channels")) == []
