"""WhatsApp's Cloud API (https://developers.facebook.com/docs/whatsapp/cloud-api): a webhook delivery read as a
batch of messages and statuses, and the messages a channel sends.

One POST carries `entry[].changes[].value` objects, each with the number it is for (`metadata.phone_number_id`;
another number's is not this channel's, and is ignored), the senders' profiles (`contacts[]`), and any number of
`messages[]` and `statuses[]`. Answered: a text, a reply button or list row pressed (`interactive`, whose id is the
choice's token, `buttons`), a template's quick reply (`button`, asked as its text); not answered: every other type
(an image, a reaction, a location, ...). A customer is their number in E.164 (`phones.canonical`: a Brazilian
number without its ninth digit is the same person as the one with it); a reply goes to the `wa_id` Meta gave, kept
in the event's details.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from botyard.channels import buttons, render
from botyard.channels.buttons import Button, Limits
from botyard.channels.inbound import Delivery, NotTheShape, Pressed, Said, Status
from botyard.channels.meta import Batch, external_id
from botyard.contacts import phones

MAX_TEXT_CHARS = 4096
MAX_BUTTON_TITLE = 20
MAX_ROW_TITLE = 24
BUTTONS = Limits(most=3, chars=MAX_BUTTON_TITLE)
"""Reply buttons: at most 3, each title at most 20 characters."""
LIST = Limits(most=10, chars=MAX_ROW_TITLE)
"""A list message: at most 10 rows, each title at most 24 characters."""
MAX_INTERACTIVE_BODY = 1024
LIST_BUTTON = "Choose"
DIALECT = render.Dialect(
    marks={"strong": ("*", "*"), "em": ("_", "_"), "s": ("~", "~"), "heading": ("*", "*")},
    link=lambda href: ("", f" ({href})"),
    code=lambda text: f"`{text}`",
    pre=lambda text: f"```{text}```",
    quote=("> ", ""),
    escape=lambda text: text,
)
"""WhatsApp's own markup (*bold* _italic_ ~strike~ ```mono```); a link as its address after its text."""


def batch(update: Any, phone_number_id: str) -> Batch:
    """The delivery's messages and statuses for this channel's number; `NotTheShape` when it is not one."""
    if not isinstance(update, dict) or update.get("object") != "whatsapp_business_account":
        raise NotTheShape("a WhatsApp delivery's object is whatsapp_business_account")
    deliveries: list[Delivery] = []
    statuses: list[Status] = []
    for value in _values(update):
        metadata = _dict(value.get("metadata"))
        if str(metadata.get("phone_number_id", "")) != phone_number_id:
            continue  # another number of the same Meta app
        names = _names(value.get("contacts"))
        for index, message in enumerate(_dicts(value.get("messages"))):
            deliveries.append(_delivery(message, names, index))
        statuses.extend(_status(status) for status in _dicts(value.get("statuses")))
    return Batch(deliveries, statuses)


def _values(update: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for entry in _dicts(update.get("entry")):
        for change in _dicts(entry.get("changes")):
            if isinstance(change.get("value"), dict):
                yield change["value"]


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _names(contacts: Any) -> dict[str, str]:
    names = {}
    for contact in _dicts(contacts):
        profile = _dict(contact.get("profile"))
        names[str(contact.get("wa_id", ""))] = str(profile.get("name", ""))
    return names


def customer(wa_id: str) -> str:
    """The customer's identity: their number in E.164 (the raw id when it is not a number)."""
    try:
        return phones.canonical(wa_id)
    except phones.NotAPhoneNumber:
        return wa_id


def _delivery(message: dict[str, Any], names: dict[str, str], index: int) -> Delivery:
    wamid, wa_id = message.get("id"), message.get("from")
    if not isinstance(wamid, str) or not wamid or not isinstance(wa_id, str) or not wa_id:
        raise NotTheShape("a WhatsApp message has an id and a sender")
    stamp = str(message.get("timestamp", "0"))
    position = (int(stamp) if stamp.isdigit() else 0) * 1000 + index
    user, name, details = customer(wa_id), names.get(wa_id, ""), {"wa_id": wa_id, "message_id": wamid}
    kind = message.get("type")
    text = ""
    if kind == "text" and isinstance(message.get("text"), dict):
        text = str(message["text"].get("body", "")).strip()
    elif kind == "interactive" and isinstance(message.get("interactive"), dict):
        interactive = message["interactive"]
        reply = interactive.get("button_reply") or interactive.get("list_reply")
        if isinstance(reply, dict) and isinstance(reply.get("id"), str):
            return Delivery(external_id(wamid), position, None, Pressed(user, name, reply["id"]), details)
    elif kind == "button" and isinstance(message.get("button"), dict):
        text = str(message["button"].get("text", "")).strip()
    if not text:
        return Delivery(external_id(wamid), position, None, None, details)
    return Delivery(external_id(wamid), position, Said(user, name, user, text), None, details)


def _status(status: dict[str, Any]) -> Status:
    errors = _dicts(status.get("errors"))
    error = ""
    if errors:
        first = errors[0]
        error = f"WhatsApp #{first.get('code', '?')}: {first.get('title') or first.get('message') or 'failed'}"
    return Status(str(status.get("id", "")), str(status.get("status", "")), error)


def text(to: str, body: str) -> dict[str, Any]:
    return {
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
        "to": to,
        "type": "text",
        "text": {"body": body, "preview_url": False},
    }


def interactive(to: str, body: str, keys: Sequence[Button]) -> dict[str, Any]:
    """The choices as up to 3 reply buttons, else as a list of up to 10 rows (`choice_shown` chose which)."""
    if len(keys) <= BUTTONS.most and all(len(key.text) <= MAX_BUTTON_TITLE for key in keys):
        buttons = [{"type": "reply", "reply": {"id": key.id, "title": key.text}} for key in keys]
        action: dict[str, Any] = {"buttons": buttons}
        kind = "button"
    else:
        rows = [{"id": key.id, "title": key.text} for key in keys]
        action = {"button": LIST_BUTTON, "sections": [{"title": "Choices", "rows": rows}]}
        kind = "list"
    return {
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
        "to": to,
        "type": "interactive",
        "interactive": {"type": kind, "body": {"text": body}, "action": action},
    }


def shown(reply_uuid: str, choices: Sequence[str]) -> list[Button]:
    """The choices as buttons or list rows, or none (numbered lines) when they fit neither."""
    return buttons.shown(reply_uuid, choices, BUTTONS) or buttons.shown(reply_uuid, choices, LIST)


def media(to: str, kind: str, link: str) -> dict[str, Any]:
    """An image or a document by its link (Meta fetches it)."""
    return {
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
        "to": to,
        "type": kind,
        kind: {"link": link},
    }


def template(to: str, name: str, language: str, body: str | None) -> dict[str, Any]:
    """The approved template `name`, its body's one parameter the reply's text (`body`; None: no parameter)."""
    content: dict[str, Any] = {"name": name, "language": {"code": language}}
    if body is not None:
        content["components"] = [{"type": "body", "parameters": [{"type": "text", "text": body}]}]
    return {
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
        "to": to,
        "type": "template",
        "template": content,
    }


MARK_READ = "read"
"""The Cloud API's own word for marking a customer's message read (`status`), not a receipt's stored status."""


def read_and_typing(wamid: str) -> dict[str, Any]:
    """The customer's message marked as read, with the typing indicator (shown up to 25 s or until the reply)."""
    return {
        "messaging_product": "whatsapp",
        "status": MARK_READ,
        "message_id": wamid,
        "typing_indicator": {"type": "text"},
    }
