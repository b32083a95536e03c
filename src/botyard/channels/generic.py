"""The generic channel: any system (a helpdesk, a phone system, an in-house app) that speaks signed JSON, in the
shape of Chatwoot's API channel and Intercom's custom channel.

Both directions are signed as our webhooks are (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
`webhook-signature`, HMAC-SHA256 of `{id}.{timestamp}.{body}` with the channel's `whsec_` secret). Inbound, POSTed to
the channel's URL:

    {"id": "evt-1", "type": "message", "user": {"id": "u-7", "name": "Ada"}, "thread": "t-1", "text": "Hello?"}

`id` is the event's own id (a repeat is answered once); `type` is `message`, `button` (a button pressed: its
`button_id`, one of the `buttons` a reply carried, is asked as that choice's text; without one, its `text`, as a
message) or `conversation_closed` (nothing to answer). Outbound, POSTed to the channel's `callback_url`, with the
same `user` and `thread`: `typing` (an answer is being made), `message` (`text` as Markdown, `citations`: the bot's
answer or an operator's reply; the answer's choices as `buttons` `[{"id", "text"}]`), `handoff` (an operator took
the conversation over: `operator.name`, and the announcement as `text`) and `resolved` (the operator ended the live
chat, the bot answers again; the announcement as `text`).
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Mapping, Sequence
from typing import Any

from botyard.channels.buttons import Button
from botyard.channels.inbound import Delivery, NotTheShape, Pressed, Said
from botyard.models import MessageKind
from botyard.outbox import signing

TOLERANCE_SECONDS = 5 * 60
"""How far a delivery's timestamp may be from our clock: an older one is a replay."""
ANSWERED_TYPES = frozenset({"message", "button"})
KNOWN_TYPES = ANSWERED_TYPES | {"conversation_closed"}


def signed(headers: Mapping[str, str], body: bytes, secret: str, now: float | None = None) -> bool:
    """Whether the delivery's signature is the channel's, over these exact bytes, and recent."""
    event_id, stamp = headers.get("webhook-id", ""), headers.get("webhook-timestamp", "")
    given = headers.get("webhook-signature", "")
    if not event_id or not stamp.isdigit() or not given:
        return False
    if abs((time.time() if now is None else now) - int(stamp)) > TOLERANCE_SECONDS:
        return False
    expected = signing.signature(secret, event_id, int(stamp), body).encode()
    # A sender may list several signatures (a rotation): any one of them will do.
    return any(hmac.compare_digest(expected, part.encode()) for part in given.split())


def delivery(event: Any) -> Delivery:
    """The event as a delivery; `NotTheShape` when it is not one."""
    if not isinstance(event, dict) or not isinstance(event.get("id"), str) or not event["id"]:
        raise NotTheShape("an event has a string id")
    kind, user = event.get("type"), event.get("user")
    if kind not in KNOWN_TYPES:
        raise NotTheShape(f"type is one of {sorted(KNOWN_TYPES)}")
    if kind not in ANSWERED_TYPES:
        return Delivery(event["id"][:128], 0, None)
    text, button = event.get("text"), event.get("button_id")
    if kind == "button" and isinstance(button, str) and isinstance(user, dict) and isinstance(user.get("id"), str):
        pressed = Pressed(user["id"][:128], str(user.get("name", ""))[:200], button)
        return Delivery(event["id"][:128], 0, None, pressed)
    if not isinstance(user, dict) or not isinstance(user.get("id"), str) or not isinstance(text, str):
        raise NotTheShape("a message has user.id and text, strings; a button, user.id and button_id")
    thread = event.get("thread", "")
    said = Said(user["id"][:128], str(user.get("name", ""))[:200], str(thread)[:128], text.strip())
    return Delivery(event["id"][:128], 0, said if said.text else None)


OUTBOUND_TYPES = {MessageKind.LIVE_CHAT_START: "handoff", MessageKind.LIVE_CHAT_END: "resolved"}
"""The live-chat rows that are events of their own on this channel; every other reply is a `message`."""


def outbound(
    event_id: str,
    user_id: str,
    thread: str,
    text: str,
    citations: list[dict[str, Any]],
    kind: MessageKind | None = None,
    operator: str | None = None,
    buttons: Sequence[Button] = (),
) -> dict[str, Any]:
    """The canonical reply as the generic channel receives it: `kind`, the live-chat row's, names its type; the
    answer's choices as `buttons` (`[]`: none)."""
    event: dict[str, Any] = {
        "id": event_id,
        "type": OUTBOUND_TYPES.get(kind, "message") if kind is not None else "message",
        "user": {"id": user_id},
        "thread": thread,
        "text": text,
        "citations": citations,
    }
    if event["type"] == "message":
        event["buttons"] = [{"id": button.id, "text": button.text} for button in buttons]
    if event["type"] == "handoff" and operator:
        event["operator"] = {"name": operator}
    return event
