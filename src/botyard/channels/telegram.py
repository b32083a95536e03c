"""Telegram's Bot API (https://core.telegram.org/bots/api): the webhook's check, an update read as a delivery, and
the calls a channel makes (`getMe`, `setWebhook`, `sendMessage`, `sendChatAction`, `answerCallbackQuery`).

The webhook is registered with a `secret_token`, which Telegram sends back in `X-Telegram-Bot-Api-Secret-Token` on
every delivery: the only proof that a delivery is Telegram's, compared in constant time. An update's `update_id` is
its id and its order. Answered: a `message` with text (or a caption) from a person, and a `callback_query`, a
button of a reply's inline keyboard pressed (its `data` is the choice's token, `buttons`); not answered: edits,
channel posts, messages of bots, and every other kind of update.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from botyard.channels.buttons import Button
from botyard.channels.inbound import Delivery, NotTheShape, Pressed, Said

SECRET_HEADER = "x-telegram-bot-api-secret-token"  # noqa: S105 (a header name)
MAX_MESSAGE_CHARS = 4096
"""Telegram's limit on a message's text, counted after its entities are parsed."""
ALLOWED_UPDATES = ("message", "edited_message", "callback_query")


def signed(headers: Mapping[str, str], webhook_secret: str) -> bool:
    """Whether the delivery carries the channel's secret token."""
    given = headers.get(SECRET_HEADER, "")
    return bool(given) and hmac.compare_digest(given.encode(), webhook_secret.encode())


def delivery(update: Any) -> Delivery:
    """The update as a delivery; `NotTheShape` when it is not one."""
    if not isinstance(update, dict) or not isinstance(update.get("update_id"), int):
        raise NotTheShape("an update has an integer update_id")
    number = update["update_id"]
    message = update.get("message")
    if isinstance(update.get("callback_query"), dict):
        return Delivery(str(number), number, None, _pressed(update["callback_query"]))
    if not isinstance(message, dict):
        return Delivery(str(number), number, None)  # an edit, a channel post: nothing to answer
    sender, chat = message.get("from"), message.get("chat")
    if not isinstance(sender, dict) or not isinstance(chat, dict) or "id" not in chat or "id" not in sender:
        raise NotTheShape("a message has a chat and a sender with ids")
    text = message.get("text", message.get("caption", ""))
    if sender.get("is_bot") or not isinstance(text, str) or not text.strip():
        return Delivery(str(number), number, None)
    said = Said(str(sender["id"]), _name(sender), str(chat["id"]), text.strip())
    return Delivery(str(number), number, said)


def _pressed(query: dict[str, Any]) -> Pressed:
    sender = query.get("from")
    if not isinstance(sender, dict) or "id" not in sender or not isinstance(query.get("id"), str):
        raise NotTheShape("a callback_query has an id and a sender with an id")
    data = query.get("data")
    return Pressed(str(sender["id"]), _name(sender), data if isinstance(data, str) else "", query["id"])


def _name(sender: dict[str, Any]) -> str:
    name = " ".join(str(sender[part]) for part in ("first_name", "last_name") if sender.get(part))
    return name or str(sender.get("username", ""))


@dataclass(frozen=True)
class Call:
    """One Bot API method call: where it goes and what it sends."""

    method: str
    body: dict[str, Any]

    def url(self, base_url: str, token: str) -> str:
        return f"{base_url.rstrip('/')}/bot{token}/{self.method}"


def set_webhook(url: str, secret: str) -> Call:
    return Call("setWebhook", {"url": url, "secret_token": secret, "allowed_updates": list(ALLOWED_UPDATES)})


def send_message(chat_id: str, html: str | None, text: str, buttons: Sequence[Button] = ()) -> Call:
    """A message as HTML, or as plain text when `html` is None (Telegram refused the HTML), with its `buttons` as
    an inline keyboard, one button a row, each sending back its token as `callback_data`."""
    body: dict[str, Any] = {"chat_id": chat_id, "link_preview_options": {"is_disabled": True}}
    body |= {"text": text} if html is None else {"text": html, "parse_mode": "HTML"}
    if buttons:
        rows = [[{"text": button.text, "callback_data": button.id}] for button in buttons]
        body["reply_markup"] = {"inline_keyboard": rows}
    return Call("sendMessage", body)


def answer_callback(callback_query_id: str) -> Call:
    """The press seen: Telegram stops showing the button as waiting (no notice shown to the user)."""
    return Call("answerCallbackQuery", {"callback_query_id": callback_query_id})


def typing(chat_id: str) -> Call:
    return Call("sendChatAction", {"chat_id": chat_id, "action": "typing"})


def get_updates(offset: int, timeout: int) -> Call:
    """Long polling: the updates from `offset` on (which confirms every earlier one), waiting up to `timeout` s."""
    return Call("getUpdates", {"offset": offset, "timeout": timeout, "allowed_updates": list(ALLOWED_UPDATES)})


GET_ME = Call("getMe", {})
DELETE_WEBHOOK = Call("deleteWebhook", {})


@dataclass(frozen=True)
class Refusal:
    """Telegram's answer to a call that did not succeed (`ok: false`): what to do next follows from it."""

    status: int
    description: str
    retry_after: float | None = None

    @property
    def bad_markup(self) -> bool:
        """The HTML could not be parsed ("can't parse entities"): send the text plain."""
        return self.status == 400 and "parse entities" in self.description

    @property
    def passing(self) -> bool:
        """Worth trying again: too many requests (after `retry_after`), or Telegram's own trouble."""
        return self.status == 429 or self.status >= 500


def refusal(status: int, body: Any) -> Refusal:
    """Read Telegram's error body (`{"ok": false, "error_code", "description", "parameters": {"retry_after"}}`)."""
    if not isinstance(body, dict):
        return Refusal(status, f"http {status}")
    parameters = body.get("parameters") if isinstance(body.get("parameters"), dict) else {}
    after = parameters.get("retry_after") if parameters else None
    code = body.get("error_code")
    return Refusal(
        code if isinstance(code, int) else status,
        str(body.get("description", f"http {status}"))[:300],
        float(after) if isinstance(after, int | float) else None,
    )
