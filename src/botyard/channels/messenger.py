"""Messenger's and Instagram's Send and Webhook APIs (https://developers.facebook.com/docs/messenger-platform):
the same shapes for both, a delivery read as a batch, and the messages a channel sends.

A delivery (`object: page` or `instagram`) carries `entry[].messaging[]`, each an event of one customer (`sender.id`,
their page-scoped id: the conversation's identity and where a reply goes). Answered: a `message` with text, a quick
reply pressed (`message.quick_reply.payload`) and a button's `postback.payload` (both the choice's token,
`buttons`). Not answered: our own messages echoed back (`message.is_echo`), attachments without text, and other
events. `delivery` and `read` are statuses of the messages sent (by their `mid`; Messenger's read, by its watermark,
marks what the conversation was sent before it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from botyard.channels import buttons, render
from botyard.channels.buttons import Button, Limits
from botyard.channels.inbound import Delivery, NotTheShape, Pressed, Said, Status
from botyard.channels.meta import Batch, external_id
from botyard.models import ChannelType

OBJECTS = {ChannelType.MESSENGER.value: "page", ChannelType.INSTAGRAM.value: "instagram"}
MAX_TEXT_CHARS = {ChannelType.MESSENGER.value: 2000, ChannelType.INSTAGRAM.value: 1000}
QUICK_REPLIES = Limits(most=13, chars=20)
"""At most 13 quick replies, each title at most 20 characters."""
HUMAN_AGENT_DAYS = 7
"""The `HUMAN_AGENT` tag: a person's reply up to 7 days after the customer's last message."""
DIALECT = render.Dialect(
    marks={"heading": ("", "")},
    link=lambda href: ("", f" ({href})"),
    code=lambda text: text,
    pre=lambda text: text,
    quote=("", ""),
    escape=lambda text: text,
)
"""Plain text: Messenger and Instagram show no markup; a link as its address after its text."""


def batch(update: Any, kind: str, account_id: str) -> Batch:
    """The delivery's messages and statuses for this channel's page (or Instagram account); `NotTheShape` when it
    is not one."""
    if not isinstance(update, dict) or update.get("object") != OBJECTS[kind]:
        raise NotTheShape(f"a {kind} delivery's object is {OBJECTS[kind]}")
    deliveries: list[Delivery] = []
    statuses: list[Status] = []
    for entry in _dicts(update.get("entry")):
        if str(entry.get("id", "")) != account_id:
            continue  # another page (account) of the same Meta app
        for event in _dicts(entry.get("messaging")):
            sender = _dict(event.get("sender"))
            user = str(sender.get("id", ""))
            if isinstance(event.get("delivery"), dict):
                statuses.extend(Status(str(mid), "delivered") for mid in event["delivery"].get("mids") or [])
            elif isinstance(event.get("read"), dict) and isinstance(event["read"].get("mid"), str):
                statuses.append(Status(event["read"]["mid"], "read"))
            elif user:
                deliveries.append(_delivery(event, user))
    return Batch(deliveries, statuses)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _delivery(event: dict[str, Any], user: str) -> Delivery:
    stamp = event.get("timestamp")
    position = stamp if isinstance(stamp, int) else 0
    message, postback = event.get("message"), event.get("postback")
    if isinstance(postback, dict):
        mid = str(postback.get("mid") or f"postback:{user}:{position}")
        payload = postback.get("payload")
        pressed = Pressed(user, "", payload) if isinstance(payload, str) else None
        return Delivery(external_id(mid), position, None, pressed, {"message_id": mid})
    if not isinstance(message, dict) or not isinstance(message.get("mid"), str):
        raise NotTheShape("a messaging event has a message with a mid, a postback or a status")
    mid = message["mid"]
    details = {"message_id": mid}
    quick = message.get("quick_reply")
    if message.get("is_echo"):
        return Delivery(external_id(mid), position, None, None, details)  # our own message, echoed back
    if isinstance(quick, dict) and isinstance(quick.get("payload"), str):
        return Delivery(external_id(mid), position, None, Pressed(user, "", quick["payload"]), details)
    text = message.get("text")
    if not isinstance(text, str) or not text.strip():
        return Delivery(external_id(mid), position, None, None, details)
    return Delivery(external_id(mid), position, Said(user, "", user, text.strip()), None, details)


def shown(reply_uuid: str, choices: Sequence[str]) -> list[Button]:
    return buttons.shown(reply_uuid, choices, QUICK_REPLIES)


def message(to: str, text: str, keys: Sequence[Button] = (), tag: str | None = None) -> dict[str, Any]:
    """A text (with its choices as quick replies): a `RESPONSE` within the 24-hour window, else a `MESSAGE_TAG`
    with `tag` (`HUMAN_AGENT`)."""
    content: dict[str, Any] = {"text": text}
    if keys:
        content["quick_replies"] = [{"content_type": "text", "title": key.text, "payload": key.id} for key in keys]
    body: dict[str, Any] = {"recipient": {"id": to}, "messaging_type": "RESPONSE", "message": content}
    if tag is not None:
        body |= {"messaging_type": "MESSAGE_TAG", "tag": tag}
    return body


def attachment(to: str, kind: str, link: str, tag: str | None = None) -> dict[str, Any]:
    """An image or a file by its link (`kind`: `image` or `file`)."""
    content = {"attachment": {"type": kind, "payload": {"url": link, "is_reusable": False}}}
    body: dict[str, Any] = {"recipient": {"id": to}, "messaging_type": "RESPONSE", "message": content}
    if tag is not None:
        body |= {"messaging_type": "MESSAGE_TAG", "tag": tag}
    return body


def action(to: str, sender_action: str) -> dict[str, Any]:
    """`mark_seen` or `typing_on`."""
    return {"recipient": {"id": to}, "sender_action": sender_action}
