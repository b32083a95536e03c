"""Twilio's Programmable Messaging (https://www.twilio.com/docs/messaging): a webhook's signature, a delivery read
as one, the opt-out keywords, and the shapes of the REST calls (`Accounts/{sid}.json`, `Messages.json`).

Twilio signs every webhook with `X-Twilio-Signature`: base64 of an HMAC-SHA1, keyed with the account's auth token,
over the full URL Twilio was given (scheme, host, path and query) followed by each POST parameter's name and value,
sorted by name (https://www.twilio.com/docs/usage/webhooks/webhooks-security). The URL is the public one
(BOTYARD_PUBLIC_URL and the path): behind a proxy, the request's own URL differs from what Twilio signed.

Two kinds of webhook reach a channel's inbound URL: a message (`MessageSid`, `From`, `To`, `Body`), and the status
of a message we sent (`MessageSid`, `MessageStatus`, `ErrorCode`), to the `StatusCallback` each send names.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from botyard.channels.inbound import Delivery, NotTheShape, Said
from botyard.contacts import phones
from botyard.models import ReceiptStatus

SIGNATURE_HEADER = "x-twilio-signature"
API_VERSION = "2010-04-01"
UNSUBSCRIBED = 21610
"""Twilio's error: the recipient has replied STOP to this sender (nothing reaches them until they send START)."""
ACCOUNT_SID = re.compile(r"AC[0-9a-fA-F]{32}")
SERVICE_SID = re.compile(r"MG[0-9a-fA-F]{32}")


class Keyword(StrEnum):
    """What a whole message can ask of the channel itself, rather than of the chatbot."""

    STOP = "stop"
    START = "start"
    HELP = "help"


KEYWORDS: Mapping[str, Keyword] = {
    **dict.fromkeys(("STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "REVOKE", "OPTOUT"), Keyword.STOP),
    **dict.fromkeys(("START", "YES", "UNSTOP"), Keyword.START),
    **dict.fromkeys(("HELP", "INFO"), Keyword.HELP),
}
"""Twilio's default opt-out, opt-in and help keywords (its Advanced Opt-Out's defaults), matched as the whole
message, whatever the case."""


def keyword(text: str) -> Keyword | None:
    """The keyword a message is (`stop ` and `Stop.` are STOP), or None for a message to answer."""
    return KEYWORDS.get(text.strip().rstrip(".!").strip().upper())


def signature(auth_token: str, url: str, params: Sequence[tuple[str, str]]) -> str:
    """The signature Twilio computes for a POST of `params` to `url`."""
    data = url + "".join(name + value for name, value in sorted(params, key=lambda item: item[0]))
    mac = hmac.new(auth_token.encode(), data.encode(), hashlib.sha1).digest()
    return base64.b64encode(mac).decode()


def signed(headers: Mapping[str, str], url: str, params: Sequence[tuple[str, str]], auth_token: str) -> bool:
    """Whether the webhook carries Twilio's signature of these parameters to this URL, in constant time."""
    given = headers.get(SIGNATURE_HEADER, "")
    expected = signature(auth_token, url, params)
    return bool(given) and hmac.compare_digest(given.encode(), expected.encode())


@dataclass(frozen=True)
class Status:
    """A status callback: how far one of our messages has gone."""

    message_sid: str
    status: ReceiptStatus
    error: str


_STATUSES = {
    "queued": ReceiptStatus.SENT,
    "accepted": ReceiptStatus.SENT,
    "sending": ReceiptStatus.SENT,
    "sent": ReceiptStatus.SENT,
    "delivered": ReceiptStatus.DELIVERED,
    "read": ReceiptStatus.READ,
    "undelivered": ReceiptStatus.FAILED,
    "failed": ReceiptStatus.FAILED,
}


@dataclass(frozen=True)
class Message:
    """A message to the channel: the delivery (its `said` None when there is nothing to ask the chatbot) and the
    keyword it is, if one."""

    delivery: Delivery
    keyword: Keyword | None
    user: str
    """The sender in E.164 (`phones.canonical`): one identity whatever the spelling."""
    to: str
    """The channel's number the message was sent to."""


def webhook(params: Mapping[str, str]) -> Message | Status:
    """The webhook's parameters as a message or a status; `NotTheShape` when they are neither."""
    sid = params.get("MessageSid") or params.get("SmsSid") or ""
    if not sid:
        raise NotTheShape("a Twilio webhook has a MessageSid")
    if "MessageStatus" in params and "Body" not in params:
        status = _STATUSES.get(params["MessageStatus"].lower())
        if status is None:
            raise NotTheShape(f"MessageStatus is one of {sorted(_STATUSES)}")
        code = params.get("ErrorCode", "")
        return Status(sid[:255], status, f"Twilio error {code}" if code else "")
    sender, to, body = params.get("From", ""), params.get("To", ""), params.get("Body", "")
    try:
        user = phones.canonical(sender)
    except phones.NotAPhoneNumber:
        raise NotTheShape("From is a phone number in international form") from None
    said = Said(user, "", to[:128], body.strip()) if body.strip() else None
    found = keyword(body)
    return Message(Delivery(sid[:128], 0, None if found else said), found, user, to[:128])


def message_form(to: str, sender: str, body: str, status_callback: str | None) -> dict[str, str]:
    """`Messages.json`'s form: from the channel's number (`+...`) or through its Messaging Service (`MG...`)."""
    form = {"To": to, "Body": body}
    form |= {"MessagingServiceSid": sender} if SERVICE_SID.fullmatch(sender) else {"From": sender}
    if status_callback:
        form["StatusCallback"] = status_callback
    return form


@dataclass(frozen=True)
class Refusal:
    """Twilio's error body (`{"code", "message", "more_info", "status"}`)."""

    status: int
    code: int | None
    message: str

    @property
    def passing(self) -> bool:
        """Worth trying again: too many requests, or Twilio's own trouble."""
        return self.status == 429 or self.status >= 500

    @property
    def unsubscribed(self) -> bool:
        return self.code == UNSUBSCRIBED


def refusal(status: int, body: Any) -> Refusal:
    if not isinstance(body, dict):
        return Refusal(status, None, f"http {status}")
    code = body.get("code")
    message = str(body.get("message") or f"http {status}")[:300]
    return Refusal(status, code if isinstance(code, int) else None, message)
