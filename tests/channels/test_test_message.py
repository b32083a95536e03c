"""`POST /api/v1/channel/{uuid}/test`, both databases: a test message sent at once on each kind of channel, the way
replies are sent (to the fake Telegram and Slack servers of tests/support/, and to a generic channel's callback,
signed), a provider's refusal answered 422 `channel_send_failed` with its reason and nothing stored, another
account's channel missing, and the audit log's line for it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from botyard.config import Settings
from tests.support.api import Api, assert_error, assert_not_found
from tests.support.channels import connect, owner_app
from tests.support.clock import ManualClock
from tests.support.fake_dns import FakeDns
from tests.support.slack_api import BOT_TOKEN, SIGNING_SECRET, SlackApi, slack_api
from tests.support.telegram_api import TOKEN, TelegramApi, telegram_api
from tests.support.webhook_receiver import receiver

BLOCKED = (403, {"ok": False, "error_code": 403, "description": "Forbidden: bot was blocked by the user"})


@pytest.fixture
def bot_api() -> Iterator[TelegramApi]:
    with telegram_api() as running:
        yield running


@pytest.fixture
def workspace() -> Iterator[SlackApi]:
    with slack_api() as running:
        yield running


@pytest.fixture
def owner(
    settings: Settings,
    client: TestClient,
    fake_dns: FakeDns,
    issued_keys: list[str],
    bot_api: TelegramApi,
    workspace: SlackApi,
) -> Iterator[Api]:
    urls = {"telegram_api_url": bot_api.url, "slack_api_url": workspace.url}
    with owner_app(settings, fake_dns, ManualClock(), issued_keys, **urls) as own:
        yield own


def send_test(api: Api, channel: dict[str, Any], **body: Any) -> Any:
    return api.post(f"/channel/{channel['uuid']}/test", body)


def test_a_telegram_test_message_reaches_the_chat_and_changes_nothing_stored(owner: Api, bot_api: TelegramApi) -> None:
    channel = connect(owner, owner.chatbot()["uuid"])
    sent = owner.ok(send_test(owner, channel, to="42"))
    assert sent == {"sent": True, "to": "42", "parts": 1}
    [message] = bot_api.sent()
    assert message.chat_id == "42" and message.parse_mode == "HTML"
    assert message.text == "This is a test message from Botyard: the channel Shop bot works."
    owner.ok(send_test(owner, channel, to="42", text="Hello **there**"))
    assert bot_api.sent()[-1].text == "Hello there"  # Markdown, rendered for Telegram as replies are
    assert bot_api.calls("sendMessage")[-1]["text"] == "Hello <b>there</b>"
    after = owner.ok(owner.get(f"/channel/{channel['uuid']}"))
    assert after["status"] == channel["status"]  # a test is not a reply: the status stays as it was
    events = owner.ok(owner.get("/account/audit"))["events"]
    tests = [e for e in events if (e["object_type"], e["action"]) == ("channel", "started")]
    assert [e["object_uuid"] for e in tests] == [channel["uuid"]] * 2 and "test message" in tests[0]["summary"]


def test_telegrams_refusal_is_a_stable_error_with_its_reason(owner: Api, bot_api: TelegramApi) -> None:
    channel = connect(owner, owner.chatbot()["uuid"])
    bot_api.fail_next(BLOCKED)
    blocked = assert_error(send_test(owner, channel, to="42"), 422, "channel_send_failed")
    assert "Forbidden: bot was blocked by the user" in blocked["error"] and "chat id" in blocked["error"]
    assert TOKEN not in blocked["error"]
    missing = assert_error(send_test(owner, channel, to="not a chat"), 422, "channel_send_failed")
    assert "chat not found" in missing["error"]
    assert bot_api.sent() == []
    assert owner.ok(owner.get(f"/channel/{channel['uuid']}"))["status"]["last_error"] == ""
    empty = assert_error(send_test(owner, channel, to=" "), 422, "validation_error")
    assert empty["details"][0]["field"] == "to"


def test_a_slack_test_message_goes_to_the_channel_and_slacks_refusal_is_reported(
    owner: Api, workspace: SlackApi
) -> None:
    body = {"type": "slack", "credentials": {"bot_token": BOT_TOKEN, "signing_secret": SIGNING_SECRET}}
    channel = owner.ok(owner.post(f"/chatbot/{owner.chatbot()['uuid']}/channel/create", body))
    assert owner.ok(send_test(owner, channel, to="C0SHOP", text="Ping from _Botyard_"))["parts"] == 1
    [posted] = workspace.posted()
    assert posted["channel"] == "C0SHOP" and posted["text"] == "Ping from _Botyard_" and "thread_ts" not in posted
    workspace.fail_next((200, {}, {"ok": False, "error": "not_in_channel"}))
    refused = assert_error(send_test(owner, channel, to="C0OTHER"), 422, "channel_send_failed")
    assert "Slack: not_in_channel" in refused["error"] and "/invite" in refused["error"]


def test_a_generic_test_message_is_posted_to_the_callback_signed(owner: Api) -> None:
    with receiver() as callback:
        body = {"type": "generic", "name": "Helpdesk", "credentials": {"callback_url": callback.url("/replies")}}
        channel = owner.ok(owner.post(f"/chatbot/{owner.chatbot()['uuid']}/channel/create", body))
        secret = channel.pop("signing_secret")
        owner.ok(send_test(owner, channel, to="u-7"))
        [request] = callback.received
        assert request.signed_with(secret)
        assert request.event["type"] == "message" and request.event["user"] == {"id": "u-7"}
        assert "Helpdesk" in request.event["text"]
        callback.answer(500)
        failed = assert_error(send_test(owner, channel, to="u-7"), 422, "channel_send_failed")
        assert "callback answered http 500" in failed["error"]


def test_another_accounts_channel_is_missing(owner: Api, bot_api: TelegramApi, make_api: Any) -> None:
    channel = connect(owner, owner.chatbot()["uuid"])
    other = Api(owner.client, make_api("mallory@example.com").key)
    assert_not_found(send_test(other, channel, to="42"))
    assert_not_found(send_test(owner, {"uuid": "0" * 32}, to="42"))
    assert bot_api.sent() == []


def test_the_route_is_in_the_openapi_document_with_its_refusal(client: TestClient) -> None:
    operation = client.get("/openapi.json").json()["paths"]["/api/v1/channel/{uuid}/test"]["post"]
    assert "Telegram chat id" in operation["description"]
    assert "`channel_send_failed`" in operation["responses"]["422"]["description"]
    assert "requestBody" in operation and "200" in operation["responses"]
