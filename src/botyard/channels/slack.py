"""Slack's Events API and Web API (https://docs.slack.dev/apis/events-api/): the signature check (with the
official SDK's `SignatureVerifier`), an event read as a delivery, and the Web API calls a channel makes
(`auth.test`, `chat.postMessage`). The calls themselves go through the egress client, not the SDK's HTTP client.

Slack signs each request with the app's signing secret: `X-Slack-Signature: v0=` + HMAC-SHA256 of
`v0:{X-Slack-Request-Timestamp}:{body}`, refused when the timestamp is more than 5 minutes away. An event's
`event_id` is its id (Slack retries after 3 s without a 200, with `X-Slack-Retry-Num`). Answered: a direct message
to the bot (`message` in an `im`: the DM is one conversation, answered in it) and a mention of it (`app_mention`:
one conversation per thread, answered in the thread); not answered: edits and other subtypes, messages of bots (the
bot's own replies included).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from slack_sdk.signature import SignatureVerifier

from botyard.channels.inbound import Delivery, NotTheShape, Said

MAX_MESSAGE_CHARS = 3900
"""Slack shows up to 40,000 characters, but cuts a message's text for display after about 4,000: stay under it."""


@dataclass(frozen=True)
class Challenge:
    """Slack's `url_verification` request when the Events URL is saved: answered with its `challenge`."""

    challenge: str


def signed(headers: Mapping[str, str], body: bytes, signing_secret: str) -> bool:
    try:
        return SignatureVerifier(signing_secret).is_valid_request(body, dict(headers))
    except (ValueError, UnicodeDecodeError):  # a timestamp that is not a number, a body that is not UTF-8
        return False


def delivery(envelope: Any, bot_user_id: str = "") -> Delivery | Challenge:
    """The request as a delivery (or the URL's verification); `NotTheShape` when it is neither. `bot_user_id`:
    the bot's own user (its messages are not answered, its mention is taken out of the question)."""
    if not isinstance(envelope, dict):
        raise NotTheShape("a Slack request is a JSON object")
    if envelope.get("type") == "url_verification" and isinstance(envelope.get("challenge"), str):
        return Challenge(envelope["challenge"])
    event, event_id = envelope.get("event"), envelope.get("event_id")
    if envelope.get("type") != "event_callback" or not isinstance(event, dict) or not isinstance(event_id, str):
        raise NotTheShape("an event_callback has an event and an event_id")
    ts = str(event.get("ts", ""))
    position = int(float(ts) * 1_000_000) if _number(ts) else 0
    if not _answered(event) or (bot_user_id and event.get("user") == bot_user_id):
        return Delivery(event_id[:128], position, None)
    # A direct message is one conversation, answered in the DM; a mention is one per thread, answered in it.
    direct = event.get("type") == "message"
    thread = str(event["channel"]) if direct else f"{event['channel']}:{event.get('thread_ts') or ts}"
    text = str(event.get("text", ""))
    if bot_user_id:
        text = re.sub(rf"<@{re.escape(bot_user_id)}>\s*", "", text)
    text = text.strip()
    said = Said(str(event["user"]), "", thread, text)
    return Delivery(event_id[:128], position, said if text else None)


def _answered(event: dict[str, Any]) -> bool:
    if event.get("bot_id") or event.get("subtype") or not event.get("user") or not event.get("channel"):
        return False
    if event.get("type") == "app_mention":
        return True
    return event.get("type") == "message" and event.get("channel_type") == "im"


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def recipient(thread: str) -> tuple[str, str]:
    """A conversation's thread as Slack's channel and thread ts."""
    channel, _, ts = thread.partition(":")
    return channel, ts


@dataclass(frozen=True)
class Call:
    method: str
    body: dict[str, Any]


AUTH_TEST = Call("auth.test", {})


def post_message(thread: str, text: str) -> Call:
    channel, ts = recipient(thread)
    body: dict[str, Any] = {"channel": channel, "text": text, "mrkdwn": True}
    if ts:
        body["thread_ts"] = ts
    return Call("chat.postMessage", body)


def set_status(channel: str, thread_ts: str, status: str) -> Call:
    """The thread's status line (Slack clears it when the app posts in the thread)."""
    return Call("assistant.threads.setStatus", {"channel_id": channel, "thread_ts": thread_ts, "status": status})


PERMANENT = frozenset(
    {
        "invalid_auth",
        "not_authed",
        "account_inactive",
        "token_revoked",
        "channel_not_found",
        "not_in_channel",
        "is_archived",
        "msg_too_long",
        "no_text",
        "restricted_action",
        "missing_scope",
    }
)
"""Errors of `chat.postMessage` that retrying cannot fix; any other (`ratelimited`, `fatal_error`,
`internal_error`, `service_unavailable`, ...) is tried again."""
