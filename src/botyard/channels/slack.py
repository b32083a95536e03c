"""Slack's Events API and Web API (https://docs.slack.dev/apis/events-api/): the signature check (with the
official SDK's `SignatureVerifier`), an event read as a delivery, and the Web API calls a channel makes
(`auth.test`, `chat.postMessage`). The calls themselves go through the egress client, not the SDK's HTTP client.
The app's interactivity requests (a button of a reply pressed: `block_actions`, form-encoded as `payload=` JSON)
come to the same URL, signed alike; one is read by its `trigger_id`, unique to the press.

Slack signs each request with the app's signing secret: `X-Slack-Signature: v0=` + HMAC-SHA256 of
`v0:{X-Slack-Request-Timestamp}:{body}`, refused when the timestamp is more than 5 minutes away. An event's
`event_id` is its id (Slack retries after 3 s without a 200, with `X-Slack-Retry-Num`). Answered: a direct message
to the bot (`message` in an `im`: the DM is one conversation, answered in it) and a mention of it (`app_mention`:
one conversation per thread, answered in the thread); not answered: edits and other subtypes, messages of bots (the
bot's own replies included).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from slack_sdk.signature import SignatureVerifier

from botyard.channels.buttons import Button
from botyard.channels.inbound import Delivery, NotTheShape, Pressed, Said

MAX_MESSAGE_CHARS = 3900
"""Slack shows up to 40,000 characters, but cuts a message's text for display after about 4,000: stay under it."""
MAX_SECTION_CHARS = 3000
"""A `section` block's text (a message with buttons) is at most 3,000 characters."""
CHOICES_BLOCK = "botyard_choices"
"""The `block_id` of a reply's buttons: an action of another block (another app's message) is not a choice."""


@dataclass(frozen=True)
class Challenge:
    """Slack's `url_verification` request when the Events URL is saved: answered with its `challenge`."""

    challenge: str


def signed(headers: Mapping[str, str], body: bytes, signing_secret: str) -> bool:
    try:
        return SignatureVerifier(signing_secret).is_valid_request(body, dict(headers))
    except (ValueError, UnicodeDecodeError):  # a timestamp that is not a number, a body that is not UTF-8
        return False


def parsed(body: bytes, content_type: str) -> Any:
    """The request's body: an event's JSON, or an interactivity request's `payload` (form-encoded JSON); ValueError
    when it is neither."""
    if content_type.split(";")[0].strip().lower() != "application/x-www-form-urlencoded":
        return json.loads(body)
    payload = parse_qs(body.decode(), strict_parsing=True).get("payload")
    if not payload:
        raise ValueError("an interactivity request carries a payload")
    return json.loads(payload[0])


def delivery(envelope: Any, bot_user_id: str = "") -> Delivery | Challenge:
    """The request as a delivery (or the URL's verification); `NotTheShape` when it is neither. `bot_user_id`:
    the bot's own user (its messages are not answered, its mention is taken out of the question)."""
    if not isinstance(envelope, dict):
        raise NotTheShape("a Slack request is a JSON object")
    if envelope.get("type") == "url_verification" and isinstance(envelope.get("challenge"), str):
        return Challenge(envelope["challenge"])
    if envelope.get("type") == "block_actions":
        return _pressed(envelope)
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


def _pressed(payload: dict[str, Any]) -> Delivery:
    """A `block_actions` payload: a button of our choices block pressed (another block's action: nothing)."""
    user, actions, trigger = payload.get("user"), payload.get("actions"), payload.get("trigger_id")
    if not isinstance(user, dict) or not isinstance(user.get("id"), str) or not isinstance(trigger, str):
        raise NotTheShape("a block_actions payload has a user with an id and a trigger_id")
    if not isinstance(actions, list) or not actions or not isinstance(actions[0], dict):
        raise NotTheShape("a block_actions payload has actions")
    action = actions[0]
    ts = str(action.get("action_ts", ""))
    external, position = f"action:{trigger}"[:128], int(float(ts) * 1_000_000) if _number(ts) else 0
    if action.get("block_id") != CHOICES_BLOCK or not isinstance(action.get("value"), str):
        return Delivery(external, position, None)
    name = str(user.get("name") or user.get("username") or "")
    return Delivery(external, position, None, Pressed(user["id"], name, action["value"]))


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


def post_message(thread: str, text: str, buttons: Sequence[Button] = ()) -> Call:
    """A message in mrkdwn; with `buttons`, as Block Kit: its text a `section`, then an `actions` block of one
    button per choice, each sending back its token as `value` (`text` stays, for notifications)."""
    channel, ts = recipient(thread)
    body: dict[str, Any] = {"channel": channel, "text": text, "mrkdwn": True}
    if ts:
        body["thread_ts"] = ts
    if buttons:
        elements = [
            {
                "type": "button",
                "action_id": f"choice_{number}",
                "text": {"type": "plain_text", "text": button.text, "emoji": True},
                "value": button.id,
            }
            for number, button in enumerate(buttons)
        ]
        body["blocks"] = [
            {"type": "section", "text": {"type": "mrkdwn", "text": text}},
            {"type": "actions", "block_id": CHOICES_BLOCK, "elements": elements},
        ]
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
